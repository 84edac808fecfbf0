//! The host: the block layer between workload and devices. It holds the scheduler and one
//! predictor per device, enforces how many commands each device may have outstanding, and
//! keeps the single timer a non-work-conserving scheduler can arm.

pub mod array;
pub mod ctlr_cache;
pub(crate) mod slots;

use crate::error::{HeadwayError, Result};
use crate::predict::{Access, Moment, Predictor};
use crate::request::{Command, Completion, Request};
use crate::sched::{Decision, HostWork, RunInfo, SchedCtx, Scheduler};
use crate::time::{SimTime, NEVER};

pub struct Host {
    pub scheduler: Box<dyn Scheduler>,
    pub predictors: Vec<Box<dyn Predictor>>,
    pub outstanding: Vec<usize>,
    pub max_outstanding: Vec<usize>,
    /// Generation of the armed timer; a fired timer with an older generation is stale.
    timer_gen: u64,
    timer_at: SimTime,
    /// Host CPU time charged per estimate a decision made (0: decisions are free).
    ns_per_estimate: SimTime,
    /// When the host CPU finishes the decisions already charged: decisions are serialised.
    cpu_free_ns: SimTime,
    /// Record the predictor's estimate on each command sent to an idle device. It costs a
    /// full estimate per request (about a fifth of an SPTF run's time), so runs that do not
    /// report prediction accuracy switch it off.
    track_predictions: bool,
    /// The scheduler never reads the predictors (`Hints::ignores_predictors`).
    ignores_predictors: bool,
    /// Someone reads the predictors (the scheduler, or the prediction tracking), so each
    /// completion is passed to its device's predictor; else their state is never read, and
    /// the call (a few tens of instructions a request) is skipped.
    observes: bool,
    /// What the run is made of, for schedulers to look up.
    pub info: RunInfo,
    /// Request ids, host origins, and the host-made requests of the current call.
    pub work: HostWork,
    /// Each device's capacity as its predictor believes it.
    capacity: Vec<u64>,
    /// The scheduler never acts while every device is full (see
    /// `Hints::acts_only_with_a_free_slot`), so it is not asked then.
    only_with_slot: bool,
    idle_when_empty: bool,
    /// The scheduler's `on_completion` does nothing (`Hints::ignores_completions`).
    ignores_completions: bool,
    /// The scheduler dispatches an arrival that finds it empty at once
    /// (`Hints::passes_through_when_empty`).
    passes_through: bool,
    /// Such an arrival's command, built, checked and accounted at the arrival and held for
    /// the engine's next decision instead of the request being handed to the scheduler (see
    /// [`Host::arrival`]), while `holding`. Built whole in its place when the request
    /// arrives, so that the decision, which copies it out a few hundred instructions later,
    /// reads finished memory: built there (its fields written one by one) and copied out at
    /// once in wider pieces, the copy waited for the stores instead of being forwarded from
    /// them.
    through: Command,
    holding: bool,
    /// The pass-through scheduler was found empty (`pending() == 0`) and has not been called
    /// since, so it still is (its count changes only in its own calls: see
    /// `Hints::passes_through_when_empty`): the checks of an empty queue, three a
    /// request through the trait object, are answered without the call. Cleared before
    /// every call that may change the scheduler.
    seen_empty: bool,
    /// Devices whose `outstanding` has reached `max_outstanding` (kept as commands leave and
    /// complete, so that "every device full" is one comparison, not a loop).
    full_devices: usize,
    /// A failed decision's error, for the engine (see [`Host::decide`]); boxed, so that the
    /// empty case costs one word.
    error: Option<Box<HeadwayError>>,
}

/// A scheduler context over the host's fields (a macro: a method would borrow the whole
/// host, and the scheduler must be borrowed mutably beside it).
macro_rules! ctx {
    ($h:expr, $now:expr) => {
        SchedCtx::for_host(
            $now,
            &$h.predictors,
            &$h.outstanding,
            &$h.max_outstanding,
            &$h.info,
            &$h.work,
        )
    };
}

impl Host {
    pub fn new(
        scheduler: Box<dyn Scheduler>,
        predictors: Vec<Box<dyn Predictor>>,
        max_outstanding: Vec<usize>,
    ) -> Self {
        let n = predictors.len();
        let capacity = predictors.iter().map(|p| p.capacity_sectors()).collect();
        // Fixed for the scheduler's life (`Scheduler::hints`): read here, not per call.
        let hints = scheduler.hints();
        let full_devices = max_outstanding.iter().filter(|&&m| m == 0).count();
        Host {
            scheduler,
            predictors,
            outstanding: vec![0; n],
            max_outstanding,
            timer_gen: 0,
            timer_at: NEVER,
            ns_per_estimate: 0,
            cpu_free_ns: 0,
            track_predictions: true,
            ignores_predictors: hints.ignores_predictors,
            observes: true,
            info: RunInfo::single(),
            work: HostWork::new(),
            capacity,
            only_with_slot: hints.acts_only_with_a_free_slot,
            idle_when_empty: hints.idle_when_empty,
            ignores_completions: hints.ignores_completions,
            passes_through: hints.passes_through_when_empty,
            through: Command::empty(),
            holding: false,
            seen_empty: false,
            full_devices,
            error: None,
        }
    }

    /// Describe the run (devices, classes, workloads, processes) to the schedulers.
    pub(crate) fn with_info(mut self, info: RunInfo) -> Self {
        self.info = info;
        self
    }

    /// Whether to estimate each command sent to an idle device, for the prediction
    /// statistics and the records' `predicted_ns` (default: yes).
    pub(crate) fn with_prediction_tracking(mut self, on: bool) -> Self {
        self.track_predictions = on;
        self.observes = on || !self.ignores_predictors;
        self
    }

    /// Charge `ns` of host CPU per service-time estimate a scheduler counts while deciding
    /// (`[host] decision_ns_per_estimate`): the command leaves only when the decision is done.
    pub(crate) fn with_decision_cost(mut self, ns_per_estimate: SimTime) -> Self {
        self.ns_per_estimate = ns_per_estimate;
        self
    }

    pub(crate) fn arrival(&mut self, now: SimTime, req: &Request) -> Result<()> {
        // A scheduler that would dispatch this arrival at once, alone and unchanged, is
        // not called: the request waits here for the engine's decision after the arrival,
        // which sends it as the scheduler would have. Its device must have a slot now, or
        // the request would wait here beside the scheduler's queue, out of order. Nothing
        // between the two changes the host, so the command is checked and accounted now,
        // as the decision would have (its failure, if any, is the decision's: kept for it).
        let dev = req.device as usize;
        if self.passes_through
            && !self.holding
            && dev < self.outstanding.len()
            && self.outstanding[dev] < self.max_outstanding[dev]
            && (self.seen_empty || self.scheduler.pending() == 0)
        {
            self.seen_empty = true;
            self.holding = true;
            match self.account(now, dev, (req.lbn, req.sectors, req.op), false, 0) {
                Ok((dispatch_ns, predicted_ns)) => {
                    self.through = Command {
                        device: req.device,
                        lbn: req.lbn,
                        sectors: req.sectors,
                        op: req.op,
                        dispatch_ns,
                        predicted_ns,
                        requests: smallvec::SmallVec::from_buf([*req]),
                    }
                }
                Err(e) => self.error = Some(Box::new(e)),
            }
            return Ok(());
        }
        self.seen_empty = false;
        let ctx = ctx!(self, now);
        self.scheduler.on_arrival(*req, &ctx);
        let f = ctx.take_failure();
        self.check(f)
    }

    /// A failure reported through the context ends the run. One kept by the scheduler (a
    /// plug-in that raised) is collected by `decide`, which the engine calls after every
    /// event: a failed plug-in proposes nothing meanwhile.
    #[inline]
    fn check(&mut self, from_ctx: Option<HeadwayError>) -> Result<()> {
        match from_ctx {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    /// The id of the next workload request (one sequence with host-made requests).
    #[inline]
    pub(crate) fn next_request_id(&self) -> u64 {
        self.work.next_id()
    }

    pub(crate) fn completion(&mut self, now: SimTime, c: &Completion) -> Result<()> {
        let dev = c.command.device as usize;
        self.full_devices -= (self.outstanding[dev] == self.max_outstanding[dev]) as usize;
        self.outstanding[dev] -= 1;
        if self.observes {
            self.predictors[dev].observe(c);
        }
        if self.ignores_completions {
            return Ok(());
        }
        self.seen_empty = false;
        let ctx = ctx!(self, now);
        self.scheduler.on_completion(c, &ctx);
        let f = ctx.take_failure();
        self.check(f)
    }

    /// A timer fired; returns false if it was superseded.
    pub(crate) fn timer(&mut self, now: SimTime, generation: u64) -> Result<bool> {
        if generation != self.timer_gen || self.timer_at == NEVER {
            return Ok(false);
        }
        self.timer_at = NEVER;
        self.seen_empty = false;
        let ctx = ctx!(self, now);
        self.scheduler.on_timer(&ctx);
        let f = ctx.take_failure();
        self.check(f)?;
        Ok(true)
    }

    /// Whether asking the scheduler now is sure to find nothing to do: it holds no request
    /// and promised to stay idle then (`Hints::idle_when_empty`), or it acts only with a
    /// free device slot and every device is full. Inline, so that the engine's two questions
    /// per request that find the queue empty cost a check, not a call of [`Host::decide`].
    #[inline]
    pub(crate) fn nothing_to_decide(&self) -> bool {
        !self.holding
            && ((self.idle_when_empty && (self.seen_empty || self.scheduler.pending() == 0))
                || (self.only_with_slot && self.full_devices == self.outstanding.len()))
    }

    /// Ask the scheduler once (the engine first checks [`Host::nothing_to_decide`]), and
    /// check and account its decision in place: the engine gets the scheduler's own
    /// `Decision` back, not wrapped in a `Result` (a command is about a hundred bytes, and
    /// each wrapping and unwrapping copied it). `Dispatch` is checked (device exists and has
    /// a slot) and accounted; `WaitUntil` comes back only when it armed the timer
    /// (generation [`Host::timer_generation`]), which an earlier armed one prevents; `Idle`
    /// when there is nothing to do, or when the decision failed: the failure is then kept
    /// for [`Host::take_error`], which the engine asks at every `Idle`.
    #[inline]
    pub(crate) fn decide(&mut self, now: SimTime) -> Decision {
        if self.holding {
            // What the scheduler would have decided (its decision made no estimate), checked
            // and accounted at the arrival (or its failure, kept then).
            self.holding = false;
            if self.error.is_some() {
                return Decision::Idle;
            }
            return Decision::Dispatch(std::mem::replace(&mut self.through, Command::empty()));
        }
        // Every path returns this one local, so that the scheduler's decision is written
        // straight into the engine's place.
        let mut decision;
        let estimates;
        let failure;
        self.seen_empty = false;
        {
            let mut ctx = ctx!(self, now);
            ctx.ns_per_estimate = self.ns_per_estimate;
            decision = self.scheduler.decide(&ctx);
            estimates = ctx.estimates.get();
            failure = ctx.take_failure();
        }
        if let Some(e) = failure.or_else(|| self.scheduler.take_failure()) {
            self.error = Some(Box::new(e.at_time(now)));
            decision = Decision::Idle;
            return decision;
        }
        let checked = match &mut decision {
            Decision::Idle => Ok(()),
            Decision::Serve(reqs) => self.check_served(reqs),
            &mut Decision::WaitUntil(at) => match self.check_wait(now, at) {
                Ok(true) => Ok(()),
                Ok(false) => {
                    decision = Decision::Idle;
                    return decision;
                }
                Err(e) => Err(e),
            },
            Decision::Dispatch(cmd) => self.check_dispatch(now, cmd, estimates),
        };
        if let Err(e) = checked {
            self.error = Some(Box::new(e));
            decision = Decision::Idle;
        }
        decision
    }

    /// Whether the next [`Host::decide`] would answer with the pass-through command held
    /// since the arrival (accounted then, without a failure): the engine then takes it with
    /// [`Host::take_held`] instead, which moves it out once, not through a `Decision`.
    #[inline]
    pub(crate) fn holds_command(&self) -> bool {
        self.holding && self.error.is_none()
    }

    /// The command [`Host::holds_command`] says is held.
    #[inline]
    pub(crate) fn held(&self) -> &Command {
        &self.through
    }

    /// Take the held command: what [`Host::decide`] would have dispatched (its
    /// `Decision::Dispatch`), the host left as that call leaves it. Only while
    /// [`Host::holds_command`].
    #[inline(always)]
    pub(crate) fn take_held(&mut self) -> Command {
        self.holding = false;
        std::mem::replace(&mut self.through, Command::empty())
    }

    /// The failure of the last [`Host::decide`] that answered `Idle` because of it.
    #[inline]
    pub(crate) fn take_error(&mut self) -> Option<HeadwayError> {
        match self.error.take() {
            None => None,
            Some(e) => Some(*e),
        }
    }

    #[cold]
    fn check_served(&self, reqs: &crate::sched::Served) -> Result<()> {
        if reqs.is_empty() {
            return Err(HeadwayError::Invariant(format!(
                "scheduler `{}` served an empty list of requests from host memory",
                self.scheduler.name()
            )));
        }
        Ok(())
    }

    /// Arm the timer for a `WaitUntil(at)`; false if an earlier armed one prevents it.
    fn check_wait(&mut self, now: SimTime, at: SimTime) -> Result<bool> {
        if at <= now {
            return Err(HeadwayError::Invariant(format!(
                "scheduler `{}` asked to wait until {at} ns, which is not after now ({now} ns)",
                self.scheduler.name()
            )));
        }
        if !(at < self.timer_at || self.timer_at == NEVER) {
            return Ok(false);
        }
        self.timer_gen += 1;
        self.timer_at = at;
        Ok(true)
    }

    /// The generation of the timer the last `WaitUntil` from [`Host::decide`] armed.
    #[inline]
    pub(crate) fn timer_generation(&self) -> u64 {
        self.timer_gen
    }

    /// Check a dispatched command against the devices and account it (its send time, its
    /// prediction, the device's slot).
    #[inline]
    fn check_dispatch(&mut self, now: SimTime, cmd: &mut Command, estimates: u64) -> Result<()> {
        let dev = cmd.device as usize;
        if dev >= self.outstanding.len() {
            return Err(HeadwayError::Invariant(format!(
                "scheduler `{}` dispatched to device {dev}, which does not exist",
                self.scheduler.name()
            )));
        }
        // Every command must hold each of its requests (merged, spanning and
        // plug-in-built ones are not so by construction).
        let outside = cmd.requests.iter().any(|r| {
            r.lbn < cmd.lbn
                || r.end_lbn() > cmd.end_lbn()
                || r.op != cmd.op
                || r.device != cmd.device
        });
        let (send_ns, predicted_ns) =
            self.account(now, dev, (cmd.lbn, cmd.sectors, cmd.op), outside, estimates)?;
        if predicted_ns.is_some() {
            cmd.predicted_ns = predicted_ns;
        }
        cmd.dispatch_ns = send_ns;
        Ok(())
    }

    /// Check that device `dev` (which exists) has a free slot and holds the command's
    /// `(lbn, sectors, op)`, whose requests are `outside` it or not, and account the
    /// command: its send time and prediction (when the device is idle), and the slot it
    /// takes.
    #[inline(always)]
    fn account(
        &mut self,
        now: SimTime,
        dev: usize,
        (lbn, sectors, op): (u64, u32, crate::request::Op),
        outside: bool,
        estimates: u64,
    ) -> Result<(SimTime, Option<SimTime>)> {
        if self.outstanding[dev] >= self.max_outstanding[dev] {
            return Err(HeadwayError::Invariant(format!(
                "scheduler `{}` dispatched to device {dev}, which already has {} of {} commands outstanding",
                self.scheduler.name(),
                self.outstanding[dev],
                self.max_outstanding[dev]
            )));
        }
        if outside || lbn + sectors as u64 > self.capacity[dev] {
            return Err(self.not_held_or_too_far(dev, lbn, sectors, op));
        }
        let send_ns = if self.ns_per_estimate > 0 {
            let cpu = estimates.saturating_mul(self.ns_per_estimate);
            self.cpu_free_ns = self.cpu_free_ns.max(now).saturating_add(cpu);
            self.cpu_free_ns
        } else {
            now
        };
        // The prediction is only meaningful from a known starting point: an idle
        // device whose head the predictor has seen.
        let mut predicted_ns = None;
        if self.track_predictions && self.outstanding[dev] == 0 && sectors > 0 {
            let p = &self.predictors[dev];
            let e = p.estimate(
                Moment::new(p.head(), send_ns),
                Access::new(lbn, sectors, op),
            );
            predicted_ns = Some(e.service_ns());
        }
        self.outstanding[dev] += 1;
        self.full_devices += (self.outstanding[dev] == self.max_outstanding[dev]) as usize;
        Ok((send_ns, predicted_ns))
    }

    #[cold]
    fn not_held_or_too_far(
        &self,
        dev: usize,
        lbn: u64,
        sectors: u32,
        op: crate::request::Op,
    ) -> HeadwayError {
        let cap = self.capacity[dev];
        HeadwayError::Invariant(format!(
            "scheduler `{}` dispatched sectors {}..{} ({:?}) to device {dev} \
             ({cap} sectors), which do not hold all of its requests or do not fit",
            self.scheduler.name(),
            lbn,
            lbn + sectors as u64,
            op
        ))
    }

    pub(crate) fn pending(&self) -> usize {
        self.scheduler.pending() + self.holding as usize
    }
}
