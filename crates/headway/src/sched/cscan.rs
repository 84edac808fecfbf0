use super::elevator::{edges, Elevator, Pick, Policy};
use super::SchedCtx;
use crate::order::sweep::CylQueue;
use crate::request::DeviceId;

/// C-SCAN: sweep upward serving requests in cylinder order, travel on to the last cylinder,
/// return to the first cylinder without serving, and sweep up again.
pub type CScan = Elevator<CScanPolicy>;

#[derive(Default, Clone)]
pub struct CScanPolicy;

impl Policy for CScanPolicy {
    const NAME: &'static str = "cscan";
    fn pick(&mut self, q: &CylQueue, pos: u32, ctx: &SchedCtx, dev: DeviceId) -> Pick {
        if let Some(key) = q.at_or_above(pos) {
            return Pick::Request(key);
        }
        let (low, high) = edges(ctx, dev);
        let (cylinder, lbn) = if pos != high.0 { high } else { low };
        Pick::Seek { cylinder, lbn }
    }
}
