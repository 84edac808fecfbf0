use super::elevator::{Elevator, Pick, Policy};
use super::SchedCtx;
use crate::order::sweep::{self, CylQueue};
use crate::request::DeviceId;

/// C-LOOK: sweep upward in cylinder order; when nothing lies ahead, jump back to the lowest
/// pending cylinder and sweep up again (one-directional service evens out response times).
pub type CLook = Elevator<CLookPolicy>;

#[derive(Default, Clone)]
pub struct CLookPolicy;

impl Policy for CLookPolicy {
    const NAME: &'static str = "clook";
    fn pick(&mut self, q: &CylQueue, pos: u32, _ctx: &SchedCtx, _dev: DeviceId) -> Pick {
        Pick::Request(sweep::upward_or_lowest(q, pos))
    }
}
