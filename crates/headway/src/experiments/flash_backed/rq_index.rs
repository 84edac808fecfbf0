//! The replay's request queue, indexed for its RQ policy: arrival order for FCFS and LBN
//! order for SSTF and C-LOOK, so a pick is a tree lookup rather than a scan of every queued
//! request. Each pick is [`rq::pick`]'s over the queue in arrival order (ties to the
//! earlier arrival).

use std::collections::{BTreeMap, BTreeSet};

use crate::sched::flash_backed::rq::{Pending, RqPolicy};

/// Queued requests by id; ids must grow with arrival (the replay numbers them so).
#[derive(Default)]
pub(crate) struct RqIndex {
    by_id: BTreeMap<u64, Pending>,
    by_lbn: BTreeSet<(u64, u64)>,
}

impl RqIndex {
    pub(crate) fn push(&mut self, p: Pending) {
        debug_assert!(self.by_id.last_key_value().is_none_or(|(&id, _)| id < p.id));
        self.by_id.insert(p.id, p);
        self.by_lbn.insert((p.lbn, p.id));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The queued request `id` (which must be queued).
    pub(crate) fn get(&self, id: u64) -> Pending {
        self.by_id[&id]
    }

    pub(crate) fn remove(&mut self, id: u64) {
        if let Some(p) = self.by_id.remove(&id) {
            self.by_lbn.remove(&(p.lbn, id));
        }
    }

    /// The id of the pick with the head at `head`, leaving out request `skip`.
    pub(crate) fn pick(&self, policy: RqPolicy, head: u64, skip: Option<u64>) -> Option<u64> {
        let kept = |&&(_, id): &&(u64, u64)| Some(id) != skip;
        let at_or_above = || self.by_lbn.range((head, 0)..).find(kept);
        match policy {
            RqPolicy::Fcfs => self.by_id.keys().copied().find(|&id| Some(id) != skip),
            RqPolicy::Clook => at_or_above()
                .or_else(|| self.by_lbn.iter().find(kept))
                .map(|&(_, id)| id),
            RqPolicy::Sstf => {
                // The nearest below is the highest LBN under the head, its earliest arrival.
                let below = self
                    .by_lbn
                    .range(..(head, 0))
                    .rev()
                    .find(kept)
                    .and_then(|&(lbn, _)| self.by_lbn.range((lbn, 0)..=(lbn, u64::MAX)).find(kept));
                let up = at_or_above().map(|&(lbn, id)| (lbn - head, lbn, id));
                let down = below.map(|&(lbn, id)| (head - lbn, lbn, id));
                match (up, down) {
                    (Some(u), Some(d)) => Some(u.min(d)),
                    (u, d) => u.or(d),
                }
                .map(|(_, _, id)| id)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;
    use crate::sched::flash_backed::rq::pick;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Arrivals, picks with and without a request left out, and removals: every pick is
        /// the linear scan's over the same queue in arrival order.
        #[test]
        fn every_pick_is_the_scan_over_the_arrival_ordered_queue(
            steps in prop::collection::vec((0u64..64, 0u64..70, any::<bool>(), any::<bool>()), 1..200),
        ) {
            let mut index = RqIndex::default();
            let mut queue: Vec<Pending> = Vec::new();
            let mut next_id = 1;
            for (lbn, head, arrive, leave_one_out) in steps {
                if arrive || queue.is_empty() {
                    let p = Pending { id: next_id, arrival_ns: next_id, lbn, end: lbn + 8, op: Op::Write };
                    next_id += 1;
                    index.push(p);
                    queue.push(p);
                    continue;
                }
                for policy in [RqPolicy::Fcfs, RqPolicy::Sstf, RqPolicy::Clook] {
                    let i = pick(policy, &queue, head, None).unwrap();
                    prop_assert_eq!(index.pick(policy, head, None), Some(queue[i].id));
                    let j = pick(policy, &queue, queue[i].end, Some(i)).map(|j| queue[j].id);
                    prop_assert_eq!(index.pick(policy, queue[i].end, Some(queue[i].id)), j);
                }
                if leave_one_out {
                    let i = pick(RqPolicy::Sstf, &queue, head, None).unwrap();
                    index.remove(queue[i].id);
                    queue.remove(i);
                }
            }
        }
    }
}
