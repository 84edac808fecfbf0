//! The cylinder order of a rotation-aware queue (the STF search, [`super::search`]): each queued
//! request's key (cylinder, id) with the slot its request and target are held in.
//!
//! A queue of a few hundred is kept as one sorted array: a binary search finds a cylinder,
//! an insert or removal shifts 16-byte entries along contiguous memory, and a search walks
//! two slices outward from the head. That is several times cheaper than a B-tree at the
//! depths drives queue (64 is usual) and host queues mostly reach. A deeper backlog (an
//! overloaded host queue can hold thousands) would make every shift long, so past
//! [`FLAT_MAX`] entries the index moves into a B-tree, and back once it has drained to a
//! quarter of that. Both hold the same keys in the same order, so every walk, and every
//! choice made from it, is the same whichever holds them.

use std::collections::BTreeMap;

use super::sweep::Key;

/// The most entries kept in the sorted array.
const FLAT_MAX: usize = 512;

/// One queued request: its key and its slot, 16 bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub id: u64,
    pub cylinder: u32,
    pub slot: u32,
}

impl Entry {
    #[inline]
    fn key(&self) -> Key {
        (self.cylinder, self.id)
    }
}

enum Rep {
    Flat(Vec<Entry>),
    Tree(BTreeMap<Key, u32>),
}

/// Keys (cylinder, request id) in order, each with a slot.
pub(crate) struct CylIndex {
    rep: Rep,
    /// Where the flat index's last removal taken where a walk found it left its neighbours:
    /// usually the next search's split, as the drive's head stays on the cylinder of the
    /// command it chose ([`CylIndex::walk`] checks it before trusting it).
    split_hint: usize,
}

impl Default for CylIndex {
    fn default() -> Self {
        CylIndex {
            rep: Rep::Flat(Vec::new()),
            split_hint: 0,
        }
    }
}

/// The requests a search walks: those at or above the head's cylinder, nearest first, and
/// those below it, nearest first; the flat index's slices with the position of each
/// slice's first entry in the index (so that the entry a search chose can be taken out
/// where it is: [`CylIndex::remove_at`]).
pub(crate) enum Walk<'a> {
    Flat(&'a [Entry], &'a [Entry], u32, u32),
    Tree(
        std::collections::btree_map::Range<'a, Key, u32>,
        std::iter::Rev<std::collections::btree_map::Range<'a, Key, u32>>,
    ),
}

impl CylIndex {
    pub fn len(&self) -> usize {
        match &self.rep {
            Rep::Flat(v) => v.len(),
            Rep::Tree(m) => m.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn insert(&mut self, cylinder: u32, id: u64, slot: u32) {
        match &mut self.rep {
            Rep::Flat(v) => {
                let at = v.partition_point(|e| e.key() < (cylinder, id));
                v.insert(at, Entry { id, cylinder, slot });
                self.split_hint += usize::from(at < self.split_hint);
                if v.len() > FLAT_MAX {
                    let tree = v.iter().map(|e| (e.key(), e.slot)).collect();
                    self.rep = Rep::Tree(tree);
                }
            }
            Rep::Tree(m) => {
                m.insert((cylinder, id), slot);
            }
        }
    }

    /// The slot of `key`, which must be queued.
    pub(crate) fn get(&self, key: Key) -> u32 {
        match &self.rep {
            Rep::Flat(v) => v[Self::position(v, key)].slot,
            Rep::Tree(m) => *m.get(&key).expect("key taken from this queue"),
        }
    }

    /// Take `key` (which must be queued) out; its slot.
    pub(crate) fn remove(&mut self, key: Key) -> u32 {
        match &mut self.rep {
            Rep::Flat(v) => {
                let at = Self::position(v, key);
                v.remove(at).slot
            }
            Rep::Tree(m) => {
                let slot = m.remove(&key).expect("key taken from this queue");
                if m.len() <= FLAT_MAX / 4 {
                    let flat = m
                        .iter()
                        .map(|(&(cylinder, id), &slot)| Entry { id, cylinder, slot })
                        .collect();
                    self.rep = Rep::Flat(flat);
                }
                slot
            }
        }
    }

    /// [`CylIndex::remove`] for a `key` a walk found at position `at` of the flat index:
    /// taken out there without a search when it is still there (nothing was inserted or
    /// removed since), else looked up.
    pub(crate) fn remove_at(&mut self, key: Key, at: u32) -> u32 {
        match &mut self.rep {
            Rep::Flat(v) if v.get(at as usize).is_some_and(|e| e.key() == key) => {
                self.split_hint = at as usize;
                v.remove(at as usize).slot
            }
            _ => self.remove(key),
        }
    }

    fn position(v: &[Entry], key: Key) -> usize {
        v.binary_search_by(|e| e.key().cmp(&key))
            .expect("key taken from this queue")
    }

    /// Oldest request on the lowest cylinder >= `c`.
    pub(crate) fn at_or_above(&self, c: u32) -> Option<Key> {
        match &self.rep {
            Rep::Flat(v) => v.get(v.partition_point(|e| e.cylinder < c)).map(Entry::key),
            Rep::Tree(m) => m.range((c, 0)..).next().map(|(k, _)| *k),
        }
    }

    /// Oldest request on the highest cylinder <= `c`.
    pub(crate) fn at_or_below(&self, c: u32) -> Option<Key> {
        match &self.rep {
            Rep::Flat(v) => {
                let end = v.partition_point(|e| e.cylinder <= c);
                let cyl = v[..end].last()?.cylinder;
                Some(v[v[..end].partition_point(|e| e.cylinder < cyl)].key())
            }
            Rep::Tree(m) => {
                let (&(cyl, _), _) = m.range(..=(c, u64::MAX)).next_back()?;
                m.range((cyl, 0)..).next().map(|(k, _)| *k)
            }
        }
    }

    /// Requests on cylinders `lo..=hi`.
    pub(crate) fn count_in(&self, lo: u32, hi: u32) -> usize {
        match &self.rep {
            Rep::Flat(v) => {
                let below = v.partition_point(|e| e.cylinder < lo);
                let through = v.partition_point(|e| e.cylinder <= hi);
                through.saturating_sub(below)
            }
            Rep::Tree(m) => m.range((lo, 0)..).take_while(|(k, _)| k.0 <= hi).count(),
        }
    }

    /// The requests on cylinders `lo..=hi` split at `head`: those at or above it (from
    /// `head.max(lo)` up) and those below it (from `head.min(hi + 1)` down).
    pub fn walk(&self, head: u32, lo: u32, hi: u32) -> Walk<'_> {
        match &self.rep {
            Rep::Flat(v) => {
                let bound = |c: u32| v.partition_point(|e| e.cylinder < c);
                if lo == 0 && hi == u32::MAX {
                    // The whole queue (every search but a banded one): one split, where the
                    // hint is when the entries either side of it say so (the split is the
                    // one position that has them so).
                    let h = self.split_hint;
                    let at_hint = h <= v.len()
                        && (h == 0 || v[h - 1].cylinder < head)
                        && v.get(h).is_none_or(|e| e.cylinder >= head);
                    let split = if at_hint { h } else { bound(head) };
                    let (down, up) = v.split_at(split);
                    return Walk::Flat(up, down, split as u32, 0);
                }
                let up_from = bound(head.max(lo));
                let up_to = if hi == u32::MAX {
                    v.len()
                } else {
                    v.partition_point(|e| e.cylinder <= hi)
                };
                let down_from = if lo == 0 { 0 } else { bound(lo) };
                let down_to = bound(head.min(hi.saturating_add(1)));
                Walk::Flat(
                    v.get(up_from..up_to).unwrap_or(&[]),
                    v.get(down_from..down_to).unwrap_or(&[]),
                    up_from as u32,
                    down_from as u32,
                )
            }
            Rep::Tree(m) => {
                // `range` refuses a start past its end; an empty side is `k..k`.
                let (up_from, down_to) = (head.max(lo), head.min(hi.saturating_add(1)));
                let up = if up_from <= hi {
                    m.range((up_from, 0)..=(hi, u64::MAX))
                } else {
                    m.range((0, 0)..(0, 0))
                };
                let down = if lo < down_to {
                    m.range((lo, 0)..(down_to, 0))
                } else {
                    m.range((0, 0)..(0, 0))
                };
                Walk::Tree(up, down.rev())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Keys with their slots, in the order visited.
    type Visits = Vec<(Key, u32)>;

    /// The keys and slots a walk visits, up side then down side.
    fn visited(w: Walk<'_>) -> (Visits, Visits) {
        match w {
            Walk::Flat(up, down, ..) => (
                up.iter().map(|e| (e.key(), e.slot)).collect(),
                down.iter().rev().map(|e| (e.key(), e.slot)).collect(),
            ),
            Walk::Tree(up, down) => (
                up.map(|(k, s)| (*k, *s)).collect(),
                down.map(|(k, s)| (*k, *s)).collect(),
            ),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Through growth past the array's limit and draining back below it, the index
        /// answers every question as a B-tree of the same keys does.
        #[test]
        fn answers_as_a_btree_through_every_size(
            cyls in proptest::collection::vec(0u32..40, 1..1400),
            probes in proptest::collection::vec((0u32..45, 0u32..45, 0u32..45), 8),
        ) {
            let mut idx = CylIndex::default();
            let mut model: BTreeMap<Key, u32> = BTreeMap::new();
            let check = |idx: &CylIndex, model: &BTreeMap<Key, u32>| -> Result<(), TestCaseError> {
                prop_assert_eq!(idx.len(), model.len());
                for &(a, b, c) in &probes {
                    let (lo, hi) = (a.min(b), a.max(b));
                    prop_assert_eq!(
                        idx.at_or_above(c),
                        model.range((c, 0)..).next().map(|(k, _)| *k)
                    );
                    let below = model
                        .range(..=(c, u64::MAX))
                        .next_back()
                        .map(|(k, _)| k.0)
                        .and_then(|cyl| model.range((cyl, 0)..).next().map(|(k, _)| *k));
                    prop_assert_eq!(idx.at_or_below(c), below);
                    prop_assert_eq!(
                        idx.count_in(lo, hi),
                        model.range((lo, 0)..).take_while(|(k, _)| k.0 <= hi).count()
                    );
                    for (l, h) in [(lo, hi), (0, u32::MAX), (lo, u32::MAX), (0, hi)] {
                        let up: Vec<_> = model
                            .range((c.max(l), 0)..)
                            .take_while(|(k, _)| k.0 <= h)
                            .map(|(k, s)| (*k, *s))
                            .collect();
                        let down: Vec<_> = model
                            .range(..(c.min(h.saturating_add(1)), 0))
                            .rev()
                            .take_while(|(k, _)| k.0 >= l)
                            .map(|(k, s)| (*k, *s))
                            .collect();
                        prop_assert_eq!(visited(idx.walk(c, l, h)), (up, down));
                    }
                }
                Ok(())
            };
            for (i, &c) in cyls.iter().enumerate() {
                idx.insert(c, i as u64, i as u32 * 3);
                model.insert((c, i as u64), i as u32 * 3);
                if i % 97 == 0 || i + 1 == cyls.len() {
                    check(&idx, &model)?;
                }
            }
            for (i, &c) in cyls.iter().enumerate().rev() {
                prop_assert_eq!(idx.get((c, i as u64)), i as u32 * 3);
                // Taken out by key, or where a walk would have found it (its rank), or at
                // a stale position (the rank off by one), which must still find it; every
                // later walk checks the split the removal hints at.
                let rank = model.range(..(c, i as u64)).count() as u32;
                let slot = match i % 3 {
                    0 => idx.remove((c, i as u64)),
                    1 => idx.remove_at((c, i as u64), rank),
                    _ => idx.remove_at((c, i as u64), rank + 1),
                };
                prop_assert_eq!(slot, i as u32 * 3);
                model.remove(&(c, i as u64));
                // The search that follows a pick starts where the head stayed: the hint.
                let up: Vec<_> = model.range((c, 0)..).map(|(k, s)| (*k, *s)).collect();
                let down: Vec<_> = model.range(..(c, 0)).rev().map(|(k, s)| (*k, *s)).collect();
                prop_assert_eq!(visited(idx.walk(c, 0, u32::MAX)), (up, down));
                if i % 89 == 0 {
                    check(&idx, &model)?;
                }
            }
            prop_assert!(idx.is_empty());
        }
    }
}
