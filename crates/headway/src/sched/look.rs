use super::sweep::{CylQueue, Dir};
use super::{Decision, SchedCtx, Scheduler};
use crate::request::{Command, DeviceId, Request};

/// LOOK (the practical elevator): sweep in one direction serving requests in cylinder order,
/// reverse as soon as nothing lies ahead.
pub struct Look {
    queue: CylQueue,
    pos: Option<u32>,
    dir: Dir,
    device: DeviceId,
}

impl Look {
    pub fn new() -> Self {
        Look {
            queue: CylQueue::default(),
            pos: None,
            dir: Dir::Up,
            device: 0,
        }
    }
}

impl Default for Look {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler for Look {
    fn name(&self) -> &str {
        "look"
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
        let ahead = |dir| match dir {
            Dir::Up => self.queue.at_or_above(pos),
            Dir::Down => self.queue.at_or_below(pos),
        };
        let key = match ahead(self.dir) {
            Some(k) => k,
            None => {
                self.dir = if self.dir == Dir::Up {
                    Dir::Down
                } else {
                    Dir::Up
                };
                ahead(self.dir).expect("queue is not empty")
            }
        };
        self.pos = Some(key.0);
        Decision::Dispatch(Command::single(self.queue.remove(key)))
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
