use super::sweep::CylQueue;
use super::{Decision, SchedCtx, Scheduler};
use crate::request::{Command, DeviceId, Request};

/// Shortest seek time first, by cylinder distance from the last dispatched request's
/// cylinder (the host's view of the arm). Ties: the lower cylinder, then the older request.
pub struct Sstf {
    queue: CylQueue,
    pos: Option<u32>,
    device: DeviceId,
}

impl Sstf {
    pub fn new() -> Self {
        Sstf {
            queue: CylQueue::default(),
            pos: None,
            device: 0,
        }
    }
}

impl Default for Sstf {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler for Sstf {
    fn name(&self) -> &str {
        "sstf"
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
        let up = self.queue.at_or_above(pos);
        let down = if pos == 0 {
            None
        } else {
            self.queue.at_or_below(pos - 1)
        };
        let key = match (down, up) {
            (Some(d), Some(u)) => {
                if pos - d.0 <= u.0 - pos {
                    d
                } else {
                    u
                }
            }
            (Some(k), None) | (None, Some(k)) => k,
            (None, None) => return Decision::Idle,
        };
        self.pos = Some(key.0);
        Decision::Dispatch(Command::single(self.queue.remove(key)))
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
