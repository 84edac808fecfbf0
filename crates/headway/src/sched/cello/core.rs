//! The class-independent scheduler (spec §3.2-3.6, the paper's Fig. 3), apart from the
//! simulator: it is told of arrivals, dispatches and completions with their times, and
//! estimates service times through an [`Estimator`], so that tests and the CPU-cost bench
//! drive it with exact, hand-made service times.
//!
//! Every time it is pumped it runs the insertion loop: class schedulers in strictest-first
//! order, each invoked while (2) (or (12)) holds, its proposal inserted if (3) and (4) (or
//! (14) and (15)) hold, else the class is blocked (Ê) until the next interval. When the
//! scheduled queue is empty and every class with pending requests is blocked, unused time is
//! reallocated one request at a time (7)-(10); when not even that fits, the next interval
//! starts at once (early start).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::class::{ClassScheduler, QueueView};
use super::ledger::{Allocation, Ledger};
use super::queue::{Entry, ScheduledQueue};
use crate::error::{HeadwayError, Result};
use crate::request::{HeadPosition, Request};
use crate::time::SimTime;

/// Service-time estimates τ.
pub trait Estimator {
    /// τ of `r` started at `start_ns` with the head at `from`, and where the head ends.
    fn tau(&self, from: HeadPosition, start_ns: SimTime, r: &Request) -> (SimTime, HeadPosition);
    /// Where the head is believed to be now (for the first request when nothing was
    /// dispatched yet).
    fn head(&self, r: &Request) -> HeadPosition;
    /// The cylinder `r` starts on (reallocation picks the request closest to the head).
    fn cylinder(&self, r: &Request) -> u32;
}

/// The kind of an application class, in strictest-first order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClassKind {
    RealTime,
    Interactive,
    Throughput,
}

/// One class as the class-independent scheduler holds it.
pub struct ClassSlot {
    pub name: String,
    pub kind: ClassKind,
    pub weight: f64,
    pub pending: VecDeque<Request>,
    /// In Ê: its next request did not fit its allocation this interval.
    pub blocked: bool,
    pub scheduler: Box<dyn ClassScheduler>,
}

/// The knobs of the class-independent level.
#[derive(Clone, Copy, Debug)]
pub struct CoreOptions {
    pub interval_ns: SimTime,
    pub allocation: Allocation,
    /// Work conservation: hand unused time to blocked classes (§3.3).
    pub reallocate: bool,
    /// Reallocated time goes only to the strictest kind of class that wants it (real time,
    /// then interactive, then throughput), shared by weight within that kind; `false`:
    /// weight-proportional among every blocked class with requests (§3.3's two choices).
    pub realloc_priority: bool,
    /// Start the next interval at once when nothing fits in what is left of this one.
    pub early_start: bool,
    /// Lazy insertion (the paper's future work, §3.7): a real-time class's request whose
    /// deadline lies beyond the end of the next interval waits in its pending queue, so
    /// late deadlines cannot use up the allocation an earlier deadline arriving later
    /// needs; meanwhile its unused time is reallocated. It is inserted at the latest one
    /// whole interval before its deadline (TEAM CHOICE: waiting until the interval its
    /// deadline falls in leaves too little time when intervals start early).
    pub lazy: bool,
}

/// The accounts of one finished interval (what Fig. 8-10 plot).
#[derive(Clone, Debug, PartialEq)]
pub struct IntervalRecord {
    pub start_ns: SimTime,
    pub end_ns: SimTime,
    /// U_i at the end: estimated service time charged to each class.
    pub used_ns: Vec<i64>,
    /// X_i: reallocated time each class took.
    pub realloc_ns: Vec<i64>,
    pub bytes: Vec<u64>,
    pub idle_ns: i64,
}

/// Where finished intervals are written.
pub type IntervalLog = Rc<RefCell<Vec<IntervalRecord>>>;

pub struct Core {
    pub classes: Vec<ClassSlot>,
    /// Invocation order (strictest first).
    pub order: Vec<usize>,
    pub queue: ScheduledQueue,
    pub ledger: Ledger,
    pub opts: CoreOptions,
    /// Predicted end position of the last dispatched request.
    head: Option<HeadPosition>,
    in_flight: usize,
    /// Predicted end of what is at the device (e_1 of the queue).
    busy_until: SimTime,
    /// The disk has been idle since (nothing queued, nothing at the device).
    idle_from: Option<SimTime>,
    /// Finished intervals, appended here when a log is attached (shared with whoever
    /// reads it after the run: the scheduler itself is owned by the host).
    pub log: Option<IntervalLog>,
    /// Insertions so far (for the CPU-cost bench and tests).
    pub insertions: u64,
}

impl Core {
    pub fn new(classes: Vec<ClassSlot>, opts: CoreOptions) -> Self {
        let mut order: Vec<usize> = (0..classes.len()).collect();
        order.sort_by_key(|&i| (classes[i].kind, i));
        let weights = classes.iter().map(|c| c.weight).collect();
        Core {
            classes,
            order,
            queue: ScheduledQueue::new(),
            ledger: Ledger::new(opts.allocation, opts.interval_ns, weights),
            opts,
            head: None,
            in_flight: 0,
            busy_until: 0,
            idle_from: Some(0),
            log: None,
            insertions: 0,
        }
    }

    pub(crate) fn pending(&self) -> usize {
        self.classes.iter().map(|c| c.pending.len()).sum::<usize>() + self.queue.len()
    }
    pub fn arrive(&mut self, class: usize, r: Request) {
        self.classes[class].pending.push_back(r);
    }
    fn any_pending(&self) -> bool {
        self.classes.iter().any(|c| !c.pending.is_empty())
    }

    /// Class `i` has requests but lazy insertion holds them back this interval (the one it
    /// would propose is due after the next interval's end).
    fn held(&self, i: usize) -> bool {
        let c = &self.classes[i];
        self.opts.lazy
            && c.kind == ClassKind::RealTime
            && !c.pending.is_empty()
            && c.pending[c.scheduler.pick(&c.pending)].deadline_ns
                > self
                    .ledger
                    .end_ns
                    .saturating_add(self.ledger.p_ns as SimTime)
    }

    /// Some class has requests its allocation refused this interval (Ê is not empty).
    fn any_blocked_pending(&self) -> bool {
        self.classes
            .iter()
            .any(|c| c.blocked && !c.pending.is_empty())
    }

    /// Bring the accounts up to `now`: idle time, and the intervals that ended meanwhile.
    pub(crate) fn tick(&mut self, now: SimTime) {
        while now >= self.ledger.end_ns {
            let end = self.ledger.end_ns;
            if let Some(f) = self.idle_from {
                self.ledger
                    .add_idle(end.saturating_sub(f.max(self.ledger.start_ns)));
                self.idle_from = Some(end);
            }
            // A long idle stretch: skip whole silent intervals at once.
            let p = self.ledger.p_ns as SimTime;
            let skip = if self.idle_from.is_some() && self.queue.is_empty() {
                (now - end) / p
            } else {
                0
            };
            self.new_interval(end + skip * p);
            if let Some(f) = self.idle_from.as_mut() {
                *f = (*f).max(self.ledger.start_ns);
            }
        }
        if let Some(f) = self.idle_from {
            self.ledger.add_idle(now.saturating_sub(f));
            self.idle_from = Some(now.max(f));
        }
    }

    fn new_interval(&mut self, start: SimTime) {
        if let Some(log) = &self.log {
            log.borrow_mut().push(IntervalRecord {
                start_ns: self.ledger.start_ns,
                end_ns: start.min(self.ledger.end_ns),
                used_ns: self.ledger.used_ns.clone(),
                realloc_ns: self.ledger.realloc_ns.clone(),
                bytes: self.ledger.bytes.clone(),
                idle_ns: self.ledger.idle_ns,
            });
        }
        self.ledger.start_interval(start);
        self.classes.iter_mut().for_each(|c| c.blocked = false);
    }

    /// e_1: when the head of the scheduled queue may start.
    fn first_start(&self, now: SimTime) -> SimTime {
        if self.in_flight > 0 {
            self.busy_until.max(now)
        } else {
            now
        }
    }

    /// Where the head is before entry `k`.
    fn head_before(&self, k: usize, r: &Request, est: &dyn Estimator) -> HeadPosition {
        if k == 0 {
            self.head.unwrap_or_else(|| est.head(r))
        } else {
            self.queue.get(k - 1).end
        }
    }

    /// τ of `r` before entry `k`, its end position, and the next entry's new τ.
    fn costs_at(
        &self,
        k: usize,
        r: &Request,
        start: SimTime,
        est: &dyn Estimator,
    ) -> (SimTime, HeadPosition, Option<SimTime>) {
        let from = self.head_before(k, r, est);
        let (tau, end) = est.tau(from, start, r);
        let next =
            (k < self.queue.len()).then(|| est.tau(end, start + tau, &self.queue.get(k).req).0);
        (tau, end, next)
    }

    fn interval_error(&self, tau: SimTime) -> HeadwayError {
        HeadwayError::config(
            "host.options.interval_ms",
            format!(
                "the interval ({} ms) is shorter than one request's service time ({:.3} ms): \
                 no request could ever be scheduled",
                self.ledger.p_ns as f64 / 1e6,
                tau as f64 / 1e6
            ),
        )
    }

    /// Ask class `i` for a request and insert it if its allocation allows; `false` when it
    /// does not fit (the class joins Ê).
    fn try_insert(
        &mut self,
        i: usize,
        now: SimTime,
        est: &dyn Estimator,
        realloc: bool,
    ) -> Result<bool> {
        let e1 = self.first_start(now);
        let pick = self.classes[i].scheduler.pick(&self.classes[i].pending);
        let r = self.classes[i].pending[pick];
        let mut starts = Vec::with_capacity(self.queue.len() + 1);
        let mut t = e1;
        starts.push(t);
        for e in self.queue.iter() {
            t += e.tau_ns;
            starts.push(t);
        }
        let pos = if realloc {
            // The queue is empty when time is reallocated: one request at a time.
            self.queue.len()
        } else {
            let cost = |k: usize, r: &Request| {
                let (tau, _, next) = self.costs_at(k, r, starts[k], est);
                let added =
                    tau as i64 + next.map_or(0, |n| n as i64 - self.queue.get(k).tau_ns as i64);
                (tau, added)
            };
            let view = QueueView::new(&self.queue, e1, now, self.ledger.end_ns, &cost);
            let pos = self.classes[i].scheduler.place(&r, i, &view)?;
            if pos > self.queue.len() {
                return Err(HeadwayError::Plugin {
                    name: self.classes[i].scheduler.name().to_string(),
                    msg: format!(
                        "class scheduler of `{}` placed a request at position {pos} of a queue of {}",
                        self.classes[i].name,
                        self.queue.len()
                    ),
                });
            }
            pos
        };
        let (tau, end, next_tau) = self.costs_at(pos, &r, starts[pos], est);
        if tau as i64 > self.ledger.p_ns {
            return Err(self.interval_error(tau));
        }
        let next = next_tau.map(|n| {
            let nx = self.queue.get(pos);
            (nx.class, n as i64 - nx.tau_ns as i64)
        });
        let bytes = r.sectors as u64 * 512;
        let ok = if realloc {
            self.ledger.fits_reallocated(tau as i64, e1)
        } else {
            self.ledger
                .fits(i, tau as i64, next.map_or(0, |n| n.1), bytes)
        };
        if !ok {
            return Ok(false);
        }
        self.classes[i].pending.remove(pick);
        let realtime = self.classes[i].kind == ClassKind::RealTime;
        self.queue.insert(
            pos,
            Entry {
                req: r,
                class: i,
                tau_ns: tau,
                end,
                realtime,
            },
        );
        if let Some(n) = next_tau {
            self.queue.set_tau(pos + 1, n);
        }
        if realloc {
            self.ledger.charge_reallocated(i, tau as i64, next);
        } else {
            self.ledger.charge(i, tau as i64, next, bytes);
        }
        self.insertions += 1;
        Ok(true)
    }

    /// The class-independent loop at `now`.
    pub fn pump(&mut self, now: SimTime, est: &dyn Estimator) -> Result<()> {
        self.tick(now);
        let mut early_starts = 0;
        // Byte allocation takes one request per class in turn (TEAM CHOICE): the average
        // cost per byte O only means something once every class has contributed, and a
        // class that took its whole share first would be charged at its own cost per byte.
        let one_each = self.opts.allocation == Allocation::Bytes;
        loop {
            let mut inserted = true;
            while inserted {
                inserted = false;
                for oi in 0..self.order.len() {
                    let i = self.order[oi];
                    while !self.classes[i].blocked
                        && !self.classes[i].pending.is_empty()
                        && !self.held(i)
                    {
                        if !self.ledger.may_invoke(i) || !self.try_insert(i, now, est, false)? {
                            self.classes[i].blocked = true;
                        } else if one_each {
                            inserted = true;
                            break;
                        }
                    }
                }
            }
            // Requests held by lazy insertion wait for their interval (wake_at), neither
            // reallocation nor an early start is for them.
            if !self.queue.is_empty() || !self.any_blocked_pending() {
                return Ok(());
            }
            // Every class with insertable requests is blocked and the queue is empty.
            if self.opts.reallocate && self.opts.allocation != Allocation::Static {
                if self.reallocate(now, est)? {
                    return Ok(());
                }
            }
            if self.opts.early_start
                && self.opts.allocation != Allocation::Static
                && early_starts == 0
            {
                early_starts += 1;
                if let Some(f) = self.idle_from.as_mut() {
                    *f = now;
                }
                self.new_interval(now);
                continue;
            }
            return Ok(());
        }
    }

    /// One reallocated request (§3.3); whether one was inserted.
    fn reallocate(&mut self, now: SimTime, est: &dyn Estimator) -> Result<bool> {
        let eligible: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&i| self.classes[i].blocked && !self.classes[i].pending.is_empty())
            .collect();
        let eligible: Vec<usize> = if self.opts.realloc_priority {
            let top = eligible.iter().map(|&i| self.classes[i].kind).min();
            eligible
                .into_iter()
                .filter(|&i| Some(self.classes[i].kind) == top)
                .collect()
        } else {
            eligible
        };
        let wsum: f64 = eligible.iter().map(|&i| self.ledger.weight(i)).sum();
        let mut allowed: Vec<usize> = eligible
            .iter()
            .copied()
            .filter(|&i| self.ledger.may_reallocate(i, wsum, now))
            .collect();
        if allowed.is_empty() {
            // Forget the period's history (the paper's trade of fairness for utilisation).
            for &i in &eligible {
                self.ledger.realloc_ns[i] = 0;
            }
            allowed = eligible;
        }
        // Closest to the head first (cylinder distance from the believed head; ties by
        // invocation order).
        let mut cands: Vec<(u32, usize, usize)> = allowed
            .iter()
            .enumerate()
            .map(|(rank, &i)| {
                let c = &self.classes[i];
                let r = c.pending[c.scheduler.pick(&c.pending)];
                let here = self.head.unwrap_or_else(|| est.head(&r));
                let there = est.cylinder(&r);
                (here.cylinder.abs_diff(there), rank, i)
            })
            .collect();
        cands.sort_unstable();
        for (_, _, i) in cands {
            if self.try_insert(i, now, est, true)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The head of the queue goes to the device at `now`.
    pub fn dispatch(&mut self, now: SimTime) -> Option<Entry> {
        self.tick(now);
        let e = self.queue.pop_front()?;
        self.busy_until = self.first_start(now) + e.tau_ns;
        self.in_flight += 1;
        self.head = Some(e.end);
        self.idle_from = None;
        Some(e)
    }

    /// Estimate every queued τ afresh from the head's new predicted position and start
    /// times (after a dispatch): with a start-time-dependent estimator the τ fixed at
    /// insertion goes stale as the queue shifts. Charges (U_i) stay as they were made.
    pub(crate) fn refresh_taus(&mut self, now: SimTime, est: &dyn Estimator) {
        let mut start = self.first_start(now);
        for k in 0..self.queue.len() {
            let r = self.queue.get(k).req;
            let from = self.head_before(k, &r, est);
            let (tau, end) = est.tau(from, start, &r);
            self.queue.set_tau(k, tau);
            self.queue.set_end(k, end);
            start += tau;
        }
    }

    /// A dispatched request completed at `now`.
    pub fn complete(&mut self, now: SimTime) {
        self.tick(now);
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.in_flight == 0 {
            self.busy_until = now;
            if self.queue.is_empty() {
                self.idle_from = Some(now);
            }
        }
    }

    /// When to be asked again if nothing happens: the end of the interval while requests
    /// wait for it.
    pub(crate) fn wake_at(&self) -> Option<SimTime> {
        (self.queue.is_empty() && self.any_pending()).then_some(self.ledger.end_ns)
    }
}
