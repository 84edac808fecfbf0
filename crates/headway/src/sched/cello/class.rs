//! Cello's class-specific schedulers (spec §3.7): each decides **which** of its class's
//! pending requests goes next and **where** in the shared scheduled queue it goes, looking
//! at the queue through a [`QueueView`] (entries, their earliest start times, the exported
//! slack, and what an insertion at a position would cost). The class-independent level
//! decides **whether** it may go (the allocation tests).

use std::collections::VecDeque;

use super::queue::{Entry, ScheduledQueue, SlackMap};
use crate::error::Result;
use crate::request::Request;
use crate::time::SimTime;

/// What a class scheduler sees of the scheduled queue at one moment.
pub struct QueueView<'a> {
    queue: &'a ScheduledQueue,
    slacks: SlackMap,
    /// e_k for k in 0..=len (e_len: when the whole queue would be done).
    starts: Vec<SimTime>,
    pub now: SimTime,
    pub interval_end_ns: SimTime,
    cost: &'a dyn Fn(usize, &Request) -> (SimTime, i64),
}

impl<'a> QueueView<'a> {
    /// `e1`: when the head may start (the end of what is at the device); `cost(k, r)`: τ of
    /// `r` inserted before entry `k`, and the added service time τ_r + τ_k^new − τ_k.
    pub fn new(
        queue: &'a ScheduledQueue,
        e1: SimTime,
        now: SimTime,
        interval_end_ns: SimTime,
        cost: &'a dyn Fn(usize, &Request) -> (SimTime, i64),
    ) -> Self {
        let mut starts = Vec::with_capacity(queue.len() + 1);
        let mut t = e1;
        starts.push(t);
        for e in queue.iter() {
            t += e.tau_ns;
            starts.push(t);
        }
        QueueView {
            queue,
            slacks: queue.slacks(e1, interval_end_ns),
            starts,
            now,
            interval_end_ns,
            cost,
        }
    }
    pub fn len(&self) -> usize {
        self.queue.len()
    }
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
    pub fn entry(&self, k: usize) -> &Entry {
        self.queue.get(k)
    }
    /// Slack of entry `k`.
    pub(crate) fn slack_at(&self, k: usize) -> i64 {
        self.slacks.at(k)
    }
    /// Earliest start e_k of whatever sits at position `k` (`k == len`: the tail).
    pub fn start_at(&self, k: usize) -> SimTime {
        self.starts[k]
    }
    /// (τ_r, added service time) of `r` inserted before entry `k`.
    pub fn cost(&self, k: usize, r: &Request) -> (SimTime, i64) {
        (self.cost)(k, r)
    }
    /// Slack stealing: inserting before `k` with `added` extra service keeps every queued
    /// deadline (Lemma 3: entry k's slack bounds every later one's). The tail always may.
    pub fn keeps_deadlines(&self, k: usize, added: i64) -> bool {
        k == self.len() || added <= self.slack_at(k)
    }
    /// The SCAN position of `lbn` among entries `a..b` (ascending sectors: one sweep).
    pub(crate) fn scan_position(&self, a: usize, b: usize, lbn: u64) -> usize {
        (a..b).find(|&j| self.entry(j).req.lbn > lbn).unwrap_or(b)
    }
}

/// A class-specific scheduler.
pub trait ClassScheduler {
    fn name(&self) -> &str;
    /// Which pending request to propose (index into the class's FIFO pending queue).
    fn pick(&self, _pending: &VecDeque<Request>) -> usize {
        0
    }
    /// Where `r` goes: the position to insert before (`view.len()`: the tail). An error
    /// (a plug-in that failed or answered out of range) stops the run.
    fn place(&self, r: &Request, class: usize, view: &QueueView) -> Result<usize>;
}

/// How an interactive request chooses among the positions where it may steal slack.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fit {
    /// The earliest feasible position (least response time).
    First,
    /// The position that adds the least service time (most throughput).
    Best,
    /// Least β·response + (1−β)·τ: β = 1 is first fit, β = 0 best fit.
    Hybrid(f64),
}

/// Interactive best effort: FIFO take, slack-stealing insertion, SCAN order within each
/// run of best-effort entries.
pub struct Interactive {
    pub fit: Fit,
}

impl ClassScheduler for Interactive {
    fn name(&self) -> &str {
        "interactive"
    }
    fn place(&self, r: &Request, _class: usize, view: &QueueView) -> Result<usize> {
        let n = view.len();
        let mut best: Option<(f64, usize)> = None;
        let mut a = 0;
        loop {
            // One best-effort run [a, b): its SCAN position is the candidate.
            let mut b = a;
            while b < n && !view.entry(b).realtime {
                b += 1;
            }
            let pos = view.scan_position(a, b, r.lbn);
            let (tau, added) = view.cost(pos, r);
            if view.keeps_deadlines(pos, added) {
                let score = match self.fit {
                    Fit::First => return Ok(pos),
                    Fit::Best => added as f64,
                    Fit::Hybrid(beta) => {
                        let response = (view.start_at(pos) + tau).saturating_sub(view.now);
                        beta * response as f64 + (1.0 - beta) * tau as f64
                    }
                };
                if best.is_none_or(|(s, _)| score < s) {
                    best = Some((score, pos));
                }
            }
            if b >= n {
                break;
            }
            a = b + 1;
        }
        Ok(best.map_or(n, |(_, p)| p))
    }
}

/// Throughput-intensive best effort: FIFO take, insertion into the tail run of its own
/// class in SCAN order (in effect one sweep at the end of each interval).
pub struct Throughput;

impl ClassScheduler for Throughput {
    fn name(&self) -> &str {
        "throughput"
    }
    fn place(&self, r: &Request, class: usize, view: &QueueView) -> Result<usize> {
        let n = view.len();
        let mut a = n;
        while a > 0 && view.entry(a - 1).class == class && !view.entry(a - 1).realtime {
            a -= 1;
        }
        let pos = view.scan_position(a, n, r.lbn);
        if pos < n && !view.keeps_deadlines(pos, view.cost(pos, r).1) {
            return Ok(n);
        }
        Ok(pos)
    }
}

/// Soft real time: just-in-time SCAN-EDF. Earliest deadline first (SCAN among equal
/// deadlines) both in what it takes and where it goes; among the positions EDF allows
/// (after every real-time entry due earlier, before every one due later) it takes the
/// latest that still meets its own deadline, so best-effort requests already placed
/// ahead keep their place. If that position would make a queued deadline late it moves
/// later until it does not (it may then be late itself: soft real time, a violation).
pub struct RealTime;

impl ClassScheduler for RealTime {
    fn name(&self) -> &str {
        "realtime"
    }
    fn pick(&self, pending: &VecDeque<Request>) -> usize {
        pending
            .iter()
            .enumerate()
            .min_by_key(|(i, r)| (r.deadline_ns, r.lbn, *i))
            .map_or(0, |(i, _)| i)
    }
    fn place(&self, r: &Request, _class: usize, view: &QueueView) -> Result<usize> {
        let n = view.len();
        let d = r.deadline_ns;
        let before = |e: &Entry| {
            e.realtime && (e.deadline_ns() > d || (e.deadline_ns() == d && e.req.lbn > r.lbn))
        };
        let late = (0..n).find(|&k| before(view.entry(k))).unwrap_or(n);
        let early = (0..late)
            .rev()
            .find(|&k| view.entry(k).realtime)
            .map_or(0, |k| k + 1);
        let mut pos = late;
        while pos > early {
            let (tau, _) = view.cost(pos, r);
            if view.start_at(pos) + tau <= d {
                break;
            }
            pos -= 1;
        }
        while pos < n && !view.keeps_deadlines(pos, view.cost(pos, r).1) {
            pos += 1;
        }
        Ok(pos)
    }
}
