//! The media cache's map: which host sectors the cache holds, and where on the platter.
//! Writes are appended at the cache's log position (wrapping to its start); a cleaning takes
//! a band's extents out of the map.

use std::collections::{BTreeMap, BTreeSet};

/// One mapped run of host sectors: `host_lbn..end_lbn` lives at `cache_lbn..` (physical).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Extent {
    end_lbn: u64,
    cache_lbn: u64,
    /// Order of the write that put it there (the oldest is cleaned first).
    seq: u64,
}

/// A run of a host range: `(host_lbn, sectors, Some(cache_lbn))` when the cache holds it.
pub(crate) type Piece = (u64, u64, Option<u64>);

#[derive(Clone, Debug)]
pub(crate) struct MediaCache {
    start_lbn: u64,
    capacity_sectors: u64,
    /// Sectors appended so far; the next append goes at `log_sectors % capacity`.
    log_sectors: u64,
    extents: BTreeMap<u64, Extent>,
    by_age: BTreeSet<(u64, u64)>,
    held_sectors: u64,
    next_seq: u64,
}

impl MediaCache {
    pub(crate) fn new(start_lbn: u64, capacity_sectors: u64) -> Self {
        MediaCache {
            start_lbn,
            capacity_sectors,
            log_sectors: 0,
            extents: BTreeMap::new(),
            by_age: BTreeSet::new(),
            held_sectors: 0,
            next_seq: 0,
        }
    }

    pub(crate) fn held_sectors(&self) -> u64 {
        self.held_sectors
    }

    pub(crate) fn extents(&self) -> usize {
        self.extents.len()
    }

    /// The host LBN of the oldest write still held.
    pub(crate) fn oldest_lbn(&self) -> Option<u64> {
        self.by_age.first().map(|&(_, lbn)| lbn)
    }

    /// Map `host_lbn..host_lbn + sectors` to a fresh place at the log position (its old
    /// copy, if any, is dropped) and return that place's physical LBN.
    pub(crate) fn append(&mut self, host_lbn: u64, sectors: u64) -> u64 {
        self.take(host_lbn, host_lbn + sectors);
        let mut offset = self.log_sectors % self.capacity_sectors;
        if offset + sectors > self.capacity_sectors {
            self.log_sectors += self.capacity_sectors - offset;
            offset = 0;
        }
        self.log_sectors += sectors;
        let cache_lbn = self.start_lbn + offset;
        let seq = self.next_seq;
        self.next_seq += 1;
        self.insert(host_lbn, host_lbn + sectors, cache_lbn, seq);
        cache_lbn
    }

    fn insert(&mut self, lo: u64, hi: u64, cache_lbn: u64, seq: u64) {
        self.extents.insert(
            lo,
            Extent {
                end_lbn: hi,
                cache_lbn,
                seq,
            },
        );
        self.by_age.insert((seq, lo));
        self.held_sectors += hi - lo;
    }

    /// The extents overlapping `lo..hi`, starting with one that begins before `lo`.
    fn overlapping(&self, lo: u64, hi: u64) -> Vec<(u64, Extent)> {
        let mut out = Vec::new();
        if let Some((&s, &e)) = self.extents.range(..lo).next_back() {
            if e.end_lbn > lo {
                out.push((s, e));
            }
        }
        out.extend(self.extents.range(lo..hi).map(|(&s, &e)| (s, e)));
        out
    }

    /// Drop `lo..hi` from the map and return where its cached sectors were, as
    /// `(cache_lbn, sectors)` in platter order.
    pub(crate) fn take(&mut self, lo: u64, hi: u64) -> Vec<(u64, u64)> {
        let mut taken = Vec::new();
        for (s, e) in self.overlapping(lo, hi) {
            self.extents.remove(&s);
            self.by_age.remove(&(e.seq, s));
            self.held_sectors -= e.end_lbn - s;
            let (a, b) = (s.max(lo), e.end_lbn.min(hi));
            taken.push((e.cache_lbn + (a - s), b - a));
            if s < lo {
                self.insert(s, lo, e.cache_lbn, e.seq);
            }
            if e.end_lbn > hi {
                self.insert(hi, e.end_lbn, e.cache_lbn + (hi - s), e.seq);
            }
        }
        taken.sort_unstable();
        taken
    }

    /// `lo..hi` split into runs the cache holds and runs it does not, in LBN order.
    pub(crate) fn pieces(&self, lo: u64, hi: u64) -> Vec<Piece> {
        let mut out = Vec::new();
        let mut at = lo;
        for (s, e) in self.overlapping(lo, hi) {
            let (a, b) = (s.max(lo), e.end_lbn.min(hi));
            if a > at {
                out.push((at, a - at, None));
            }
            out.push((a, b - a, Some(e.cache_lbn + (a - s))));
            at = b;
        }
        if at < hi {
            out.push((at, hi - at, None));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_advance_the_log_and_overwrites_drop_the_old_copy() {
        let mut c = MediaCache::new(1000, 100);
        assert_eq!(c.append(50, 8), 1000);
        assert_eq!(c.append(10, 8), 1008);
        // Rewriting half of the first extent: its old copy shrinks, the new one is appended.
        assert_eq!(c.append(54, 8), 1016);
        assert_eq!(c.held_sectors(), 20);
        assert_eq!(
            c.pieces(48, 64),
            vec![
                (48, 2, None),
                (50, 4, Some(1000)),
                (54, 8, Some(1016)),
                (62, 2, None)
            ]
        );
        assert_eq!(c.oldest_lbn(), Some(50));
    }

    #[test]
    fn an_append_that_would_run_past_the_end_wraps_to_the_start() {
        let mut c = MediaCache::new(0, 20);
        assert_eq!(c.append(0, 15), 0);
        c.take(0, 15);
        assert_eq!(c.append(100, 8), 0);
        assert_eq!(c.held_sectors(), 8);
    }

    #[test]
    fn taking_a_band_returns_its_cached_sectors_in_platter_order_and_keeps_the_rest() {
        let mut c = MediaCache::new(0, 1000);
        c.append(120, 10); // cache 0..10
        c.append(95, 10); // cache 10..20, straddles 100
        c.append(150, 5); // cache 20..25
        let taken = c.take(100, 200);
        assert_eq!(taken, vec![(0, 10), (15, 5), (20, 5)]);
        assert_eq!(c.held_sectors(), 5);
        assert_eq!(c.pieces(90, 100), vec![(90, 5, None), (95, 5, Some(10))]);
        assert_eq!(c.extents(), 1);
    }
}
