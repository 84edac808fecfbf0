//! The array layer in front of the members' schedulers: a logical request addressed to a
//! volume becomes member operations (host-made requests, each through its member's own
//! scheduler as any request is), and the logical request completes, served by the host,
//! when its last member operation has. Requests to other devices pass straight through.

use std::sync::{Arc, Mutex};

use smallvec::SmallVec;

use super::cache_dev;
use super::free_rows::FreeRows;
use super::front_hints::front_hints;
use super::ids::IdWindow;
use super::plan::{plan, MemberOp, MemberOps, Planning, Role, Wait};
use super::settings::BackgroundPolicy;
use super::settings::MirrorRead;
use super::volume::Volume;
use crate::error::Result;
use crate::predict::{Access, Moment};
use crate::request::{Command, Completion, DeviceId, Op, Request};
use crate::sched::{Decision, Hints, Placement, ReadyList, SchedCtx, Scheduler, FREE_READ_ORIGIN};
use crate::stats::ArraySummary;
use crate::time::SimTime;

/// Who a set of member operations works for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Job {
    Foreground,
    Rebuild,
    Scrub,
}

/// A logical request (or a background step) waiting for its member operations.
struct Pending {
    volume: u16,
    job: Job,
    logical: Option<Request>,
    /// The operations and each one's progress ([`ISSUED`], [`DONE`]), inline: a completion
    /// finds its request's whole record in one place, since the ops of thousands of queued
    /// requests are looked up at random.
    ops: MemberOps,
    state: SmallVec<[u8; 6]>,
    reads_left: usize,
    left: usize,
}

const ISSUED: u8 = 1;
const DONE: u8 = 2;

/// Links between member operations and the logical requests they serve, kept for the
/// per-request records: `(member request id, logical request id)`.
pub type ArrayLinks = Vec<(u64, u64)>;

/// What the array layer reports at the end: each volume's summary and the links.
#[derive(Default)]
pub struct ArrayReport {
    pub volumes: Vec<ArraySummary>,
    pub links: ArrayLinks,
}

pub(crate) struct ArrayFront {
    inner: Box<dyn Scheduler>,
    volumes: Vec<Volume>,
    /// Device ids from here on are volumes.
    first_volume: DeviceId,
    /// Host origins of foreground member operations, rebuild and scrub work.
    origins: Option<[u16; 3]>,
    pending: Vec<Option<Pending>>,
    free: Vec<u32>,
    /// Member request id to its pending slot and operation index.
    by_id: IdWindow,
    ready: ReadyList,
    report: Arc<Mutex<ArrayReport>>,
    keep_links: bool,
    /// The host origin of the members' free reads, once a `freeblock` rebuild or scrub
    /// has begun: their completions feed it.
    free_origin: Option<u16>,
    /// Whether any volume has a rebuild or a scrub: without one, no event needs to look
    /// for background work.
    any_background: bool,
    /// What the layer promises the host (fixed for its life: see [`front_hints`]).
    hints: Hints,
    /// The inner scheduler's `on_completion` does nothing (`Hints::ignores_completions`),
    /// so a completion is not passed to it.
    inner_ignores_completions: bool,
}

impl ArrayFront {
    pub(crate) fn new(
        inner: Box<dyn Scheduler>,
        volumes: Vec<Volume>,
        first_volume: DeviceId,
        report: Arc<Mutex<ArrayReport>>,
        keep_links: bool,
    ) -> Self {
        let any_background = volumes
            .iter()
            .any(|v| v.rebuild.is_some() || v.scrub.is_some() || v.cache.is_some());
        let inner_hints = inner.hints();
        let hints = front_hints(inner_hints, any_background, &volumes);
        ArrayFront {
            inner,
            any_background,
            hints,
            inner_ignores_completions: inner_hints.ignores_completions,
            volumes,
            first_volume,
            origins: None,
            pending: Vec::new(),
            free: Vec::new(),
            by_id: IdWindow::default(),
            ready: ReadyList::new(),
            report,
            keep_links,
            free_origin: None,
        }
    }

    fn origin(&mut self, job: Job, ctx: &SchedCtx) -> u16 {
        let o = *self.origins.get_or_insert_with(|| {
            [
                ctx.host_origin("array"),
                ctx.host_origin("rebuild"),
                ctx.host_origin("scrub"),
            ]
        });
        o[job as usize]
    }

    #[inline]
    fn is_ours(&self, r: &Request) -> bool {
        // Three comparisons, not a slice search (a call per member operation).
        self.origins
            .is_some_and(|[a, b, c]| r.origin == a || r.origin == b || r.origin == c)
    }

    fn tally(&self, v: usize, f: impl FnOnce(&mut ArraySummary)) {
        if let Ok(mut rep) = self.report.lock() {
            if let Some(s) = rep.volumes.get_mut(v) {
                f(s);
            }
        }
    }

    /// Plan a logical request on volume `v` and issue what may start now.
    fn logical_arrival(&mut self, v: usize, req: Request, ctx: &SchedCtx) {
        if let Some(c) = self.volumes[v].cache.as_mut() {
            if let Some(req) = c.admit(req) {
                self.cache_start(v, req, ctx);
            }
            return;
        }
        let now = ctx.now;
        let vol = &mut self.volumes[v];
        let lost = |row: u64| vol.lost(now, row);
        let planning = Planning {
            layout: &vol.layout,
            rule: vol.rule,
            sync_writes: vol.sync_writes,
            lost: &lost,
        };
        let policy = vol.mirror_read;
        let (devices, inflight) = (&vol.devices, &vol.inflight);
        let mut next_copy = vol.next_copy;
        let mut choose = |live: &[usize], lbn: u64, sectors: u32| -> usize {
            choose_copy(
                policy,
                live,
                lbn,
                sectors,
                devices,
                inflight,
                &mut next_copy,
                ctx,
            )
        };
        let p = plan(&planning, req.lbn, req.sectors, req.op, &mut choose);
        vol.next_copy = next_copy;
        let kinds = p.kinds;
        self.tally(v, |s| {
            s.full_stripe_writes += kinds.full_stripe as u64;
            s.rmw_writes += kinds.rmw as u64;
            s.reconstruct_writes += kinds.reconstruct as u64;
        });
        self.start(v, Job::Foreground, Some(req), p.ops, ctx);
    }

    /// Track `ops` for `job` and issue those that wait for nothing.
    fn start(
        &mut self,
        v: usize,
        job: Job,
        logical: Option<Request>,
        ops: impl Into<MemberOps>,
        ctx: &SchedCtx,
    ) {
        let ops = ops.into();
        if ops.is_empty() {
            if let Some(r) = logical {
                self.finish_logical(v, r, ctx.now);
            }
            return;
        }
        let n = ops.len();
        let reads_left = ops.iter().filter(|o| o.op == Op::Read).count();
        let entry = Pending {
            volume: v as u16,
            job,
            logical,
            ops,
            state: smallvec::smallvec![0; n],
            reads_left,
            left: n,
        };
        let slot = match self.free.pop() {
            Some(s) => {
                self.pending[s as usize] = Some(entry);
                s
            }
            None => {
                self.pending.push(Some(entry));
                (self.pending.len() - 1) as u32
            }
        };
        self.release(slot, ctx);
    }

    /// Issue every operation of `slot` whose wait is over. The volume's summary and the
    /// links are updated once for all of them (one lock, not one an operation).
    fn release(&mut self, slot: u32, ctx: &SchedCtx) {
        let Some(p) = self.pending[slot as usize].as_ref() else {
            return;
        };
        let (v, job) = (p.volume as usize, p.job);
        let origin = self.origin(job, ctx);
        let ArrayFront {
            pending,
            volumes,
            inner,
            by_id,
            report,
            keep_links,
            ..
        } = self;
        let p = pending[slot as usize].as_mut().expect("tracked");
        let logical_id = p.logical.map(|r| r.id);
        let vol = &mut volumes[v];
        // (member slot, operation, member request id) of each operation issued now.
        let mut issued: SmallVec<[(usize, MemberOp, u64); 6]> = SmallVec::new();
        for i in 0..p.ops.len() {
            let ready = p.state[i] & ISSUED == 0
                && match p.ops[i].wait {
                    Wait::Nothing => true,
                    Wait::Reads => p.reads_left == 0,
                    Wait::Op(k) => p.state[k as usize] & DONE != 0,
                };
            if !ready {
                continue;
            }
            p.state[i] |= ISSUED;
            let o = p.ops[i];
            let row = o.lbn / vol.layout.unit_sectors;
            let dev = vol.device_of(o.member, row);
            let dev = if o.role == Role::Rebuild && o.op == Op::Write {
                vol.spare.unwrap_or(dev)
            } else {
                dev
            };
            let k = vol.slot_of(dev);
            vol.inflight[k] += 1;
            if job == Job::Foreground {
                vol.fg_inflight += 1;
                vol.fg_last_ns = ctx.now;
                vol.spare_foreground(k, true, ctx.now);
            }
            let r = ctx.host_request(origin, dev, o.lbn, o.sectors, o.op);
            by_id.insert(r.id, slot, i as u16);
            issued.push((k, o, r.id));
            inner.on_arrival(r, ctx);
        }
        if issued.is_empty() {
            return;
        }
        if let Ok(mut rep) = report.lock() {
            if let Some(s) = rep.volumes.get_mut(v) {
                for (k, o, _) in &issued {
                    count_op(s, *k, job, o);
                }
            }
            if let (true, Some(l)) = (*keep_links, logical_id) {
                rep.links.extend(issued.iter().map(|&(_, _, id)| (id, l)));
            }
        }
    }

    /// A member operation completed.
    fn op_done(&mut self, r: &Request, ctx: &SchedCtx) {
        let Some((slot, i)) = self.by_id.remove(r.id) else {
            return;
        };
        let p = self.pending[slot as usize].as_mut().expect("tracked");
        let i = i as usize;
        p.state[i] |= DONE;
        p.left -= 1;
        if p.ops[i].op == Op::Read {
            p.reads_left -= 1;
        }
        let (v, job) = (p.volume as usize, p.job);
        let vol = &mut self.volumes[v];
        let k = vol.slot_of(r.device);
        vol.inflight[k] = vol.inflight[k].saturating_sub(1);
        if job == Job::Foreground {
            vol.fg_inflight -= 1;
            vol.fg_last_ns = ctx.now;
            vol.spare_foreground(k, false, ctx.now);
        }
        // Only the last read's end or the end of an operation another waits for lets an
        // operation go: the rest would walk the plan for nothing. A cache device's plan
        // also finishes its request before a population write, so it is always walked.
        let left = p.left;
        let go = left > 0
            && ((p.ops[i].op == Op::Read && p.reads_left == 0)
                || p.ops.iter().any(|o| o.wait == Wait::Op(i as u16)));
        let cache = vol.cache.as_mut().map(|c| {
            c.op_done(&p.ops[i], ctx.now, vol.inflight[cache_dev::DISK] == 0);
        });
        if cache.is_some() {
            self.tally_cache(v);
        }
        if left > 0 {
            if cache.is_some() {
                self.release(slot, ctx);
                self.finish_before_tail(v, slot, ctx.now);
                self.cache_admit(v, ctx);
            } else if go {
                self.release(slot, ctx);
            }
            return;
        }
        let p = self.pending[slot as usize].take().expect("tracked");
        self.free.push(slot);
        match job {
            Job::Foreground => {
                if let Some(l) = p.logical {
                    self.finish_logical(v, l, ctx.now);
                }
                if cache.is_some() {
                    self.cache_admit(v, ctx);
                }
                // Foreground work moves no rebuild or scrub: their summaries stand.
                return;
            }
            Job::Rebuild | Job::Scrub => {
                let vol = &mut self.volumes[v];
                let unit = vol.layout.unit_sectors;
                let b = match job {
                    Job::Rebuild => vol.rebuild.as_mut(),
                    _ => vol.scrub.as_mut(),
                };
                if let (Some(b), Some(o)) = (b, p.ops.first()) {
                    let wrote = p.ops.iter().any(|o| o.op == Op::Write);
                    match b.held.as_mut() {
                        // A rebuild step's reads are in; its write waits for the spare.
                        Some(h) if job == Job::Rebuild && !wrote => h.hold(o.lbn, o.sectors as u64),
                        _ => b.step_done(ctx.now, o.lbn, o.sectors as u64, unit),
                    }
                }
            }
        }
        self.report_background(v);
    }

    /// Complete slot `slot`'s logical request once only work it does not wait for is left.
    fn finish_before_tail(&mut self, v: usize, slot: u32, now: SimTime) {
        let Some(p) = self.pending[slot as usize].as_mut() else {
            return;
        };
        let waited = p
            .ops
            .iter()
            .zip(&p.state)
            .all(|(o, &s)| o.role.is_tail() || s & DONE != 0);
        if let (true, Some(l)) = (waited, p.logical) {
            p.logical = None;
            self.finish_logical(v, l, now);
        }
    }

    /// Plan and start a logical request on cache-device volume `v`.
    fn cache_start(&mut self, v: usize, req: Request, ctx: &SchedCtx) {
        if let Some(c) = self.volumes[v].cache.as_mut() {
            let ops = c.plan(req.lbn, req.sectors, req.op);
            self.start(v, Job::Foreground, Some(req), ops, ctx);
            self.tally_cache(v);
        }
    }

    /// Start the logical requests waiting at cache-device volume `v` that may start now.
    fn cache_admit(&mut self, v: usize, ctx: &SchedCtx) {
        while let Some(req) = self.volumes[v]
            .cache
            .as_mut()
            .and_then(|c| c.next_waiting())
        {
            self.cache_start(v, req, ctx);
        }
    }

    fn tally_cache(&self, v: usize) {
        if let Some(c) = self.volumes[v].cache.as_ref() {
            let summary = c.summary();
            self.tally(v, |s| s.cache = Some(summary));
        }
    }

    /// Start volume `v`'s next destage step if one is due; when to look again.
    fn destage(&mut self, v: usize, ctx: &SchedCtx) -> Option<SimTime> {
        let vol = &mut self.volumes[v];
        let idle = [
            vol.inflight[cache_dev::CACHE] == 0,
            vol.inflight[cache_dev::DISK] == 0,
        ];
        let (ops, wake) = vol.cache.as_mut()?.destage(ctx.now, idle);
        if let Some(ops) = ops {
            self.start(v, Job::Foreground, None, ops, ctx);
            self.tally_cache(v);
        }
        wake
    }

    fn finish_logical(&mut self, v: usize, l: Request, now: SimTime) {
        if let Some(c) = self.volumes[v].cache.as_mut() {
            c.logical_done();
        }
        let response_ms = now.saturating_sub(l.arrival_ns) as f64 / 1e6;
        self.tally(v, |s| {
            s.requests += 1;
            s.mean_response_ms += (response_ms - s.mean_response_ms) / s.requests as f64;
            match l.op {
                Op::Read => s.reads += 1,
                Op::Write => s.writes += 1,
            }
        });
        self.ready.push(l);
    }

    fn report_background(&self, v: usize) {
        let vol = &self.volumes[v];
        let unit = vol.layout.unit_sectors;
        let rebuild = vol.rebuild.as_ref().map(|b| b.summary(unit));
        let scrub = vol.scrub.as_ref().map(|b| b.summary(unit));
        self.tally(v, |s| {
            s.rebuild = rebuild;
            s.scrub = scrub;
        });
    }

    /// [`ArrayFront::background`], skipped when no volume has background work.
    #[inline]
    fn background_due(&mut self, ctx: &SchedCtx) -> Option<SimTime> {
        if !self.any_background {
            return None;
        }
        self.background(ctx)
    }

    /// Start every background step due by `now`; the earliest later one's time.
    fn background(&mut self, ctx: &SchedCtx) -> Option<SimTime> {
        let mut next: Option<SimTime> = None;
        for v in 0..self.volumes.len() {
            if self.volumes[v].cache.is_some() {
                if let Some(t) = self.destage(v, ctx) {
                    next = Some(next.map_or(t, |n| n.min(t)));
                }
                continue;
            }
            if let Some(due) = self.held_write(v, ctx) {
                next = Some(next.map_or(due, |n| n.min(due)));
            }
            for job in [Job::Rebuild, Job::Scrub] {
                let vol = &self.volumes[v];
                let b = match job {
                    Job::Rebuild => vol.rebuild.as_ref(),
                    _ => vol.scrub.as_ref(),
                };
                let Some(due) = b.and_then(|b| b.due(vol.fg_inflight, vol.fg_last_ns)) else {
                    continue;
                };
                if due > ctx.now {
                    next = Some(next.map_or(due, |n| n.min(due)));
                    continue;
                }
                if b.is_some_and(|b| b.policy == BackgroundPolicy::Freeblock) {
                    if let Err(e) = self.begin_free(v, job, ctx) {
                        ctx.fail(e);
                    }
                    continue;
                }
                let ops = self.step_ops(v, job, ctx.now);
                self.start(v, job, None, ops, ctx);
                self.report_background(v);
            }
        }
        next
    }

    /// Issue volume `v`'s next held spare write if the spare has been quiet long enough;
    /// when a held write will be due otherwise.
    fn held_write(&mut self, v: usize, ctx: &SchedCtx) -> Option<SimTime> {
        let vol = &mut self.volumes[v];
        let (fg, last) = (vol.spare_fg_inflight, vol.spare_fg_last_ns);
        let failed = vol.failure.map(|(m, _)| m)?;
        let h = vol.rebuild.as_mut()?.held.as_mut()?;
        let due = h.due(fg, last)?;
        if due > ctx.now {
            return Some(due);
        }
        let (at, n) = h.take()?;
        self.start(v, Job::Rebuild, None, vec![spare_write(failed, at, n)], ctx);
        None
    }

    /// The member operations of the next rebuild or scrub step of volume `v`.
    fn step_ops(&mut self, v: usize, job: Job, now: SimTime) -> Vec<MemberOp> {
        let vol = &mut self.volumes[v];
        let b = match job {
            Job::Rebuild => vol.rebuild.as_mut(),
            _ => vol.scrub.as_mut(),
        }
        .expect("due");
        let (at, n) = b.take_step(now);
        let write_now = b.held.is_none();
        let l = &vol.layout;
        let row = at / l.unit_sectors;
        let failed = vol.failure.map(|(m, _)| m);
        let op = |member: usize, op: Op| MemberOp {
            member,
            lbn: at,
            sectors: n as u32,
            op,
            role: if job == Job::Scrub {
                Role::Scrub
            } else {
                Role::Rebuild
            },
            wait: if op == Op::Write {
                Wait::Reads
            } else {
                Wait::Nothing
            },
        };
        let mut ops: Vec<MemberOp> = readers(vol, job, now, row)
            .into_iter()
            .map(|m| op(m, Op::Read))
            .collect();
        if job == Job::Rebuild && write_now {
            ops.push(op(failed.expect("a rebuild has a failure"), Op::Write));
        }
        ops
    }

    /// A `freeblock` rebuild or scrub of volume `v` begins: every row goes to the readers'
    /// freeblock schedulers as wanted blocks.
    fn begin_free(&mut self, v: usize, job: Job, ctx: &SchedCtx) -> Result<()> {
        self.free_origin = Some(ctx.host_origin(FREE_READ_ORIGIN));
        let vol = &mut self.volumes[v];
        let unit = vol.layout.unit_sectors;
        let devices: Vec<DeviceId> = readers(vol, job, ctx.now, 0)
            .into_iter()
            .map(|m| vol.devices[m])
            .collect();
        let b = match job {
            Job::Rebuild => vol.rebuild.as_mut(),
            _ => vol.scrub.as_mut(),
        }
        .expect("due");
        b.begin(ctx.now, unit);
        let total = b.total_sectors;
        let rows = FreeRows::new(devices.clone(), unit, total);
        match job {
            Job::Rebuild => vol.free_rebuild = Some(rows),
            _ => vol.free_scrub = Some(rows),
        }
        for d in devices {
            // Checked when the layer was built: every reader is freeblock-capable.
            if let Some(f) = self.inner.free_reads(d) {
                f.want(0, total)?;
            }
        }
        self.report_background(v);
        Ok(())
    }

    /// One of the members' free reads completed: credit the rows it read, write each
    /// finished rebuild row onto the spare at once, and finish each fully read scrub row.
    fn free_read_done(&mut self, r: &Request, ctx: &SchedCtx) {
        let mut rows = Vec::new();
        for v in 0..self.volumes.len() {
            for job in [Job::Rebuild, Job::Scrub] {
                let vol = &mut self.volumes[v];
                let free = match job {
                    Job::Rebuild => vol.free_rebuild.as_mut(),
                    _ => vol.free_scrub.as_mut(),
                };
                let Some(free) = free else {
                    continue;
                };
                rows.clear();
                if !free.delivered(r.device, r.lbn, r.sectors, &mut rows) {
                    continue;
                }
                let k = vol.slot_of(r.device);
                self.tally(v, |s| {
                    if let Some(m) = s.members.get_mut(k) {
                        match job {
                            Job::Rebuild => m.rebuild_reads += 1,
                            _ => m.scrub_reads += 1,
                        }
                    }
                });
                let vol = &mut self.volumes[v];
                let unit = vol.layout.unit_sectors;
                match (job, vol.failure) {
                    (Job::Rebuild, Some((f, _))) => {
                        for &row in &rows {
                            // A row is written as soon as its reads are in, unless its
                            // writes wait for the spare's idle time.
                            if let Some(b) = self.volumes[v].rebuild.as_mut() {
                                b.in_flight += 1;
                                if let Some(h) = b.held.as_mut() {
                                    h.hold(row * unit, unit);
                                    continue;
                                }
                            }
                            self.start(
                                v,
                                Job::Rebuild,
                                None,
                                vec![spare_write(f, row * unit, unit)],
                                ctx,
                            );
                        }
                    }
                    _ => {
                        if let Some(b) = vol.scrub.as_mut() {
                            for &row in &rows {
                                b.in_flight += 1;
                                b.step_done(ctx.now, row * unit, unit, unit);
                            }
                        }
                    }
                }
                self.report_background(v);
            }
        }
    }
}

/// A rebuild's write of `n` reconstructed sectors from `at` of failed member `f` (the
/// spare takes it).
fn spare_write(f: usize, at: u64, n: u64) -> MemberOp {
    MemberOp {
        member: f,
        lbn: at,
        sectors: n as u32,
        op: Op::Write,
        role: Role::Rebuild,
        wait: Wait::Nothing,
    }
}

/// The members a rebuild or scrub step reads in `row` at `now`: for a scrub every member
/// holding the row; for a rebuild one surviving copy of the failed member's group, or
/// every survivor (a step may span rows, and RAID 6's Q moves from row to row, so it is
/// read too).
fn readers(vol: &Volume, job: Job, now: SimTime, row: u64) -> Vec<usize> {
    let l = &vol.layout;
    match (job, vol.failure) {
        (Job::Rebuild, Some((f, _))) if l.parity_units() == 0 => {
            let group = f / l.copies;
            (group * l.copies..(group + 1) * l.copies)
                .find(|&m| m != f)
                .into_iter()
                .collect()
        }
        (Job::Rebuild, Some((f, _))) => (0..l.members).filter(|&m| m != f).collect(),
        (Job::Rebuild, None) => Vec::new(),
        _ => {
            let lost = vol.lost(now, row);
            (0..l.members).filter(|&m| Some(m) != lost).collect()
        }
    }
}

/// Count member operation `o` on member slot `k` in its volume's summary `s`.
fn count_op(s: &mut ArraySummary, k: usize, job: Job, o: &MemberOp) {
    let read = o.op == Op::Read;
    let Some(m) = s.members.get_mut(k) else {
        return;
    };
    match job {
        Job::Foreground => {
            if read {
                s.member_reads += 1;
                m.reads += 1;
            } else {
                s.member_writes += 1;
                m.writes += 1;
            }
            if o.role.is_parity() {
                s.parity_ios += 1;
                m.parity_ios += 1;
            }
            if o.role == Role::Degraded {
                s.degraded_reads += 1;
                m.degraded_reads += 1;
            }
        }
        Job::Rebuild if read => m.rebuild_reads += 1,
        Job::Rebuild => m.rebuild_writes += 1,
        Job::Scrub => m.scrub_reads += 1,
    }
}

/// Which surviving copy serves a mirrored read.
#[allow(clippy::too_many_arguments)]
fn choose_copy(
    policy: MirrorRead,
    live: &[usize],
    lbn: u64,
    sectors: u32,
    devices: &[DeviceId],
    inflight: &[u32],
    next_copy: &mut usize,
    ctx: &SchedCtx,
) -> usize {
    match policy {
        MirrorRead::Primary => live[0],
        MirrorRead::RoundRobin => {
            let m = live[*next_copy % live.len()];
            *next_copy = next_copy.wrapping_add(1);
            m
        }
        MirrorRead::ShortestQueue => *live
            .iter()
            .min_by_key(|&&m| inflight[m])
            .expect("a live copy"),
        MirrorRead::Fastest => {
            // The member expected to finish first: its predicted service from where its
            // head is now, behind the array operations it already has.
            ctx.count_estimates(live.len() as u64);
            *live
                .iter()
                .min_by_key(|&&m| {
                    let p = ctx.predictor(devices[m]);
                    let e = p
                        .estimate(
                            Moment::new(p.head(), ctx.now),
                            Access::new(lbn, sectors, Op::Read),
                        )
                        .service_ns();
                    e.saturating_mul(1 + inflight[m] as u64)
                })
                .expect("a live copy")
        }
    }
}

impl Scheduler for ArrayFront {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        if req.device >= self.first_volume {
            let v = (req.device - self.first_volume) as usize;
            self.logical_arrival(v, req, ctx);
            self.background_due(ctx);
        } else {
            self.inner.on_arrival(req, ctx);
        }
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        if !self.inner_ignores_completions {
            self.inner.on_completion(done, ctx);
        }
        for r in &done.command.requests {
            if self.is_ours(r) {
                self.op_done(r, ctx);
            } else if self.free_origin == Some(r.origin) {
                self.free_read_done(r, ctx);
            }
        }
        self.background_due(ctx);
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        self.inner.on_timer(ctx);
        self.background_due(ctx);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        self.ready
            .propose()
            .unwrap_or_else(|| self.inner.propose(ctx))
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        if self.ready.commit(cmd, placement) {
            return Ok(());
        }
        self.inner.commit(cmd, placement, ctx)
    }
    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        self.inner.declined(cmd, ctx);
    }
    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        if let Some(serve) = self.ready.take() {
            return serve;
        }
        let Some(wake) = self.background_due(ctx) else {
            // The inner decision as it is, built in the host's place (a command is about a
            // hundred bytes: matching on it moved it once more).
            return self.inner.decide(ctx);
        };
        let d = self.inner.decide(ctx);
        match (d, Some(wake)) {
            (Decision::Idle, Some(t)) => Decision::WaitUntil(t),
            (Decision::WaitUntil(a), Some(t)) => Decision::WaitUntil(a.min(t)),
            (d, _) => d,
        }
    }
    fn set_queued_planning(&mut self, on: bool) {
        self.inner.set_queued_planning(on);
    }
    fn hints(&self) -> Hints {
        self.hints
    }
    fn pending(&self) -> usize {
        self.inner.pending() + self.ready.len()
    }
    fn take_failure(&mut self) -> Option<crate::error::HeadwayError> {
        self.inner.take_failure()
    }
}
