//! Shortest positioning time first over a queue that is only ever served with the mechanism
//! free (the drive's firmware queue): each pick is one pruned search from the head at that
//! instant ([`super::search`]) and one removal, with the model as its own type so that every
//! estimate of the search is inlined into it. The host's SPTF ranks in the same search, with
//! the planning a host needs on top (commands outstanding, decision time).

use super::access::Access;
use super::cost::{Needs, PositionCost, Target};
use super::cyl_index::CylIndex;
use super::search::{self, Origin};
use crate::request::Request;
use crate::time::SimTime;

#[derive(Default)]
pub(crate) struct StfQueue {
    index: CylIndex,
    /// The queued requests with their targets, by slot; `free` lists the unused slots.
    held: Vec<(Request, Target)>,
    free: Vec<u32>,
}

impl StfQueue {
    pub(crate) fn with_capacity(depth: usize) -> Self {
        StfQueue {
            index: CylIndex::default(),
            held: Vec::with_capacity(depth),
            free: Vec::with_capacity(depth),
        }
    }

    /// Queue `req`, its target prepared by `p` (positioning only: the ranking never reads
    /// the transfer time).
    pub fn insert<P: PositionCost>(&mut self, req: Request, p: &P) {
        let t = p.target(Access::from(&req), Needs::Positioning);
        let slot = search::hold(&mut self.held, &mut self.free, (req, t));
        self.index.insert(t.cylinder, req.id, slot);
    }

    /// Take the request with the least positioning time from where `p` believes the head
    /// is, starting at `now` (ties to the lower id).
    pub(crate) fn take_nearest<P: PositionCost>(&mut self, p: &P, now: SimTime) -> Option<u64> {
        let origin = Origin::uniform(p.head(), now, now);
        let (best, _, _) = search::argmin(
            &self.held,
            &self.index,
            p,
            origin,
            0,
            u32::MAX,
            true,
            |floor| floor,
            |_, _, pos| pos,
        );
        let (_, id, key, at) = best?;
        let slot = self.index.remove_at(key, at);
        self.free.push(slot);
        Some(id)
    }
}
