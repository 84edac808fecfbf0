use super::elevator::{Elevator, Pick, Policy};
use super::SchedCtx;
use crate::order::sweep::{self, CylQueue, Dir};
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
        Pick::Request(sweep::ahead_or_reverse(q, pos, &mut self.dir))
    }
}
