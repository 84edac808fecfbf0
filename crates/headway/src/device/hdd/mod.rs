//! The hard-disk device: the truth about a drive's timing.
//!
//! A command passes through the firmware queue ([`firmware_queue`]), then the controller
//! ([`service`]): overheads ([`overheads`]), the on-board buffer ([`cache`]) with read-ahead
//! ([`readahead`]), the mechanism ([`mechanics`], [`media`]) and the bus ([`bus`]). All of it
//! is driven by the drive's parameters (`HddSpec`), which DiskSim's files fill completely.

pub mod bus;
mod bus_tenant;
pub mod cache;
pub mod dual;
pub mod dual_halves;
pub mod firmware_freeblock;
pub mod firmware_queue;
mod firmware_scheduler;
pub mod interface;
pub mod layout;
pub mod mechanics;
pub mod media;
mod num;
pub mod overheads;
mod overlap;
pub mod readahead;
mod readahead_hold;
pub mod seek;
mod segment_full;
pub mod self_model;
pub mod service;
pub mod spec;

use std::sync::Arc;

use super::{Device, DeviceInfo, DeviceIo};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Completion, HeadPosition, Op, Phases};
use crate::time::SimTime;
pub use firmware_freeblock::{FirmwareFreeReport, FirmwareFreeblock, FirmwareFreeblockConfig};
pub use firmware_queue::{policy_name, FirmwareQueue, SptfAngle, FIRMWARE_SCHEDULERS};
pub use firmware_scheduler::FirmwareScheduler;
pub use mechanics::{MechAccess, Mechanics};
pub use overheads::Overheads;
pub use self_model::SelfModel;
pub use service::{BufferStats, Drive, Served};
pub use spec::HddSpec;

struct InService {
    cmd: Command,
    served: Served,
    /// The wake-up token of its completion (a new one when an arrival moves it).
    token: u64,
    /// When it asks for the bus back if it asked during an arrival's hold: that hold's end.
    ask_at_ns: Option<SimTime>,
}

/// A simulated hard disk.
/// The deepest command queue a drive may be given: NVMe's 65,536 (SATA queues 32, SAS a few
/// hundred). The queue's slots are allocated up front, so the bound keeps a typo from
/// asking for terabytes.
pub const MAX_QUEUE_DEPTH: usize = 1 << 16;

/// The wake-up token of a choice the firmware held until a write-back's end.
const PICK_TOKEN: u64 = 1;
/// Completions wake with tokens from here up, one per (re)scheduling, so that a completion
/// moved by an arrival ignores its earlier wake-up.
const FIRST_DONE_TOKEN: u64 = 2;
/// The wake-up token of the moment the mechanism is done with the command in service, under
/// bus overlap (`overlap`): far above any completion token.
const EARLY_TOKEN: u64 = u64::MAX;

pub struct HddDevice {
    info: DeviceInfo,
    drive: Drive,
    queue: FirmwareQueue,
    current: Option<InService>,
    /// When the firmware will choose its next command, if it is holding the choice until a
    /// write-back under way ends (see `pick_next`).
    pick_at: Option<SimTime>,
    /// Free reads planned in the firmware (`firmware_freeblock`); `None`: off.
    freeblock: Option<FirmwareFreeblock>,
    /// The next completion token.
    next_token: u64,
    /// Until when the arriving commands' overheads hold the bus (ns), while a read miss is
    /// in service (`arrival_on_bus`).
    held_until: SimTime,
    /// Commands that asked for the bus after the command in service did: they reach the
    /// drive at its completion, once the firmware has chosen the next command without them
    /// (`arrival_on_bus`), in the order they asked.
    on_bus: Vec<(SimTime, Command)>,
    /// Commands arriving while the firmware holds its choice until a write-back ends that
    /// get the bus only after that end (each waits behind an earlier arrival's hold): with
    /// the instant they get it. They are not at the drive when it chooses, so they join the
    /// queue after the choice (DiskSim's SPTF ranks only the commands its controller has).
    late: Vec<(SimTime, Command)>,
    /// The op of the last command completed: an arrival's command overhead follows it, not
    /// the op of the command in service (DiskSim's `lastflags` is set at a completion).
    completed_op: Op,
    /// Where the firmware's queue ranks from (`SptfAngle::Decision` but to reproduce DiskSim).
    sptf_angle: SptfAngle,
    /// Bus overlap (`overlap`): the next command is chosen and positioned for while the one
    /// in service still sends its data. Never for a drive that keeps the bus from command to
    /// completion (no other command reaches it meanwhile).
    bus_overlap: bool,
    /// Under bus overlap, the command chosen while the one in service still sends its data:
    /// it goes into service at that one's completion.
    next: Option<InService>,
    /// Under bus overlap, from when the mechanism is done with the command in service and
    /// free for the next (`None`: not before its completion, or the next is chosen).
    mech_idle_from: Option<SimTime>,
    /// The completion token of the read in service a shared bus last made wait, and until
    /// when (`bus_tenant`).
    read_data_given: (u64, SimTime),
}

impl HddDevice {
    /// A drive built from `spec`, accepting up to `queue_depth` commands at once, its queue
    /// ordered by the policy the parameters name.
    pub fn new(spec: &HddSpec, queue_depth: usize) -> Result<Self> {
        let mech = Arc::new(Mechanics::new(spec)?);
        Self::with_mechanics(spec, mech, queue_depth, None)
    }

    /// Share an already-built mechanical model (the oracle predictor holds the same one).
    /// `firmware_scheduler` overrides the parameters' queue policy by name.
    pub fn with_mechanics(
        spec: &HddSpec,
        mech: Arc<Mechanics>,
        queue_depth: usize,
        firmware_scheduler: Option<&str>,
    ) -> Result<Self> {
        if !(1..=MAX_QUEUE_DEPTH).contains(&queue_depth) {
            return Err(HeadwayError::config(
                "queue_depth",
                format!("must be in 1..={MAX_QUEUE_DEPTH}, got {queue_depth}"),
            ));
        }
        let drive = Drive::new(spec, mech.clone());
        let name = match firmware_scheduler {
            Some(n) => n,
            None => policy_name(spec.queue.policy)?,
        };
        let queue = FirmwareQueue::new(name, mech.clone(), queue_overheads(&drive), queue_depth)?;
        let bus_overlap = spec.bus.overlap && !drive.bus.never_disconnect;
        Ok(HddDevice {
            info: DeviceInfo {
                name: spec.name.clone(),
                capacity_sectors: mech.layout.capacity_sectors(),
                queue_depth,
            },
            drive,
            queue,
            current: None,
            pick_at: None,
            freeblock: None,
            next_token: FIRST_DONE_TOKEN,
            held_until: 0,
            on_bus: Vec::new(),
            late: Vec::new(),
            completed_op: Op::Read,
            sptf_angle: SptfAngle::Decision,
            bus_overlap,
            next: None,
            mech_idle_from: None,
            read_data_given: (0, 0),
        })
    }

    /// Plan free reads inside the firmware (see [`firmware_freeblock`]), with the model the
    /// firmware queue ranks its commands by.
    pub fn with_firmware_freeblock(mut self, cfg: &FirmwareFreeblockConfig) -> Result<Self> {
        self.freeblock = Some(FirmwareFreeblock::new(
            cfg,
            self.drive.mech.clone(),
            queue_overheads(&self.drive),
        )?);
        Ok(self)
    }

    /// Rank the firmware queue's commands from `angle` (see [`SptfAngle`]).
    pub(crate) fn with_sptf_angle(mut self, angle: SptfAngle) -> Self {
        self.sptf_angle = angle;
        self
    }

    pub fn mechanics(&self) -> &Arc<Mechanics> {
        &self.drive.mech
    }

    pub fn overheads(&self) -> &Overheads {
        &self.drive.ovh
    }

    /// Start `cmd`, which reached the drive at `arrived` (earlier than `now` when it waited in
    /// the drive's queue).
    fn start(&mut self, now: SimTime, arrived: SimTime, cmd: Command, io: &mut DeviceIo) {
        let before = self.freeblock.as_ref().map(|_| {
            let free = self.drive.positioning_free_at(now);
            (free, self.drive.head_at(free), self.drive.last_op())
        });
        // The command goes into service first and the drive writes its outcome there: a
        // `Served` returned and then moved into place was read back in 16-byte halves of
        // the callee's 8-byte stores, which cannot be forwarded.
        let cur = self.current.insert(InService {
            cmd,
            served: Served::default(),
            token: 0,
            ask_at_ns: None,
        });
        let (lbn, sectors, op) = (cur.cmd.lbn, cur.cmd.sectors, cur.cmd.op);
        self.drive
            .serve_queued(now, arrived, lbn, sectors, op, &mut cur.served);
        if let (Some(fb), Some((free, head, last_op))) = (&mut self.freeblock, before) {
            // The phases' overhead is the command's own before its mechanism starts (the
            // arm may also be busy until `free`) plus the completion after it.
            let ph = &cur.served.phases;
            let pre = ph
                .overhead_ns
                .saturating_sub(self.drive.ovh.completion_ns[op as usize]);
            let mech_start = (ph.start_ns + pre).max(free);
            // The model has geometry for every track, so planning cannot fail; a failure
            // would only cost this gap its free reads.
            let _ = fb.fill_gap(
                mech_start,
                head,
                last_op,
                &cur.cmd,
                ph,
                cur.served.cache_hit,
            );
        }
        // An arrival's overhead may still hold the bus (it came while the firmware waited
        // for a write-back to end): the command taken up gets the bus only after it.
        if self.held_until > now {
            if let Some(done) = self.bus_delayed_done(self.held_until) {
                self.drive.bus_given(self.held_until);
                let cur = self.current.as_mut().expect("just put in service");
                let later = done.saturating_sub(cur.served.done);
                self.drive.delay_write_data(later);
                cur.served.done += later;
                cur.served.phases.overhead_ns += later;
            }
        }
        let token = self.token();
        let cur = self.current.as_mut().expect("just put in service");
        cur.token = token;
        io.wake_at(cur.served.done, token);
        if self.bus_overlap {
            self.await_mechanism(now, io);
        }
    }

    /// When the command just served completes if the bus is held until `until`: later
    /// only if it asks for the bus before then (`Drive::bus_asked_at`, `Drive::rebus`).
    fn bus_delayed_done(&self, until: SimTime) -> Option<SimTime> {
        let asks = self.drive.bus_asked_at()?;
        if asks < until {
            self.drive.rebus(until)
        } else {
            None
        }
    }

    fn token(&mut self) -> u64 {
        let t = self.next_token;
        self.next_token += 1;
        t
    }

    /// When a command arriving at `now` while a read miss is in service reaches the drive, as
    /// DiskSim's controller has it (docs/fidelity.md, `ArrivalHoldsBus`): the bus carries
    /// commands and data alike, so an arrival waits while the drive holds it (to send the
    /// read's data and completion, or for an earlier arrival's overhead), then holds it for
    /// its own command overhead and disconnect (`arrival_hold_ns`); the read in service gets
    /// the bus back for its data only after that, and completes later by as much as its
    /// transfer shifts. `None`: the arrival asked for the bus after the command in service
    /// and reaches the drive at its completion, after the firmware's choice there (DiskSim
    /// picks the next command as the completion releases the bus, before the waiting
    /// arrival gets it).
    fn arrival_on_bus(
        &mut self,
        now: SimTime,
        asked: SimTime,
        cmd: &Command,
        io: &mut DeviceIo,
    ) -> Option<SimTime> {
        let Some(cur) = &mut self.current else {
            // The firmware waits for a write-back to end before it chooses: the arrival
            // holds the bus meanwhile, and the command chosen then waits for it (`start`).
            if let Some(hold) = arrival_hold_ns(&self.drive.ovh, self.completed_op, cmd.op) {
                let at = now.max(self.held_until);
                self.held_until = at + hold;
                return Some(at);
            }
            return Some(now);
        };
        let Some(mut asks) = self.drive.bus_asked_at() else {
            return Some(now);
        };
        let Some(hold) = arrival_hold_ns(&self.drive.ovh, self.completed_op, cmd.op) else {
            return Some(now);
        };
        let mut from = now;
        // Requests for the bus are served in the order they are made: a command that
        // waited for the bus since before the command now in service asked for it (it
        // reached the drive at the last completion) holds it first. The command in service
        // cannot ask while an arrival's overhead holds the bus (DiskSim's controller sends
        // the reconnection up once the arrival's disconnect has gone): asking during a
        // hold, it asks at the hold's end (`ask_at_ns`), after whatever arrived meanwhile.
        // Once it has asked, it gets the bus at the next release before any command still
        // waiting, however early that one asked: DiskSim's arbitration ("Arbitration type =
        // 1") prefers the drive's slot to the host's.
        let asks_from = cur.ask_at_ns.unwrap_or(asks);
        let frees = now.max(self.held_until).max(self.drive.bus_released_at());
        // The command chosen at this completion asks at once, but only after the completion
        // has let the bus go: the first host command sent or waiting then takes it first
        // (`held_until` still before `now`). The drive then waits with the others and wins the
        // next release, even when that first hold lasts no time (a read miss with no
        // overhead, `held_until == now`).
        let chosen_now = cur.served.phases.start_ns == now && asks_from == now;
        let first_at_choice = chosen_now && self.held_until < now;
        let after_first = chosen_now && self.held_until == now && cur.ask_at_ns.is_none();
        if (asked >= asks_from && !first_at_choice) || frees > asks_from || after_first {
            // A read whose bus catches up with the media lets go of it until more blocks
            // are in: the arrival takes the bus then, before the read's next reconnection.
            let Some(free) = self.drive.bus_gap(now.max(self.held_until)) else {
                return (now >= cur.served.done).then_some(now);
            };
            cur.ask_at_ns = None;
            asks = self.drive.bus_asked_at().unwrap_or(free);
            from = free;
        }
        // The command in service may still hold the bus for its own command phase.
        let at = from.max(self.held_until).max(self.drive.bus_released_at());
        let until = at + hold;
        self.held_until = until;
        // Asking as the hold begins (the command chosen at a completion, while a command
        // that waited through it gets the bus) it waits for the bus ahead of later arrivals:
        // DiskSim's bus arbitration prefers the drive's slot to the host's.
        if cur.ask_at_ns.is_none() && (at + 1..until).contains(&asks) {
            cur.ask_at_ns = Some(until);
        }
        if asks < until {
            if let Some(done) = self.drive.rebus(until) {
                self.drive.bus_given(until);
                let later = done.saturating_sub(cur.served.done);
                self.drive.delay_write_data(later);
                cur.served.done += later;
                cur.served.phases.overhead_ns += later;
                let t = self.next_token;
                self.next_token += 1;
                cur.token = t;
                io.wake_at(cur.served.done, t);
            }
        }
        Some(at)
    }

    /// Take up the next queued command, if any. FCFS takes the oldest wherever the head is:
    /// spare it working that out (a read-ahead under way would have to be followed to its
    /// stop). A scheduling firmware chooses when its mechanism is free: while a write-back
    /// is under way it holds the choice until the write-back ends, so that the commands
    /// arriving meanwhile are candidates too, as in DiskSim (docs/fidelity.md).
    fn pick_next(&mut self, now: SimTime, io: &mut DeviceIo) {
        if self.queue.is_empty() {
            return;
        }
        let (at, head) = if self.queue.in_arrival_order() {
            (now, self.drive.head())
        } else {
            let free = self.drive.positioning_free_at(now);
            if free > now {
                self.pick_at = Some(free);
                io.wake_at(free, PICK_TOKEN);
                return;
            }
            match self.sptf_angle {
                SptfAngle::Decision => (free, self.drive.head_at(free)),
                // Ranked as if deciding at that event: the angle is the spindle's then.
                SptfAngle::LastMediaEvent => self.drive.last_media_event(free),
            }
        };
        if let Some((next, arrived)) = self.queue.pop(at, head, self.drive.last_op()) {
            self.start(now, arrived, next, io);
        }
    }

    /// A command reaching the drive at `now`, having asked for the bus at `asked` (earlier
    /// when it waited for the bus through the last completion: `on_bus`).
    fn arrive(&mut self, now: SimTime, asked: SimTime, cmd: Command, io: &mut DeviceIo) {
        if self.current.is_some() || self.pick_at.is_some() {
            if self.next.is_some() {
                // Under bus overlap, with the next command chosen the drive's bus state is
                // that command's: this one queues as it comes (`overlap`).
                self.queue.push(now, cmd);
                return;
            }
            match self.arrival_on_bus(now, asked, &cmd, io) {
                Some(at)
                    if self.current.is_none()
                        && !self.queue.is_empty()
                        && self.pick_at.is_some_and(|p| at > p) =>
                {
                    self.late.push((at, cmd))
                }
                Some(at) => {
                    self.queue.push(at, cmd);
                    if self.bus_overlap {
                        self.queued_while_free(now, at, io);
                    }
                }
                None => self.on_bus.push((asked, cmd)),
            }
        } else if !self.queue.in_arrival_order() && self.drive.positioning_free_at(now) > now {
            // The mechanism is writing back: the command waits to be chosen with whatever
            // else arrives before the write-back ends.
            self.queue.push(now, cmd);
            self.pick_next(now, io);
        } else {
            self.start(now, now, cmd, io);
        }
    }
}

/// How long a command reaching a busy drive holds the bus before it disconnects, as
/// DiskSim's controller charges it (`disk_read_arrive`, `disk_write_arrive`): a read its
/// read-miss overhead and the read disconnect, a write taken into the buffer (fast writes)
/// its write-hit overhead and the write disconnect, both after the previous command's op
/// (`last_op`: the last command completed, not the one in service, as DiskSim's
/// `lastflags`). `None` where headway does not follow DiskSim: a write on a drive without
/// fast writes (DiskSim never sends that disconnect, and its runs stop completing requests:
/// docs/fidelity.md) and a drive with extra write disconnects.
pub fn arrival_hold_ns(ovh: &Overheads, last_op: Op, op: Op) -> Option<SimTime> {
    let p = last_op as usize;
    match op {
        Op::Read => Some(ovh.read_miss_ns[p] + ovh.read_disconnect_ns[p]),
        Op::Write if ovh.fast_write && ovh.extra_disconnect.is_none() => {
            Some(ovh.write_hit_ns[p] + ovh.write_disconnect_ns)
        }
        Op::Write => None,
    }
}

/// The overheads the firmware ranks its queued commands by. They have waited in its queue,
/// their read-miss overhead (and a fast write's command overhead) done meanwhile (see
/// `Drive::serve_queued`): its model starts their mechanism at once, or the rotational
/// positions it ranks them by are off by the overhead.
fn queue_overheads(drive: &Drive) -> Overheads {
    let mut ovh = drive.ovh;
    if !drive.bus.never_disconnect {
        ovh.read_miss_ns = [0; 2];
        ovh.write_hit_ns = [0; 2];
    }
    ovh
}

/// The oracle's model of a command: what the drive's own firmware would predict for a command
/// that misses the buffer, started at `now` with the head at `head`. The buffer is left out
/// on purpose (a host cannot see it); `docs/fidelity.md` says why.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn plan_service(
    mech: &Mechanics,
    ovh: &Overheads,
    head: HeadPosition,
    last_op: Op,
    now: SimTime,
    lbn: u64,
    sectors: u32,
    op: Op,
) -> (Phases, SimTime, HeadPosition) {
    let overhead_ns = ovh.mechanical_start_ns(last_op, op);
    let mut acc = mech.access(head, now + overhead_ns, lbn, sectors, op);
    if op == Op::Write && acc.seek_ns < ovh.min_write_seek_ns {
        // DiskSim's minimum seek delay holds a write's positioning back, and the rotational
        // wait is then measured from the later arrival.
        acc = mech.access_after(
            head,
            now + overhead_ns,
            ovh.min_write_seek_ns,
            lbn,
            sectors,
            op,
        );
    }
    let phases = Phases {
        start_ns: now,
        overhead_ns,
        seek_ns: acc.seek_ns,
        rotate_ns: acc.rotate_ns,
        transfer_ns: acc.transfer_ns,
        bus_ns: 0,
    };
    let done = now + overhead_ns + acc.total_ns() + ovh.completion_ns[op as usize];
    (phases, done, acc.end)
}

impl Device for HddDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        self.arrive(now, now, cmd, io);
    }
    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo) {
        if token == PICK_TOKEN {
            self.pick_at = None;
            // Late commands whose bus hold has ended are at the drive for this choice; the
            // rest join the queue once the firmware has chosen, unless it waits on.
            for (at, cmd) in self.late.extract_if(.., |l| l.0 <= now) {
                self.queue.push(at, cmd);
            }
            self.pick_next(now, io);
            if self.pick_at.is_none() {
                for (at, cmd) in self.late.drain(..) {
                    self.queue.push(at, cmd);
                }
            }
            return;
        }
        if self.current.as_ref().is_none_or(|c| c.token != token) {
            if token == EARLY_TOKEN {
                self.mechanism_free(now, io);
            }
            return;
        }
        let Some(done) = self.current.take() else {
            return;
        };
        debug_assert_eq!(done.served.done, now);
        self.completed_op = done.cmd.op;
        let head_lbn = done.cmd.end_lbn();
        io.complete(Completion {
            command: done.cmd,
            done_ns: now,
            phases: done.served.phases,
            cache_hit: done.served.cache_hit,
            head: done.served.head,
            head_lbn,
        });
        if self.next.is_some() {
            self.promote_next(now, io);
        } else {
            self.pick_next(now, io);
        }
        if self.on_bus.is_empty() {
            return;
        }
        // The commands that waited for the bus reach the drive now, after the choice.
        let mut waiting = std::mem::take(&mut self.on_bus);
        for (asked, cmd) in waiting.drain(..) {
            self.arrive(now, asked, cmd, io);
        }
        if self.on_bus.is_empty() {
            self.on_bus = waiting;
        }
    }

    fn outstanding(&self) -> usize {
        self.queue.len()
            + self.on_bus.len()
            + self.late.len()
            + self.current.is_some() as usize
            + self.next.is_some() as usize
    }

    fn firmware_free(&self) -> Option<FirmwareFreeReport> {
        self.freeblock.as_ref().map(FirmwareFreeblock::report)
    }

    fn bus_tenant(&mut self) -> Option<&mut dyn crate::device::BusTenant> {
        Some(self)
    }
}
