//! The cache's line table: which lines of the device are resident, each sector's valid and
//! dirty bits, the lines' least-recently-used order, and which lines a device operation
//! holds (a fill or a write-back in flight).

use std::collections::HashMap;

const NIL: u32 = u32::MAX;

/// One resident line.
struct Slot {
    /// The line's number on the device (`lbn / line_sectors`); `u64::MAX` when free.
    line: u64,
    /// Toward the most recently used end.
    newer: u32,
    /// Toward the least recently used end.
    older: u32,
    /// Fills in flight into the line: its data is not there yet.
    filling: u16,
    /// Write-backs in flight from the line: it may be read, not changed or evicted.
    flushing: u16,
}

/// Lines of one cache, sized once.
pub(crate) struct LineTable {
    line_sectors: u64,
    words: usize,
    slots: Vec<Slot>,
    valid: Vec<u64>,
    dirty: Vec<u64>,
    by_line: HashMap<u64, u32>,
    free: Vec<u32>,
    newest: u32,
    oldest: u32,
}

/// What eviction found at the least recently used end.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Victim {
    /// A clean line, now free for the caller.
    Freed(u32),
    /// A dirty line: its dirty sectors must be written back before it can go.
    Dirty(u32),
    /// Every line is held by a device operation.
    AllHeld,
}

impl LineTable {
    pub(crate) fn new(lines: usize, line_sectors: u64) -> Self {
        let words = line_sectors.div_ceil(64) as usize;
        LineTable {
            line_sectors,
            words,
            slots: (0..lines)
                .map(|_| Slot {
                    line: u64::MAX,
                    newer: NIL,
                    older: NIL,
                    filling: 0,
                    flushing: 0,
                })
                .collect(),
            valid: vec![0; lines * words],
            dirty: vec![0; lines * words],
            by_line: HashMap::with_capacity(lines),
            free: (0..lines as u32).rev().collect(),
            newest: NIL,
            oldest: NIL,
        }
    }

    pub(crate) fn capacity_lines(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn line_sectors(&self) -> u64 {
        self.line_sectors
    }

    pub(crate) fn slot_of(&self, line: u64) -> Option<u32> {
        self.by_line.get(&line).copied()
    }

    pub(crate) fn line_of(&self, slot: u32) -> u64 {
        self.slots[slot as usize].line
    }

    /// Held by a fill (nothing may use it) or a write-back (nothing may change it).
    pub(crate) fn filling(&self, slot: u32) -> bool {
        self.slots[slot as usize].filling > 0
    }
    pub(crate) fn held(&self, slot: u32) -> bool {
        let s = &self.slots[slot as usize];
        s.filling > 0 || s.flushing > 0
    }

    pub(crate) fn hold_fill(&mut self, slot: u32, on: bool) {
        let s = &mut self.slots[slot as usize];
        if on {
            s.filling += 1;
        } else {
            s.filling -= 1;
        }
    }
    pub(crate) fn hold_flush(&mut self, slot: u32, on: bool) {
        let s = &mut self.slots[slot as usize];
        if on {
            s.flushing += 1;
        } else {
            s.flushing -= 1;
        }
    }

    fn bit(&self, slot: u32, sector: u64) -> (usize, u64) {
        (
            slot as usize * self.words + (sector / 64) as usize,
            1u64 << (sector % 64),
        )
    }

    /// Sector `sector` (0-based within the line) of `slot` holds data.
    pub(crate) fn is_valid(&self, slot: u32, sector: u64) -> bool {
        let (w, b) = self.bit(slot, sector);
        self.valid[w] & b != 0
    }
    pub(crate) fn is_dirty(&self, slot: u32, sector: u64) -> bool {
        let (w, b) = self.bit(slot, sector);
        self.dirty[w] & b != 0
    }
    pub(crate) fn set(&mut self, slot: u32, sector: u64, valid: bool, dirty: bool) {
        let (w, b) = self.bit(slot, sector);
        if valid {
            self.valid[w] |= b;
        } else {
            self.valid[w] &= !b;
        }
        if dirty {
            self.dirty[w] |= b;
        } else {
            self.dirty[w] &= !b;
        }
    }
    pub(crate) fn any_dirty(&self, slot: u32) -> bool {
        let w = slot as usize * self.words;
        self.dirty[w..w + self.words].iter().any(|&d| d != 0)
    }

    /// Make `slot` the most recently used line.
    pub(crate) fn touch(&mut self, slot: u32) {
        if self.newest == slot {
            return;
        }
        self.unlink(slot);
        self.push_newest(slot);
    }

    fn unlink(&mut self, slot: u32) {
        let (newer, older) = {
            let s = &self.slots[slot as usize];
            (s.newer, s.older)
        };
        if newer != NIL {
            self.slots[newer as usize].older = older;
        } else if self.newest == slot {
            self.newest = older;
        }
        if older != NIL {
            self.slots[older as usize].newer = newer;
        } else if self.oldest == slot {
            self.oldest = newer;
        }
        let s = &mut self.slots[slot as usize];
        s.newer = NIL;
        s.older = NIL;
    }

    fn push_newest(&mut self, slot: u32) {
        let old_newest = self.newest;
        {
            let s = &mut self.slots[slot as usize];
            s.older = old_newest;
            s.newer = NIL;
        }
        if old_newest != NIL {
            self.slots[old_newest as usize].newer = slot;
        }
        self.newest = slot;
        if self.oldest == NIL {
            self.oldest = slot;
        }
    }

    /// Map `line` into a free slot as the most recently used line, its sectors invalid;
    /// `None` when no slot is free (evict first).
    pub(crate) fn map(&mut self, line: u64) -> Option<u32> {
        let slot = self.free.pop()?;
        self.slots[slot as usize].line = line;
        let w = slot as usize * self.words;
        self.valid[w..w + self.words].fill(0);
        self.dirty[w..w + self.words].fill(0);
        self.by_line.insert(line, slot);
        self.push_newest(slot);
        Some(slot)
    }

    /// Look for a victim from the least recently used end, passing over held lines: a
    /// clean one is unmapped and its slot freed; a dirty one is left for the caller to
    /// write back.
    pub(crate) fn evict(&mut self) -> Victim {
        let mut s = self.oldest;
        while s != NIL {
            if !self.held(s) {
                if self.any_dirty(s) {
                    return Victim::Dirty(s);
                }
                self.unlink(s);
                let line = std::mem::replace(&mut self.slots[s as usize].line, u64::MAX);
                self.by_line.remove(&line);
                self.free.push(s);
                return Victim::Freed(s);
            }
            s = self.slots[s as usize].newer;
        }
        Victim::AllHeld
    }

    /// Resident lines (for checks).
    #[cfg(test)]
    pub(crate) fn resident(&self) -> usize {
        self.by_line.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eviction_takes_the_least_recently_used_clean_line() {
        let mut t = LineTable::new(2, 8);
        let a = t.map(10).unwrap();
        let b = t.map(11).unwrap();
        assert_eq!(t.map(12), None);
        t.touch(a);
        assert_eq!(t.evict(), Victim::Freed(b));
        assert_eq!(t.slot_of(11), None);
        assert_eq!(t.resident(), 1);
        let c = t.map(12).unwrap();
        t.set(a, 3, true, true);
        // `a` is now the oldest and dirty: it is reported, not freed.
        assert_eq!(t.evict(), Victim::Dirty(a));
        t.hold_flush(a, true);
        assert_eq!(t.evict(), Victim::Freed(c));
        t.map(13).unwrap();
        t.hold_fill(t.slot_of(13).unwrap(), true);
        assert_eq!(t.evict(), Victim::AllHeld);
    }
}
