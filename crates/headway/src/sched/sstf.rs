use super::elevator::{Elevator, Pick, Policy};
use super::sweep::CylQueue;
use super::SchedCtx;
use crate::request::DeviceId;

/// Shortest seek time first, by cylinder distance from the last dispatched request's
/// cylinder (the host's view of the arm). Ties: the lower cylinder, then the older request.
pub type Sstf = Elevator<SstfPolicy>;

#[derive(Default, Clone)]
pub struct SstfPolicy;

impl Policy for SstfPolicy {
    const NAME: &'static str = "sstf";
    fn pick(&mut self, q: &CylQueue, pos: u32, _ctx: &SchedCtx, _dev: DeviceId) -> Pick {
        let up = q.at_or_above(pos);
        let down = if pos == 0 {
            None
        } else {
            q.at_or_below(pos - 1)
        };
        Pick::Request(match (down, up) {
            (Some(d), Some(u)) if pos - d.0 <= u.0 - pos => d,
            (_, Some(u)) => u,
            (Some(d), None) => d,
            (None, None) => unreachable!("policies are asked only with a non-empty queue"),
        })
    }
}
