//! Cello's scheduled queue: the one queue the disk is served from, head first, with the
//! slack of its requests kept per **segment** (spec §3.5).
//!
//! A segment is a run of best-effort requests followed by a run of real-time requests that
//! share one deadline (or, at the tail, a run of best-effort requests alone). By the
//! paper's three lemmas every request of a segment has the same slack, so the queue keeps
//! one (length, summed service time, deadline) triple per segment and derives the slacks
//! from those: O(segments) after a change instead of O(requests). An insertion re-splits
//! only the segment it lands in.

use std::collections::VecDeque;

use crate::request::{HeadPosition, Request};
use crate::time::{SimTime, NEVER};

/// One scheduled request.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub req: Request,
    /// Cello class index.
    pub class: usize,
    /// Estimated service time τ if served right after the entry before it.
    pub tau_ns: SimTime,
    /// Where the head is after serving it (the next entry's τ is estimated from here).
    pub end: HeadPosition,
    /// Its deadline binds the schedule (a soft real-time class); best-effort ones count as
    /// d = ∞ whatever the request carries.
    pub realtime: bool,
}

impl Entry {
    /// d_i of (17): the deadline, or [`NEVER`] for best effort.
    pub(crate) fn deadline_ns(&self) -> SimTime {
        if self.realtime {
            self.req.deadline_ns
        } else {
            NEVER
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    len: usize,
    tau_sum: i64,
    /// The deadline of its real-time run, or [`NEVER`] for a best-effort-only tail.
    deadline: SimTime,
}

/// The scheduled queue and its segments.
#[derive(Clone, Debug, Default)]
pub struct ScheduledQueue {
    entries: VecDeque<Entry>,
    segments: VecDeque<Segment>,
}

fn dl(d: SimTime) -> i64 {
    d.min(i64::MAX as u64 / 4) as i64
}

/// Slacks of a segment list, for a queue whose first request may start at `e1` and an
/// interval ending at `t_end` (equations 17-19 evaluated once per segment).
fn segment_slacks(
    segs: impl DoubleEndedIterator<Item = (i64, SimTime)> + ExactSizeIterator + Clone,
    e1: SimTime,
    t_end: SimTime,
) -> Vec<i64> {
    let n = segs.clone().count();
    let mut latest = vec![0i64; n];
    let mut next_l = dl(t_end);
    for (g, (tau, d)) in segs.clone().enumerate().rev() {
        let l = dl(d).min(next_l) - tau;
        latest[g] = l;
        next_l = l;
    }
    let mut e = e1 as i64;
    let mut out = Vec::with_capacity(n);
    for (g, (tau, _)) in segs.enumerate() {
        out.push((latest[g] - e).max(0));
        e += tau;
    }
    out
}

impl ScheduledQueue {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub(crate) fn get(&self, k: usize) -> &Entry {
        &self.entries[k]
    }
    pub(crate) fn front(&self) -> Option<&Entry> {
        self.entries.front()
    }
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }
    /// Number of segments (the cost unit of a slack update).
    #[cfg(test)]
    pub(crate) fn segment_count(&self) -> usize {
        self.segments.len()
    }
    /// Σ τ over the queue.
    #[cfg(test)]
    pub(crate) fn total_tau_ns(&self) -> i64 {
        self.segments.iter().map(|s| s.tau_sum).sum()
    }

    /// The segment holding entry `k` and the index of its first entry.
    fn segment_of(&self, k: usize) -> (usize, usize) {
        let mut first = 0;
        for (g, s) in self.segments.iter().enumerate() {
            if k < first + s.len {
                return (g, first);
            }
            first += s.len;
        }
        unreachable!("entry {k} is beyond the queue")
    }

    /// Split `entries[first..first+len]` into segments (the greedy rule: a segment closes
    /// after a real-time entry unless the next one is real-time with the same deadline).
    fn split(&self, first: usize, len: usize) -> Vec<Segment> {
        let mut out = Vec::new();
        let mut cur = Segment {
            len: 0,
            tau_sum: 0,
            deadline: NEVER,
        };
        for k in first..first + len {
            let e = &self.entries[k];
            cur.len += 1;
            cur.tau_sum += e.tau_ns as i64;
            if e.realtime {
                cur.deadline = e.deadline_ns();
                let closes = match self.entries.get(k + 1) {
                    Some(n) if k + 1 < first + len => {
                        !(n.realtime && n.deadline_ns() == cur.deadline)
                    }
                    _ => true,
                };
                if closes {
                    out.push(cur);
                    cur = Segment {
                        len: 0,
                        tau_sum: 0,
                        deadline: NEVER,
                    };
                }
            }
        }
        if cur.len > 0 {
            out.push(cur);
        }
        out
    }

    /// Insert `e` before entry `k` (`k == len`: at the tail).
    pub fn insert(&mut self, k: usize, e: Entry) {
        assert!(k <= self.len());
        // The segment it lands in: the one holding entry k, or the last one at the tail
        // (a best-effort-only tail absorbs it; after a real-time run it starts a new one).
        let (g, first, len) = if k < self.len() {
            let (g, first) = self.segment_of(k);
            (g, first, self.segments[g].len)
        } else if let Some(last) = self.segments.back().copied() {
            let g = self.segments.len() - 1;
            if last.deadline == NEVER {
                (g, k - last.len, last.len)
            } else {
                (self.segments.len(), k, 0)
            }
        } else {
            (0, 0, 0)
        };
        self.entries.insert(k, e);
        let parts = self.split(first, len + 1);
        if g < self.segments.len() {
            self.segments.remove(g);
        }
        // A best-effort run left at the end of `parts` (insertion into a best-effort prefix
        // that reaches the end of the range) belongs with the segment after it.
        let mut parts = parts;
        if let Some(last) = parts.last().copied() {
            if last.deadline == NEVER && g < self.segments.len() {
                parts.pop();
                let next = &mut self.segments[g];
                next.len += last.len;
                next.tau_sum += last.tau_sum;
            }
        }
        let added = parts.len();
        for (j, s) in parts.into_iter().enumerate() {
            self.segments.insert(g + j, s);
        }
        // Keep segments maximal where the insertion made two real-time runs of one
        // deadline adjacent (finer segments would still be correct, only slower).
        let mut h = (g + added).min(self.segments.len().saturating_sub(1));
        while h > 0 && h + 1 > g.saturating_sub(1) {
            self.merge_if_same_run(h - 1);
            h -= 1;
        }
    }

    /// Merge segments `g` and `g + 1` if the second is a real-time run (no best-effort
    /// prefix) with the first's deadline.
    fn merge_if_same_run(&mut self, g: usize) {
        if g + 1 >= self.segments.len() {
            return;
        }
        let (a, b) = (self.segments[g], self.segments[g + 1]);
        if a.deadline == NEVER || a.deadline != b.deadline {
            return;
        }
        let first_of_b: usize = self.segments.iter().take(g + 1).map(|s| s.len).sum();
        if !self.entries[first_of_b].realtime {
            return;
        }
        self.segments[g] = Segment {
            len: a.len + b.len,
            tau_sum: a.tau_sum + b.tau_sum,
            deadline: a.deadline,
        };
        self.segments.remove(g + 1);
    }

    /// Change entry `k`'s τ (the τ_next credit of eq. 6: a new entry went before it).
    pub(crate) fn set_tau(&mut self, k: usize, tau_ns: SimTime) {
        let (g, _) = self.segment_of(k);
        let old = self.entries[k].tau_ns;
        self.entries[k].tau_ns = tau_ns;
        self.segments[g].tau_sum += tau_ns as i64 - old as i64;
    }

    /// Change where entry `k` leaves the head (its τ was re-estimated).
    pub(crate) fn set_end(&mut self, k: usize, end: HeadPosition) {
        self.entries[k].end = end;
    }

    /// Take the head (dispatch).
    pub(crate) fn pop_front(&mut self) -> Option<Entry> {
        let e = self.entries.pop_front()?;
        let s = self
            .segments
            .front_mut()
            .expect("segments cover the entries");
        s.len -= 1;
        s.tau_sum -= e.tau_ns as i64;
        if s.len == 0 {
            self.segments.pop_front();
        }
        Some(e)
    }

    /// Slack of every segment, head first, for a first start at `e1`.
    pub fn slacks(&self, e1: SimTime, t_end: SimTime) -> SlackMap {
        let segs = self.segments.iter().map(|s| (s.tau_sum, s.deadline));
        SlackMap {
            ends: self
                .segments
                .iter()
                .scan(0usize, |acc, s| {
                    *acc += s.len;
                    Some(*acc)
                })
                .collect(),
            slack: segment_slacks(segs, e1, t_end),
        }
    }

    /// Slack of every entry by equations (17)-(19) directly, O(R): the reference the
    /// segment form is tested against.
    pub fn slacks_per_request(&self, e1: SimTime, t_end: SimTime) -> Vec<i64> {
        let r = self.len();
        let mut l = vec![0i64; r];
        let mut next = dl(t_end);
        for i in (0..r).rev() {
            let e = &self.entries[i];
            l[i] = dl(e.deadline_ns()).min(next) - e.tau_ns as i64;
            next = l[i];
        }
        let mut start = e1 as i64;
        let mut out = Vec::with_capacity(r);
        for i in 0..r {
            out.push((l[i] - start).max(0));
            start += self.entries[i].tau_ns as i64;
        }
        out
    }

    /// Segment lengths, head first (for tests of the segment rule).
    #[cfg(test)]
    pub(crate) fn segment_lens(&self) -> Vec<usize> {
        self.segments.iter().map(|s| s.len).collect()
    }
}

/// The slacks of one moment, by segment.
#[derive(Clone, Debug)]
pub struct SlackMap {
    /// One past the last entry of each segment.
    ends: Vec<usize>,
    slack: Vec<i64>,
}

impl SlackMap {
    /// Slack of entry `k` (how long it and everything after it may still be delayed).
    pub fn at(&self, k: usize) -> i64 {
        let g = self.ends.partition_point(|&end| end <= k);
        self.slack[g]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;
    use proptest::prelude::*;

    fn entry(id: u64, tau: u64, deadline: Option<u64>) -> Entry {
        let mut req = Request::new(0, id * 100, 8, Op::Read);
        req.id = id;
        if let Some(d) = deadline {
            req.deadline_ns = d;
        }
        Entry {
            req,
            class: deadline.is_some() as usize,
            tau_ns: tau,
            end: HeadPosition::default(),
            realtime: deadline.is_some(),
        }
    }

    #[test]
    fn segments_follow_the_lemmas() {
        let mut q = ScheduledQueue::new();
        q.insert(0, entry(1, 10, Some(100)));
        q.insert(1, entry(2, 10, Some(100)));
        q.insert(0, entry(3, 5, None));
        q.insert(3, entry(4, 5, None));
        // [BE RT RT] [BE]
        assert_eq!(q.segment_lens(), vec![3, 1]);
        q.insert(4, entry(5, 10, Some(200)));
        assert_eq!(q.segment_lens(), vec![3, 2]);
        let s = q.slacks(0, 1000);
        // L = min(200, 1000) − 15 for [BE RT]; min(100, 185) − 25 for the first segment.
        assert_eq!(s.at(0), 75);
        assert_eq!(s.at(2), 75);
        assert_eq!(s.at(3), 185 - 25);
    }

    proptest! {
        /// The segment slacks equal equations (17)-(19) evaluated request by request, over
        /// random insertion sequences, τ credits and dispatches.
        #[test]
        fn segment_slack_equals_per_request_slack(
            ops in proptest::collection::vec((0usize..40, 1u64..20_000, 0u8..4, 0u8..3, any::<bool>()), 1..60),
            e1 in 0u64..50_000,
            t_end in 100_000u64..400_000,
        ) {
            let mut q = ScheduledQueue::new();
            for (i, (pos, tau, dsel, action, _)) in ops.iter().enumerate() {
                match action {
                    0 | 1 => {
                        let d = match dsel { 0 => None, x => Some(*x as u64 * 60_000) };
                        let k = pos % (q.len() + 1);
                        q.insert(k, entry(i as u64, *tau, d));
                    }
                    _ => {
                        if !q.is_empty() {
                            if *dsel == 0 { q.pop_front(); } else {
                                let k = pos % q.len();
                                q.set_tau(k, *tau);
                            }
                        }
                    }
                }
                let per = q.slacks_per_request(e1, t_end);
                let map = q.slacks(e1, t_end);
                for (k, s) in per.iter().enumerate() {
                    prop_assert_eq!(map.at(k), *s, "entry {} of {}", k, q.len());
                }
                prop_assert_eq!(q.total_tau_ns(), q.iter().map(|e| e.tau_ns as i64).sum::<i64>());
                prop_assert!(q.segment_count() <= q.len());
            }
        }
    }
}
