//! Drive-managed shingled magnetic recording (SMR) over any rotating drive. The drive sets
//! a platter area aside as a persistent media cache and exports the rest, divided into
//! shingled bands:
//!
//! - a write is split at band boundaries: the bands it covers whole are written in place;
//!   the partial pieces at its ends are appended to the media cache at its log position,
//!   and the cache's map records where;
//! - a read is served piece by piece in LBN order, each piece from the cache when the map
//!   holds it, from its band otherwise;
//! - a band is cleaned by reading it whole, reading its cached sectors, and writing it
//!   whole (a read-modify-write); cleaning starts after `idle_clean_delay_ms` without host
//!   commands and goes on band by band, oldest cached write first, until the cache is empty
//!   or a host command arrives; a write that finds the cache (or its map) full first cleans
//!   bands until it fits;
//! - one thing at a time: a host command waits for the band being cleaned (the stall), and
//!   the drive takes host commands in arrival order.
//!
//! The wrapped drive (the mechanics, caches and bus) serves every step as a command.

mod media_cache;
pub mod report;
mod spec;

use std::collections::VecDeque;

use smallvec::SmallVec;

use super::{Device, DeviceInfo, DeviceIo};
use crate::request::{Command, Completion, Op, Phases};
use crate::time::SimTime;
use media_cache::MediaCache;
pub use report::SmrReport;
pub use spec::SmrSpec;

/// The top three bits of the wrapper's own wake-up tokens (the idle timer); the wrapped
/// drive's tokens never carry this pattern.
const IDLE_TOKEN: u64 = 1 << 61;
const TOKEN_MASK: u64 = 0b111 << 61;

/// One command to the wrapped drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    lbn: u64,
    sectors: u32,
    op: Op,
    cleaning: bool,
}

/// What the mechanism is doing: a host command's steps, or a band's cleaning.
struct Job {
    host: Option<Command>,
    steps: VecDeque<Step>,
    first_start_ns: Option<SimTime>,
    phases: Phases,
    step_cleaning: bool,
    step_submitted_ns: SimTime,
}

pub struct SmrDevice {
    info: DeviceInfo,
    inner: Box<dyn Device>,
    spec: SmrSpec,
    cache: MediaCache,
    queue: VecDeque<Command>,
    job: Option<Job>,
    /// Bumped by every host command, so a stale idle timer does nothing.
    epoch: u64,
    report: SmrReport,
    scratch: DeviceIo,
}

impl SmrDevice {
    /// `inner` must accept one command at a time; `spec` must have been validated against
    /// its capacity.
    pub fn new(inner: Box<dyn Device>, spec: SmrSpec, queue_depth: usize) -> Self {
        let inner_info = inner.info();
        let info = DeviceInfo {
            name: format!("{}+smr", inner_info.name),
            capacity_sectors: inner_info.capacity_sectors - spec.media_cache_sectors,
            queue_depth: queue_depth.max(1),
        };
        let cache = MediaCache::new(spec.media_cache_start_lbn, spec.media_cache_sectors);
        SmrDevice {
            info,
            inner,
            spec,
            cache,
            queue: VecDeque::new(),
            job: None,
            epoch: 0,
            report: SmrReport::default(),
            scratch: DeviceIo::default(),
        }
    }

    /// Sectors the media cache holds now.
    pub fn held_sectors(&self) -> u64 {
        self.cache.held_sectors()
    }

    /// The physical pieces of host range `lbn..lbn + sectors` in the band area (split where
    /// the media cache sits between them).
    fn band_area(&self, lbn: u64, sectors: u64, op: Op, cleaning: bool, out: &mut Vec<Step>) {
        let start = self.spec.media_cache_start_lbn;
        let skip = self.spec.media_cache_sectors;
        let end = lbn + sectors;
        let mut push = |lo: u64, hi: u64| {
            let mut at = lo;
            while at < hi {
                let n = (hi - at).min(u32::MAX as u64);
                out.push(Step {
                    lbn: at,
                    sectors: n as u32,
                    op,
                    cleaning,
                });
                at += n;
            }
        };
        if lbn < start {
            push(lbn, end.min(start));
        }
        if end > start {
            push(lbn.max(start) + skip, end + skip);
        }
    }

    /// The steps of cleaning the band holding host LBN `lbn` (its cached sectors leave the
    /// map now: the job that carries the steps runs before anything else).
    fn clean_band(&mut self, lbn: u64, out: &mut Vec<Step>) {
        let band = self.spec.band_sectors;
        let lo = lbn / band * band;
        let hi = (lo + band).min(self.info.capacity_sectors);
        self.band_area(lo, hi - lo, Op::Read, true, out);
        for (cache_lbn, n) in self.cache.take(lo, hi) {
            out.push(Step {
                lbn: cache_lbn,
                sectors: n as u32,
                op: Op::Read,
                cleaning: true,
            });
        }
        self.band_area(lo, hi - lo, Op::Write, true, out);
    }

    /// Room for one more extent of `sectors` in the cache and its map.
    fn fits(&self, sectors: u64) -> bool {
        let extents_ok = self
            .spec
            .max_cache_extents
            .is_none_or(|max| (self.cache.extents() as u64) < max);
        self.cache.held_sectors() + sectors <= self.spec.media_cache_sectors && extents_ok
    }

    fn append(&mut self, lbn: u64, sectors: u64, out: &mut Vec<Step>) {
        if sectors == 0 {
            return;
        }
        let mut forced = false;
        while !self.fits(sectors) {
            let Some(oldest) = self.cache.oldest_lbn() else {
                break;
            };
            self.report.forced_cleanings += 1;
            forced = true;
            self.clean_band(oldest, out);
        }
        if forced {
            self.report.stalled_commands += 1;
        }
        let cache_lbn = self.cache.append(lbn, sectors);
        self.report.cache_writes += 1;
        self.report.max_held_sectors = self.report.max_held_sectors.max(self.cache.held_sectors());
        out.push(Step {
            lbn: cache_lbn,
            sectors: sectors as u32,
            op: Op::Write,
            cleaning: false,
        });
    }

    /// The steps that serve host command `cmd` (and change the cache's map as they will).
    fn plan(&mut self, cmd: &Command) -> Vec<Step> {
        let mut out = Vec::new();
        let (lo, hi) = (cmd.lbn, cmd.end_lbn());
        match cmd.op {
            Op::Read => {
                for (at, n, cached) in self.cache.pieces(lo, hi) {
                    match cached {
                        Some(cache_lbn) => {
                            self.report.cache_reads += 1;
                            out.push(Step {
                                lbn: cache_lbn,
                                sectors: n as u32,
                                op: Op::Read,
                                cleaning: false,
                            });
                        }
                        None => self.band_area(at, n, Op::Read, false, &mut out),
                    }
                }
            }
            Op::Write => {
                let band = self.spec.band_sectors;
                let whole_lo = lo.div_ceil(band) * band;
                let whole_hi = hi / band * band;
                if whole_lo < whole_hi {
                    self.append(lo, whole_lo - lo, &mut out);
                    self.cache.take(whole_lo, whole_hi);
                    self.report.band_writes += (whole_hi - whole_lo) / band;
                    self.band_area(whole_lo, whole_hi - whole_lo, Op::Write, false, &mut out);
                    self.append(whole_hi, hi - whole_hi, &mut out);
                } else {
                    self.append(lo, hi - lo, &mut out);
                }
            }
        }
        out
    }

    fn submit_step(&mut self, now: SimTime, io: &mut DeviceIo) {
        let job = self.job.as_mut().expect("a job");
        let step = job.steps.pop_front().expect("a step");
        job.step_cleaning = step.cleaning;
        job.step_submitted_ns = now;
        let cmd = Command {
            device: 0,
            lbn: step.lbn,
            sectors: step.sectors,
            op: step.op,
            dispatch_ns: now,
            predicted_ns: None,
            requests: SmallVec::new(),
        };
        let mut inner_io = std::mem::take(&mut self.scratch);
        self.inner.submit(now, cmd, &mut inner_io);
        self.pass_on(now, inner_io, io);
    }

    /// Hand on the wrapped drive's wake-ups; a completion moves the job on.
    fn pass_on(&mut self, now: SimTime, mut inner_io: DeviceIo, io: &mut DeviceIo) {
        for (t, tok) in inner_io.wakeups.drain(..) {
            io.wake_at(t, tok);
        }
        let done = inner_io.completions.pop();
        debug_assert!(inner_io.completions.is_empty(), "one command at a time");
        self.scratch = inner_io;
        if let Some(c) = done {
            self.step_done(now, c, io);
        }
    }

    fn step_done(&mut self, now: SimTime, c: Completion, io: &mut DeviceIo) {
        let job = self.job.as_mut().expect("a job in service");
        if job.step_cleaning {
            self.report.cleaning_ns += c.done_ns.saturating_sub(job.step_submitted_ns);
        }
        let p = &mut job.phases;
        job.first_start_ns.get_or_insert(c.phases.start_ns);
        p.overhead_ns += c.phases.overhead_ns;
        p.seek_ns += c.phases.seek_ns;
        p.rotate_ns += c.phases.rotate_ns;
        p.transfer_ns += c.phases.transfer_ns;
        p.bus_ns += c.phases.bus_ns;
        if !job.steps.is_empty() {
            self.submit_step(now, io);
            return;
        }
        let job = self.job.take().expect("a job");
        let Some(command) = job.host else {
            // Idle cleaning goes on band by band while no host command waits.
            if self.queue.is_empty() {
                self.clean_idle(now, io);
            }
            return self.start_next(now, io);
        };
        {
            let mut phases = job.phases;
            phases.start_ns = job.first_start_ns.unwrap_or(now);
            io.complete(Completion {
                command,
                done_ns: c.done_ns,
                phases,
                cache_hit: false,
                head: c.head,
                head_lbn: c.head_lbn,
            });
        }
        self.start_next(now, io);
    }

    fn start_job(
        &mut self,
        now: SimTime,
        host: Option<Command>,
        steps: Vec<Step>,
        io: &mut DeviceIo,
    ) {
        self.job = Some(Job {
            host,
            steps: steps.into(),
            first_start_ns: None,
            phases: Phases::default(),
            step_cleaning: false,
            step_submitted_ns: now,
        });
        self.submit_step(now, io);
    }

    /// Start the next host command, or go on cleaning, or arm the idle timer.
    fn start_next(&mut self, now: SimTime, io: &mut DeviceIo) {
        if self.job.is_some() {
            return;
        }
        if let Some(cmd) = self.queue.pop_front() {
            let steps = self.plan(&cmd);
            if steps.is_empty() {
                io.complete(super::completed_at_once(cmd, now));
                return self.start_next(now, io);
            }
            return self.start_job(now, Some(cmd), steps, io);
        }
        if self.cache.held_sectors() > 0 {
            io.wake_at(
                now + self.spec.idle_clean_delay_ns(),
                IDLE_TOKEN | (self.epoch & !TOKEN_MASK),
            );
        }
    }

    /// Idle cleaning: one band, then (from `start_next`) the next while still idle.
    fn clean_idle(&mut self, now: SimTime, io: &mut DeviceIo) {
        let Some(oldest) = self.cache.oldest_lbn() else {
            return;
        };
        let mut steps = Vec::new();
        self.clean_band(oldest, &mut steps);
        self.report.idle_cleanings += 1;
        self.start_job(now, None, steps, io);
    }

    /// What the run's summary reports.
    pub fn report(&self) -> SmrReport {
        SmrReport {
            held_sectors: self.cache.held_sectors(),
            ..self.report.clone()
        }
    }
}

impl Device for SmrDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        self.epoch += 1;
        if self.job.as_ref().is_some_and(|j| j.host.is_none()) {
            self.report.stalled_commands += 1;
        }
        self.queue.push_back(cmd);
        self.start_next(now, io);
    }

    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo) {
        if token & TOKEN_MASK == IDLE_TOKEN {
            let current = (self.epoch & !TOKEN_MASK) == token & !TOKEN_MASK;
            if current && self.job.is_none() && self.queue.is_empty() {
                self.clean_idle(now, io);
            }
            return;
        }
        let mut inner_io = std::mem::take(&mut self.scratch);
        self.inner.wake(now, token, &mut inner_io);
        self.pass_on(now, inner_io, io);
    }

    fn outstanding(&self) -> usize {
        self.queue.len() + self.job.as_ref().map_or(0, |j| j.host.is_some() as usize)
    }

    fn busy(&self) -> bool {
        self.job.is_some() || !self.queue.is_empty()
    }

    fn energy(&mut self, now: SimTime) -> Option<super::power::meter::EnergyReport> {
        self.inner.energy(now)
    }

    fn smr(&self) -> Option<SmrReport> {
        Some(self.report())
    }
}
