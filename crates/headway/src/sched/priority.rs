//! `priority`: two queues, each ordered by its own copy of the inner scheduler. Requests
//! marked high priority (`RequestMarks::high_priority`: DiskSim's time-critical and
//! time-limited requests, whose issuers wait on them) go to the priority queue, every other
//! request to the base queue, and the base queue is served only when the priority queue
//! proposes nothing. This is DiskSim's I/O driver with `Scheduling priority scheme = 1`
//! (its `TWOQUEUE`): each of its sub-queues keeps its own sweep position, as each copy here
//! keeps its own.
//!
//! With no high-priority request the base copy sees every request and the wrapper takes
//! each of its proposals: the order is the inner scheduler's own.

use smallvec::SmallVec;

use super::options::OptionReader;
use super::{Decision, FreeReads, Hints, Placement, SchedCtx, Scheduler};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Completion, DeviceId, Request};

/// Which of the two queues a command came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Queue {
    Priority,
    Base,
}

pub struct Priority {
    /// Orders the high-priority requests.
    high: Box<dyn Scheduler>,
    /// Orders every other request.
    base: Box<dyn Scheduler>,
    /// The queue whose proposal was the last one made.
    proposed: Option<Queue>,
    /// Commands carrying no request (an elevator's travel to an edge), dispatched and not
    /// yet completed, by target sector and queue: a completion routes by its requests'
    /// mark, and these have none.
    travels: SmallVec<[(u64, Queue); 2]>,
    hints: Hints,
}

impl Priority {
    /// `high` and `base` are two copies of the same scheduler stack.
    pub fn new(high: Box<dyn Scheduler>, base: Box<dyn Scheduler>) -> Self {
        let (h, b) = (high.hints(), base.hints());
        let hints = Hints {
            acts_only_with_a_free_slot: h.acts_only_with_a_free_slot
                && b.acts_only_with_a_free_slot,
            idle_when_empty: h.idle_when_empty && b.idle_when_empty,
            ignores_completions: h.ignores_completions && b.ignores_completions,
            ignores_predictors: h.ignores_predictors && b.ignores_predictors,
            passes_through_when_empty: h.passes_through_when_empty && b.passes_through_when_empty,
        };
        Priority {
            high,
            base,
            proposed: None,
            travels: SmallVec::new(),
            hints,
        }
    }

    /// Built from the registry: the inner stack `[host.inner]` built once per queue.
    pub(crate) fn from_options(
        _o: &OptionReader,
        build_inner: &dyn Fn() -> Result<Box<dyn Scheduler>>,
    ) -> Result<Self> {
        Ok(Self::new(build_inner()?, build_inner()?))
    }

    fn queue(&mut self, q: Queue) -> &mut dyn Scheduler {
        match q {
            Queue::Priority => self.high.as_mut(),
            Queue::Base => self.base.as_mut(),
        }
    }

    /// The queue a dispatched command belongs to.
    fn queue_of(&mut self, cmd: &Command) -> Queue {
        match cmd.requests.first() {
            Some(r) if r.marks.high_priority() => Queue::Priority,
            Some(_) => Queue::Base,
            None => match self.travels.iter().position(|t| t.0 == cmd.lbn) {
                Some(i) => self.travels.remove(i).1,
                None => Queue::Base,
            },
        }
    }
}

/// Whether a proposal gives the device work (or completes requests) now.
fn acts(d: &Decision) -> bool {
    matches!(d, Decision::Dispatch(_) | Decision::Serve(_))
}

impl Scheduler for Priority {
    fn name(&self) -> &str {
        "priority"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        if req.marks.high_priority() {
            self.high.on_arrival(req, ctx);
        } else {
            self.base.on_arrival(req, ctx);
        }
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        let q = self.queue_of(&done.command);
        self.queue(q).on_completion(done, ctx);
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        self.high.on_timer(ctx);
        self.base.on_timer(ctx);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let high = if self.high.pending() > 0 || !self.hints.idle_when_empty {
            self.high.propose(ctx)
        } else {
            Decision::Idle
        };
        if acts(&high) {
            self.proposed = Some(Queue::Priority);
            return high;
        }
        let base = self.base.propose(ctx);
        if acts(&base) {
            self.proposed = Some(Queue::Base);
            return base;
        }
        self.proposed = None;
        // Neither acts now: ask again at the earlier of their times.
        match (high, base) {
            (Decision::WaitUntil(a), Decision::WaitUntil(b)) => Decision::WaitUntil(a.min(b)),
            (w @ Decision::WaitUntil(_), _) | (_, w @ Decision::WaitUntil(_)) => w,
            _ => Decision::Idle,
        }
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        let Some(q) = self.proposed.take() else {
            return Err(HeadwayError::Invariant(
                "scheduler `priority` was asked to commit a command it did not propose".into(),
            ));
        };
        self.queue(q).commit(cmd, placement, ctx)?;
        if cmd.requests.is_empty() && placement == Placement::Device {
            self.travels.push((cmd.lbn, q));
        }
        Ok(())
    }
    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        if let Some(q) = self.proposed.take() {
            self.queue(q).declined(cmd, ctx);
        }
    }
    fn hints(&self) -> Hints {
        self.hints
    }
    fn set_queued_planning(&mut self, on: bool) {
        self.high.set_queued_planning(on);
        self.base.set_queued_planning(on);
    }
    fn pending(&self) -> usize {
        self.high.pending() + self.base.pending()
    }
    fn take_failure(&mut self) -> Option<HeadwayError> {
        let high = self.high.take_failure();
        let base = self.base.take_failure();
        high.or(base)
    }
    fn free_reads(&mut self, device: DeviceId) -> Option<&mut dyn FreeReads> {
        self.base.free_reads(device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;
    use crate::sched::scheduler_with_options;
    use crate::sched::testkit::{dispatched_id, options, predictor};

    fn clook() -> Box<dyn Scheduler> {
        scheduler_with_options("clook-lbn", &options("sweep_from = \"start\"")).unwrap()
    }

    fn req(id: u64, lbn: u64, high: bool) -> Request {
        let mut r = Request::new(0, lbn, 8, Op::Read);
        r.id = id;
        r.marks.set_high_priority(high);
        r
    }

    /// `f` with a context whose device has a free slot, and two C-LOOK queues.
    fn with_two_queues(f: impl FnOnce(&SchedCtx, &mut Priority)) {
        let preds = predictor(Default::default());
        let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
        f(&ctx, &mut Priority::new(clook(), clook()));
    }

    /// Dispatch everything, one command at a time, returning the ids in dispatch order.
    fn drain(s: &mut dyn Scheduler, ctx: &SchedCtx) -> Vec<u64> {
        let mut order = vec![];
        while s.pending() > 0 {
            order.push(dispatched_id(s.decide(ctx)));
        }
        order
    }

    #[test]
    fn a_high_priority_request_overtakes_queued_normal_ones() {
        with_two_queues(|ctx, s| {
            // C-LOOK from sector 0 serves 100, 200, 300; the high-priority request at 5,000
            // arrives last and goes first, then the base sweep resumes at 100.
            for r in [
                req(1, 200, false),
                req(2, 100, false),
                req(3, 300, false),
                req(4, 5_000, true),
            ] {
                s.on_arrival(r, ctx);
            }
            assert_eq!(drain(s, ctx), [4, 2, 1, 3]);
        });
    }

    #[test]
    fn each_queue_keeps_its_own_sweep_position() {
        with_two_queues(|ctx, s| {
            s.on_arrival(req(1, 1_000, true), ctx);
            s.on_arrival(req(2, 500, false), ctx);
            assert_eq!(drain(s, ctx), [1, 2]);
            // The priority queue's sweep is at 1,000, the base queue's at 500: a high-priority
            // request at 800 wraps round in its queue but still goes first; base requests at
            // 400 and 600 go from 500 upwards (600, then 400), untouched by the priority sweep.
            s.on_arrival(req(3, 400, false), ctx);
            s.on_arrival(req(4, 600, false), ctx);
            s.on_arrival(req(5, 800, true), ctx);
            s.on_arrival(req(6, 1_200, true), ctx);
            assert_eq!(drain(s, ctx), [6, 5, 4, 3]);
        });
    }

    #[test]
    fn without_high_priority_requests_the_order_is_the_inner_schedulers() {
        with_two_queues(|ctx, s| {
            let mut plain = clook();
            let lbns = [700, 30, 9_000, 450, 31, 12, 6_000, 450];
            for (i, &lbn) in lbns.iter().enumerate() {
                s.on_arrival(req(i as u64, lbn, false), ctx);
                plain.on_arrival(req(i as u64, lbn, false), ctx);
            }
            let order = drain(s, ctx);
            assert_eq!(order, drain(plain.as_mut(), ctx));
            // One C-LOOK sweep up from sector 0 (equal sectors in arrival order).
            assert_eq!(order, [5, 1, 4, 3, 7, 0, 6, 2]);
        });
    }

    #[test]
    fn with_no_free_slot_nothing_is_dispatched() {
        let preds = predictor(Default::default());
        let ctx = SchedCtx::new(0, &preds, &[1], &[1]);
        let mut s = Priority::new(clook(), clook());
        s.on_arrival(req(1, 10, true), &ctx);
        s.on_arrival(req(2, 20, false), &ctx);
        assert_eq!(s.decide(&ctx), Decision::Idle);
        assert_eq!(s.pending(), 2);
    }
}
