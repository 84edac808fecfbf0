//! Cello (Shenoy and Vin): two-level disk scheduling for mixed application classes.
//!
//! A class-independent scheduler ([`Core`]) shares each interval P of disk time (or bytes)
//! among application classes in proportion to their weights, and class-specific schedulers
//! ([`ClassScheduler`]: interactive and throughput-intensive best effort, soft real time)
//! decide where their requests go in one shared scheduled queue, stealing only the slack
//! the queue exports so that no queued deadline is broken. See `docs/cello.md`.
//!
//! Options (`[host.options]` of `scheduler = "cello"`):
//! - `interval_ms` (1000): the interval P;
//! - `allocation`: `"time"` (default), `"bytes"`, or `"static"` (static partitioning of
//!   time, a baseline: no idle accounting, no reallocation, no early start);
//! - `realtime`, `interactive`, `throughput`: the class names (`[[workloads]] class`) each
//!   class scheduler serves; when none is given every class is interactive, otherwise every
//!   class of the run must be listed;
//! - `weights`: one per class in the run's class order (default: each class's workload
//!   `share`); they must sum to a positive value;
//! - `fit`: `"first"` (default), `"best"` or `"hybrid"` with `beta` (0.5): interactive
//!   insertion;
//! - `reallocate` (true), `early_start` (true);
//! - `reallocation`: `"weights"` (default: unused time shared by weight among the blocked
//!   classes with requests) or `"priority"` (only the strictest kind among them: real time,
//!   then interactive, then throughput);
//! - `tau`: `"mean-rotation"` (default: seek + half a revolution + transfer, independent of
//!   when the request starts, so an estimate made at insertion stays right when earlier
//!   entries dispatch) or `"exact"` (the predictor's full estimate at the predicted start,
//!   fixed at insertion: TEAM CHOICE, docs/cello.md measures the two);
//! - `recompute_tau` (false): re-estimate every queued τ after each dispatch.

mod class;
mod core;
mod ledger;
mod queue;

pub use self::class::{ClassScheduler, Fit, Interactive, QueueView, RealTime, Throughput};
pub use self::core::{
    ClassKind, ClassSlot, Core, CoreOptions, Estimator, IntervalLog, IntervalRecord,
};
pub use self::ledger::{Allocation, Ledger};
pub use self::queue::{Entry, ScheduledQueue, SlackMap};

use super::options::OptionReader;
use super::proposal::not_proposed;
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::{HeadwayError, Result};
use crate::predict::{Access, Moment, Predictor};
use crate::request::{Command, Completion, HeadPosition, Request};
use crate::time::{SimTime, NS_PER_MS};

/// How τ is estimated from the predictor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TauModel {
    MeanRotation,
    Exact,
}

/// τ from a predictor.
pub struct PredictorEstimator<'a> {
    pub predictor: &'a dyn Predictor,
    pub model: TauModel,
    half_rev_ns: Option<SimTime>,
}

impl<'a> PredictorEstimator<'a> {
    pub fn new(predictor: &'a dyn Predictor, model: TauModel) -> Self {
        let half_rev_ns = predictor
            .geometry()
            .map(|g| (g.period_ns() / 2.0).round() as SimTime);
        PredictorEstimator {
            predictor,
            model,
            half_rev_ns,
        }
    }
}

impl Estimator for PredictorEstimator<'_> {
    fn tau(&self, from: HeadPosition, start_ns: SimTime, r: &Request) -> (SimTime, HeadPosition) {
        let e = self.predictor.estimate(
            Moment::new(from, start_ns),
            Access::new(r.lbn, r.sectors, r.op),
        );
        let tau = match (self.model, self.half_rev_ns) {
            (TauModel::MeanRotation, Some(h)) => e.overhead_ns + e.seek_ns + h + e.transfer_ns,
            _ => e.service_ns(),
        };
        (tau, e.end)
    }
    fn head(&self, _r: &Request) -> HeadPosition {
        self.predictor.head()
    }
    fn cylinder(&self, r: &Request) -> u32 {
        self.predictor.cylinder_of(r.lbn)
    }
}

/// What `[host.options]` says, checked before the run; the classes are matched against
/// the run's on its first call.
#[derive(Clone, Debug)]
pub struct CelloConfig {
    pub interval_ns: SimTime,
    pub allocation: Allocation,
    pub reallocate: bool,
    /// Reallocated time to the strictest kind of class first (`reallocation = "priority"`).
    pub realloc_priority: bool,
    pub early_start: bool,
    /// Lazy insertion of real-time requests (`insertion = "lazy"`).
    pub lazy: bool,
    pub fit: Fit,
    pub tau: TauModel,
    /// Re-estimate the queue's τ after every dispatch.
    pub recompute_tau: bool,
    pub realtime: Option<Vec<String>>,
    pub interactive: Option<Vec<String>>,
    pub throughput: Option<Vec<String>>,
    pub weights: Option<Vec<f64>>,
    /// How errors name the options table (`host.options`).
    pub table: String,
}

impl Default for CelloConfig {
    fn default() -> Self {
        CelloConfig {
            interval_ns: 1000 * NS_PER_MS,
            allocation: Allocation::Time,
            reallocate: true,
            realloc_priority: false,
            early_start: true,
            lazy: false,
            fit: Fit::First,
            tau: TauModel::MeanRotation,
            recompute_tau: false,
            realtime: None,
            interactive: None,
            throughput: None,
            weights: None,
            table: "host.options".into(),
        }
    }
}

impl CelloConfig {
    pub fn from_options(o: &OptionReader, static_default: bool) -> Result<Self> {
        let interval_ms = o.f64("interval_ms", 1000.0, 1e-3, 1e9)?;
        let allocation = match o.choice(
            "allocation",
            if static_default {
                &["static", "time", "bytes"]
            } else {
                &["time", "bytes", "static"]
            },
        )? {
            "bytes" => Allocation::Bytes,
            "static" => Allocation::Static,
            _ => Allocation::Time,
        };
        let fit = match o.choice("fit", &["first", "best", "hybrid"])? {
            "best" => Fit::Best,
            "hybrid" => Fit::Hybrid(o.f64("beta", 0.5, 0.0, 1.0)?),
            _ => {
                o.f64("beta", 0.5, 0.0, 1.0)?;
                Fit::First
            }
        };
        let weights = o.f64_list("weights")?;
        if let Some(w) = &weights {
            if w.iter().any(|x| !(x.is_finite() && *x >= 0.0)) || w.iter().sum::<f64>() <= 0.0 {
                return Err(HeadwayError::config(
                    o.key_name("weights"),
                    format!(
                        "class weights must be non-negative and sum to a positive value, got {w:?}"
                    ),
                ));
            }
        }
        let key = o.key_name("x");
        Ok(CelloConfig {
            interval_ns: (interval_ms * NS_PER_MS as f64).round() as SimTime,
            allocation,
            reallocate: o.bool("reallocate", true)?,
            realloc_priority: o.choice("reallocation", &["weights", "priority"])? == "priority",
            early_start: o.bool("early_start", true)?,
            lazy: o.choice("insertion", &["aggressive", "lazy"])? == "lazy",
            fit,
            tau: match o.choice("tau", &["mean-rotation", "exact"])? {
                "exact" => TauModel::Exact,
                _ => TauModel::MeanRotation,
            },
            recompute_tau: o.bool("recompute_tau", false)?,
            realtime: o.str_list("realtime")?,
            interactive: o.str_list("interactive")?,
            throughput: o.str_list("throughput")?,
            weights,
            table: key.trim_end_matches(".x").to_string(),
        })
    }

    fn key(&self, k: &str) -> String {
        format!("{}.{k}", self.table)
    }

    /// The classes of a run, with their kinds, weights and class schedulers.
    pub(crate) fn classes(&self, names: &[String], shares: &[f64]) -> Result<Vec<ClassSlot>> {
        let lists = [
            ("realtime", &self.realtime, ClassKind::RealTime),
            ("interactive", &self.interactive, ClassKind::Interactive),
            ("throughput", &self.throughput, ClassKind::Throughput),
        ];
        let any_list = lists.iter().any(|l| l.1.is_some());
        for (key, list, _) in &lists {
            for n in list.iter().flat_map(|l| l.iter()) {
                if !names.contains(n) {
                    return Err(HeadwayError::config(
                        self.key(key),
                        format!(
                            "`{n}` is not a class of this run; its classes are {}",
                            names.join(", ")
                        ),
                    ));
                }
            }
        }
        if let Some(w) = &self.weights {
            if w.len() != names.len() {
                return Err(HeadwayError::config(
                    self.key("weights"),
                    format!(
                        "{} weights given for {} classes ({})",
                        w.len(),
                        names.len(),
                        names.join(", ")
                    ),
                ));
            }
        }
        let mut out = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let kinds: Vec<ClassKind> = lists
                .iter()
                .filter(|l| l.1.as_ref().is_some_and(|v| v.contains(name)))
                .map(|l| l.2)
                .collect();
            let kind = match kinds.as_slice() {
                [k] => *k,
                [] if !any_list => ClassKind::Interactive,
                [] => {
                    return Err(HeadwayError::config(
                        self.table.clone(),
                        format!(
                            "class `{name}` has no class scheduler: list it in realtime, \
                             interactive or throughput"
                        ),
                    ))
                }
                _ => {
                    return Err(HeadwayError::config(
                        self.table.clone(),
                        format!("class `{name}` is listed for more than one class scheduler"),
                    ))
                }
            };
            let weight = self
                .weights
                .as_ref()
                .map_or_else(|| shares.get(i).copied().unwrap_or(1.0), |w| w[i]);
            let scheduler: Box<dyn ClassScheduler> = match kind {
                ClassKind::RealTime => Box::new(RealTime),
                ClassKind::Interactive => Box::new(Interactive { fit: self.fit }),
                ClassKind::Throughput => Box::new(Throughput),
            };
            out.push(ClassSlot {
                name: name.clone(),
                kind,
                weight,
                pending: Default::default(),
                blocked: false,
                scheduler,
            });
        }
        if out.iter().map(|c| c.weight).sum::<f64>() <= 0.0 {
            return Err(HeadwayError::config(
                self.key("weights"),
                "class weights must sum to a positive value",
            ));
        }
        Ok(out)
    }

    pub(crate) fn core_options(&self) -> CoreOptions {
        CoreOptions {
            interval_ns: self.interval_ns,
            allocation: self.allocation,
            reallocate: self.reallocate,
            realloc_priority: self.realloc_priority,
            early_start: self.early_start,
            lazy: self.lazy,
        }
    }
}

/// The `cello` scheduler: [`Core`] over the host's predictors.
pub struct Cello {
    name: &'static str,
    config: CelloConfig,
    core: Option<Core>,
    log: Option<IntervalLog>,
    /// Class schedulers to use instead of the built-in ones, by class name (Python
    /// plug-ins).
    custom: Vec<(String, Box<dyn ClassScheduler>)>,
}

impl Cello {
    pub fn new(name: &'static str, config: CelloConfig) -> Self {
        Cello {
            name,
            config,
            core: None,
            log: None,
            custom: Vec::new(),
        }
    }
    pub fn from_options(name: &'static str, o: &OptionReader) -> Result<Self> {
        Ok(Self::new(
            name,
            CelloConfig::from_options(o, name != "cello")?,
        ))
    }
    /// Write every finished interval's accounts to `log`.
    pub(crate) fn with_log(mut self, log: IntervalLog) -> Self {
        self.log = Some(log);
        self
    }
    /// Serve class `class` with `scheduler` instead of its built-in class scheduler.
    pub fn with_class_scheduler(mut self, class: &str, scheduler: Box<dyn ClassScheduler>) -> Self {
        self.custom.push((class.to_string(), scheduler));
        self
    }

    fn core(&mut self, ctx: &SchedCtx) -> Result<&mut Core> {
        if self.core.is_none() {
            let names = &ctx.info.classes;
            let shares: Vec<f64> = (0..names.len())
                .map(|c| {
                    ctx.info
                        .processes
                        .iter()
                        .find(|p| p.class as usize == c)
                        .map_or(1.0, |p| p.share)
                })
                .collect();
            let mut classes = self.config.classes(names, &shares)?;
            for (name, s) in self.custom.drain(..) {
                let slot = classes.iter_mut().find(|c| c.name == name).ok_or_else(|| {
                    HeadwayError::config(
                        self.config.table.clone(),
                        format!("a class scheduler was given for `{name}`, which is not a class of this run"),
                    )
                })?;
                slot.scheduler = s;
            }
            let mut core = Core::new(classes, self.config.core_options());
            core.log = self.log.clone();
            self.core = Some(core);
        }
        Ok(self.core.as_mut().expect("just made"))
    }

    fn pump(&mut self, ctx: &SchedCtx, dev: u16) {
        let tau = self.config.tau;
        let res = self.core(ctx).and_then(|core| {
            let est = PredictorEstimator::new(ctx.predictor(dev), tau);
            core.pump(ctx.now, &est)
        });
        if let Err(e) = res {
            ctx.fail(e);
        }
    }
}

impl Scheduler for Cello {
    fn name(&self) -> &str {
        self.name
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        match self.core(ctx) {
            Ok(core) => {
                let class = (req.class as usize).min(core.classes.len() - 1);
                core.arrive(class, req);
            }
            Err(e) => return ctx.fail(e),
        }
        self.pump(ctx, req.device);
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        if let Some(core) = self.core.as_mut() {
            core.complete(ctx.now);
        }
        self.pump(ctx, done.command.device);
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        let dev = self
            .core
            .as_ref()
            .and_then(|c| c.classes.iter().find_map(|k| k.pending.front()))
            .map_or(0, |r| r.device);
        self.pump(ctx, dev);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let Some(core) = self.core.as_ref() else {
            return Decision::Idle;
        };
        if let Some(h) = core.queue.front() {
            return if ctx.has_slot(h.req.device) {
                Decision::Dispatch(Command::single(h.req))
            } else {
                Decision::Idle
            };
        }
        // Requests wait for the next interval. While the device is busy its completion will
        // wake the scheduler anyway, so only an idle device needs the timer.
        let dev = core
            .classes
            .iter()
            .find_map(|k| k.pending.front())
            .map_or(0, |r| r.device);
        match core.wake_at() {
            Some(t) if ctx.has_slot(dev) => Decision::WaitUntil(t.max(ctx.now + 1)),
            _ => Decision::Idle,
        }
    }
    fn hints(&self) -> Hints {
        Hints::SLOT_DRIVEN
    }
    fn commit(&mut self, cmd: &Command, _placement: Placement, ctx: &SchedCtx) -> Result<()> {
        let core = self.core.as_mut();
        match (core, cmd.requests.first()) {
            (Some(core), Some(r)) if core.queue.front().is_some_and(|h| h.req.id == r.id) => {
                core.dispatch(ctx.now);
                if self.config.recompute_tau {
                    let est = PredictorEstimator::new(ctx.predictor(r.device), self.config.tau);
                    core.refresh_taus(ctx.now, &est);
                }
                Ok(())
            }
            _ => Err(not_proposed(self.name, cmd)),
        }
    }
    fn pending(&self) -> usize {
        self.core.as_ref().map_or(0, |c| c.pending())
    }
}

#[cfg(test)]
mod tests;
