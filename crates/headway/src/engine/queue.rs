use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An event with its firing time and the sequence number that makes ordering total and
/// FIFO among equal times (the nexosim rule): two events at the same nanosecond fire in the
/// order they were scheduled, so runs are deterministic regardless of heap internals.
#[derive(Debug)]
pub struct Scheduled<E> {
    pub at: SimTime,
    seq: u64,
    pub event: E,
}

impl<E> PartialEq for Scheduled<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl<E> Eq for Scheduled<E> {}
impl<E> PartialOrd for Scheduled<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Scheduled<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse so the earliest (then lowest seq) is on top.
        other.key().cmp(&self.key())
    }
}

impl<E> Scheduled<E> {
    /// Time, then sequence, as one number: the same order as comparing the two in turn,
    /// in one wide comparison without a branch between them.
    #[inline(always)]
    fn key(&self) -> u128 {
        order_key(self.at, self.seq)
    }
}

/// An event's place in the order: its time above its sequence number (never `u128::MAX`:
/// sequence numbers stop short of `u64::MAX`).
#[inline(always)]
pub(crate) fn order_key(at: SimTime, seq: u64) -> u128 {
    (at as u128) << 64 | seq as u128
}

/// Min-queue of events by (time, insertion order).
pub struct EventQueue<E> {
    heap: BinaryHeap<Scheduled<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub(crate) fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(64),
            next_seq: 0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, at: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Scheduled { at, seq, event });
    }

    /// Take the sequence number the next push would have had, for an event kept outside
    /// the heap (the engine's arrival lane) and ordered against it by [`order_key`].
    #[inline]
    pub(crate) fn take_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// The order key of the earliest event (`u128::MAX` when empty): an event kept outside
    /// with a smaller [`order_key`] comes first.
    #[inline]
    pub(crate) fn peek_key(&self) -> u128 {
        self.heap.peek().map_or(u128::MAX, Scheduled::key)
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Scheduled<E>> {
        self.heap.pop()
    }

    #[cfg(test)]
    fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|s| s.at)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.heap.len()
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_then_fifo_on_ties() {
        let mut q = EventQueue::new();
        q.push(10, "b1");
        q.push(5, "a");
        q.push(10, "b2");
        q.push(10, "b3");
        q.push(7, "x");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|s| s.event)).collect();
        assert_eq!(order, vec!["a", "x", "b1", "b2", "b3"]);
    }

    /// Against a plain sort by (time, push order), over pushes and pops interleaved at
    /// random (many ties: times drawn from a few values).
    #[test]
    fn pops_in_time_then_push_order_whatever_the_interleaving() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut q = EventQueue::new();
        let mut model: Vec<(SimTime, u64)> = vec![];
        let mut pushed = 0u64;
        for _ in 0..20_000 {
            if rng.random_bool(0.55) {
                let at = rng.random_range(0..8u64);
                q.push(at, pushed);
                model.push((at, pushed));
                pushed += 1;
            } else {
                model.sort();
                let want = (!model.is_empty()).then(|| model.remove(0));
                assert_eq!(q.peek_time(), want.map(|w| w.0));
                let key = q.peek_key();
                assert_eq!(key == u128::MAX, want.is_none());
                assert_eq!(q.pop().map(|s| (s.at, s.event)), want);
            }
            assert_eq!(q.len(), model.len());
            assert_eq!(q.is_empty(), model.is_empty());
        }
    }

    #[test]
    fn an_event_kept_outside_takes_its_place_by_its_key() {
        let mut q = EventQueue::new();
        q.push(10, "b1");
        let outside = order_key(10, q.take_seq());
        q.push(10, "b3");
        q.push(5, "a");
        let mut order = vec![];
        let mut lane = Some(outside);
        loop {
            if lane.is_some_and(|k| k < q.peek_key()) {
                lane = None;
                order.push("b2");
            } else if let Some(s) = q.pop() {
                order.push(s.event);
            } else {
                break;
            }
        }
        assert_eq!(order, vec!["a", "b1", "b2", "b3"]);
        assert_eq!(q.peek_key(), u128::MAX);
    }
}
