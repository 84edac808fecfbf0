//! Which pending slot and operation each member request in flight belongs to, looked up by
//! request id. Ids are handed out in increasing order and member operations mostly finish
//! in about the order they were issued, so a window of ids from the oldest one in flight
//! indexes them directly: no hashing, and neighbouring ids share cache lines (a hash map
//! of the ops queued at saturated members was a fifth of an array run's time).

use std::collections::VecDeque;

const NONE: (u32, u16) = (u32::MAX, u16::MAX);

#[derive(Default)]
pub(crate) struct IdWindow {
    /// The id of `slots[0]`.
    base: u64,
    slots: VecDeque<(u32, u16)>,
    live: usize,
}

impl IdWindow {
    /// Track `id` (larger than any tracked before) as operation `op` of pending `slot`.
    pub(crate) fn insert(&mut self, id: u64, slot: u32, op: u16) {
        if self.live == 0 {
            self.slots.clear();
            self.base = id;
        }
        debug_assert!(id >= self.base + self.slots.len() as u64, "ids increase");
        while self.base + (self.slots.len() as u64) < id {
            self.slots.push_back(NONE);
        }
        self.slots.push_back((slot, op));
        self.live += 1;
    }

    /// Stop tracking `id`; where it was, if it was tracked.
    pub(crate) fn remove(&mut self, id: u64) -> Option<(u32, u16)> {
        let i = usize::try_from(id.checked_sub(self.base)?).ok()?;
        let e = self.slots.get_mut(i)?;
        if *e == NONE {
            return None;
        }
        let found = std::mem::replace(e, NONE);
        self.live -= 1;
        while self.slots.front() == Some(&NONE) {
            self.slots.pop_front();
            self.base += 1;
        }
        Some(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_id_once_in_any_completion_order() {
        let mut w = IdWindow::default();
        w.insert(10, 0, 0);
        w.insert(13, 0, 1);
        w.insert(14, 2, 0);
        assert_eq!(w.remove(12), None);
        assert_eq!(w.remove(13), Some((0, 1)));
        assert_eq!(w.remove(13), None);
        assert_eq!(w.remove(10), Some((0, 0)));
        // The window now starts at the oldest id still in flight.
        assert_eq!(w.base, 14);
        w.insert(20, 5, 3);
        assert_eq!(w.remove(9), None);
        assert_eq!(w.remove(20), Some((5, 3)));
        assert_eq!(w.remove(14), Some((2, 0)));
        assert_eq!(w.live, 0);
        assert!(w.slots.is_empty());
    }
}
