//! The host: the block layer between workload and devices. It holds the scheduler and one
//! predictor per device, enforces how many commands each device may have outstanding, and
//! keeps the single timer a non-work-conserving scheduler can arm.

use crate::error::{HeadwayError, Result};
use crate::predict::Predictor;
use crate::request::{Command, Completion, Request};
use crate::sched::{Decision, SchedCtx, Scheduler};
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
}

/// What the host wants the engine to do after a decision round.
pub enum HostAction {
    Dispatch(Command),
    ArmTimer { at: SimTime, generation: u64 },
}

impl Host {
    pub fn new(
        scheduler: Box<dyn Scheduler>,
        predictors: Vec<Box<dyn Predictor>>,
        max_outstanding: Vec<usize>,
    ) -> Self {
        let n = predictors.len();
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
        }
    }

    /// Whether to estimate each command sent to an idle device, for the prediction
    /// statistics and the records' `predicted_ns` (default: yes).
    pub fn with_prediction_tracking(mut self, on: bool) -> Self {
        self.track_predictions = on;
        self
    }

    /// Charge `ns` of host CPU per service-time estimate a scheduler counts while deciding
    /// (`[host] decision_ns_per_estimate`): the command leaves only when the decision is done.
    pub fn with_decision_cost(mut self, ns_per_estimate: SimTime) -> Self {
        self.ns_per_estimate = ns_per_estimate;
        self
    }

    pub fn arrival(&mut self, now: SimTime, req: Request) -> Result<()> {
        let ctx = SchedCtx::new(
            now,
            &self.predictors,
            &self.outstanding,
            &self.max_outstanding,
        );
        self.scheduler.on_arrival(req, &ctx);
        self.check()
    }

    #[inline]
    fn check(&mut self) -> Result<()> {
        match self.scheduler.take_failure() {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    pub fn completion(&mut self, now: SimTime, c: &Completion) -> Result<()> {
        let dev = c.command.device as usize;
        self.outstanding[dev] -= 1;
        self.predictors[dev].observe(c);
        let ctx = SchedCtx::new(
            now,
            &self.predictors,
            &self.outstanding,
            &self.max_outstanding,
        );
        self.scheduler.on_completion(c, &ctx);
        self.check()
    }

    /// A timer fired; returns false if it was superseded.
    pub fn timer(&mut self, now: SimTime, generation: u64) -> Result<bool> {
        if generation != self.timer_gen || self.timer_at == NEVER {
            return Ok(false);
        }
        self.timer_at = NEVER;
        let ctx = SchedCtx::new(
            now,
            &self.predictors,
            &self.outstanding,
            &self.max_outstanding,
        );
        self.scheduler.on_timer(&ctx);
        self.check()?;
        Ok(true)
    }

    /// Ask the scheduler once. `Dispatch` is checked (device exists and has a slot) and
    /// accounted; `WaitUntil` arms the timer unless an earlier one is armed.
    pub fn decide(&mut self, now: SimTime) -> Result<Option<HostAction>> {
        let (decision, estimates) = {
            let mut ctx = SchedCtx::new(
                now,
                &self.predictors,
                &self.outstanding,
                &self.max_outstanding,
            );
            ctx.ns_per_estimate = self.ns_per_estimate;
            let d = self.scheduler.decide(&ctx);
            (d, ctx.estimates.get())
        };
        self.check()?;
        match decision {
            Decision::Idle => Ok(None),
            Decision::WaitUntil(at) => {
                if at <= now {
                    return Err(HeadwayError::Invariant(format!(
                        "scheduler `{}` asked to wait until {at} ns, which is not after now ({now} ns)",
                        self.scheduler.name()
                    )));
                }
                if at < self.timer_at || self.timer_at == NEVER {
                    self.timer_gen += 1;
                    self.timer_at = at;
                    return Ok(Some(HostAction::ArmTimer {
                        at,
                        generation: self.timer_gen,
                    }));
                }
                Ok(None)
            }
            Decision::Dispatch(mut cmd) => {
                let dev = cmd.device as usize;
                if dev >= self.outstanding.len() {
                    return Err(HeadwayError::Invariant(format!(
                        "scheduler `{}` dispatched to device {dev}, which does not exist",
                        self.scheduler.name()
                    )));
                }
                if self.outstanding[dev] >= self.max_outstanding[dev] {
                    return Err(HeadwayError::Invariant(format!(
                        "scheduler `{}` dispatched to device {dev}, which already has {} of {} commands outstanding",
                        self.scheduler.name(),
                        self.outstanding[dev],
                        self.max_outstanding[dev]
                    )));
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
                if self.track_predictions && self.outstanding[dev] == 0 && cmd.sectors > 0 {
                    let p = &self.predictors[dev];
                    let e = p.estimate(p.head(), send_ns, cmd.lbn, cmd.sectors, cmd.op);
                    cmd.predicted_ns = Some(e.service_ns());
                }
                self.outstanding[dev] += 1;
                cmd.dispatch_ns = send_ns;
                Ok(Some(HostAction::Dispatch(cmd)))
            }
        }
    }

    pub fn pending(&self) -> usize {
        self.scheduler.pending()
    }
}
