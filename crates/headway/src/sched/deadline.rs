//! Deadline-driven baselines of the Cello comparison, over the host's idea of the arm (the
//! cylinder of the last dispatched request, as the elevators keep it). Requests without a
//! deadline count as due at infinity.
//!
//! - `edf`: earliest deadline first (ties by arrival) (Liu and Layland 1973).
//! - `scan-edf`: earliest deadline first, requests of the same deadline in SCAN order
//!   (Reddy and Wyllie 1993); best effort, due at infinity, forms the last group.
//! - `dscan`: deadline-driven SCAN: head for the most urgent request and serve whatever
//!   lies on the way, of any class (Abbott and Garcia-Molina's D-SCAN as Cello's paper
//!   describes it).

use super::proposal::{not_proposed, ProposalSlot};
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::Result;
use crate::request::{Command, Request};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeadlineRule {
    Edf,
    ScanEdf,
    DScan,
}

pub struct DeadlineScheduler {
    rule: DeadlineRule,
    queue: Vec<(Request, u32)>,
    pos: u32,
    up: bool,
    proposal: ProposalSlot<(usize, u32, bool)>,
}

impl DeadlineScheduler {
    pub fn new(rule: DeadlineRule) -> Self {
        DeadlineScheduler {
            rule,
            queue: Vec::new(),
            pos: 0,
            up: true,
            proposal: ProposalSlot::default(),
        }
    }

    /// Index of the request in `cands` next in the sweep from the arm (LOOK: reverse when
    /// nothing lies ahead), and the direction after it.
    fn sweep_pick(&self, cands: impl Iterator<Item = usize> + Clone) -> (usize, bool) {
        let key = |i: usize, up: bool| {
            let c = self.queue[i].1;
            let ahead = if up { c >= self.pos } else { c <= self.pos };
            (!ahead, c.abs_diff(self.pos), self.queue[i].0.id)
        };
        let best = cands
            .clone()
            .min_by_key(|&i| key(i, self.up))
            .expect("non-empty");
        let c = self.queue[best].1;
        let ahead = if self.up {
            c >= self.pos
        } else {
            c <= self.pos
        };
        if ahead {
            (best, self.up)
        } else {
            let b = cands.min_by_key(|&i| key(i, !self.up)).expect("non-empty");
            (b, !self.up)
        }
    }

    fn choose(&self) -> (usize, bool) {
        let urgent = (0..self.queue.len())
            .min_by_key(|&i| (self.queue[i].0.deadline_ns, self.queue[i].0.id))
            .expect("non-empty");
        let d: SimTime = self.queue[urgent].0.deadline_ns;
        match self.rule {
            DeadlineRule::Edf => (urgent, self.up),
            DeadlineRule::ScanEdf => {
                self.sweep_pick((0..self.queue.len()).filter(|&i| self.queue[i].0.deadline_ns == d))
            }
            DeadlineRule::DScan => {
                let target = self.queue[urgent].1;
                let (lo, hi) = (self.pos.min(target), self.pos.max(target));
                let up = target >= self.pos;
                let on_way = (0..self.queue.len())
                    .filter(|&i| (lo..=hi).contains(&self.queue[i].1))
                    .min_by_key(|&i| (self.queue[i].1.abs_diff(self.pos), self.queue[i].0.id))
                    .unwrap_or(urgent);
                (on_way, up)
            }
        }
    }
}

impl Scheduler for DeadlineScheduler {
    fn name(&self) -> &str {
        match self.rule {
            DeadlineRule::Edf => "edf",
            DeadlineRule::ScanEdf => "scan-edf",
            DeadlineRule::DScan => "dscan",
        }
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        let c = ctx.predictor(req.device).cylinder_of(req.lbn);
        self.queue.push((req, c));
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        if self.queue.is_empty() {
            return Decision::Idle;
        }
        let (i, up) = self.choose();
        let (r, c) = self.queue[i];
        if !ctx.has_slot(r.device) {
            return Decision::Idle;
        }
        let cmd = Command::single(r);
        self.proposal.set(&cmd, (i, c, up));
        Decision::Dispatch(cmd)
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, _ctx: &SchedCtx) -> Result<()> {
        let Some((i, c, up)) = self.proposal.take_for(cmd) else {
            return Err(not_proposed(self.name(), cmd));
        };
        self.queue.swap_remove(i);
        if placement == Placement::Device {
            self.pos = c;
            self.up = up;
        }
        Ok(())
    }
    fn hints(&self) -> Hints {
        Hints::SLOT_DRIVEN
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
