use super::elevator::{Elevator, Pick, Policy};
use super::SchedCtx;
use crate::order::sweep::{self, CylQueue};
use crate::request::DeviceId;

/// Shortest seek time first, by cylinder distance from the last dispatched request's
/// cylinder (the host's view of the arm). Ties: the lower cylinder, then the older request.
pub type Sstf = Elevator<SstfPolicy>;

#[derive(Default, Clone)]
pub struct SstfPolicy;

impl Policy for SstfPolicy {
    const NAME: &'static str = "sstf";
    fn pick(&mut self, q: &CylQueue, pos: u32, _ctx: &SchedCtx, _dev: DeviceId) -> Pick {
        Pick::Request(sweep::nearest(q, pos))
    }
}
