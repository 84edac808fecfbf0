//! The drive's own command queue (tagged command queueing): commands the host has sent wait
//! here, and a scheduler inside the firmware picks the next whenever the drive finishes one.
//! The firmware orders its queue with the same searches and picks as the host's schedulers
//! ([`crate::order`]), fed with the drive's exact model of itself ([`SelfModel`]: the same
//! mechanics and overheads, and the head where the drive knows it is), so "send everything
//! to the drive and let it reorder" and "reorder at the host" use the same algorithm and
//! differ only in what the scheduler can see.

use std::collections::VecDeque;
use std::sync::Arc;

use super::firmware_scheduler::FirmwareScheduler;
use super::mechanics::Mechanics;
use super::overheads::Overheads;
use super::self_model::SelfModel;
use crate::error::{HeadwayError, Result};
use crate::order::stf_queue::StfQueue;
use crate::order::sweep::{self, CylQueue, Dir};
use crate::order::PositionCost;
use crate::request::{Command, Completion, HeadPosition, Op, Phases, Request};
use crate::time::SimTime;

/// DiskSim 4.0's queue scheduling policies (`disksim_ioqueue.h`) headway implements, by
/// number: FCFS 1, ELEVATOR_CYL 5 (LOOK), CYCLE_CYL 6 (C-LOOK), SSTF_CYL 7, SPTF_OPT 8.
/// The LBN-ordered variants (2, 3, 4), the cache- and age-aware SPTF family (9-16, 20-26) and
/// the rest are not modelled.
pub fn policy_name(number: u32) -> Result<&'static str> {
    let which = match number {
        1 => FirmwareScheduler::Fcfs,
        5 => FirmwareScheduler::Look,
        6 => FirmwareScheduler::Clook,
        7 => FirmwareScheduler::Sstf,
        8 => FirmwareScheduler::Sptf,
        other => {
            let what = match other {
                2 => "ELEVATOR_LBN",
                3 => "CYCLE_LBN",
                4 => "SSTF_LBN",
                9 => "SPCTF_OPT",
                10 => "SATF_OPT",
                11..=13 => "weighted SPTF/SPCTF/SATF",
                14..=16 => "aged SPTF/SPCTF/SATF",
                17..=21 => "VSCAN / priority variants",
                22 | 23 => "SDF",
                24..=26 => "weighted SPTF",
                27 => "TSPS",
                28 => "BATCH_FCFS",
                _ => "unknown",
            };
            return Err(HeadwayError::params(
                None,
                None,
                Some("Scheduling policy".into()),
                format!(
                    "DiskSim scheduling policy {other} ({what}) is not implemented in the drive's \
                     firmware queue; headway implements 1 (FCFS), 5 (ELEVATOR_CYL = LOOK), \
                     6 (CYCLE_CYL = C-LOOK), 7 (SSTF_CYL) and 8 (SPTF_OPT)"
                ),
            ));
        }
    };
    Ok(which.name())
}

/// Where the firmware's SPTF ranks its queued commands from (`firmware_sptf_angle`:
/// `"decision"` or `"last-media-event"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SptfAngle {
    /// From where the head is when the firmware decides: what a drive does.
    #[default]
    Decision,
    /// From the head's track and angle at the end of the last sector the mechanism moved
    /// (read, read ahead or written), as DiskSim 4.0 does: its `disk_buffer_estimate_servtime`
    /// hands `dm_acctime` the disk's `mech_state`, which only its sector events update
    /// (`disk_buffer_sector_done`) and a seek's start (the track it moves to). For
    /// reproducing DiskSim-based results; docs/fidelity.md, "DiskSim's SPTF ranking as an
    /// option".
    LastMediaEvent,
}

/// Firmware schedulers by name ([`FirmwareScheduler`]).
pub const FIRMWARE_SCHEDULERS: &[&str] = FirmwareScheduler::NAMES;

/// Queued commands carry the instant they reached the drive.
enum Kind {
    Fifo(VecDeque<(Command, SimTime)>),
    Sched(Box<Scheduled>),
}

/// How the queue is ordered. SPTF, the usual firmware policy, holds the model as its own
/// type, so that a pick is one search, its estimates inlined, and one removal. The
/// cylinder-ordered picks rank from the cylinder of the command picked last (the head's
/// before the first), as the host's elevators do. Either way the model is refreshed before
/// every decision.
enum Picker {
    Sptf(StfQueue),
    Cylinder {
        queue: CylQueue<u64>,
        pick: CylinderPick,
        /// The cylinder of the command picked last.
        pos: Option<u32>,
    },
}

#[derive(Clone, Copy)]
enum CylinderPick {
    Sstf,
    Look(Dir),
    Clook,
}

struct Scheduled {
    sched: Picker,
    model: SelfModel,
    /// Queued commands by slot; a request's id is its slot.
    slots: Vec<Option<(Command, SimTime)>>,
    free: Vec<u64>,
    pending: usize,
}

pub struct FirmwareQueue {
    kind: Kind,
    name: &'static str,
}

impl FirmwareQueue {
    /// A queue ordered by the scheduler called `name` (see [`FIRMWARE_SCHEDULERS`]).
    pub fn new(
        name: &str,
        mech: Arc<Mechanics>,
        ovh: Overheads,
        depth: usize,
    ) -> Result<FirmwareQueue> {
        let which = FirmwareScheduler::parse(name)?;
        let name = which.name();
        let cylinder = |pick| Picker::Cylinder {
            queue: CylQueue::default(),
            pick,
            pos: None,
        };
        let sched = match which {
            FirmwareScheduler::Fcfs => {
                return Ok(FirmwareQueue {
                    kind: Kind::Fifo(VecDeque::with_capacity(depth)),
                    name,
                })
            }
            FirmwareScheduler::Sptf => Picker::Sptf(StfQueue::with_capacity(depth)),
            FirmwareScheduler::Sstf => cylinder(CylinderPick::Sstf),
            FirmwareScheduler::Look => cylinder(CylinderPick::Look(Dir::default())),
            FirmwareScheduler::Clook => cylinder(CylinderPick::Clook),
        };
        let kind = Kind::Sched(Box::new(Scheduled {
            sched,
            model: SelfModel::new(mech, ovh, 0),
            slots: Vec::with_capacity(depth),
            free: Vec::with_capacity(depth),
            pending: 0,
        }));
        Ok(FirmwareQueue { kind, name })
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn len(&self) -> usize {
        match &self.kind {
            Kind::Fifo(q) => q.len(),
            Kind::Sched(s) => s.pending,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether [`FirmwareQueue::pop`] ignores the head and the time it is given (FCFS).
    pub fn in_arrival_order(&self) -> bool {
        matches!(self.kind, Kind::Fifo(_))
    }

    pub fn push(&mut self, now: SimTime, cmd: Command) {
        match &mut self.kind {
            Kind::Fifo(q) => q.push_back((cmd, now)),
            Kind::Sched(s) => {
                let slot = match s.free.pop() {
                    Some(i) => i,
                    None => {
                        s.slots.push(None);
                        (s.slots.len() - 1) as u64
                    }
                };
                let mut r = Request::new(now, cmd.lbn, cmd.sectors, cmd.op);
                r.id = slot;
                s.slots[slot as usize] = Some((cmd, now));
                s.pending += 1;
                match &mut s.sched {
                    Picker::Sptf(q) => q.insert(r, &s.model),
                    Picker::Cylinder { queue, .. } => {
                        queue.insert(s.model.cylinder_of(r.lbn), slot, slot)
                    }
                }
            }
        }
    }

    /// The next command to serve, chosen for the arm being free at `now` with the head at
    /// `head` and `last_op` the last
    /// command's direction, with the instant it reached the drive.
    pub fn pop(
        &mut self,
        now: SimTime,
        head: HeadPosition,
        last_op: Op,
    ) -> Option<(Command, SimTime)> {
        match &mut self.kind {
            Kind::Fifo(q) => q.pop_front(),
            Kind::Sched(s) => {
                if s.pending == 0 {
                    return None;
                }
                // Tell the model where the drive is: a completion is how a predictor learns.
                let probe = Completion {
                    command: Command::single(Request::new(now, 0, 1, last_op)),
                    done_ns: now,
                    phases: Phases::default(),
                    cache_hit: false,
                    head,
                    head_lbn: 0,
                };
                s.model.observe(&probe);
                let slot = match &mut s.sched {
                    Picker::Sptf(q) => q.take_nearest(&s.model, now)?,
                    Picker::Cylinder { queue, pick, pos } => {
                        let at = pos.unwrap_or_else(|| s.model.head().cylinder);
                        let key = match pick {
                            CylinderPick::Sstf => sweep::nearest(queue, at),
                            CylinderPick::Look(dir) => sweep::ahead_or_reverse(queue, at, dir),
                            CylinderPick::Clook => sweep::upward_or_lowest(queue, at),
                        };
                        *pos = Some(key.0);
                        queue.remove(key)
                    }
                };
                s.pending -= 1;
                s.free.push(slot);
                s.slots[slot as usize].take()
            }
        }
    }
}
