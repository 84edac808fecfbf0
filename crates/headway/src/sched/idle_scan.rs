//! `idle-scan`: background reads of a region whenever the foreground is idle, the way the
//! earliest freeblock design (OSDI 2000) served its background tasks in idle time, and the
//! way storage systems scrub and back up today. The simplest wrapper: it takes every
//! proposal of its inner scheduler, and when the inner one has nothing to do it adds work of
//! its own, made by the host (origin `idle-scan`), which no workload ever hears of.
//!
//! Options (`[host.options]` of the wrapper): `chunk_sectors` (default 128, 64 KiB: a
//! background read is one command of at most this much), `start_lbn` (0), `sectors` (the
//! rest of the device), `passes` (1: scan the region once; the run ends only when the scan
//! has), `idle_ms` (0: start as soon as the foreground is idle; a delay makes the scan yield
//! to foreground bursts with short gaps), `device` (the device index to scan; default 0, or
//! in a run of several devices, each device's own copy of the stack scans its device).

use super::options::OptionReader;
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Completion, DeviceId, Op, Request};
use crate::time::{SimTime, NS_PER_MS};

pub struct IdleScan {
    inner: Box<dyn Scheduler>,
    device: DeviceId,
    chunk_sectors: u32,
    start_lbn: u64,
    /// `None`: to the end of the device (known only once a context is seen).
    sectors: Option<u64>,
    passes: u64,
    idle_ns: SimTime,
    /// Next sector to read and passes finished.
    next_lbn: Option<u64>,
    done_passes: u64,

    /// When the foreground last had work at the host or the device.
    last_busy_ns: SimTime,
    /// Foreground commands at the device.
    fg_outstanding: usize,
    /// Background sectors read so far.
    pub scanned_sectors: u64,
}

impl IdleScan {
    /// `stack_device`: in a run of several devices, the device this copy of the stack
    /// schedules; the scan runs there, or, if `device` names another, not in this copy.
    pub fn from_options(
        o: &OptionReader,
        inner: Box<dyn Scheduler>,
        stack_device: Option<DeviceId>,
    ) -> Result<Self> {
        let sectors = if o.has("sectors") {
            Some(o.u64("sectors", 0, 1, u64::MAX / 2)?)
        } else {
            None
        };
        let named = if o.has("device") {
            Some(o.u64("device", 0, 0, u16::MAX as u64)? as DeviceId)
        } else {
            None
        };
        let device = named.or(stack_device).unwrap_or(0);
        let inert = matches!((named, stack_device), (Some(n), Some(s)) if n != s);
        Ok(IdleScan {
            inner,
            device,
            chunk_sectors: o.u64("chunk_sectors", 128, 1, 1 << 24)? as u32,
            start_lbn: o.u64("start_lbn", 0, 0, u64::MAX / 2)?,
            sectors,
            passes: if inert {
                o.u64("passes", 1, 0, u32::MAX as u64)?;
                0
            } else {
                o.u64("passes", 1, 0, u32::MAX as u64)?
            },
            idle_ns: (o.f64("idle_ms", 0.0, 0.0, 1e9)? * NS_PER_MS as f64) as SimTime,
            next_lbn: None,
            done_passes: 0,
            last_busy_ns: 0,
            fg_outstanding: 0,
            scanned_sectors: 0,
        })
    }

    fn region_end(&self, ctx: &SchedCtx) -> Result<u64> {
        let cap = ctx.predictor(self.device).capacity_sectors();
        let end = match self.sectors {
            Some(n) => self.start_lbn.saturating_add(n),
            None => cap,
        };
        if self.start_lbn >= end || end > cap {
            return Err(HeadwayError::config(
                "host.options.sectors",
                format!(
                    "idle-scan region {}..{end} is not inside device {} ({cap} sectors)",
                    self.start_lbn, self.device
                ),
            ));
        }
        Ok(end)
    }

    /// The next background read, if the scan has one: `(lbn, sectors)`.
    fn next_chunk(&self, ctx: &SchedCtx) -> Result<Option<(u64, u32)>> {
        if self.done_passes >= self.passes {
            return Ok(None);
        }
        let end = self.region_end(ctx)?;
        let lbn = self.next_lbn.unwrap_or(self.start_lbn);
        Ok(Some((
            lbn,
            (end - lbn).min(self.chunk_sectors as u64) as u32,
        )))
    }

    /// The chunk at `lbn` of `n` sectors was taken: move on.
    fn advance(&mut self, ctx: &SchedCtx, lbn: u64, n: u32) -> Result<()> {
        let end = self.region_end(ctx)?;
        let next = lbn + n as u64;
        if next >= end {
            self.done_passes += 1;
            self.next_lbn = Some(self.start_lbn);
        } else {
            self.next_lbn = Some(next);
        }
        Ok(())
    }
}

impl Scheduler for IdleScan {
    fn name(&self) -> &str {
        "idle-scan"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        self.last_busy_ns = ctx.now;
        self.inner.on_arrival(req, ctx);
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        // The inner scheduler hears only of what it dispatched.
        if done
            .command
            .requests
            .first()
            .is_some_and(|r| r.is_host_work())
        {
            self.scanned_sectors += done.command.sectors as u64;
            return;
        }
        self.fg_outstanding = self.fg_outstanding.saturating_sub(1);
        self.last_busy_ns = ctx.now;
        self.inner.on_completion(done, ctx);
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        self.inner.on_timer(ctx);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let d = self.inner.propose(ctx);
        if !matches!(d, Decision::Idle) || self.inner.pending() > 0 || self.fg_outstanding > 0 {
            return d;
        }
        if !ctx.has_slot(self.device) {
            return Decision::Idle;
        }
        let chunk = match self.next_chunk(ctx) {
            Ok(Some(c)) => c,
            Ok(None) => return Decision::Idle,
            Err(e) => {
                ctx.fail(e);
                return Decision::Idle;
            }
        };
        let quiet_from = self.last_busy_ns.saturating_add(self.idle_ns);
        if ctx.now < quiet_from {
            return Decision::WaitUntil(quiet_from);
        }
        let origin = ctx.host_origin("idle-scan");
        let r = ctx.preview_host_request(origin, self.device, chunk.0, chunk.1, Op::Read);
        Decision::Dispatch(Command::single(r))
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        if let Some(p) = cmd.requests.first().filter(|r| r.is_host_work()) {
            // Our proposal: make the read for real (it gets the previewed id) and move on.
            let r = ctx.host_request(p.origin, p.device, p.lbn, p.sectors, p.op);
            if r.id != p.id {
                return Err(HeadwayError::Invariant(format!(
                    "idle-scan committed a read previewed as request {} but made as {}: \
                     something took an id between proposal and commit",
                    p.id, r.id
                )));
            }
            return self.advance(ctx, p.lbn, p.sectors);
        }
        self.fg_outstanding += (placement == Placement::Device) as usize;
        self.inner.commit(cmd, placement, ctx)
    }
    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        if !cmd.requests.first().is_some_and(|r| r.is_host_work()) {
            self.inner.declined(cmd, ctx);
        }
    }
    fn hints(&self) -> Hints {
        Hints::slot_driven_if(self.inner.hints())
    }
    fn pending(&self) -> usize {
        self.inner.pending()
    }
    fn take_failure(&mut self) -> Option<HeadwayError> {
        self.inner.take_failure()
    }
}
