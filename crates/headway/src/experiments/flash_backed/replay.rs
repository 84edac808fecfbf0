//! Trace-driven replay of one hybrid drive under flash-backed I/O, the way the paper
//! evaluates it (spec section 5): open-loop arrivals, one RQ scheduler, the platter's
//! distance-based access time, the flash's size-based write time, and one command at a time
//! through the drive (the serialised assumption the inequality is built on).
//!
//! Every step is a pure function of the trace and the options, so runs are deterministic.

use std::collections::BTreeMap;

use serde::Serialize;

use super::platter::PlatterModel;
use super::rq_index::RqIndex;
use crate::device::flash::endurance::years_to_wear_out;
use crate::device::flash::{FlashSpec, Ftl};
use crate::device::hybrid::PinnedSet;
use crate::device::power::{EnergyReport, PowerMeter, PowerSpec, PowerState};
use crate::request::Op;
use crate::sched::flash_backed::fqueue::{FQueue, WriteBack};
use crate::sched::flash_backed::options::FlashBackedOptions;
use crate::sched::flash_backed::redirect::{should_redirect, RedirectCosts};
use crate::sched::flash_backed::rq::{Pending, RqPolicy};
use crate::time::{ms_to_ns, SimTime};

/// One request of a trace (times in ns from the trace's start, 512-byte sectors).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Io {
    pub time_ns: SimTime,
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
}

/// What one replay measured. Latencies in ns; "perceived" is arrival to non-volatile media
/// (flash or platter) for writes, arrival to data for reads.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReplayReport {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub write_latency_sum_ns: u128,
    pub read_latency_sum_ns: u128,
    /// Time spent writing FQueue data back: watermark flushes and idle-time write-backs.
    pub flush_ns: u64,
    pub idle_writeback_ns: u64,
    pub flush_writes: u64,
    pub idle_writes: u64,
    /// Platter writes that carried FQueue data with a workload write.
    pub coalesced_writes: u64,
    pub redirected: u64,
    /// Redirects refused because the FQueue was full.
    pub redirect_refused_full: u64,
    /// Redirected only because the platter was spun down.
    pub redirected_for_spinup: u64,
    pub reads_from_memory: u64,
    pub reads_partly_from_memory: u64,
    pub platter_commands: u64,
    pub platter_writes: u64,
    pub disk_busy_ns: u64,
    pub flash_bytes_written: u64,
    pub flash_erases_estimate: u64,
    pub ftl_erases: u64,
    pub ftl_write_amplification: f64,
    pub years_to_wear_out: f64,
    pub fqueue_entries_added: u64,
    pub fqueue_entries_overwritten: u64,
    /// Sectors still in the FQueue at the end (durable in flash, not yet on the platter).
    pub fqueue_sectors_left: u64,
    pub end_ns: u64,
    pub energy: Option<EnergyJson>,
    /// Reads whose source held an older version than the newest written (`verify` only;
    /// must be 0).
    pub stale_reads: u64,
    /// Times the pinned set differed from the FQueue's sectors (`verify` only; must be 0).
    pub mirror_mismatches: u64,
    /// Sectors whose newest version is neither in the FQueue nor on the platter at the end
    /// (`verify` only; must be 0).
    pub lost_sectors: u64,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct EnergyJson {
    pub total_j: f64,
    pub active_j: f64,
    pub idle_j: f64,
    pub standby_j: f64,
    pub spinup_j: f64,
    pub spinups: u64,
}

impl From<EnergyReport> for EnergyJson {
    fn from(r: EnergyReport) -> Self {
        EnergyJson {
            total_j: r.total_j(),
            active_j: r.active_j,
            idle_j: r.idle_j,
            standby_j: r.standby_j,
            spinup_j: r.spinup_j,
            spinups: r.spinups,
        }
    }
}

impl ReplayReport {
    pub(crate) fn mean_write_ms(&self) -> f64 {
        self.write_latency_sum_ns as f64 / self.writes.max(1) as f64 / 1e6
    }
    pub(crate) fn mean_read_ms(&self) -> f64 {
        self.read_latency_sum_ns as f64 / self.reads.max(1) as f64 / 1e6
    }
    /// Perceived write latency plus all write-back work (spec: total write latency), ms.
    pub(crate) fn total_write_work_ms(&self) -> f64 {
        (self.write_latency_sum_ns as f64 + self.flush_ns as f64 + self.idle_writeback_ns as f64)
            / 1e6
    }
    /// Fraction of write-back work (time) done in idle time.
    pub fn idle_share(&self) -> f64 {
        let all = self.flush_ns + self.idle_writeback_ns;
        if all == 0 {
            0.0
        } else {
            self.idle_writeback_ns as f64 / all as f64
        }
    }
    /// Fraction of platter commands that were watermark flushes.
    pub(crate) fn flush_share(&self) -> f64 {
        self.flush_writes as f64 / self.platter_commands.max(1) as f64
    }
    /// Fraction of redirected writes overwritten in the FQueue (never written back).
    pub(crate) fn overwrite_fraction(&self) -> f64 {
        self.fqueue_entries_overwritten as f64 / self.fqueue_entries_added.max(1) as f64
    }
}

/// Everything a replay needs besides the trace.
#[derive(Clone, Debug)]
pub struct ReplaySetup {
    pub platter: PlatterModel,
    pub flash: FlashSpec,
    pub policy: RqPolicy,
    pub options: FlashBackedOptions,
    pub power: Option<PowerSpec>,
    /// Track every sector's newest version and check every read's source (tests).
    pub verify: bool,
}

struct State<'a> {
    s: &'a ReplaySetup,
    now: SimTime,
    head: u64,
    fq: FQueue,
    nv: PinnedSet,
    ftl: Option<Ftl>,
    flash_ring_page: u64,
    meter: Option<PowerMeter>,
    /// When the request queue last emptied: idle write-back waits `idle_delay_ms` from here.
    idle_since_ns: SimTime,
    r: ReplayReport,
    /// verify: newest version per sector, and the platter's version per sector.
    truth: BTreeMap<u64, u64>,
    platter_data: BTreeMap<u64, u64>,
}

impl State<'_> {
    fn platter_ready(&mut self) {
        if let Some(m) = self.meter.as_mut() {
            let ready = m.arrive(self.now);
            if ready > self.now {
                self.now = ready;
                m.spun_up(ready);
            }
        }
    }

    /// One platter command at `lbn..end` from the current head.
    fn platter(&mut self, lbn: u64, end: u64, op: Op) -> SimTime {
        self.platter_ready();
        let dur = self.s.platter.access_ns(self.head, lbn, end - lbn);
        if let Some(m) = self.meter.as_mut() {
            m.set_busy(self.now, true);
            m.set_busy(self.now + dur, false);
        }
        self.now += dur;
        self.head = end;
        self.r.platter_commands += 1;
        self.r.disk_busy_ns += dur;
        if op == Op::Write {
            self.r.platter_writes += 1;
        }
        dur
    }

    fn platter_spinning(&mut self) -> bool {
        match self.meter.as_mut() {
            None => true,
            Some(m) => matches!(m.state_at(self.now), PowerState::Active | PowerState::Idle),
        }
    }

    /// Write FQueue data (and, for a coalescing write, the request's own) to the platter.
    fn write_back(&mut self, wb: &WriteBack, own: Option<(u64, u64, u64)>) -> SimTime {
        // The whole merged extent leaves the NVCache: the FQueue runs it took, including those
        // a coalescing write's own data replace.
        self.nv.unpin(wb.lbn, wb.end);
        if self.s.verify {
            for p in &wb.pieces {
                for x in p.lbn..p.end {
                    self.platter_data.insert(x, p.version);
                }
            }
            if let Some((a, b, v)) = own {
                for x in a..b {
                    self.platter_data.insert(x, v);
                }
            }
        }
        self.platter(wb.lbn, wb.end, Op::Write)
    }

    fn check_mirror(&mut self) {
        if !self.s.verify {
            return;
        }
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for p in self.fq.pieces() {
            match merged.last_mut() {
                Some(last) if last.1 == p.lbn => last.1 = p.end,
                _ => merged.push((p.lbn, p.end)),
            }
        }
        if merged != self.nv.ranges() {
            self.r.mirror_mismatches += 1;
        }
    }

    fn check_read(&mut self, lbn: u64, end: u64) {
        if !self.s.verify {
            return;
        }
        let held: BTreeMap<u64, u64> = self
            .fq
            .pieces()
            .filter(|p| p.end > lbn && p.lbn < end)
            .flat_map(|p| (p.lbn.max(lbn)..p.end.min(end)).map(move |x| (x, p.version)))
            .collect();
        for x in lbn..end {
            let newest = self.truth.get(&x).copied();
            let source = held
                .get(&x)
                .copied()
                .or_else(|| self.platter_data.get(&x).copied());
            if newest != source {
                self.r.stale_reads += 1;
                return;
            }
        }
    }

    fn flash_write(&mut self, sectors: u64) -> SimTime {
        let bytes = sectors * 512;
        self.r.flash_bytes_written += bytes;
        if let Some(ftl) = self.ftl.as_mut() {
            // The NVCache is written as a ring (log order), the natural layout for FIFO
            // pinned data.
            let pages = bytes.div_ceil(self.s.flash.page_bytes);
            ftl.write(self.flash_ring_page, pages);
            self.flash_ring_page = (self.flash_ring_page + pages) % ftl.logical_pages();
        }
        let mut ns = self.s.flash.access_ns(sectors as u32, Op::Write);
        ns = (ns as f64 / self.s.options.flash_write_factor) as SimTime;
        ns + 2 * ms_to_ns(self.s.options.pin_us / 1000.0)
    }
}

/// Replay `trace` (sorted by time) on one hybrid drive.
pub fn replay(trace: &[Io], setup: &ReplaySetup) -> ReplayReport {
    let o = &setup.options;
    let cap = if o.redirect { o.fqueue_sectors() } else { 0 };
    let ftl = (cap > 0).then(|| {
        let mut f = setup.flash.clone();
        f.logical_bytes = (cap * 512).max(f.erase_block_bytes * 2);
        Ftl::new(&f, true)
    });
    let mut st = State {
        s: setup,
        now: 0,
        head: 0,
        fq: FQueue::new(cap),
        nv: PinnedSet::default(),
        ftl,
        flash_ring_page: 0,
        meter: setup.power.clone().map(|p| PowerMeter::new(p, 0)),
        idle_since_ns: 0,
        r: ReplayReport::default(),
        truth: BTreeMap::new(),
        platter_data: BTreeMap::new(),
    };
    let high = (o.high_watermark * cap as f64) as u64;
    let low = (o.low_watermark * cap as f64) as u64;
    let mut rq = RqIndex::default();
    let mut next = 0usize;
    let mut flushing = false;
    let mut flush_turn = true;
    let cap_lbn = setup.platter.capacity_sectors().max(1);
    let idle_delay_ns = ms_to_ns(o.idle_delay_ms);
    loop {
        while next < trace.len() && trace[next].time_ns <= st.now {
            let io = trace[next];
            let lbn = io.lbn % cap_lbn;
            let end = (lbn + io.sectors.max(1) as u64).min(cap_lbn);
            rq.push(Pending {
                id: next as u64 + 1,
                arrival_ns: io.time_ns,
                lbn,
                end,
                op: io.op,
            });
            next += 1;
        }
        if rq.is_empty() {
            if o.idle_writeback && !st.fq.is_empty() && st.platter_spinning() {
                let start_ns = st.idle_since_ns + idle_delay_ns;
                if st.now < start_ns {
                    // Not idle long enough yet: the next arrival or the delay's end, first.
                    st.now = match trace.get(next) {
                        Some(io) if io.time_ns < start_ns => st.now.max(io.time_ns),
                        _ => start_ns,
                    };
                    continue;
                }
                let wb = st.fq.pop_writeback().expect("not empty");
                let dur = st.write_back(&wb, None);
                st.r.idle_writeback_ns += dur;
                st.r.idle_writes += 1;
                st.check_mirror();
                continue;
            }
            if next == trace.len() {
                break;
            }
            st.now = st.now.max(trace[next].time_ns);
            continue;
        }
        if flushing && st.fq.occupied_sectors() <= low {
            flushing = false;
        }
        if flushing && flush_turn && !st.fq.is_empty() {
            let wb = st.fq.pop_writeback().expect("not empty");
            let dur = st.write_back(&wb, None);
            st.r.flush_ns += dur;
            st.r.flush_writes += 1;
            flush_turn = false;
            st.check_mirror();
            continue;
        }
        let i = rq
            .pick(setup.policy, st.head, None)
            .expect("queue not empty");
        let n = rq.get(i);
        let sectors = n.end - n.lbn;
        st.r.requests += 1;
        match n.op {
            Op::Read => {
                st.r.reads += 1;
                st.check_read(n.lbn, n.end);
                let uncovered = if o.serve_reads {
                    st.fq.uncovered(n.lbn, n.end)
                } else {
                    vec![(n.lbn, n.end)]
                };
                if uncovered.is_empty() {
                    st.r.reads_from_memory += 1;
                } else {
                    if uncovered.len() > 1 || uncovered[0] != (n.lbn, n.end) {
                        st.r.reads_partly_from_memory += 1;
                    }
                    // [TEAM CHOICE] the rest is read as one platter command spanning it.
                    let (a, b) = (uncovered[0].0, uncovered[uncovered.len() - 1].1);
                    st.platter(a, b, Op::Read);
                }
                rq.remove(i);
                st.r.read_latency_sum_ns += (st.now - n.arrival_ns) as u128;
            }
            Op::Write => {
                st.r.writes += 1;
                if setup.verify {
                    for x in n.lbn..n.end {
                        st.truth.insert(x, n.id);
                    }
                }
                let mut done = false;
                let overlaps = o.absorb_overwrites && st.fq.overlap_sectors(n.lbn, n.end) > 0;
                let coalesce_first = !overlaps;
                if coalesce_first {
                    if let Some(wb) = st.fq.coalesce(n.lbn, n.end) {
                        rq.remove(i);
                        st.write_back(&wb, Some((n.lbn, n.end, n.id)));
                        st.r.coalesced_writes += 1;
                        done = true;
                    }
                }
                if !done && o.redirect && cap > 0 && !flushing {
                    let f_n = {
                        let w = setup.flash.access_ns(sectors as u32, Op::Write);
                        (w as f64 / o.flash_write_factor) as SimTime
                            + 2 * ms_to_ns(o.pin_us / 1000.0)
                    };
                    let h_n = setup.platter.access_ns(st.head, n.lbn, sectors);
                    let next_pick = if o.look_ahead {
                        rq.pick(setup.policy, n.end, Some(i)).map(|j| {
                            let nn = rq.get(j);
                            let s = nn.end - nn.lbn;
                            (
                                setup.platter.access_ns(n.end, nn.lbn, s),
                                setup.platter.access_ns(st.head, nn.lbn, s),
                            )
                        })
                    } else {
                        None
                    };
                    let wins = should_redirect(RedirectCosts {
                        h_n,
                        f_n,
                        next: next_pick,
                    });
                    let spun_down = o.avoid_spinup && !st.platter_spinning();
                    if wins || spun_down {
                        if st.fq.fits(n.lbn, n.end) {
                            rq.remove(i);
                            let dur = st.flash_write(sectors);
                            st.now += dur;
                            st.fq.insert(n.lbn, n.end, n.id);
                            st.nv.pin(n.lbn, n.end);
                            st.r.redirected += 1;
                            if spun_down && !wins {
                                st.r.redirected_for_spinup += 1;
                            }
                            if st.fq.occupied_sectors() >= high {
                                flushing = true;
                                flush_turn = true;
                            }
                            done = true;
                            st.check_mirror();
                        } else {
                            st.r.redirect_refused_full += 1;
                            flushing = true;
                            flush_turn = true;
                        }
                    }
                }
                if !done && !coalesce_first {
                    // An overlapping write not absorbed: coalesce it after all.
                    if let Some(wb) = st.fq.coalesce(n.lbn, n.end) {
                        rq.remove(i);
                        st.write_back(&wb, Some((n.lbn, n.end, n.id)));
                        st.r.coalesced_writes += 1;
                        done = true;
                    }
                }
                if !done {
                    rq.remove(i);
                    if setup.verify {
                        for x in n.lbn..n.end {
                            st.platter_data.insert(x, n.id);
                        }
                    }
                    st.platter(n.lbn, n.end, Op::Write);
                }
                st.r.write_latency_sum_ns += (st.now - n.arrival_ns) as u128;
            }
        }
        st.idle_since_ns = st.now;
        if flushing {
            flush_turn = true;
        }
    }
    if setup.verify {
        let truth = std::mem::take(&mut st.truth);
        let held: BTreeMap<u64, u64> = st
            .fq
            .pieces()
            .flat_map(|p| (p.lbn..p.end).map(move |x| (x, p.version)))
            .collect();
        st.r.lost_sectors = truth
            .iter()
            .filter(|(x, v)| held.get(x).or_else(|| st.platter_data.get(x)) != Some(v))
            .count() as u64;
    }
    let c = st.fq.counters();
    st.r.fqueue_entries_added = c.entries_added;
    st.r.fqueue_entries_overwritten = c.entries_overwritten;
    st.r.fqueue_sectors_left = st.fq.occupied_sectors();
    st.r.end_ns = st.now;
    st.r.flash_erases_estimate = st.r.flash_bytes_written / setup.flash.erase_block_bytes;
    if let Some(ftl) = &st.ftl {
        st.r.ftl_erases = ftl.counters().erases;
        st.r.ftl_write_amplification = ftl.counters().write_amplification();
    }
    let days = trace.last().map(|t| t.time_ns).unwrap_or(0) as f64 / 86_400e9;
    // [TEAM CHOICE] the flash is F; an F under one erase block counts as a fraction of one.
    let blocks = (cap * 512) as f64 / setup.flash.erase_block_bytes as f64;
    st.r.years_to_wear_out = years_to_wear_out(
        blocks,
        setup.flash.endurance_cycles,
        st.r.flash_erases_estimate,
        days,
    );
    if let Some(m) = st.meter.as_mut() {
        st.r.energy = Some(m.report(st.now).into());
    }
    st.r
}
