//! The queue shared by the cylinder-ordered schedulers (SSTF, SCAN, LOOK, C-SCAN, C-LOOK;
//! the rotation-aware ones keep theirs in `cyl_index`): requests keyed by (cylinder, id), so
//! equal cylinders are served in arrival order and every choice is deterministic. A B-tree
//! keeps insert, remove and "next cylinder at or above c" logarithmic even for very deep
//! backlogs.

use std::collections::BTreeMap;

use crate::request::Request;

pub(crate) type Key = (u32, u64);

/// Keyed by (cylinder, request id); `V` is the request, or the request with whatever the
/// scheduler precomputed about it.
pub(crate) struct CylQueue<V = Request> {
    map: BTreeMap<Key, V>,
}

impl<V> Default for CylQueue<V> {
    fn default() -> Self {
        CylQueue {
            map: BTreeMap::new(),
        }
    }
}

impl<V> CylQueue<V> {
    pub fn insert(&mut self, cyl: u32, id: u64, v: V) {
        self.map.insert((cyl, id), v);
    }
    pub(crate) fn get(&self, key: Key) -> &V {
        self.map.get(&key).expect("key taken from this queue")
    }
    pub(crate) fn remove(&mut self, key: Key) -> V {
        self.map.remove(&key).expect("key taken from this queue")
    }
    pub fn len(&self) -> usize {
        self.map.len()
    }
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
    /// The nearest request at or beyond `c` in direction `dir` (oldest on its cylinder).
    pub(crate) fn ahead(&self, c: u32, dir: Dir) -> Option<Key> {
        match dir {
            Dir::Up => self.at_or_above(c),
            Dir::Down => self.at_or_below(c),
        }
    }
    /// Oldest request on the lowest cylinder >= `c`.
    pub(crate) fn at_or_above(&self, c: u32) -> Option<Key> {
        self.map.range((c, 0)..).next().map(|(k, _)| *k)
    }
    /// Oldest request on the highest cylinder <= `c`.
    pub(crate) fn at_or_below(&self, c: u32) -> Option<Key> {
        let (&(cyl, _), _) = self.map.range(..=(c, u64::MAX)).next_back()?;
        self.oldest_on(cyl)
    }
    /// Oldest request on cylinder `cyl` (which must hold one).
    fn oldest_on(&self, cyl: u32) -> Option<Key> {
        self.map
            .range((cyl, 0)..=(cyl, u64::MAX))
            .next()
            .map(|(k, _)| *k)
    }
    pub(crate) fn lowest(&self) -> Option<Key> {
        self.map.keys().next().copied()
    }
}

/// Sweep direction of an elevator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Dir {
    #[default]
    Up,
    Down,
}

impl Dir {
    pub(crate) fn reversed(self) -> Dir {
        match self {
            Dir::Up => Dir::Down,
            Dir::Down => Dir::Up,
        }
    }
}

/// SSTF's pick: the request nearest `pos` by cylinder distance; ties to the lower cylinder,
/// then the older request. `q` must not be empty.
pub(crate) fn nearest<V>(q: &CylQueue<V>, pos: u32) -> Key {
    let up = q.at_or_above(pos);
    let down = if pos == 0 {
        None
    } else {
        q.at_or_below(pos - 1)
    };
    match (down, up) {
        (Some(d), Some(u)) if pos - d.0 <= u.0 - pos => d,
        (_, Some(u)) => u,
        (Some(d), None) => d,
        (None, None) => unreachable!("picks are asked only of a non-empty queue"),
    }
}

/// LOOK's pick: the nearest request ahead of `pos` in direction `dir`, reversing `dir` when
/// nothing lies ahead. `q` must not be empty.
pub(crate) fn ahead_or_reverse<V>(q: &CylQueue<V>, pos: u32, dir: &mut Dir) -> Key {
    q.ahead(pos, *dir).unwrap_or_else(|| {
        *dir = dir.reversed();
        q.ahead(pos, *dir)
            .expect("a non-empty queue has a request on one side")
    })
}

/// C-LOOK's pick: the nearest request at or above `pos`, else the lowest. `q` must not be
/// empty.
pub(crate) fn upward_or_lowest<V>(q: &CylQueue<V>, pos: u32) -> Key {
    q.at_or_above(pos)
        .or_else(|| q.lowest())
        .expect("non-empty queue")
}
