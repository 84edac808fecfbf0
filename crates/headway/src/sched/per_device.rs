//! One scheduler per device. The built-in schedulers each order one device's queue (an arm
//! position, a predicted end); in a run with several devices the host gives every device
//! its own copy of the configured scheduler stack and this splitter routes arrivals and
//! completions by device. Devices do not compete for a slot, so every device's proposal is
//! taken in turn; a device that wants to wait does not hold up another's dispatch.
//!
//! The splitter keeps each copy's queue length as it was after the copy's last call, for
//! the copies that promise to do nothing with an empty queue (`Hints::idle_when_empty`):
//! a decision asks only the copies that hold a request or made no such promise, and the
//! splitter's own `pending` is one read, not a call per device. Its hints are what every
//! copy promises, so a run of FCFS copies passes an arrival that finds every queue empty
//! straight to its drive, as one device's FCFS does.

use super::{Decision, FreeReads, Hints, Placement, SchedCtx, Scheduler};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Completion, DeviceId, Request};
use crate::time::SimTime;

pub struct PerDevice {
    name: String,
    stacks: Vec<Box<dyn Scheduler>>,
    /// What each copy promises (fixed for its life: read once).
    hints: Vec<Hints>,
    /// What every copy promises.
    all: Hints,
    /// `held[d]`: copy `d`'s `pending()` after its last call, kept for the copies with
    /// `idle_when_empty` (such a copy's count changes only in its own calls), else 0.
    held: Vec<usize>,
    /// The sum of `held`.
    held_total: usize,
    /// Whether some copy made no `idle_when_empty` promise: `pending` then asks it.
    uncounted: bool,
    /// Bit `d`: copy `d` was called since its failure was last asked for (a copy keeps a
    /// failure only from a call), so `take_failure` asks those alone. With more than 64
    /// devices every copy is asked.
    called: u64,
}

impl PerDevice {
    /// `stacks[d]` schedules device `d`.
    pub fn new(stacks: Vec<Box<dyn Scheduler>>) -> Self {
        let name = stacks
            .first()
            .map(|s| s.name().to_string())
            .unwrap_or_default();
        let hints: Vec<Hints> = stacks.iter().map(|s| s.hints()).collect();
        let every = |f: fn(&Hints) -> bool| !hints.is_empty() && hints.iter().all(f);
        let all = Hints {
            acts_only_with_a_free_slot: every(|h| h.acts_only_with_a_free_slot),
            idle_when_empty: every(|h| h.idle_when_empty),
            ignores_completions: every(|h| h.ignores_completions),
            ignores_predictors: every(|h| h.ignores_predictors),
            passes_through_when_empty: every(|h| h.passes_through_when_empty),
        };
        let uncounted = hints.iter().any(|h| !h.idle_when_empty);
        let held: Vec<usize> = stacks
            .iter()
            .zip(&hints)
            .map(|(s, h)| if h.idle_when_empty { s.pending() } else { 0 })
            .collect();
        let held_total = held.iter().sum();
        PerDevice {
            name,
            stacks,
            hints,
            all,
            held,
            held_total,
            uncounted,
            called: 0,
        }
    }

    fn check(&self, dev: u16) -> Result<usize> {
        let d = dev as usize;
        if d < self.stacks.len() {
            Ok(d)
        } else {
            Err(HeadwayError::Invariant(format!(
                "a request for device {dev} reached a host with {} device schedulers",
                self.stacks.len()
            )))
        }
    }

    /// Re-read copy `d`'s queue length after a call that may have changed it (and note
    /// the call for `take_failure`).
    #[inline]
    fn recount(&mut self, d: usize) {
        self.note_call(d);
        if self.hints[d].idle_when_empty {
            let now = self.stacks[d].pending();
            self.held_total = self.held_total + now - self.held[d];
            self.held[d] = now;
        }
    }

    /// Copy `d` is being called: its failure, if it keeps one, is asked for next.
    #[inline]
    fn note_call(&mut self, d: usize) {
        self.called |= 1u64.checked_shl(d as u32).unwrap_or(0);
    }

    /// Whether copy `d` is sure to do nothing if asked now: it holds nothing and does
    /// nothing then, or it acts only with a free slot and its device has none (a copy
    /// schedules its own device alone: it gets only that device's requests and makes work
    /// only for it).
    #[inline]
    fn quiet(&self, d: usize, ctx: &SchedCtx) -> bool {
        let h = self.hints[d];
        (h.idle_when_empty && self.held[d] == 0)
            || (h.acts_only_with_a_free_slot && !ctx.has_slot(d as DeviceId))
    }
}

impl Scheduler for PerDevice {
    fn name(&self) -> &str {
        &self.name
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        match self.check(req.device) {
            Ok(d) => {
                self.stacks[d].on_arrival(req, ctx);
                self.recount(d);
            }
            Err(e) => ctx.fail(e),
        }
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        match self.check(done.command.device) {
            Ok(d) if self.hints[d].ignores_completions => {}
            Ok(d) => {
                self.stacks[d].on_completion(done, ctx);
                self.recount(d);
            }
            Err(e) => ctx.fail(e),
        }
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        for d in 0..self.stacks.len() {
            self.stacks[d].on_timer(ctx);
            self.recount(d);
        }
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let mut wait: Option<SimTime> = None;
        for d in 0..self.stacks.len() {
            if self.quiet(d, ctx) {
                continue;
            }
            self.note_call(d);
            match self.stacks[d].propose(ctx) {
                Decision::Idle => {}
                Decision::WaitUntil(t) => wait = Some(wait.map_or(t, |w| w.min(t))),
                dec => return dec,
            }
        }
        wait.map_or(Decision::Idle, Decision::WaitUntil)
    }
    /// Each copy decides for itself (its proposal committed to it, as a copy proposes
    /// only for its own device), in device order, the first that acts ending the round.
    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        let mut wait: Option<SimTime> = None;
        for d in 0..self.stacks.len() {
            if self.quiet(d, ctx) {
                continue;
            }
            self.note_call(d);
            match self.stacks[d].decide(ctx) {
                Decision::Idle => {}
                Decision::WaitUntil(t) => wait = Some(wait.map_or(t, |w| w.min(t))),
                dec => {
                    self.recount(d);
                    return dec;
                }
            }
        }
        wait.map_or(Decision::Idle, Decision::WaitUntil)
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        let d = self.check(cmd.device)?;
        let done = self.stacks[d].commit(cmd, placement, ctx);
        self.recount(d);
        done
    }
    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        if let Ok(d) = self.check(cmd.device) {
            self.stacks[d].declined(cmd, ctx);
            self.recount(d);
        }
    }
    fn hints(&self) -> Hints {
        self.all
    }
    fn pending(&self) -> usize {
        if !self.uncounted {
            return self.held_total;
        }
        self.held_total
            + self
                .stacks
                .iter()
                .zip(&self.hints)
                .filter(|(_, h)| !h.idle_when_empty)
                .map(|(s, _)| s.pending())
                .sum::<usize>()
    }
    fn take_failure(&mut self) -> Option<HeadwayError> {
        if self.stacks.len() > 64 {
            return self.stacks.iter_mut().find_map(|s| s.take_failure());
        }
        while self.called != 0 {
            let d = self.called.trailing_zeros() as usize;
            self.called &= self.called - 1;
            if let Some(e) = self.stacks[d].take_failure() {
                return Some(e);
            }
        }
        None
    }
    fn free_reads(&mut self, device: crate::request::DeviceId) -> Option<&mut dyn FreeReads> {
        // Free reads may change the copy's queue: it is counted again at its next call,
        // so it is asked meanwhile as if it held work.
        let d = device as usize;
        self.note_call(d);
        if d < self.stacks.len() && self.hints[d].idle_when_empty {
            self.held_total -= self.held[d];
            self.held[d] = 0;
            self.hints[d].idle_when_empty = false;
            self.uncounted = true;
        }
        self.stacks.get_mut(d)?.free_reads(device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{HeadPosition, Op};
    use crate::sched::fcfs::Fcfs;
    use crate::sched::testkit::{dispatched_id, predictor};

    fn request(id: u64, device: u16, lbn: u64) -> Request {
        let mut r = Request::new(id * 10, lbn, 8, Op::Read);
        r.id = id;
        r.device = device;
        r
    }

    fn fcfs_copies(n: usize) -> PerDevice {
        PerDevice::new((0..n).map(|_| Box::new(Fcfs::new()) as _).collect())
    }

    #[test]
    fn fcfs_copies_promise_what_one_fcfs_promises() {
        assert_eq!(fcfs_copies(3).hints(), Fcfs::new().hints());
    }

    #[test]
    fn queue_lengths_follow_arrivals_and_dispatches_in_device_order() {
        let mut preds = predictor(HeadPosition::default());
        preds.extend(predictor(HeadPosition::default()));
        preds.extend(predictor(HeadPosition::default()));
        let mut s = fcfs_copies(3);
        let outstanding = [0, 0, 0];
        let ctx = SchedCtx::new(0, &preds, &outstanding, &[1, 1, 1]);
        s.on_arrival(request(0, 2, 100), &ctx);
        s.on_arrival(request(1, 1, 200), &ctx);
        s.on_arrival(request(2, 2, 300), &ctx);
        assert_eq!(s.pending(), 3);
        // Device 0 is empty and not asked; device 1's request goes before device 2's.
        assert_eq!(dispatched_id(s.decide(&ctx)), 1);
        assert_eq!(dispatched_id(s.decide(&ctx)), 0);
        assert_eq!(dispatched_id(s.decide(&ctx)), 2);
        assert_eq!(s.pending(), 0);
        assert_eq!(s.decide(&ctx), Decision::Idle);
        // A full device's queue waits while another device's goes.
        let full = SchedCtx::new(0, &preds, &[0, 1, 0], &[1, 1, 1]);
        s.on_arrival(request(3, 1, 400), &full);
        s.on_arrival(request(4, 2, 500), &full);
        assert_eq!(dispatched_id(s.decide(&full)), 4);
        assert_eq!(s.pending(), 1);
        assert_eq!(s.decide(&full), Decision::Idle);
        assert_eq!(dispatched_id(s.decide(&ctx)), 3);
        assert_eq!(s.pending(), 0);
    }

    #[test]
    fn a_request_for_a_missing_device_fails_the_run() {
        let preds = predictor(HeadPosition::default());
        let mut s = fcfs_copies(1);
        let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
        s.on_arrival(request(0, 5, 100), &ctx);
        assert!(ctx.take_failure().is_some());
        assert_eq!(s.pending(), 0);
    }

    /// A copy that keeps a failure from each arrival, as a plug-in that raised does.
    struct Raising(Option<HeadwayError>);

    impl Scheduler for Raising {
        fn name(&self) -> &str {
            "raising"
        }
        fn on_arrival(&mut self, _req: Request, _ctx: &SchedCtx) {
            self.0 = Some(HeadwayError::Invariant("raised".into()));
        }
        fn propose(&mut self, _ctx: &SchedCtx) -> Decision {
            Decision::Idle
        }
        fn commit(&mut self, _: &Command, _: Placement, _: &SchedCtx) -> Result<()> {
            Ok(())
        }
        fn pending(&self) -> usize {
            0
        }
        fn take_failure(&mut self) -> Option<HeadwayError> {
            self.0.take()
        }
    }

    #[test]
    fn a_copys_failure_is_taken_once_after_its_call() {
        let mut preds = predictor(HeadPosition::default());
        preds.extend(predictor(HeadPosition::default()));
        let mut s = PerDevice::new(vec![Box::new(Fcfs::new()), Box::new(Raising(None))]);
        let ctx = SchedCtx::new(0, &preds, &[0, 0], &[1, 1]);
        assert!(s.take_failure().is_none());
        s.on_arrival(request(0, 0, 100), &ctx);
        assert!(s.take_failure().is_none());
        s.on_arrival(request(1, 1, 100), &ctx);
        assert!(s.take_failure().is_some());
        assert!(s.take_failure().is_none());
        assert_eq!(dispatched_id(s.decide(&ctx)), 0);
        assert!(s.take_failure().is_none());
    }
}
