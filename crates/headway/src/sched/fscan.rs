use super::sweep::{CylQueue, Dir};
use super::{Decision, SchedCtx, Scheduler};
use crate::request::{Command, DeviceId, Request};

/// FSCAN: requests are served in frozen batches. The batch being served is swept in
/// elevator order (LOOK: reversing at the last request, not the disk's edge); everything
/// that arrives meanwhile waits for the next batch, so no request is overtaken by more than
/// one batch of later arrivals.
pub struct FScan {
    active: CylQueue,
    waiting: CylQueue,
    pos: Option<u32>,
    dir: Dir,
    device: DeviceId,
}

impl FScan {
    pub fn new() -> Self {
        FScan {
            active: CylQueue::default(),
            waiting: CylQueue::default(),
            pos: None,
            dir: Dir::Up,
            device: 0,
        }
    }
}

impl Default for FScan {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler for FScan {
    fn name(&self) -> &str {
        "fscan"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        self.device = req.device;
        let cyl = ctx.predictor(req.device).cylinder_of(req.lbn);
        self.waiting.insert(cyl, req.id, req);
    }
    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        if self.active.is_empty() {
            std::mem::swap(&mut self.active, &mut self.waiting);
        }
        if self.active.is_empty() || !ctx.has_slot(self.device) {
            return Decision::Idle;
        }
        let pos = *self
            .pos
            .get_or_insert_with(|| ctx.predictor(self.device).head().cylinder);
        let ahead = |q: &CylQueue, dir| match dir {
            Dir::Up => q.at_or_above(pos),
            Dir::Down => q.at_or_below(pos),
        };
        let key = match ahead(&self.active, self.dir) {
            Some(k) => k,
            None => {
                self.dir = if self.dir == Dir::Up {
                    Dir::Down
                } else {
                    Dir::Up
                };
                ahead(&self.active, self.dir).expect("batch is not empty")
            }
        };
        self.pos = Some(key.0);
        Decision::Dispatch(Command::single(self.active.remove(key)))
    }
    fn pending(&self) -> usize {
        self.active.len() + self.waiting.len()
    }
}
