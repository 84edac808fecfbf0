use super::elevator::{Elevator, Pick, Policy};
use super::sweep::CylQueue;
use super::SchedCtx;
use crate::request::DeviceId;

/// C-LOOK: sweep upward in cylinder order; when nothing lies ahead, jump back to the lowest
/// pending cylinder and sweep up again (one-directional service evens out response times).
pub type CLook = Elevator<CLookPolicy>;

#[derive(Default, Clone)]
pub struct CLookPolicy;

impl Policy for CLookPolicy {
    const NAME: &'static str = "clook";
    fn pick(&mut self, q: &CylQueue, pos: u32, _ctx: &SchedCtx, _dev: DeviceId) -> Pick {
        Pick::Request(
            q.at_or_above(pos)
                .or_else(|| q.lowest())
                .expect("non-empty queue"),
        )
    }
}
