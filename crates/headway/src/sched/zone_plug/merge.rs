//! The merged writes of zone write plugging (`[host] zone_plug_merge`, `docs/smr.md`): when
//! a zone's plug lets a write go, the writes waiting behind it that continue it
//! contiguously ride along in one command, as Linux merges the BIOs waiting in a zone's
//! plug into the request of the one it issues. The inner scheduler holds one request over
//! the whole extent (its `whole`); the commands it proposes carry the host requests
//! instead (through `Command`'s own multi-request form, as any merged command does), so
//! that each completes once, with its own response time, when the command does.

use std::collections::HashMap;

use smallvec::SmallVec;

use super::Parts;
use crate::request::Request;

struct Merged {
    /// The request the inner scheduler holds: the first part over the whole extent.
    whole: Request,
    parts: Parts,
}

/// The merged writes past the plug and not yet completed, by the id of their first part
/// (which their `whole` carries).
#[derive(Default)]
pub(super) struct Merges {
    by_id: HashMap<u64, Merged>,
}

impl Merges {
    /// Record that `parts` (contiguous, in LBN order, at least two) go as one; the request
    /// to hand the inner scheduler.
    pub(super) fn insert(&mut self, parts: Parts) -> Request {
        let first = parts[0];
        let sectors: u32 = parts.iter().map(|r| r.sectors).sum();
        let whole = Request { sectors, ..first };
        self.by_id.insert(first.id, Merged { whole, parts });
        whole
    }

    /// Replace, in requests the inner scheduler let out, each merged write's `whole` by its
    /// parts; the number of requests that adds.
    pub(super) fn expand(&self, reqs: &mut SmallVec<[Request; 1]>) -> usize {
        if self.by_id.is_empty() || !reqs.iter().any(|r| self.by_id.contains_key(&r.id)) {
            return 0;
        }
        let before = reqs.len();
        let mut out = SmallVec::with_capacity(before);
        for r in reqs.iter() {
            match self.by_id.get(&r.id) {
                Some(m) => out.extend_from_slice(&m.parts),
                None => out.push(*r),
            }
        }
        *reqs = out;
        reqs.len() - before
    }

    /// The inner scheduler's view of requests [`expand`](Self::expand) gave out: each
    /// merged write's parts back to its `whole` (`None` when nothing in them was merged).
    pub(super) fn collapse(&self, reqs: &[Request]) -> Option<SmallVec<[Request; 1]>> {
        if self.by_id.is_empty() || !reqs.iter().any(|r| self.by_id.contains_key(&r.id)) {
            return None;
        }
        let riders: SmallVec<[u64; 8]> = reqs
            .iter()
            .filter_map(|r| self.by_id.get(&r.id))
            .flat_map(|m| m.parts[1..].iter().map(|p| p.id))
            .collect();
        Some(
            reqs.iter()
                .filter(|r| !riders.contains(&r.id))
                .map(|r| self.by_id.get(&r.id).map_or(*r, |m| m.whole))
                .collect(),
        )
    }

    /// Forget the merged write whose first part is `id` (it completed or was served).
    pub(super) fn remove(&mut self, id: u64) {
        self.by_id.remove(&id);
    }
}
