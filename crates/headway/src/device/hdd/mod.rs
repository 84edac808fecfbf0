//! The hard-disk device: the truth about a drive's timing.
//!
//! Service of one command: controller overhead, then the mechanical access (seek or head
//! switch, write settle, rotational latency, media transfer across track and cylinder
//! boundaries with their skews), then whatever part of the bus transfer did not overlap the
//! media transfer, then completion overhead. The firmware queue here is FCFS; the cache,
//! read-ahead and firmware scheduling policies are separate stages that plug in at
//! [`HddDevice::start_next`] (the seam the fidelity work fills).

pub mod layout;
pub mod mechanics;
pub mod seek;
pub mod spec;

use std::collections::VecDeque;
use std::sync::Arc;

use super::{Device, DeviceInfo, DeviceIo};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Completion, HeadPosition, Op, Phases};
use crate::time::{ms_to_ns, SimTime};
pub use mechanics::{MechAccess, Mechanics};
pub use spec::HddSpec;

/// Controller overheads resolved to nanoseconds (DiskSim's "time scale" applied).
#[derive(Clone, Copy, Debug, Default)]
pub struct Overheads {
    /// Indexed [previous op][this op]: read miss after read, etc.
    pub miss_ns: [[SimTime; 2]; 2],
    pub completion_ns: [SimTime; 2],
    pub per_request_ns: SimTime,
    pub bus_sector_ns: f64,
}

impl Overheads {
    pub fn from_spec(spec: &HddSpec) -> Self {
        let o = &spec.overheads;
        let scale = if o.time_scale > 0.0 {
            o.time_scale
        } else {
            1.0
        };
        let s = |ms: f64| ms_to_ns(ms * scale);
        Overheads {
            miss_ns: [
                [s(o.read_miss_after_read_ms), s(o.write_miss_after_read_ms)],
                [
                    s(o.read_miss_after_write_ms),
                    s(o.write_miss_after_write_ms),
                ],
            ],
            completion_ns: [s(o.read_completion_ms), s(o.write_completion_ms)],
            per_request_ns: s(o.per_request_ms),
            bus_sector_ns: spec.bus.sector_transfer_ms * 1e6,
        }
    }

    #[inline]
    pub fn command_ns(&self, prev: Op, op: Op) -> SimTime {
        self.per_request_ns + self.miss_ns[prev as usize][op as usize]
    }
}

struct InService {
    cmd: Command,
    phases: Phases,
    done_ns: SimTime,
    head: HeadPosition,
}

/// A simulated hard disk.
pub struct HddDevice {
    info: DeviceInfo,
    mech: Arc<Mechanics>,
    overheads: Overheads,
    head: HeadPosition,
    last_op: Op,
    queue: VecDeque<Command>,
    current: Option<InService>,
}

impl HddDevice {
    /// A drive built from `spec`, accepting up to `queue_depth` commands at once.
    pub fn new(spec: &HddSpec, queue_depth: usize) -> Result<Self> {
        if queue_depth == 0 {
            return Err(HeadwayError::config("queue_depth", "must be at least 1"));
        }
        let mech = Arc::new(Mechanics::new(spec)?);
        Ok(Self::with_mechanics(spec, mech, queue_depth))
    }

    /// Share an already-built mechanical model (the oracle predictor holds the same one).
    pub fn with_mechanics(spec: &HddSpec, mech: Arc<Mechanics>, queue_depth: usize) -> Self {
        HddDevice {
            info: DeviceInfo {
                name: spec.name.clone(),
                capacity_sectors: mech.layout.capacity_sectors(),
                queue_depth,
            },
            mech,
            overheads: Overheads::from_spec(spec),
            head: HeadPosition::default(),
            last_op: Op::Read,
            queue: VecDeque::with_capacity(queue_depth),
            current: None,
        }
    }

    pub fn mechanics(&self) -> &Arc<Mechanics> {
        &self.mech
    }

    pub fn overheads(&self) -> &Overheads {
        &self.overheads
    }

    pub fn head(&self) -> HeadPosition {
        self.head
    }

    /// Predicted service of `cmd` if started at `now` from the current head: used by the
    /// device itself and, through the oracle, by the host.
    pub fn plan(&self, now: SimTime, cmd: &Command) -> (Phases, SimTime, HeadPosition) {
        plan_service(
            &self.mech,
            &self.overheads,
            self.head,
            self.last_op,
            now,
            cmd.lbn,
            cmd.sectors,
            cmd.op,
        )
    }

    fn start_next(&mut self, now: SimTime, io: &mut DeviceIo) {
        debug_assert!(self.current.is_none());
        let Some(cmd) = self.queue.pop_front() else {
            return;
        };
        let (phases, done_ns, head) = self.plan(now, &cmd);
        io.wake_at(done_ns, 0);
        self.current = Some(InService {
            cmd,
            phases,
            done_ns,
            head,
        });
    }
}

/// The service-time computation, as a free function so the oracle predictor can run it
/// against its own belief of the head and last operation.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn plan_service(
    mech: &Mechanics,
    ovh: &Overheads,
    head: HeadPosition,
    last_op: Op,
    now: SimTime,
    lbn: u64,
    sectors: u32,
    op: Op,
) -> (Phases, SimTime, HeadPosition) {
    let overhead_ns = ovh.command_ns(last_op, op);
    let acc = mech.access(head, now + overhead_ns, lbn, sectors, op);
    // The bus moves data while the media does; only the part of the bus transfer that does
    // not fit under the media transfer (and the last sector's trip) is added.
    let bus_total = ovh.bus_sector_ns * sectors as f64;
    let bus_ns = if bus_total > 0.0 {
        let tail = (bus_total - acc.transfer_ns as f64).max(ovh.bus_sector_ns);
        (tail + 0.5) as SimTime
    } else {
        0
    };
    let phases = Phases {
        start_ns: now,
        overhead_ns,
        seek_ns: acc.seek_ns,
        rotate_ns: acc.rotate_ns,
        transfer_ns: acc.transfer_ns,
        bus_ns,
    };
    let done = now + overhead_ns + acc.total_ns() + bus_ns + ovh.completion_ns[op as usize];
    (phases, done, acc.end)
}

impl Device for HddDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        self.queue.push_back(cmd);
        if self.current.is_none() {
            self.start_next(now, io);
        }
    }

    fn wake(&mut self, now: SimTime, _token: u64, io: &mut DeviceIo) {
        let Some(done) = self.current.take() else {
            return;
        };
        debug_assert_eq!(done.done_ns, now);
        self.head = done.head;
        self.last_op = done.cmd.op;
        let head_lbn = done.cmd.end_lbn();
        io.complete(Completion {
            command: done.cmd,
            done_ns: now,
            phases: done.phases,
            cache_hit: false,
            head: done.head,
            head_lbn,
        });
        self.start_next(now, io);
    }

    fn outstanding(&self) -> usize {
        self.queue.len() + self.current.is_some() as usize
    }
}
