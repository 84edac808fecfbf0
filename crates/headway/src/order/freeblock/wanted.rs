//! The wanted-block bitmap: one bit per sector of the device, set while a background task
//! still wants that sector read. A track's remaining count is a popcount over the track's
//! LBN range (a few words: a track holds a few hundred sectors), which serves as the
//! spec's per-track counter without a second structure to keep in step.
//!
//! Blocks are taken out of the bitmap when a command that reads them is committed (not when
//! it completes), so two commands in flight never read the same wanted block: each block
//! is delivered exactly once.

#[derive(Clone, Debug, Default)]
pub struct WantedBlocks {
    words: Vec<u64>,
    capacity: u64,
    remaining: u64,
}

impl WantedBlocks {
    pub fn new(capacity_sectors: u64) -> Self {
        WantedBlocks {
            words: vec![0; capacity_sectors.div_ceil(64) as usize],
            capacity: capacity_sectors,
            remaining: 0,
        }
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.capacity
    }
    /// Sectors still wanted.
    pub(crate) fn remaining(&self) -> u64 {
        self.remaining
    }
    /// Mark `lbn..lbn + n` wanted; returns the sectors newly marked.
    pub fn want(&mut self, lbn: u64, n: u64) -> u64 {
        let added = n - self.count(lbn, n);
        self.set_range(lbn, n, true);
        self.remaining += added;
        added
    }

    /// Take `lbn..lbn + n` out of the bitmap (a read of them was committed); returns how
    /// many of them were wanted.
    pub fn take(&mut self, lbn: u64, n: u64) -> u64 {
        let had = self.count(lbn, n);
        self.set_range(lbn, n, false);
        self.remaining -= had;
        had
    }

    #[inline]
    pub(crate) fn is_wanted(&self, lbn: u64) -> bool {
        lbn < self.capacity && self.words[(lbn / 64) as usize] >> (lbn % 64) & 1 == 1
    }

    /// Wanted sectors in `lbn..lbn + n`.
    pub fn count(&self, lbn: u64, n: u64) -> u64 {
        let end = (lbn + n).min(self.capacity);
        if lbn >= end {
            return 0;
        }
        let (w0, w1) = ((lbn / 64) as usize, ((end - 1) / 64) as usize);
        let mut total = 0u64;
        for w in w0..=w1 {
            let mut word = self.words[w];
            if w == w0 {
                word &= !0u64 << (lbn % 64);
            }
            if w == w1 {
                let top = (end - 1) % 64;
                if top < 63 {
                    word &= (1u64 << (top + 1)) - 1;
                }
            }
            total += word.count_ones() as u64;
        }
        total
    }

    /// The first and last wanted sector in `lbn..lbn + n`, if any.
    #[cfg(test)]
    pub(crate) fn bounds(&self, lbn: u64, n: u64) -> Option<(u64, u64)> {
        let end = (lbn + n).min(self.capacity);
        let first = (lbn..end).find(|&s| self.is_wanted(s))?;
        let last = (first..end).rev().find(|&s| self.is_wanted(s))?;
        Some((first, last))
    }

    /// The longest run of consecutive wanted sectors in `lbn..lbn + n` (the first of equal
    /// length), as `(start, sectors)`.
    pub(crate) fn longest_run(&self, lbn: u64, n: u64) -> Option<(u64, u64)> {
        let end = (lbn + n).min(self.capacity);
        let mut best: Option<(u64, u64)> = None;
        let mut s = lbn;
        while s < end {
            if !self.is_wanted(s) {
                s += 1;
                continue;
            }
            let start = s;
            while s < end && self.is_wanted(s) {
                s += 1;
            }
            if best.is_none_or(|b| s - start > b.1) {
                best = Some((start, s - start));
            }
        }
        best
    }

    /// The wanted sectors immediately before `end`, back to `floor` at most: the start of
    /// the run of wanted sectors that ends at `end`.
    pub(crate) fn run_ending_at(&self, end: u64, floor: u64) -> Option<u64> {
        let mut s = end;
        while s > floor && self.is_wanted(s - 1) {
            s -= 1;
        }
        (s < end).then_some(s)
    }

    /// The first wanted sector at or after `from` (wrapping to 0), if any.
    pub(crate) fn next_wanted(&self, from: u64) -> Option<u64> {
        if self.remaining == 0 {
            return None;
        }
        let scan = |lo: u64, hi: u64| -> Option<u64> {
            let mut s = lo;
            while s < hi {
                let w = self.words[(s / 64) as usize] & (!0u64 << (s % 64));
                if w != 0 {
                    let hit = (s / 64) * 64 + w.trailing_zeros() as u64;
                    return (hit < hi).then_some(hit);
                }
                s = (s / 64 + 1) * 64;
            }
            None
        };
        scan(from.min(self.capacity), self.capacity).or_else(|| scan(0, from.min(self.capacity)))
    }

    fn set_range(&mut self, lbn: u64, n: u64, on: bool) {
        let end = (lbn + n).min(self.capacity);
        let mut s = lbn;
        while s < end {
            let w = (s / 64) as usize;
            let lo = s % 64;
            let hi = (end - (s - lo)).min(64);
            let mask = if hi - lo == 64 {
                !0u64
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            if on {
                self.words[w] |= mask;
            } else {
                self.words[w] &= !mask;
            }
            s = s - lo + 64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_takes_match_a_plain_set() {
        let mut w = WantedBlocks::new(1000);
        assert_eq!(w.want(10, 200), 200);
        assert_eq!(w.want(100, 200), 90, "overlap counted once");
        assert_eq!(w.remaining(), 290);
        assert_eq!(w.count(0, 1000), 290);
        assert_eq!(w.count(63, 2), 2);
        assert_eq!(w.take(50, 20), 20);
        assert_eq!(w.take(50, 20), 0, "taken blocks are gone");
        assert_eq!(w.remaining(), 270);
        assert_eq!(w.bounds(0, 60), Some((10, 49)));
        assert_eq!(w.bounds(50, 20), None);
        assert_eq!(w.next_wanted(50), Some(70));
        assert_eq!(w.next_wanted(400), Some(10), "wraps");
        assert!(w.is_wanted(299) && !w.is_wanted(300));
        assert_eq!(w.longest_run(0, 1000), Some((70, 230)));
        assert_eq!(w.longest_run(40, 20), Some((40, 10)));
        assert_eq!(w.run_ending_at(50, 0), Some(10));
        assert_eq!(w.run_ending_at(50, 30), Some(30));
        assert_eq!(w.run_ending_at(60, 0), None);
        let brute = (0..1000).filter(|&s| w.is_wanted(s)).count() as u64;
        assert_eq!(brute, w.remaining());
    }
}
