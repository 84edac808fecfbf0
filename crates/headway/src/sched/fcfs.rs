use std::collections::VecDeque;

use super::{Decision, SchedCtx, Scheduler};
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
    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        match self.queue.front() {
            Some(r) if ctx.has_slot(r.device) => {
                Decision::Dispatch(Command::single(self.queue.pop_front().unwrap()))
            }
            _ => Decision::Idle,
        }
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
