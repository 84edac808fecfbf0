//! `anticipatory`: the non-work-conserving anticipation core of Iyer and Druschel (SOSP
//! 2001) around any scheduler. After a synchronous read completes, the core may keep the
//! disk idle for a short, bounded time, waiting for the same process's next (probably
//! nearby) read instead of seeking away to another process's request ("deceptive
//! idleness").
//!
//! States (paper §3.1): IDLE (nothing pending: the inner scheduler proposes nothing), BUSY
//! (a command at the device: the core passes the inner scheduler's proposals through), WAIT
//! (requests pending, the disk idle on purpose: `Decision::WaitUntil`). One timeout per
//! decision point: it is fixed when the last process's read completes (its completion time
//! plus its 95th-percentile thinktime, rounded up to the timer granularity), so arrivals
//! re-evaluate the heuristic but never extend it. Writes and host-made work are never
//! anticipated (writes are asynchronous).
//!
//! Options (`[host.options]`): `heuristic` ("cost-benefit" (default), "linux-as",
//! "slice-idle", "stride", "combination", "off"), `think_threshold_ms` (3, stride and
//! combination), `relax_ms` (R_v, 1000, combination), `histogram_range_ms` (10), `bucket_us` (100), `decay` (0.9),
//! `seek_weight` (0.25), `min_samples` (3), `timer_granularity_us` (0), `aged_clause`
//! (default: on when the inner scheduler is `aged-sptf`), `cscan_clause` (default: on for
//! `cscan`, `clook`, `clook-lbn`), `antic_expire_ms` (6, linux-as), `slice_idle_ms` (8,
//! slice-idle). Positioning estimates come from the host's predictor: `predictor =
//! "lbn-curve"` gives the paper's LBN-distance curve.

mod heuristic;
mod mq_deadline;
mod settings;
mod stats;
mod stride;
mod vclock;

use std::collections::BTreeMap;

use heuristic::{sptf_wait_ns, SptfInputs};
pub use mq_deadline::MqDeadline;
pub use settings::{HeuristicKind, Settings};
pub use stats::ProcessStats;
pub use stride::Stride;
use vclock::VirtualClocks;

use super::options::OptionReader;
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::{HeadwayError, Result};
use crate::predict::{Access, Moment};
use crate::request::{Command, Completion, Op, Request};
use crate::time::SimTime;

/// The process the core is anticipating at the current decision point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Anticipation {
    process: u32,
    /// The one timeout of this decision point.
    deadline_ns: SimTime,
}

pub struct Anticipatory {
    inner: Box<dyn Scheduler>,
    settings: Settings,
    /// Only processes seen so far: a run may number its processes sparsely.
    procs: BTreeMap<u32, ProcessStats>,
    /// Requests held by the inner scheduler, by id (the aged clause compares the inner
    /// choice with plain SPTF over them).
    pending: BTreeMap<u64, Request>,
    /// Set when a synchronous read completes, cleared by the next dispatch.
    anticipating: Option<Anticipation>,
    /// One past the last sector of the last completed command.
    head_lbn: u64,
    /// The proportional-share heuristics' copy of the stride scheduler's clocks.
    clocks: VirtualClocks,
}

impl Anticipatory {
    pub fn from_options(o: &OptionReader, inner: Box<dyn Scheduler>) -> Result<Self> {
        let settings = Settings::from_options(o, inner.name())?;
        Ok(Self::new(inner, settings))
    }

    pub fn new(inner: Box<dyn Scheduler>, settings: Settings) -> Self {
        Anticipatory {
            inner,
            settings,
            procs: BTreeMap::new(),
            pending: BTreeMap::new(),
            anticipating: None,
            head_lbn: 0,
            clocks: VirtualClocks::default(),
        }
    }

    /// What the core knows of process `p` (tests and reports).
    #[cfg(test)]
    pub(crate) fn process_stats(&self, p: u32) -> Option<&ProcessStats> {
        self.procs.get(&p)
    }

    fn stats_mut(&mut self, p: u32) -> &mut ProcessStats {
        let cfg = self.settings.stats;
        self.procs
            .entry(p)
            .or_insert_with(|| ProcessStats::new(&cfg))
    }

    fn round_up(&self, t: SimTime) -> SimTime {
        let g = self.settings.granularity_ns;
        if g == 0 {
            t
        } else {
            t.div_ceil(g).saturating_mul(g)
        }
    }

    /// The timeout for a decision point after `p`'s read completed at `done_ns`, if the
    /// heuristic could ever wait for `p`.
    fn timeout_for(&self, p: u32, done_ns: SimTime, ctx: &SchedCtx) -> Option<SimTime> {
        // Short-circuit: a process that is not synchronous can issue its next request
        // without waiting for this one, so nothing is gained by waiting for it.
        if !ctx.process(p).is_some_and(|i| i.synchronous) {
            return None;
        }
        let s = self.procs.get(&p)?;
        let window = match self.settings.heuristic {
            HeuristicKind::Off => return None,
            HeuristicKind::SliceIdle => self.settings.slice_idle_ns,
            HeuristicKind::LinuxAs => self.settings.antic_expire_ns,
            HeuristicKind::CostBenefit | HeuristicKind::Stride | HeuristicKind::Combination => {
                if s.think.samples < self.settings.min_samples {
                    return None;
                }
                s.think.percentile_ns(0.95)?
            }
        };
        (window > 0).then(|| self.round_up(done_ns.saturating_add(window)))
    }

    /// Whether to hold back `cmd` (the inner scheduler's proposal): the time to wait until.
    fn hold(&self, cmd: &Command, ctx: &SchedCtx) -> Option<SimTime> {
        let a = self.anticipating?;
        if ctx.now >= a.deadline_ns {
            return None; // the timeout fired
        }
        if ctx
            .outstanding
            .get(cmd.device as usize)
            .copied()
            .unwrap_or(0)
            > 0
        {
            return None; // the disk is not idle: nothing to keep it idle for
        }
        if cmd.requests.iter().any(|r| r.process == a.process) {
            return None; // the anticipated request itself
        }
        let lp = self.procs.get(&a.process)?;
        if lp.queued > 0 {
            return None; // LP already issued its next read; it is not blocked on us
        }
        if lp.expiry_rate > self.settings.max_expiry_rate {
            return None; // mitigation: LP's timeouts expire too often
        }
        let done = lp.last_completion_ns?;
        let elapsed = ctx.now.saturating_sub(done);
        let wait = match self.settings.heuristic {
            HeuristicKind::Off => 0,
            HeuristicKind::SliceIdle => 1,
            HeuristicKind::LinuxAs => self.linux_as_waits(lp, cmd) as SimTime,
            HeuristicKind::CostBenefit => {
                let inputs = self.sptf_inputs(lp, elapsed, cmd, ctx)?;
                sptf_wait_ns(&inputs, self.settings.clauses)
            }
            HeuristicKind::Stride => self.stride_waits(a.process, lp, 0.0) as SimTime,
            HeuristicKind::Combination => {
                let relax = self.settings.relax_vc;
                if self.clocks.get(a.process) > self.min_pending_clock(a.process) + relax {
                    // Correction (b): the relaxed scheduler would not pick LP anyway.
                    0
                } else {
                    let sptf = self
                        .sptf_inputs(lp, elapsed, cmd, ctx)
                        .map_or(0, |i| sptf_wait_ns(&i, self.settings.clauses));
                    sptf.max(self.stride_waits(a.process, lp, relax) as SimTime)
                }
            }
        };
        (wait > 0).then_some(a.deadline_ns)
    }

    fn sptf_inputs(
        &self,
        lp: &ProcessStats,
        elapsed_ns: SimTime,
        cmd: &Command,
        ctx: &SchedCtx,
    ) -> Option<SptfInputs> {
        let p = ctx.predictor(cmd.device);
        let head = p.head();
        let pos = |lbn: u64, sectors: u32, op: Op| {
            p.estimate(Moment::new(head, ctx.now), Access::new(lbn, sectors, op))
                .positioning_ns()
        };
        let candidate_pos_ns = pos(cmd.lbn, cmd.sectors, cmd.op);
        // The expected read has the candidate's size; it must end on the drive.
        let sectors = cmd.sectors.max(1);
        let capacity = p.capacity_sectors();
        let next = lp
            .expected_next_lbn(capacity)?
            .min(capacity.saturating_sub(sectors as u64));
        let lp_expected_pos_ns = pos(next, sectors, Op::Read);
        let aging_overrode = self.settings.clauses.aged
            && self
                .pending
                .values()
                .filter(|r| r.device == cmd.device)
                .any(|r| pos(r.lbn, r.sectors, r.op) < candidate_pos_ns);
        ctx.count_estimates(2 + aging_overrode as u64);
        Some(SptfInputs {
            elapsed_ns,
            candidate_pos_ns,
            lp_expected_pos_ns,
            t50_ns: lp.think.percentile_ns(0.5)?,
            t95_ns: lp.think.percentile_ns(0.95)?,
            aging_overrode,
            candidate_forward: cmd.lbn >= self.head_lbn,
            lp_backward_probability: 1.0 - lp.forward_fraction,
        })
    }

    /// The smallest virtual clock among processes other than `lp` with a request pending.
    fn min_pending_clock(&self, lp: u32) -> f64 {
        self.pending
            .values()
            .filter(|r| !r.is_host_work() && r.process != lp)
            .map(|r| self.clocks.get(r.process))
            .fold(f64::INFINITY, f64::min)
    }

    /// The proportional-share test (paper §3.6): LP's median thinktime is below the
    /// threshold and its clock is below every pending process's; `relax` > 0 is the
    /// combination's correction (a), LP within R_v of the minimum.
    fn stride_waits(&self, p: u32, lp: &ProcessStats, relax: f64) -> bool {
        let short = lp
            .think
            .percentile_ns(0.5)
            .is_some_and(|t| t < self.settings.think_threshold_ns);
        short && self.clocks.get(p) < self.min_pending_clock(p) + relax
    }

    /// as-iosched's rules: no anticipation for a process whose mean thinktime exceeds
    /// `antic_expire`; a candidate "close" to where LP left the head (within LP's mean seek
    /// distance) is dispatched at once.
    fn linux_as_waits(&self, lp: &ProcessStats, cmd: &Command) -> bool {
        if lp.linux_think_samples > 0
            && lp.linux_mean_think_ns > self.settings.antic_expire_ns as f64
        {
            return false;
        }
        let from = lp.last_end_lbn.unwrap_or(self.head_lbn);
        let close = cmd.lbn.abs_diff(from) as f64 <= lp.linux_mean_seek.max(0.0);
        !close
    }
}

impl Scheduler for Anticipatory {
    fn name(&self) -> &str {
        "anticipatory"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        if !req.is_host_work() && req.op.is_read() {
            let cfg = self.settings.stats;
            let chunk = self.settings.large_read_flag && req.marks.large_read_chunk();
            self.stats_mut(req.process)
                .on_arrival(ctx.now, req.lbn, chunk, &cfg);
        }
        self.pending.insert(req.id, req);
        self.inner.on_arrival(req, ctx);
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        self.head_lbn = done.command.end_lbn();
        self.clocks.charge(done, ctx);
        let mut lp = None;
        for r in &done.command.requests {
            if r.is_host_work() || !r.op.is_read() {
                continue;
            }
            self.stats_mut(r.process)
                .on_completion(done.done_ns, r.end_lbn());
            lp = Some(r.process);
        }
        // A write or host-made command ends anticipation: nobody blocks on it.
        self.anticipating = lp.and_then(|p| {
            self.timeout_for(p, done.done_ns, ctx)
                .map(|deadline_ns| Anticipation {
                    process: p,
                    deadline_ns,
                })
        });
        if let Some(a) = self.anticipating {
            self.stats_mut(a.process).armed_deadline_ns = Some(a.deadline_ns);
        }
        self.inner.on_completion(done, ctx);
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        self.inner.on_timer(ctx);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let d = self.inner.propose(ctx);
        if let Decision::Dispatch(cmd) = &d {
            if let Some(until) = self.hold(cmd, ctx) {
                return Decision::WaitUntil(until);
            }
        }
        d
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        for r in &cmd.requests {
            if self.pending.remove(&r.id).is_none() && !r.is_host_work() {
                return Err(HeadwayError::Invariant(format!(
                    "anticipatory: committed request {} that it never saw arrive",
                    r.id
                )));
            }
            if !r.is_host_work() && r.op.is_read() {
                let s = self.stats_mut(r.process);
                s.on_dispatch();
                if placement == Placement::Diverted {
                    // Served elsewhere: it is no longer outstanding at the device.
                    s.in_service = s.in_service.saturating_sub(1);
                }
            }
        }
        if placement == Placement::Device {
            self.anticipating = None; // BUSY: this decision point is over
        }
        self.inner.commit(cmd, placement, ctx)
    }
    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        self.inner.declined(cmd, ctx);
    }
    fn hints(&self) -> Hints {
        // Waits only with an idle device, so a full device needs nothing of it.
        Hints::slot_driven_if(self.inner.hints())
    }
    fn pending(&self) -> usize {
        self.inner.pending()
    }
    fn take_failure(&mut self) -> Option<HeadwayError> {
        self.inner.take_failure()
    }
}

#[cfg(test)]
mod tests;
