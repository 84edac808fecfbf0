//! Seek-based schedulers that know nothing of the geometry: they order requests by logical
//! block number, as a block layer without a disk model does (Linux's elevators). The arm's
//! position is the host's view: the end of the last dispatched request, or with
//! `sweep_from = "start"` its first LBN, as DiskSim keeps it for `CYCLE_LBN` and
//! `ELEVATOR_LBN` (a request at the same LBN as the one just dispatched, such as a RAID
//! write after its own old-data read, is then next rather than a whole cycle away). For
//! `sstf-lbn` the option names the reference its distances are measured from: from the
//! start, a request at the same LBN is at distance 0, whatever the last request's length.

use std::collections::BTreeMap;

use super::options::OptionReader;
use super::proposal::{not_proposed, ProposalSlot};
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::Result;
use crate::order::sweep::Dir;
use crate::request::{Command, DeviceId, Request};

/// Requests keyed by (lbn, id): equal LBNs in arrival order.
#[derive(Default)]
struct LbnQueue {
    map: BTreeMap<(u64, u64), Request>,
}

impl LbnQueue {
    fn at_or_above(&self, lbn: u64) -> Option<(u64, u64)> {
        self.map.range((lbn, 0)..).next().map(|(k, _)| *k)
    }
    /// Oldest request at the highest LBN <= `lbn`.
    fn at_or_below(&self, lbn: u64) -> Option<(u64, u64)> {
        let (&(l, _), _) = self.map.range(..=(lbn, u64::MAX)).next_back()?;
        self.map.range((l, 0)..).next().map(|(k, _)| *k)
    }
    fn lowest(&self) -> Option<(u64, u64)> {
        self.map.keys().next().copied()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// Nearest LBN either way; ties to the lower LBN, then the older request.
    Sstf,
    /// Elevator, reversing at the last request.
    Look,
    /// One-way sweep up, jumping back to the lowest LBN.
    CLook,
}

/// `sstf-lbn`, `look-lbn` and `clook-lbn`.
pub struct LbnScheduler {
    policy: Policy,
    queue: LbnQueue,
    /// One past the last dispatched request's end, or its start with `from_start`.
    pos: u64,
    /// The position is the last dispatched request's first LBN (DiskSim's `CYCLE_LBN` and
    /// `ELEVATOR_LBN`), and a request there is ahead in either direction.
    from_start: bool,
    dir: Dir,
    device: DeviceId,
    /// The last proposal: its key and the sweep direction after it.
    proposal: ProposalSlot<((u64, u64), Dir)>,
}

impl LbnScheduler {
    fn new(policy: Policy) -> Self {
        LbnScheduler {
            policy,
            queue: LbnQueue::default(),
            pos: 0,
            from_start: false,
            dir: Dir::Up,
            device: 0,
            proposal: ProposalSlot::default(),
        }
    }
    pub(crate) fn sstf() -> Self {
        Self::new(Policy::Sstf)
    }
    pub(crate) fn look() -> Self {
        Self::new(Policy::Look)
    }
    pub(crate) fn clook() -> Self {
        Self::new(Policy::CLook)
    }
    /// `sstf-lbn` with its `[host.options]`: `sweep_from = "end"` (default) or `"start"`.
    pub(crate) fn sstf_from_options(o: &OptionReader) -> Result<Self> {
        Self::sweep_from(Self::sstf(), o)
    }
    /// `look-lbn` with its `[host.options]`: `sweep_from = "end"` (default) or `"start"`.
    pub(crate) fn look_from_options(o: &OptionReader) -> Result<Self> {
        Self::sweep_from(Self::look(), o)
    }
    /// `clook-lbn` with its `[host.options]`: `sweep_from = "end"` (default) or `"start"`.
    pub(crate) fn clook_from_options(o: &OptionReader) -> Result<Self> {
        Self::sweep_from(Self::clook(), o)
    }
    fn sweep_from(mut s: Self, o: &OptionReader) -> Result<Self> {
        s.from_start = o.choice("sweep_from", &["end", "start"])? == "start";
        Ok(s)
    }

    /// The next key and the sweep direction after taking it.
    fn pick(&self) -> Option<((u64, u64), Dir)> {
        let mut dir = self.dir;
        let key = self.pick_in(&mut dir)?;
        Some((key, dir))
    }

    fn pick_in(&self, dir: &mut Dir) -> Option<(u64, u64)> {
        let pos = self.pos;
        let q = &self.queue;
        Some(match self.policy {
            Policy::Sstf => match (
                pos.checked_sub(1).and_then(|p| q.at_or_below(p)),
                q.at_or_above(pos),
            ) {
                (Some(d), Some(u)) => {
                    if pos - d.0 <= u.0 - pos {
                        d
                    } else {
                        u
                    }
                }
                (Some(k), None) | (None, Some(k)) => k,
                (None, None) => return None,
            },
            Policy::CLook => q.at_or_above(pos).or_else(|| q.lowest())?,
            Policy::Look => {
                let ahead = |dir| match dir {
                    Dir::Up => q.at_or_above(pos),
                    Dir::Down if self.from_start => q.at_or_below(pos),
                    Dir::Down => pos.checked_sub(1).and_then(|p| q.at_or_below(p)),
                };
                match ahead(*dir) {
                    Some(k) => k,
                    None => {
                        *dir = dir.reversed();
                        ahead(*dir)?
                    }
                }
            }
        })
    }
}

impl Scheduler for LbnScheduler {
    fn name(&self) -> &str {
        match self.policy {
            Policy::Sstf => "sstf-lbn",
            Policy::Look => "look-lbn",
            Policy::CLook => "clook-lbn",
        }
    }
    fn on_arrival(&mut self, req: Request, _ctx: &SchedCtx) {
        self.device = req.device;
        self.queue.map.insert((req.lbn, req.id), req);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        if self.queue.map.is_empty() || !ctx.has_slot(self.device) {
            return Decision::Idle;
        }
        let Some((key, dir)) = self.pick() else {
            return Decision::Idle;
        };
        let cmd = Command::single(self.queue.map[&key]);
        self.proposal.set(&cmd, (key, dir));
        Decision::Dispatch(cmd)
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, _: &SchedCtx) -> Result<()> {
        let Some((key, dir)) = self.proposal.take_for(cmd) else {
            return Err(not_proposed(self.name(), cmd));
        };
        let r = self
            .queue
            .map
            .remove(&key)
            .expect("key taken from this queue");
        if placement == Placement::Device {
            self.dir = dir;
            // Going down, the arm is at the start of what it just served.
            self.pos = if self.from_start || (self.policy == Policy::Look && self.dir == Dir::Down)
            {
                r.lbn
            } else {
                r.end_lbn()
            };
        }
        Ok(())
    }
    fn hints(&self) -> Hints {
        Hints::SLOT_DRIVEN
    }
    fn pending(&self) -> usize {
        self.queue.map.len()
    }
}
