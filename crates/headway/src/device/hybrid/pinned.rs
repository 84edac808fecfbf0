//! The LBA ranges pinned in a hybrid drive's NVCache. The drive keeps one for its pins and
//! one for the LBAs whose data the flash holds; the host's flash-backed policy keeps its own
//! copy (the NV FQueue), apart from its DRAM FQueue on purpose and updated only by the pin
//! and unpin commands it issues, so a test can check the two copies always hold the same
//! sectors.

use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct PinnedSet {
    /// start -> end, disjoint and never adjacent (merged on pin).
    ranges: BTreeMap<u64, u64>,
    sectors: u64,
    pub pin_commands: u64,
    pub unpin_commands: u64,
}

impl PinnedSet {
    pub fn sectors(&self) -> u64 {
        self.sectors
    }

    /// Pinned ranges in order.
    pub fn ranges(&self) -> Vec<(u64, u64)> {
        self.ranges.iter().map(|(&a, &b)| (a, b)).collect()
    }

    /// ATA-8 pin (Populate Immediate not set: the next host write lands in flash).
    pub fn pin(&mut self, lbn: u64, end: u64) {
        self.pin_commands += 1;
        self.remove(lbn, end);
        let (mut lo, mut hi) = (lbn, end);
        if let Some((&s, &e)) = self.ranges.range(..=lo).next_back() {
            if e == lo {
                lo = s;
                self.ranges.remove(&s);
                self.sectors -= e - s;
            }
        }
        if let Some(&e) = self.ranges.get(&hi) {
            self.ranges.remove(&hi);
            self.sectors -= e - hi;
            hi = e;
        }
        self.ranges.insert(lo, hi);
        self.sectors += hi - lo;
    }

    /// ATA-8 unpin.
    pub fn unpin(&mut self, lbn: u64, end: u64) {
        self.unpin_commands += 1;
        self.remove(lbn, end);
    }

    fn remove(&mut self, lbn: u64, end: u64) {
        let mut hit: Vec<(u64, u64)> = self.ranges.range(lbn..end).map(|(&a, &b)| (a, b)).collect();
        if let Some((&s, &e)) = self.ranges.range(..lbn).next_back() {
            if e > lbn {
                hit.push((s, e));
            }
        }
        for (s, e) in hit {
            self.ranges.remove(&s);
            self.sectors -= e - s;
            if s < lbn {
                self.ranges.insert(s, lbn);
                self.sectors += lbn - s;
            }
            if e > end {
                self.ranges.insert(end, e);
                self.sectors += e - end;
            }
        }
    }
}
