use super::scan::{edges, seek_command};
use super::sweep::CylQueue;
use super::{Decision, SchedCtx, Scheduler};
use crate::request::{Command, DeviceId, Request};

/// C-SCAN: sweep upward serving requests in cylinder order, travel on to the last cylinder,
/// return to the first cylinder without serving, and sweep up again.
pub struct CScan {
    queue: CylQueue,
    pos: Option<u32>,
    device: DeviceId,
}

impl CScan {
    pub fn new() -> Self {
        CScan {
            queue: CylQueue::default(),
            pos: None,
            device: 0,
        }
    }
}

impl Default for CScan {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler for CScan {
    fn name(&self) -> &str {
        "cscan"
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
        if let Some(key) = self.queue.at_or_above(pos) {
            self.pos = Some(key.0);
            return Decision::Dispatch(Command::single(self.queue.remove(key)));
        }
        let (low, high) = edges(ctx, self.device);
        let target = if pos != high.0 { high } else { low };
        self.pos = Some(target.0);
        Decision::Dispatch(seek_command(self.device, target.1))
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
