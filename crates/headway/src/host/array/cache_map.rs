//! Which sectors a cache device holds, and which of them the disk has not yet got: one
//! valid and one dirty bit per sector of the cached range. Sector `s` of the disk is
//! cached at sector `s` of the cache device, so the map needs no addresses.

/// Valid and dirty bits over the first `size_sectors` sectors of the disk.
pub(crate) struct CacheMap {
    size_sectors: u64,
    valid: Vec<u64>,
    dirty: Vec<u64>,
    /// No dirty bit lies in a word before this one.
    dirty_from_word: usize,
    dirty_sectors: u64,
}

impl CacheMap {
    pub(crate) fn new(size_sectors: u64) -> Self {
        let words = size_sectors.div_ceil(64) as usize;
        CacheMap {
            size_sectors,
            valid: vec![0; words],
            dirty: vec![0; words],
            dirty_from_word: words,
            dirty_sectors: 0,
        }
    }

    /// Whether `lbn .. lbn + sectors` lies within the cached range.
    pub(crate) fn covers(&self, lbn: u64, sectors: u64) -> bool {
        lbn + sectors <= self.size_sectors
    }

    /// Whether every sector of the extent is on the cache device.
    pub(crate) fn holds(&self, lbn: u64, sectors: u64) -> bool {
        self.covers(lbn, sectors) && (lbn..lbn + sectors).all(|s| bit(&self.valid, s))
    }

    /// The extent is now on the cache device, as the disk has it.
    pub(crate) fn fill(&mut self, lbn: u64, sectors: u64) {
        self.set(lbn, sectors, true, false);
    }

    /// The extent is now on the cache device, newer than on the disk.
    pub(crate) fn write(&mut self, lbn: u64, sectors: u64) {
        self.set(lbn, sectors, true, true);
    }

    /// The disk now has the extent.
    pub(crate) fn clean(&mut self, lbn: u64, sectors: u64) {
        for s in self.clip(lbn, sectors) {
            let (w, b) = ((s / 64) as usize, 1u64 << (s % 64));
            self.dirty_sectors -= u64::from(self.dirty[w] & b != 0);
            self.dirty[w] &= !b;
        }
    }

    fn set(&mut self, lbn: u64, sectors: u64, valid: bool, dirty: bool) {
        for s in self.clip(lbn, sectors) {
            let (w, b) = ((s / 64) as usize, 1u64 << (s % 64));
            if valid {
                self.valid[w] |= b;
            }
            if dirty {
                self.dirty_sectors += u64::from(self.dirty[w] & b == 0);
                self.dirty[w] |= b;
                self.dirty_from_word = self.dirty_from_word.min(w);
            }
        }
    }

    fn clip(&self, lbn: u64, sectors: u64) -> std::ops::Range<u64> {
        lbn.min(self.size_sectors)..(lbn + sectors).min(self.size_sectors)
    }

    /// The lowest run of consecutive dirty sectors, at most `max_sectors` long.
    pub(crate) fn first_dirty(&mut self, max_sectors: u64) -> Option<(u64, u64)> {
        while self.dirty_from_word < self.dirty.len() && self.dirty[self.dirty_from_word] == 0 {
            self.dirty_from_word += 1;
        }
        let w = self.dirty_from_word;
        let start = w as u64 * 64 + self.dirty.get(w)?.trailing_zeros() as u64;
        let mut end = start;
        while end < self.size_sectors && end - start < max_sectors && bit(&self.dirty, end) {
            end += 1;
        }
        Some((start, end - start))
    }

    pub(crate) fn dirty_sectors(&self) -> u64 {
        self.dirty_sectors
    }
}

#[inline]
fn bit(words: &[u64], s: u64) -> bool {
    words[(s / 64) as usize] & (1 << (s % 64)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filled_extent_is_held_and_clean() {
        let mut m = CacheMap::new(1000);
        assert!(!m.holds(10, 8));
        m.fill(10, 8);
        assert!(m.holds(10, 8) && m.holds(12, 2));
        assert!(!m.holds(9, 8), "sector 9 was never cached");
        assert_eq!(m.first_dirty(u64::MAX), None);
    }

    #[test]
    fn dirty_runs_come_lowest_first_and_leave_once_cleaned() {
        let mut m = CacheMap::new(1000);
        m.write(500, 30);
        m.write(60, 10);
        m.write(70, 4);
        assert_eq!(m.dirty_sectors(), 44);
        assert_eq!(m.first_dirty(u64::MAX), Some((60, 14)));
        assert_eq!(m.first_dirty(5), Some((60, 5)));
        m.clean(60, 14);
        assert_eq!(m.first_dirty(u64::MAX), Some((500, 30)));
        m.clean(500, 30);
        assert_eq!((m.first_dirty(u64::MAX), m.dirty_sectors()), (None, 0));
        let counted: u32 = m.dirty.iter().map(|w| w.count_ones()).sum();
        assert_eq!(counted, 0);
        assert!(m.holds(60, 14), "cleaning keeps the data cached");
    }

    #[test]
    fn the_range_ends_at_the_cache_size() {
        let mut m = CacheMap::new(100);
        assert!(m.covers(90, 10) && !m.covers(95, 10));
        m.write(95, 10);
        assert_eq!(m.first_dirty(u64::MAX), Some((95, 5)));
        assert!(!m.holds(95, 10));
    }
}
