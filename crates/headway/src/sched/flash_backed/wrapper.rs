//! `flash-backed`: flash-backed I/O as a wrapper scheduler on the core (a platter drive and
//! its NVCache flash as two `[[devices]]`, each with its own predictor).
//!
//! ```text
//! propose: writes whose flash copy finished        -> Serve (the user's write is durable)
//!          flushing and the flush's turn (1:1)      -> Dispatch(write-back, origin fb-flush)
//!          n = inner.propose()
//!            read wholly in the FQueue              -> Serve([n])  (host copy)
//!            write touching FQueue data             -> Dispatch(spanning merged write)
//!            write, not flushing, h_n + n_nn > f_n + h_nn, fits
//!                                                   -> Dispatch(copy to flash, origin fb-redirect)
//!          inner idle, nothing at the platter       -> Dispatch(write-back, origin fb-idle)
//! commit:  the inner hears Diverted for a redirected write or a served read (its head
//!          bookkeeping stays put) and Device for platter writes (merged or not).
//! ```
//!
//! The user's write completes when its flash copy completes (a `Serve` at that time), so
//! its latency is the perceived latency of the paper. The next pick nn is the pending
//! request the inner scheduler's policy would take from n's end: oldest (fcfs), nearest LBN
//! (sstf family), next LBN upwards (c-look family), else shortest predicted positioning
//! (the STF family). [TEAM CHOICE] a write touching FQueue data always coalesces (Fig. 6
//! order); a read partly in the FQueue reads its whole extent from the platter.
//!
//! `avoid_spinup` (beyond the paper): while the platter is spun down, every write that fits
//! goes to flash (no redirect test, no coalescing; an overlap with FQueue data is absorbed)
//! and idle-time write-back waits, so only a read the FQueue cannot serve, or a flush at
//! the high watermark, spins the platter up. [TEAM CHOICE] the host knows the platter is spun
//! down from the standby timer it set (`spindown_timeout_ms`, as `hdparm -S` sets it; give
//! the device's `power.spindown_timeout_ms`) and the platter commands it has seen: no new
//! query of the device's state.

use std::collections::BTreeMap;

use super::fqueue::FQueue;
use super::options::FlashBackedOptions;
use super::redirect::{should_redirect, RedirectCosts};
use super::rq::{pick, Pending, RqPolicy};
use crate::device::hybrid::PinnedSet;
use crate::error::{HeadwayError, Result};
use crate::predict::{Access, Moment};
use crate::request::{Command, Completion, DeviceId, Op, Request};
use crate::sched::OptionReader;
use crate::sched::{Decision, Placement, ReadyList, SchedCtx, Scheduler, Served};
use crate::time::{ms_to_ns, SimTime};

/// What the last proposal was, so its commit knows what to do.
#[derive(Clone, Debug)]
enum Plan {
    Pass,
    Redirect { user: Command, asleep: bool },
    Coalesce(Command),
    ServeRead(Command),
    WriteBack { flush: bool },
    ServeDone,
}

pub struct FlashBacked {
    inner: Box<dyn Scheduler>,
    policy: Option<RqPolicy>,
    o: FlashBackedOptions,
    platter: DeviceId,
    flash: DeviceId,
    fq: FQueue,
    nv: PinnedSet,
    high: u64,
    low: u64,
    flushing: bool,
    flush_turn: bool,
    /// Workload requests the inner scheduler holds (for the next-pick term).
    shadow: Vec<Request>,
    /// Redirected user writes waiting for their flash copy, by the copy's request id.
    waiting: BTreeMap<u64, Served>,
    ready: ReadyList,
    /// Workload commands at the platter.
    fg_outstanding: usize,
    ring_lbn: u64,
    plan: Option<Plan>,
    /// `avoid_spinup`: the platter's standby timer, ns.
    spindown_timeout_ns: Option<SimTime>,
    /// Commands of any origin at the platter, and when the platter last had one.
    platter_outstanding: usize,
    platter_last_ns: SimTime,
    pub redirected: u64,
    /// Writes sent to flash because the platter was spun down.
    pub spinup_redirects: u64,
    pub flush_writes: u64,
    pub idle_writes: u64,
    pub coalesced: u64,
    pub reads_from_memory: u64,
}

impl FlashBacked {
    pub fn from_options(o: &OptionReader, inner: Box<dyn Scheduler>) -> Result<Self> {
        let d = FlashBackedOptions::default();
        let nv = if o.has("nvcache_mib") {
            Some(o.f64("nvcache_mib", 0.0, 0.0, 1e9)?)
        } else {
            None
        };
        let opts = FlashBackedOptions {
            fqueue_mib: o.f64("fqueue_mib", d.fqueue_mib, 0.0, 1e9)?,
            nvcache_mib: nv,
            high_watermark: o.f64("high_watermark", d.high_watermark, 0.0, 1.0)?,
            low_watermark: o.f64("low_watermark", d.low_watermark, 0.0, 1.0)?,
            pin_us: o.f64("pin_us", d.pin_us, 0.0, 1e9)?,
            look_ahead: o.bool("look_ahead", d.look_ahead)?,
            serve_reads: o.bool("serve_reads", d.serve_reads)?,
            idle_writeback: o.bool("idle_writeback", d.idle_writeback)?,
            redirect: o.bool("redirect", d.redirect)?,
            avoid_spinup: o.bool("avoid_spinup", d.avoid_spinup)?,
            absorb_overwrites: false,
            ..d
        };
        opts.validate()?;
        let spindown_timeout_ns = if o.has("spindown_timeout_ms") {
            Some(ms_to_ns(o.f64("spindown_timeout_ms", 0.0, 0.0, 1e12)?))
        } else {
            None
        };
        if opts.avoid_spinup && spindown_timeout_ns.is_none() {
            return Err(HeadwayError::config(
                "host.options.spindown_timeout_ms",
                "avoid_spinup needs the platter's standby timer (the device's \
                 power.spindown_timeout_ms) to know when the platter is spun down",
            ));
        }
        let spindown_timeout_ns = spindown_timeout_ns.filter(|_| opts.avoid_spinup);
        let platter = o.u64("platter_device", 0, 0, u16::MAX as u64)? as DeviceId;
        let flash = o.u64("flash_device", 1, 0, u16::MAX as u64)? as DeviceId;
        if platter == flash {
            return Err(HeadwayError::config(
                "host.options.flash_device",
                "the flash device must differ from the platter device",
            ));
        }
        let cap = opts.fqueue_sectors();
        let policy = match inner.name() {
            "fcfs" => Some(RqPolicy::Fcfs),
            "sstf" | "sstf-lbn" => Some(RqPolicy::Sstf),
            "clook" | "clook-lbn" | "cscan" => Some(RqPolicy::Clook),
            _ => None,
        };
        Ok(FlashBacked {
            inner,
            policy,
            high: (opts.high_watermark * cap as f64) as u64,
            low: (opts.low_watermark * cap as f64) as u64,
            o: opts,
            platter,
            flash,
            fq: FQueue::new(cap),
            nv: PinnedSet::default(),
            flushing: false,
            flush_turn: true,
            shadow: Vec::new(),
            waiting: BTreeMap::new(),
            ready: ReadyList::new(),
            fg_outstanding: 0,
            ring_lbn: 0,
            plan: None,
            spindown_timeout_ns,
            platter_outstanding: 0,
            platter_last_ns: 0,
            redirected: 0,
            spinup_redirects: 0,
            flush_writes: 0,
            idle_writes: 0,
            coalesced: 0,
            reads_from_memory: 0,
        })
    }

    fn check_devices(&self, ctx: &SchedCtx) -> Result<()> {
        if ctx.devices() <= self.flash.max(self.platter) as usize {
            return Err(HeadwayError::config(
                "host.options.flash_device",
                format!(
                    "flash-backed needs a platter drive (device {}) and its flash (device {}); \
                     the run has {} device(s): add a `[[devices]]` entry with drive = \"flash\"",
                    self.platter,
                    self.flash,
                    ctx.devices()
                ),
            ));
        }
        // A flash-only run is valid on its own (DiskSim's simple disks), but the wrapper's
        // write-back and spin-up rules need a platter behind the FQueue.
        if ctx.predictor(self.platter).name() == "flash" {
            return Err(HeadwayError::config(
                "devices",
                format!(
                    "flash-backed needs a rotating drive as its platter (device {}, \
                     host.options.platter_device), but that device is flash: give its \
                     `[[devices]]` entry a mechanical drive",
                    self.platter
                ),
            ));
        }
        let nv = ctx.predictor(self.flash).capacity_sectors();
        if self.fq.capacity_sectors() > nv {
            return Err(HeadwayError::config(
                "host.options.fqueue_mib",
                format!(
                    "the FQueue ({} sectors) is larger than the flash device ({nv} sectors)",
                    self.fq.capacity_sectors()
                ),
            ));
        }
        Ok(())
    }

    /// `avoid_spinup` and the platter spun down: nothing at it for the standby timer's span.
    fn platter_asleep(&self, now: SimTime) -> bool {
        self.spindown_timeout_ns.is_some_and(|t| {
            self.platter_outstanding == 0 && now >= self.platter_last_ns.saturating_add(t)
        })
    }

    fn note_platter_dispatch(&mut self, cmd: &Command, placement: Placement, now: SimTime) {
        if cmd.device == self.platter && placement == Placement::Device {
            self.platter_outstanding += 1;
            self.platter_last_ns = now;
        }
    }

    fn pin_ns(&self) -> SimTime {
        ms_to_ns(self.o.pin_us / 1000.0)
    }

    fn write_back_proposal(&self, ctx: &SchedCtx, flush: bool) -> Option<Decision> {
        let (lo, hi) = self.fq.peek_writeback()?;
        let name = if flush { "fb-flush" } else { "fb-idle" };
        let origin = ctx.host_origin(name);
        let r = ctx.preview_host_request(origin, self.platter, lo, (hi - lo) as u32, Op::Write);
        Some(Decision::Dispatch(Command::single(r)))
    }

    /// The redirect test for write `n` at the platter's head.
    fn redirect_wins(&self, ctx: &SchedCtx, n: &Command) -> bool {
        let p = ctx.predictor(self.platter);
        let f = ctx.predictor(self.flash);
        let est_n = p.estimate(
            Moment::new(p.head(), ctx.now),
            Access::new(n.lbn, n.sectors, Op::Write),
        );
        let h_n = est_n.service_ns();
        let f_n = f
            .estimate(
                Moment::new(f.head(), ctx.now),
                Access::new(0, n.sectors, Op::Write),
            )
            .service_ns()
            + 2 * self.pin_ns();
        let next = if self.o.look_ahead {
            self.next_pick(ctx, n, est_n.end, h_n).map(|nn| {
                let n_nn = p
                    .estimate(
                        Moment::new(est_n.end, ctx.now + h_n),
                        Access::new(nn.lbn, nn.sectors, nn.op),
                    )
                    .service_ns();
                let h_nn = p
                    .estimate(
                        Moment::new(p.head(), ctx.now),
                        Access::new(nn.lbn, nn.sectors, nn.op),
                    )
                    .service_ns();
                (n_nn, h_nn)
            })
        } else {
            None
        };
        ctx.count_estimates(1 + 2 * next.is_some() as u64);
        should_redirect(RedirectCosts { h_n, f_n, next })
    }

    fn next_pick(
        &self,
        ctx: &SchedCtx,
        n: &Command,
        end: crate::request::HeadPosition,
        h_n: SimTime,
    ) -> Option<Request> {
        let rest: Vec<&Request> = self
            .shadow
            .iter()
            .filter(|r| !n.carries(r.id) && r.device == self.platter)
            .collect();
        match self.policy {
            Some(policy) => {
                let q: Vec<Pending> = rest
                    .iter()
                    .map(|r| Pending {
                        id: r.id,
                        arrival_ns: r.arrival_ns,
                        lbn: r.lbn,
                        end: r.end_lbn(),
                        op: r.op,
                    })
                    .collect();
                pick(policy, &q, n.end_lbn(), None).map(|i| *rest[i])
            }
            None => {
                let p = ctx.predictor(self.platter);
                rest.into_iter()
                    .min_by_key(|r| {
                        (
                            p.estimate(
                                Moment::new(end, ctx.now + h_n),
                                Access::new(r.lbn, r.sectors, r.op),
                            )
                            .positioning_ns(),
                            r.id,
                        )
                    })
                    .copied()
            }
        }
    }

    fn forget(&mut self, cmd: &Command) {
        self.shadow.retain(|r| !cmd.carries(r.id));
    }

    fn propose_inner(&mut self, ctx: &SchedCtx) -> (Decision, Plan) {
        let d = self.inner.propose(ctx);
        let Decision::Dispatch(cmd) = &d else {
            if matches!(d, Decision::Idle)
                && self.inner.pending() == 0
                && self.fg_outstanding == 0
                && self.o.idle_writeback
                && ctx.has_slot(self.platter)
                && !self.platter_asleep(ctx.now)
            {
                if let Some(wb) = self.write_back_proposal(ctx, false) {
                    return (wb, Plan::WriteBack { flush: false });
                }
            }
            return (d, Plan::Pass);
        };
        if cmd.device != self.platter || cmd.sectors == 0 {
            return (d, Plan::Pass);
        }
        let end = cmd.end_lbn();
        match cmd.op {
            Op::Read => {
                if self.o.serve_reads && self.fq.uncovered(cmd.lbn, end).is_empty() {
                    let reqs = cmd.requests.clone();
                    return (Decision::Serve(reqs), Plan::ServeRead(cmd.clone()));
                }
                (d, Plan::Pass)
            }
            Op::Write => {
                let asleep = self.platter_asleep(ctx.now);
                if let Some((lo, hi)) = self.fq.peek_coalesce(cmd.lbn, end).filter(|_| !asleep) {
                    if let Some(c) = Command::spanning(
                        self.platter,
                        lo,
                        (hi - lo) as u32,
                        Op::Write,
                        &cmd.requests,
                    ) {
                        return (Decision::Dispatch(c), Plan::Coalesce(cmd.clone()));
                    }
                }
                let may_redirect = self.o.redirect
                    && !self.flushing
                    && self.fq.capacity_sectors() > 0
                    && ctx.has_slot(self.flash);
                if may_redirect && !self.fq.fits(cmd.lbn, end) && self.redirect_wins(ctx, cmd) {
                    // A redirect the FQueue has no room for reaches the high watermark: a
                    // flush episode starts with its first write-back.
                    if ctx.has_slot(self.platter) {
                        if let Some(wb) = self.write_back_proposal(ctx, true) {
                            return (wb, Plan::WriteBack { flush: true });
                        }
                    }
                }
                if asleep
                    && self.o.redirect
                    && !self.flushing
                    && self.fq.fits(cmd.lbn, end)
                    && !ctx.has_slot(self.flash)
                {
                    // The flash is busy with the previous copy: wait for it (its completion
                    // brings the next proposal) rather than wake the platter.
                    return (Decision::Idle, Plan::Pass);
                }
                if may_redirect
                    && self.fq.fits(cmd.lbn, end)
                    && (asleep || self.redirect_wins(ctx, cmd))
                {
                    let nv_cap = ctx.predictor(self.flash).capacity_sectors();
                    let lbn = if self.ring_lbn + cmd.sectors as u64 > nv_cap {
                        0
                    } else {
                        self.ring_lbn
                    };
                    let origin = ctx.host_origin("fb-redirect");
                    let r =
                        ctx.preview_host_request(origin, self.flash, lbn, cmd.sectors, Op::Write);
                    return (
                        Decision::Dispatch(Command::single(r)),
                        Plan::Redirect {
                            user: cmd.clone(),
                            asleep,
                        },
                    );
                }
                (d, Plan::Pass)
            }
        }
    }

    fn make_host_request(ctx: &SchedCtx, p: &Request) -> Result<Request> {
        let r = ctx.host_request(p.origin, p.device, p.lbn, p.sectors, p.op);
        if r.id != p.id {
            return Err(HeadwayError::Invariant(format!(
                "flash-backed committed a request previewed as {} but made as {}",
                p.id, r.id
            )));
        }
        Ok(r)
    }
}

impl Scheduler for FlashBacked {
    fn name(&self) -> &str {
        "flash-backed"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        if req.device != self.platter {
            ctx.fail(HeadwayError::config(
                "host.options.platter_device",
                format!(
                    "a workload request for device {} reached flash-backed, which serves device {} \
                     (the flash device is the NVCache, not a workload target)",
                    req.device, self.platter
                ),
            ));
            return;
        }
        self.shadow.push(req);
        self.inner.on_arrival(req, ctx);
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        if done.command.device == self.platter {
            self.platter_outstanding = self.platter_outstanding.saturating_sub(1);
            self.platter_last_ns = ctx.now;
        }
        let Some(first) = done.command.requests.first() else {
            return;
        };
        if first.is_host_work() {
            if let Some(users) = self.waiting.remove(&first.id) {
                self.ready.extend(users);
            }
            return;
        }
        self.fg_outstanding = self.fg_outstanding.saturating_sub(1);
        self.inner.on_completion(done, ctx);
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        self.inner.on_timer(ctx);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        if let Err(e) = self.check_devices(ctx) {
            ctx.fail(e);
            return Decision::Idle;
        }
        if let Some(serve) = self.ready.propose() {
            self.plan = Some(Plan::ServeDone);
            return serve;
        }
        if self.flushing && self.fq.occupied_sectors() <= self.low {
            // Stopping a finished flush changes nothing a proposal depends on but the flag,
            // which any proposal would reset the same way.
            self.flushing = false;
        }
        if self.flushing && self.flush_turn && ctx.has_slot(self.platter) {
            if let Some(wb) = self.write_back_proposal(ctx, true) {
                self.plan = Some(Plan::WriteBack { flush: true });
                return wb;
            }
        }
        let (d, plan) = self.propose_inner(ctx);
        self.plan = Some(plan);
        d
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        let plan = self.plan.take().unwrap_or(Plan::Pass);
        self.note_platter_dispatch(cmd, placement, ctx.now);
        match plan {
            Plan::ServeDone => {
                self.ready.served(cmd);
                Ok(())
            }
            Plan::WriteBack { flush } => {
                let p = cmd.requests[0];
                Self::make_host_request(ctx, &p)?;
                let wb = self
                    .fq
                    .pop_writeback()
                    .expect("proposed from a non-empty FQueue");
                self.nv.unpin(wb.lbn, wb.end);
                if flush {
                    self.flush_writes += 1;
                    self.flushing = true;
                    self.flush_turn = false;
                } else {
                    self.idle_writes += 1;
                }
                Ok(())
            }
            Plan::Redirect { user, asleep } => {
                self.spinup_redirects += asleep as u64;
                let p = cmd.requests[0];
                let copy = Self::make_host_request(ctx, &p)?;
                self.inner.commit(&user, Placement::Diverted, ctx)?;
                self.forget(&user);
                for r in &user.requests {
                    self.fq.insert(r.lbn, r.end_lbn(), r.id);
                    self.nv.pin(r.lbn, r.end_lbn());
                }
                self.waiting.insert(copy.id, user.requests.clone());
                self.ring_lbn = copy.lbn + copy.sectors as u64;
                self.redirected += 1;
                if self.fq.occupied_sectors() >= self.high {
                    self.flushing = true;
                    self.flush_turn = true;
                }
                Ok(())
            }
            Plan::ServeRead(user) => {
                self.inner.commit(&user, Placement::Diverted, ctx)?;
                self.forget(&user);
                self.reads_from_memory += 1;
                Ok(())
            }
            Plan::Coalesce(user) => {
                self.inner.commit(&user, placement, ctx)?;
                self.forget(&user);
                if let Some(wb) = self.fq.coalesce(user.lbn, user.end_lbn()) {
                    self.nv.unpin(wb.lbn, wb.end);
                }
                self.fg_outstanding += (placement == Placement::Device) as usize;
                self.coalesced += 1;
                if self.flushing {
                    self.flush_turn = true;
                }
                Ok(())
            }
            Plan::Pass => {
                self.forget(cmd);
                self.fg_outstanding += (placement == Placement::Device
                    && cmd.requests.first().is_some_and(|r| !r.is_host_work()))
                    as usize;
                if self.flushing {
                    self.flush_turn = true;
                }
                self.inner.commit(cmd, placement, ctx)
            }
        }
    }
    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        if let Some(Plan::Pass) = self.plan.take() {
            self.inner.declined(cmd, ctx);
        }
    }
    fn pending(&self) -> usize {
        self.inner.pending()
            + self.waiting.values().map(|w| w.len()).sum::<usize>()
            + self.ready.len()
    }
    fn take_failure(&mut self) -> Option<HeadwayError> {
        self.inner.take_failure()
    }
}

#[cfg(test)]
mod tests {
    //! The wrapper driven directly, with a tiny engine: every command takes a fixed time on
    //! the platter and its size-based time on flash, one at a time per device.

    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::*;
    use crate::device::catalog;
    use crate::device::flash::FlashSpec;
    use crate::device::hdd::{Mechanics, Overheads};
    use crate::predict::FlashPredictor;
    use crate::predict::{OraclePredictor, Predictor};
    use crate::request::Phases;
    use crate::sched::{build_scheduler, serve_command, HostWork, SchedOptions, SchedSpec};

    const PLATTER_NS: SimTime = 8_000_000;

    fn merged(fq: &FQueue) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for p in fq.pieces() {
            match out.last_mut() {
                Some(l) if l.1 == p.lbn => l.1 = p.end,
                _ => out.push((p.lbn, p.end)),
            }
        }
        out
    }

    /// Run `reqs` (lbn, sectors, write, arrival) through flash-backed over `inner`.
    fn drive(reqs: &[(u64, u32, bool, u64)], inner: &str, fqueue_mib: f64) -> [u64; 4] {
        let spec = catalog::lookup("ek1000").unwrap();
        let mech = Arc::new(Mechanics::new(&spec).unwrap());
        let flash = FlashSpec::ultra2_cf(8 << 20);
        let preds: Vec<Box<dyn Predictor>> = vec![
            Box::new(OraclePredictor::new(mech, Overheads::from_spec(&spec), 0)),
            Box::new(FlashPredictor::new(flash.clone())),
        ];
        let mut opts = SchedOptions::new();
        opts.insert("fqueue_mib".into(), toml::Value::Float(fqueue_mib));
        let reader = OptionReader::new("flash-backed", &opts);
        let inner = build_scheduler(&SchedSpec::named(inner)).unwrap();
        let mut fb = FlashBacked::from_options(&reader, inner).unwrap();
        let work = HostWork::new();
        let max = [1usize, 1];
        let mut outstanding = [0usize, 0];
        let mut arrivals: Vec<Request> = reqs
            .iter()
            .enumerate()
            .map(|(i, &(lbn, n, w, t))| {
                let mut r = Request::new(t, lbn, n, if w { Op::Write } else { Op::Read });
                r.id = i as u64;
                r
            })
            .collect();
        arrivals.sort_by_key(|r| (r.arrival_ns, r.id));
        let mut next = 0;
        let mut in_flight: Vec<(SimTime, Command)> = Vec::new();
        let mut done: BTreeMap<u64, SimTime> = BTreeMap::new();
        let mut copies_done: BTreeSet<u64> = BTreeSet::new();
        let mut now = 0;
        loop {
            // Completions due now, then arrivals.
            in_flight.sort_by_key(|(t, _)| *t);
            while in_flight.first().is_some_and(|(t, _)| *t <= now) {
                let (t, cmd) = in_flight.remove(0);
                outstanding[cmd.device as usize] -= 1;
                let ctx = SchedCtx::new(now, &preds, &outstanding, &max).with_work(&work);
                let first = cmd.requests[0];
                if first.is_host_work() {
                    if let Some(users) = fb.waiting.get(&first.id) {
                        copies_done.extend(users.iter().map(|u| u.id));
                    }
                } else {
                    for r in &cmd.requests {
                        assert!(done.insert(r.id, t).is_none(), "request {} twice", r.id);
                    }
                }
                fb.on_completion(
                    &Completion {
                        head_lbn: cmd.end_lbn(),
                        command: cmd,
                        done_ns: t,
                        phases: Phases::default(),
                        cache_hit: false,
                        head: Default::default(),
                    },
                    &ctx,
                );
            }
            while next < arrivals.len() && arrivals[next].arrival_ns <= now {
                let ctx = SchedCtx::new(now, &preds, &outstanding, &max).with_work(&work);
                fb.on_arrival(arrivals[next], &ctx);
                next += 1;
            }
            loop {
                let flushing_before = fb.flushing;
                let (d, plan) = {
                    let ctx = SchedCtx::new(now, &preds, &outstanding, &max).with_work(&work);
                    let d = fb.propose(&ctx);
                    assert!(ctx.take_failure().is_none());
                    (d, fb.plan.clone())
                };
                let ctx = SchedCtx::new(now, &preds, &outstanding, &max).with_work(&work);
                match d {
                    Decision::Dispatch(cmd) => {
                        let dev = cmd.device as usize;
                        assert!(outstanding[dev] < max[dev], "dispatch to a full device");
                        if matches!(plan, Some(Plan::Redirect { .. })) {
                            assert!(!flushing_before, "redirected during a flush episode");
                            assert_eq!(dev, 1);
                        }
                        fb.commit(&cmd, Placement::Device, &ctx).unwrap();
                        work.drain_created(|_| {});
                        let ns = if dev == 1 {
                            flash.access_ns(cmd.sectors, cmd.op)
                        } else {
                            PLATTER_NS
                        };
                        drop(ctx);
                        outstanding[dev] += 1;
                        in_flight.push((now + ns, cmd));
                    }
                    Decision::Serve(reqs) => {
                        fb.commit(&serve_command(&reqs), Placement::Diverted, &ctx)
                            .unwrap();
                        for r in &reqs {
                            if r.op == Op::Write {
                                assert!(
                                    copies_done.contains(&r.id),
                                    "write {} served before its flash copy",
                                    r.id
                                );
                            }
                            assert!(done.insert(r.id, now).is_none(), "request {} twice", r.id);
                        }
                    }
                    _ => break,
                }
                assert_eq!(
                    merged(&fb.fq),
                    fb.nv.ranges(),
                    "DRAM and NVCache copies differ"
                );
                assert!(fb.fq.occupied_sectors() <= fb.fq.capacity_sectors());
            }
            let t_arrival = arrivals.get(next).map(|r| r.arrival_ns);
            let t_done = in_flight.iter().map(|(t, _)| *t).min();
            now = match (t_arrival, t_done) {
                (None, None) => break,
                (a, b) => a.unwrap_or(SimTime::MAX).min(b.unwrap_or(SimTime::MAX)),
            };
        }
        // Conservation: every request completed exactly once; the FQueue drained in idle time.
        assert_eq!(done.len(), arrivals.len());
        assert!(fb.fq.is_empty() && fb.nv.sectors() == 0);
        assert_eq!(fb.pending(), 0);
        [fb.redirected, fb.flush_writes, fb.idle_writes, fb.coalesced]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn copies_agree_flushes_never_redirect_and_nothing_is_lost(
            reqs in prop::collection::vec(
                (prop_oneof![0u64..4_000, 70_000_000u64..70_004_000, 0u64..78_000_000], 1u32..48,
                 any::<bool>(), 0u64..400_000_000),
                1..120),
            inner in prop_oneof![Just("fcfs"), Just("clook"), Just("sptf")],
            fq in prop_oneof![Just(0.02), Just(1.0)],
        ) {
            let [redirected, flushes, idle, _] = drive(&reqs, inner, fq);
            // Write-backs merge entries, so there are never more of them than redirects.
            prop_assert!(flushes + idle <= redirected);
        }
    }

    #[test]
    fn a_far_write_is_redirected_and_served_when_its_copy_lands() {
        // One write far from the head: redirected, completed by Serve, written back in idle
        // time; then one near write: to the platter.
        assert_eq!(
            drive(&[(70_000_000, 16, true, 0)], "clook", 1.0),
            [1, 0, 1, 0]
        );
        // Three at once under FCFS: the far write is redirected (a near read is next), the
        // read goes to the platter, and the third write, adjacent to the FQueue entry,
        // coalesces: one platter write carries both, nothing is left for idle time.
        let three = [
            (70_000_000, 16, true, 0),
            (100, 8, false, 0),
            (70_000_016, 8, true, 0),
        ];
        assert_eq!(drive(&three, "fcfs", 1.0), [1, 0, 0, 1]);
        // Many far writes at once into a 0.02 MiB FQueue (40 sectors): flush episodes.
        let burst: Vec<_> = (0..20u64)
            .map(|i| (1_000_000 + i * 3_000_000, 16, true, 0))
            .collect();
        let [redirected, flushes, _, _] = drive(&burst, "fcfs", 0.02);
        assert!(redirected >= 2 && flushes >= 1, "{redirected} {flushes}");
    }
}
