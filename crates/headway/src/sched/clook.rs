use super::sweep::CylQueue;
use super::{Decision, SchedCtx, Scheduler};
use crate::request::{Command, DeviceId, Request};

/// C-LOOK: sweep upward in cylinder order; when nothing lies ahead, jump back to the lowest
/// pending cylinder and sweep up again (one-directional service evens out response times).
pub struct CLook {
    queue: CylQueue,
    pos: Option<u32>,
    device: DeviceId,
}

impl CLook {
    pub fn new() -> Self {
        CLook {
            queue: CylQueue::default(),
            pos: None,
            device: 0,
        }
    }
}

impl Default for CLook {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler for CLook {
    fn name(&self) -> &str {
        "clook"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        self.device = req.device;
        let cyl = ctx.predictor(req.device).cylinder_of(req.lbn);
        self.queue.insert(cyl, req.id, req);
    }
    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        if self.queue.is_empty() || !ctx.has_slot(self.device) {
            return Decision::Idle;
        }
        let pos = *self
            .pos
            .get_or_insert_with(|| ctx.predictor(self.device).head().cylinder);
        let key = self
            .queue
            .at_or_above(pos)
            .or_else(|| self.queue.lowest())
            .expect("queue is not empty");
        self.pos = Some(key.0);
        Decision::Dispatch(Command::single(self.queue.remove(key)))
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
