use super::elevator::{Elevator, Pick, Policy};
use super::sweep::{CylQueue, Dir};
use super::SchedCtx;
use crate::request::DeviceId;

/// LOOK (the practical elevator): sweep in one direction serving requests in cylinder order,
/// reverse as soon as nothing lies ahead.
pub type Look = Elevator<LookPolicy>;

#[derive(Default, Clone)]
pub struct LookPolicy {
    dir: Dir,
}

impl Policy for LookPolicy {
    const NAME: &'static str = "look";
    fn pick(&mut self, q: &CylQueue, pos: u32, _ctx: &SchedCtx, _dev: DeviceId) -> Pick {
        let key = q.ahead(pos, self.dir).unwrap_or_else(|| {
            self.dir = self.dir.reversed();
            q.ahead(pos, self.dir)
                .expect("a non-empty queue has a request on one side")
        });
        Pick::Request(key)
    }
}
