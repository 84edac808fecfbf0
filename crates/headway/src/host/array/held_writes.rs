//! A rebuild's writes onto the spare held for the spare's idle time (`spare_writes =
//! "idle"`): a row whose reads are in waits here until the spare has had no foreground
//! operation for the quiet time, and then goes out alone, the next one once it is done.

use std::collections::VecDeque;

use crate::time::SimTime;

/// Reconstructed rows waiting to be written onto the spare.
#[derive(Clone, Debug)]
pub(crate) struct HeldWrites {
    /// (first member sector, sectors) of each held write, oldest first.
    queue: VecDeque<(u64, u64)>,
    /// Held writes issued and not yet done (at most one).
    writing: u32,
    /// How long the spare must have had no foreground before a write goes out.
    quiet_ns: SimTime,
}

impl HeldWrites {
    pub(crate) fn new(quiet_ns: SimTime) -> Self {
        HeldWrites {
            queue: VecDeque::new(),
            writing: 0,
            quiet_ns,
        }
    }

    /// The write of `n` sectors from `at` is ready (its reads are in).
    pub(crate) fn hold(&mut self, at: u64, n: u64) {
        self.queue.push_back((at, n));
    }

    /// When the next held write may go out, given the spare's foreground operations in
    /// flight and when the last came or went; `None` with nothing held, a write already
    /// out, or the spare busy with its foreground.
    pub(crate) fn due(&self, spare_fg_inflight: u32, spare_fg_last_ns: SimTime) -> Option<SimTime> {
        if self.queue.is_empty() || self.writing > 0 || spare_fg_inflight > 0 {
            return None;
        }
        Some(spare_fg_last_ns + self.quiet_ns)
    }

    /// The next held write, marked as out.
    pub(crate) fn take(&mut self) -> Option<(u64, u64)> {
        let w = self.queue.pop_front()?;
        self.writing += 1;
        Some(w)
    }

    /// A held write is done.
    pub(crate) fn written(&mut self) {
        self.writing = self.writing.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_writes_go_out_one_at_a_time_after_the_spare_is_quiet() {
        let mut h = HeldWrites::new(5);
        assert_eq!(h.due(0, 100), None, "nothing held");
        h.hold(0, 64);
        h.hold(64, 64);
        assert_eq!(h.due(1, 100), None, "the spare is busy");
        assert_eq!(h.due(0, 100), Some(105));
        assert_eq!(h.take(), Some((0, 64)));
        assert_eq!(h.due(0, 100), None, "one write out at a time");
        h.written();
        assert_eq!(h.due(0, 200), Some(205));
        assert_eq!(h.take(), Some((64, 64)));
        h.written();
        assert_eq!(h.take(), None);
        assert_eq!(h.due(0, 300), None);
    }
}
