//! The cache in front of the host's scheduler: a request to a cached device is served from
//! the cache's lines when they hold its data (a hit costs no device time), and otherwise
//! becomes the device operations the cache needs (host-made requests through the device's
//! own scheduler, as any request goes): fills for the sectors a read misses, write-backs of
//! dirty victims before their lines are reused, and writes that go through. A request whose
//! lines are held by an operation in flight waits for it. Requests to other devices pass
//! straight through.

use std::collections::{HashMap, VecDeque};

use smallvec::SmallVec;

use super::lines::{LineTable, Victim};
use super::settings::WritePolicy;
use crate::error::Result;
use crate::host::slots::Slots;
use crate::request::{Command, Completion, DeviceId, Op, Request};
use crate::sched::{Decision, Placement, ReadyList, SchedCtx, Scheduler};

/// One device's cache.
pub(crate) struct DeviceCache {
    pub(crate) table: LineTable,
    pub(crate) policy: WritePolicy,
    pub(crate) cluster_lines: u32,
    pub(crate) slots: Slots,
}

/// A request the cache is serving.
struct Job {
    req: Request,
    /// Device operations it still waits for.
    ops_left: u32,
    /// Write-backs of victims it found that are still in flight: it tries again only once
    /// they are done, as DiskSim's allocation waits for the write it started.
    victims_left: u32,
}

/// A device operation the cache made.
struct CacheOp {
    job: Option<u32>,
    /// The request waiting for this write-back of its victim.
    victim_of: Option<u32>,
    cache: u16,
    fill: bool,
    /// Slots of the lines it holds.
    slots: SmallVec<[u32; 2]>,
}

/// How far a request got.
enum Progress {
    /// Its lines are held or being freed: try again when an operation completes.
    Blocked,
    /// Done or waiting for its own operations.
    Started,
}

pub(crate) struct CacheFront {
    inner: Box<dyn Scheduler>,
    /// Each device's cache, by device id.
    by_device: Vec<Option<u16>>,
    caches: Vec<DeviceCache>,
    origin: Option<u16>,
    jobs: Vec<Option<Job>>,
    free_jobs: Vec<u32>,
    blocked: VecDeque<u32>,
    ops: HashMap<u64, CacheOp>,
    ready: ReadyList,
    /// A request left its slot since waiting requests were last looked at.
    freed: bool,
}

impl CacheFront {
    pub(crate) fn new(inner: Box<dyn Scheduler>, caches: Vec<(DeviceId, DeviceCache)>) -> Self {
        let mut by_device = Vec::new();
        let mut list = Vec::with_capacity(caches.len());
        for (d, c) in caches {
            if by_device.len() <= d as usize {
                by_device.resize(d as usize + 1, None);
            }
            by_device[d as usize] = Some(list.len() as u16);
            list.push(c);
        }
        CacheFront {
            inner,
            by_device,
            caches: list,
            origin: None,
            jobs: Vec::new(),
            free_jobs: Vec::new(),
            blocked: VecDeque::new(),
            ops: HashMap::new(),
            ready: ReadyList::new(),
            freed: false,
        }
    }

    fn cache_of(&self, d: DeviceId) -> Option<u16> {
        self.by_device.get(d as usize).copied().flatten()
    }

    fn origin(&mut self, ctx: &SchedCtx) -> u16 {
        *self
            .origin
            .get_or_insert_with(|| ctx.host_origin("ctlr_cache"))
    }

    /// Send a cache operation to the device through the inner scheduler.
    #[allow(clippy::too_many_arguments)]
    fn issue(
        &mut self,
        c: u16,
        job: Option<u32>,
        victim_of: Option<u32>,
        dev: DeviceId,
        lbn: u64,
        sectors: u64,
        op: Op,
        ctx: &SchedCtx,
    ) {
        let origin = self.origin(ctx);
        let cache = &mut self.caches[c as usize];
        let ls = cache.table.line_sectors();
        let fill = op == Op::Read;
        let mut slots = SmallVec::new();
        for line in lbn / ls..=(lbn + sectors - 1) / ls {
            let s = cache
                .table
                .slot_of(line)
                .expect("operations cover resident lines");
            if fill {
                cache.table.hold_fill(s, true);
            } else {
                cache.table.hold_flush(s, true);
            }
            slots.push(s);
        }
        if let Some(j) = job {
            if let Some(job) = self.jobs[j as usize].as_mut() {
                job.ops_left += 1;
            }
        }
        if let Some(j) = victim_of {
            if let Some(job) = self.jobs[j as usize].as_mut() {
                job.victims_left += 1;
            }
        }
        let r = ctx.host_request(origin, dev, lbn, sectors as u32, op);
        self.ops.insert(
            r.id,
            CacheOp {
                job,
                victim_of,
                cache: c,
                fill,
                slots,
            },
        );
        self.inner.on_arrival(r, ctx);
    }

    /// Write back the dirty sectors of `slot`, clearing them: one write per span of valid
    /// sectors, from its first dirty sector to its last. Up to the cluster size, a first
    /// span starting at the line's first sector takes the dirty data before it in the
    /// lines below, and a line dirty from its first sector to its last takes the dirty data
    /// after it in the lines above.
    fn write_back(&mut self, c: u16, j: u32, dev: DeviceId, slot: u32, ctx: &SchedCtx) {
        let cache = &mut self.caches[c as usize];
        let t = &mut cache.table;
        let ls = t.line_sectors();
        let base = t.line_of(slot) * ls;
        // Spans of valid sectors, each from its first dirty sector to its last.
        let mut runs: SmallVec<[(u64, u64); 2]> = SmallVec::new();
        let mut open: Option<(u64, u64)> = None;
        for k in 0..ls {
            if !t.is_valid(slot, k) {
                runs.extend(open.take());
                continue;
            }
            if t.is_dirty(slot, k) {
                t.set(slot, k, true, false);
                open = Some(open.map_or((k, k), |(a, _)| (a, k)));
            }
        }
        runs.extend(open);
        let mut runs: SmallVec<[(u64, u64); 2]> =
            runs.iter().map(|&(a, b)| (base + a, base + b)).collect();
        let budget = cache.cluster_lines.saturating_sub(1) as u64;
        if budget > 0 {
            let first_line = base / ls;
            if let Some(r) = runs.first_mut().filter(|r| r.0 == base) {
                r.0 = cluster(t, first_line, r.0, budget, false);
            }
            let used = runs
                .first()
                .map_or(0, |r| first_line - r.0 / ls)
                .min(budget);
            // Forward only from a line dirty from its first sector to its last (DiskSim
            // measures the run from the first dirty sector: a run starting later never
            // reaches a line's length).
            let whole = runs.first().is_some_and(|r| r.0 <= base);
            if let Some(r) = runs.last_mut().filter(|r| whole && r.1 == base + ls - 1) {
                r.1 = cluster(t, first_line, r.1, budget - used, true);
            }
        }
        for (a, b) in runs {
            self.issue(c, None, Some(j), dev, a, b - a + 1, Op::Write, ctx);
        }
    }

    /// Take the request as far as it can go now.
    fn advance(&mut self, j: u32, ctx: &SchedCtx) -> Progress {
        let req = self.jobs[j as usize].as_ref().expect("live job").req;
        let c = self.cache_of(req.device).expect("cached device");
        let cache = &mut self.caches[c as usize];
        let ls = cache.table.line_sectors();
        let (first, last) = (req.lbn / ls, (req.end_lbn() - 1) / ls);
        let write = req.op == Op::Write;
        for line in first..=last {
            if let Some(s) = cache.table.slot_of(line) {
                if cache.table.filling(s) || (write && cache.table.held(s)) {
                    return Progress::Blocked;
                }
            }
        }
        // The request's lines are held while it maps the rest, so that none of them is
        // taken as a victim for another.
        let mut mapped: SmallVec<[u32; 4]> = SmallVec::new();
        let mut blocked = None;
        'lines: for line in first..=last {
            if let Some(s) = cache.table.slot_of(line) {
                cache.table.hold_flush(s, true);
                mapped.push(s);
                continue;
            }
            loop {
                if let Some(s) = cache.table.map(line) {
                    cache.table.hold_flush(s, true);
                    mapped.push(s);
                    continue 'lines;
                }
                match cache.table.evict() {
                    Victim::Freed(_) => {}
                    Victim::Dirty(s) => {
                        blocked = Some(Some(s));
                        break 'lines;
                    }
                    Victim::AllHeld => {
                        blocked = Some(None);
                        break 'lines;
                    }
                }
            }
        }
        for &s in &mapped {
            cache.table.hold_flush(s, false);
        }
        if let Some(victim) = blocked {
            if let Some(s) = victim {
                self.write_back(c, j, req.device, s, ctx);
            }
            return Progress::Blocked;
        }
        if write {
            self.write(j, c, req, ctx);
        } else {
            self.read(j, c, req, ctx);
        }
        Progress::Started
    }

    fn read(&mut self, j: u32, c: u16, req: Request, ctx: &SchedCtx) {
        let t = &mut self.caches[c as usize].table;
        let ls = t.line_sectors();
        let mut runs: SmallVec<[(u64, u64); 2]> = SmallVec::new();
        let mut open: Option<(u64, u64)> = None;
        for lbn in req.lbn..req.end_lbn() {
            let s = t.slot_of(lbn / ls).expect("mapped");
            if t.is_valid(s, lbn % ls) {
                runs.extend(open.take());
            } else {
                // Valid from now: a later request for it waits for the fill.
                t.set(s, lbn % ls, true, false);
                open = Some(open.map_or((lbn, lbn), |(a, _)| (a, lbn)));
            }
        }
        runs.extend(open);
        for (a, b) in runs {
            self.issue(c, Some(j), None, req.device, a, b - a + 1, Op::Read, ctx);
        }
        self.finish_if_done(j);
    }

    fn write(&mut self, j: u32, c: u16, req: Request, ctx: &SchedCtx) {
        let cache = &mut self.caches[c as usize];
        let policy = cache.policy;
        let t = &mut cache.table;
        let ls = t.line_sectors();
        for lbn in req.lbn..req.end_lbn() {
            let s = t.slot_of(lbn / ls).expect("mapped");
            t.set(s, lbn % ls, true, policy == WritePolicy::WriteBack);
        }
        let sectors = req.sectors as u64;
        match policy {
            WritePolicy::WriteBack => {}
            WritePolicy::WriteThrough => self.issue(
                c,
                Some(j),
                None,
                req.device,
                req.lbn,
                sectors,
                Op::Write,
                ctx,
            ),
            WritePolicy::WriteBehind => {
                self.issue(c, None, None, req.device, req.lbn, sectors, Op::Write, ctx)
            }
        }
        self.finish_if_done(j);
    }

    /// A request whose operations are all done leaves, served by the host; its lines become
    /// the most recently used.
    fn finish_if_done(&mut self, j: u32) {
        if self.jobs[j as usize]
            .as_ref()
            .is_some_and(|x| x.ops_left > 0)
        {
            return;
        }
        let Some(job) = self.jobs[j as usize].take() else {
            return;
        };
        self.free_jobs.push(j);
        let req = job.req;
        if let Some(c) = self.cache_of(req.device) {
            self.caches[c as usize].slots.release();
            self.freed = true;
            let t = &mut self.caches[c as usize].table;
            let ls = t.line_sectors();
            for line in req.lbn / ls..=(req.end_lbn() - 1) / ls {
                if let Some(s) = t.slot_of(line) {
                    t.touch(s);
                }
            }
        }
        self.ready.push(req);
    }

    fn op_done(&mut self, id: u64) {
        let Some(op) = self.ops.remove(&id) else {
            return;
        };
        let t = &mut self.caches[op.cache as usize].table;
        for &s in &op.slots {
            if op.fill {
                t.hold_fill(s, false);
            } else {
                t.hold_flush(s, false);
            }
        }
        if let Some(j) = op.victim_of {
            if let Some(job) = self.jobs[j as usize].as_mut() {
                job.victims_left -= 1;
            }
        }
        if let Some(j) = op.job {
            if let Some(job) = self.jobs[j as usize].as_mut() {
                job.ops_left -= 1;
            }
            self.finish_if_done(j);
        }
    }

    /// Give the waiting requests another try, in the order they came.
    fn retry_blocked(&mut self, ctx: &SchedCtx) {
        for _ in 0..self.blocked.len() {
            let Some(j) = self.blocked.pop_front() else {
                break;
            };
            let waiting = self.jobs[j as usize]
                .as_ref()
                .is_some_and(|x| x.victims_left > 0);
            if waiting {
                self.blocked.push_back(j);
            } else if let Progress::Blocked = self.advance(j, ctx) {
                self.blocked.push_back(j);
            }
        }
    }

    fn arrive(&mut self, c: u16, req: Request, ctx: &SchedCtx) {
        let lines = {
            let ls = self.caches[c as usize].table.line_sectors();
            (req.end_lbn() - 1) / ls - req.lbn / ls + 1
        };
        if req.sectors == 0 || lines > self.caches[c as usize].table.capacity_lines() as u64 {
            // Larger than the whole cache: straight to the device.
            self.inner.on_arrival(req, ctx);
            return;
        }
        if let Some(req) = self.caches[c as usize].slots.admit(req) {
            self.start(req, ctx);
        }
        self.start_waiting(ctx);
    }

    fn start(&mut self, req: Request, ctx: &SchedCtx) {
        let job = Job {
            req,
            ops_left: 0,
            victims_left: 0,
        };
        let j = match self.free_jobs.pop() {
            Some(j) => {
                self.jobs[j as usize] = Some(job);
                j
            }
            None => {
                self.jobs.push(Some(job));
                (self.jobs.len() - 1) as u32
            }
        };
        if let Progress::Blocked = self.advance(j, ctx) {
            self.blocked.push_back(j);
        }
    }

    /// Start the waiting requests that slots freed since the last look allow.
    fn start_waiting(&mut self, ctx: &SchedCtx) {
        while std::mem::take(&mut self.freed) {
            for c in 0..self.caches.len() {
                while let Some(req) = self.caches[c].slots.next() {
                    self.start(req, ctx);
                }
            }
        }
    }
}

/// Extend a write-back from `from` (the first or last sector of `line`'s run) into the
/// neighbouring lines, while they are resident, not held, and their sectors valid, up to
/// `budget` more lines; a line is entered only if the run reached its edge dirty. Returns
/// the new end of the run; the sectors it takes are clean from now.
fn cluster(t: &mut LineTable, line: u64, from: u64, budget: u64, forward: bool) -> u64 {
    let ls = t.line_sectors();
    let mut end = from;
    for step in 1..=budget {
        let next = if forward {
            line + step
        } else {
            match line.checked_sub(step) {
                Some(l) => l,
                None => break,
            }
        };
        let Some(s) = t.slot_of(next) else { break };
        if t.held(s) {
            break;
        }
        let mut last_dirty = true;
        for i in 0..ls {
            let k = if forward { i } else { ls - 1 - i };
            if !t.is_valid(s, k) {
                return end;
            }
            last_dirty = t.is_dirty(s, k);
            if last_dirty {
                t.set(s, k, true, false);
                end = next * ls + k;
            }
        }
        if !last_dirty {
            break;
        }
    }
    end
}

impl Scheduler for CacheFront {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        match self.cache_of(req.device) {
            Some(c) => self.arrive(c, req, ctx),
            None => self.inner.on_arrival(req, ctx),
        }
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        self.inner.on_completion(done, ctx);
        let ours = self.origin;
        let mut any = false;
        for r in &done.command.requests {
            if Some(r.origin) == ours {
                self.op_done(r.id);
                any = true;
            }
        }
        if any && !self.blocked.is_empty() {
            self.retry_blocked(ctx);
        }
        self.start_waiting(ctx);
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        self.inner.on_timer(ctx);
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
        self.inner.decide(ctx)
    }
    fn set_queued_planning(&mut self, on: bool) {
        self.inner.set_queued_planning(on);
    }
    fn pending(&self) -> usize {
        let waiting: usize = self.caches.iter().map(|c| c.slots.waiting()).sum();
        self.inner.pending() + self.ready.len() + self.blocked.len() + waiting
    }
    fn take_failure(&mut self) -> Option<crate::error::HeadwayError> {
        self.inner.take_failure()
    }
    fn free_reads(&mut self, device: DeviceId) -> Option<&mut dyn crate::sched::FreeReads> {
        self.inner.free_reads(device)
    }
}
