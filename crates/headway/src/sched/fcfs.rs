use std::collections::VecDeque;

use super::proposal::not_proposed;
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::Result;
use crate::request::{Command, Request};

/// First come, first served: dispatch in arrival order.
#[derive(Default)]
pub struct Fcfs {
    queue: VecDeque<Request>,
}

impl Fcfs {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Scheduler for Fcfs {
    fn name(&self) -> &str {
        "fcfs"
    }
    fn on_arrival(&mut self, req: Request, _ctx: &SchedCtx) {
        self.queue.push_back(req);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        match self.queue.front() {
            Some(r) if ctx.has_slot(r.device) => Decision::Dispatch(Command::single(*r)),
            _ => Decision::Idle,
        }
    }
    /// Propose and commit in one look at the queue's front (the same decision as the two
    /// steps: this is the host's hottest call on a drive-ordered benchmark).
    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        match self.queue.front() {
            Some(r) if ctx.has_slot(r.device) => {
                let r = *r;
                self.queue.pop_front();
                Decision::Dispatch(Command::single(r))
            }
            _ => Decision::Idle,
        }
    }
    fn commit(&mut self, cmd: &Command, _: Placement, _: &SchedCtx) -> Result<()> {
        match self.queue.front() {
            Some(r) if cmd.requests.len() == 1 && cmd.carries(r.id) => {
                self.queue.pop_front();
                Ok(())
            }
            _ => Err(not_proposed(self.name(), cmd)),
        }
    }
    fn hints(&self) -> Hints {
        Hints {
            acts_only_with_a_free_slot: true,
            idle_when_empty: true,
            ignores_completions: true,
            ignores_predictors: true,
            passes_through_when_empty: true,
        }
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
