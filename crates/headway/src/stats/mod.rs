//! Statistics: observe every arrival, dispatch and completion cheaply, keeping full
//! distributions (HDR histograms, 3 significant digits) rather than running means, and
//! optionally one record per request.

mod arrays;
mod dims;
mod latency;
mod prediction;
mod records;
mod run_info;
mod summary;
mod think_histogram;

pub use arrays::{ArraySummary, BackgroundSummary, CacheDeviceSummary, MemberSummary};
pub use dims::{DimsOptions, GroupSummary, SeriesRow};
pub use prediction::{ErrorBin, PredictionSummary};
pub use records::{RequestRecords, HOST_DEVICE};
pub use run_info::{ProcessInfo, RunInfo};
pub use summary::{Distribution, Summary};
pub(crate) use think_histogram::ThinkHistogram;

use dims::Dims;
use latency::Latencies;

use prediction::PredictionStats;

use crate::request::{Command, Completion, Op, Request};
use crate::time::{SimTime, NEVER};

/// What to keep beyond the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct StatsOptions {
    /// Keep one record per completed request (memory grows with the run).
    pub records: bool,
    /// Which dimensions to track per request (see `dims.rs`).
    pub dims: DimsOptions,
}

/// Names for the summary's sections, known only once the run is over (host components
/// register their origins as they make work).
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub info: RunInfo,
    /// Host origin names, by origin − `HOST_ORIGIN_BASE`.
    pub host_origins: Vec<String>,
}

/// A time-weighted counter: integrates its value over simulated time.
#[derive(Default, Clone, Copy, Debug)]
struct Level {
    value: u64,
    since: SimTime,
    area: u128,
    max: u64,
}

impl Level {
    #[inline]
    fn set(&mut self, now: SimTime, value: u64) {
        self.area += self.value as u128 * now.saturating_sub(self.since) as u128;
        self.since = now;
        self.value = value;
        self.max = self.max.max(value);
    }
    #[inline]
    fn add(&mut self, now: SimTime, delta: i64) {
        let v = (self.value as i64 + delta).max(0) as u64;
        self.set(now, v);
    }
    fn mean(&self, start: SimTime, end: SimTime) -> f64 {
        let area = self.area + self.value as u128 * end.saturating_sub(self.since) as u128;
        if end > start {
            area as f64 / (end - start) as f64
        } else {
            0.0
        }
    }
}

/// The collector. The engine calls it at every event; it never allocates on the hot path
/// unless per-request records are on. Cloned to summarise a run that goes on.
#[derive(Clone)]
pub struct Stats {
    /// Counted per bucket, made into `hdrhistogram` histograms at the end (`latency.rs`).
    response: Latencies,
    service: Latencies,
    seek_sum_ns: u128,
    rotate_sum_ns: u128,
    transfer_sum_ns: u128,
    /// Media transfer of every mechanical command, background included: the paper's
    /// "disk utilisation" counts the time the disk spends transferring data.
    media_ns: u128,
    prediction: PredictionStats,
    completed: u64,
    reads: u64,
    writes: u64,
    /// Host-made requests completed, and made.
    background: u64,
    host_made: u64,
    /// Workload requests the host served from memory.
    host_served: u64,
    deadline_misses: u64,
    /// Device service time attributed to workload and to host-made requests.
    fg_busy_ns: u128,
    host_busy_ns: u128,
    dims: Option<Dims>,
    /// Workloads in the run (host origins' slots follow theirs).
    workloads: usize,
    sectors: u64,
    cache_hits: u64,
    arrived: u64,
    first_arrival: Option<SimTime>,
    last_done: SimTime,
    /// Requests waiting at the host (not yet dispatched).
    queued: Level,
    /// Requests in the system (arrived, not yet completed).
    in_system: Level,
    /// Sum over arrivals of the requests each found in the system, and how many found it
    /// empty: the queue length distribution as arriving requests see it.
    seen_at_arrival: u64,
    idle_arrivals: u64,
    /// Devices busy (>= 1 outstanding command), for utilisation.
    busy: Vec<Level>,
    records: Option<RequestRecords>,
}

impl Stats {
    pub(crate) fn new(opts: StatsOptions, devices: usize) -> Self {
        Stats {
            response: Latencies::new(),
            service: Latencies::new(),
            seek_sum_ns: 0,
            rotate_sum_ns: 0,
            transfer_sum_ns: 0,
            media_ns: 0,
            prediction: PredictionStats::new(0.0),
            completed: 0,
            reads: 0,
            writes: 0,
            background: 0,
            host_made: 0,
            host_served: 0,
            deadline_misses: 0,
            fg_busy_ns: 0,
            host_busy_ns: 0,
            dims: opts.dims.any().then(|| Dims::new(opts.dims)),
            workloads: 1,
            sectors: 0,
            cache_hits: 0,
            arrived: 0,
            first_arrival: None,
            last_done: 0,
            queued: Level::default(),
            in_system: Level::default(),
            seen_at_arrival: 0,
            idle_arrivals: 0,
            busy: vec![Level::default(); devices.max(1)],
            records: if opts.records {
                Some(RequestRecords::default())
            } else {
                None
            },
        }
    }

    #[inline]
    pub(crate) fn arrival(&mut self, now: SimTime, _req: &Request) {
        self.arrived += 1;
        self.first_arrival.get_or_insert(now);
        self.seen_at_arrival += self.in_system.value;
        self.idle_arrivals += (self.in_system.value == 0) as u64;
        self.queued.add(now, 1);
        self.in_system.add(now, 1);
    }

    #[inline]
    pub(crate) fn dispatch(&mut self, now: SimTime, cmd: &Command) {
        // Nearly every command carries one request: counted without the loop (which the
        // compiler unrolls by four, a dozen instructions before its one pass).
        let n = match cmd.requests.as_slice() {
            [r] => !r.is_host_work() as usize,
            reqs => reqs.iter().filter(|r| !r.is_host_work()).count(),
        };
        self.queued.add(now, -(n as i64));
    }

    /// Device `dev` now has `outstanding` commands.
    #[inline]
    pub(crate) fn device_level(&mut self, now: SimTime, dev: usize, outstanding: usize) {
        let b = &mut self.busy[dev];
        let v = (outstanding > 0) as u64;
        if b.value != v {
            b.set(now, v);
        }
    }

    /// A request the host made itself (it is in the system from now on).
    #[inline]
    pub(crate) fn host_request(&mut self, now: SimTime, _req: &Request) {
        self.host_made += 1;
        self.in_system.add(now, 1);
    }

    #[inline]
    pub(crate) fn completion(&mut self, c: &Completion) {
        let now = c.done_ns;
        self.in_system.add(now, -(c.command.requests.len() as i64));
        self.last_done = self.last_done.max(now);
        if c.command.requests.is_empty() {
            return; // a pure seek (SCAN's travel to the edge): time, but no request
        }
        if !c.cache_hit {
            self.media_ns += c.phases.transfer_ns as u128;
        }
        let service = now - c.phases.start_ns;
        if let [r] = c.command.requests.as_slice() {
            if self.dims.is_none() && self.records.is_none() {
                self.completion_of_one(c, r, service);
                return;
            }
        }
        self.completion_of_many(c, service);
    }

    /// The rest of [`Stats::completion`]: a command of several requests, or dimensions or
    /// records kept. Out of line, so that the usual command's path (inlined into the
    /// engine's completion) keeps few registers to save.
    #[inline(never)]
    fn completion_of_many(&mut self, c: &Completion, service: SimTime) {
        let now = c.done_ns;
        let fg = c.command.requests.iter().any(|r| !r.is_host_work());
        if fg {
            self.service.record(service.max(1));
            self.seek_sum_ns += c.phases.seek_ns as u128;
            self.rotate_sum_ns += c.phases.rotate_ns as u128;
            self.transfer_sum_ns += c.phases.transfer_ns as u128;
        }
        let single = c.command.requests.len() == 1;
        let total_sectors: u64 = if single {
            1
        } else {
            c.command
                .requests
                .iter()
                .map(|r| r.sectors as u64)
                .sum::<u64>()
                .max(1)
        };
        for r in &c.command.requests {
            // A command's service time is shared by its requests in proportion to sectors.
            let busy = if single {
                service as u128
            } else {
                service as u128 * r.sectors as u128 / total_sectors as u128
            };
            if let Some(d) = self.dims.as_mut() {
                let workloads = self.workloads;
                d.record(r, Some(c.command.device), now, busy, workloads);
            }
            if let Some(rec) = self.records.as_mut() {
                rec.push(r, c);
            }
            if r.is_host_work() {
                self.background += 1;
                self.host_busy_ns += busy;
                continue;
            }
            self.fg_busy_ns += busy;
            self.count_workload(r, now);
            self.cache_hits += c.cache_hit as u64;
        }
    }

    /// `completion` for a command carrying one request, with no dimension or record kept:
    /// the same sums in the same order, without the loops over the command's requests.
    #[inline]
    fn completion_of_one(&mut self, c: &Completion, r: &Request, service: SimTime) {
        if r.is_host_work() {
            self.background += 1;
            self.host_busy_ns += service as u128;
            return;
        }
        self.service.record(service.max(1));
        self.seek_sum_ns += c.phases.seek_ns as u128;
        self.rotate_sum_ns += c.phases.rotate_ns as u128;
        self.transfer_sum_ns += c.phases.transfer_ns as u128;
        self.fg_busy_ns += service as u128;
        self.count_workload(r, c.done_ns);
        self.cache_hits += c.cache_hit as u64;
    }

    /// Workload requests served from host memory at `now`, without a device.
    pub(crate) fn served(&mut self, now: SimTime, reqs: &[Request]) {
        self.in_system.add(now, -(reqs.len() as i64));
        let n = reqs.iter().filter(|r| !r.is_host_work()).count();
        self.queued.add(now, -(n as i64));
        self.last_done = self.last_done.max(now);
        for r in reqs {
            if let Some(d) = self.dims.as_mut() {
                let workloads = self.workloads;
                d.record(r, None, now, 0, workloads);
            }
            if let Some(rec) = self.records.as_mut() {
                rec.push_served(r, now);
            }
            if r.is_host_work() {
                self.background += 1;
                continue;
            }
            self.host_served += 1;
            self.count_workload(r, now);
        }
    }

    #[inline]
    fn count_workload(&mut self, r: &Request, now: SimTime) {
        self.completed += 1;
        match r.op {
            Op::Read => self.reads += 1,
            Op::Write => self.writes += 1,
        }
        self.sectors += r.sectors as u64;
        self.response.record((now - r.arrival_ns).max(1));
        self.deadline_misses += (r.deadline_ns != NEVER && now > r.deadline_ns) as u64;
    }

    /// The drive's true rotation period: the yardstick of prediction errors.
    pub(crate) fn set_rotation_ns(&mut self, rotation_ns: f64) {
        self.prediction = PredictionStats::new(rotation_ns);
    }

    /// A command dispatched to an idle device was predicted to take `predicted_ns` from its
    /// dispatch to the end of its transfer; the host saw it complete `observed_ns` after.
    #[inline]
    pub(crate) fn prediction(&mut self, predicted_ns: SimTime, observed_ns: SimTime) {
        self.prediction.record(predicted_ns, observed_ns);
    }

    /// How many workloads the run has (for placing host origins after them).
    pub(crate) fn set_workloads(&mut self, n: usize) {
        self.workloads = n.max(1);
    }

    /// Requests that arrived but never completed (non-zero only if a run was cut short).
    pub(crate) fn in_flight(&self) -> u64 {
        self.in_system.value
    }

    pub(crate) fn records(&self) -> Option<&RequestRecords> {
        self.records.as_ref()
    }

    /// A copy of the tallies without the per-request records (which grow with the run), to
    /// summarise a run that goes on. Every field is named, so a new one must be placed here.
    pub(crate) fn tallies(&self) -> Stats {
        Stats {
            response: self.response.clone(),
            service: self.service.clone(),
            seek_sum_ns: self.seek_sum_ns,
            rotate_sum_ns: self.rotate_sum_ns,
            transfer_sum_ns: self.transfer_sum_ns,
            media_ns: self.media_ns,
            prediction: self.prediction.clone(),
            completed: self.completed,
            reads: self.reads,
            writes: self.writes,
            background: self.background,
            host_made: self.host_made,
            host_served: self.host_served,
            deadline_misses: self.deadline_misses,
            fg_busy_ns: self.fg_busy_ns,
            host_busy_ns: self.host_busy_ns,
            dims: self.dims.clone(),
            workloads: self.workloads,
            sectors: self.sectors,
            cache_hits: self.cache_hits,
            arrived: self.arrived,
            first_arrival: self.first_arrival,
            last_done: self.last_done,
            queued: self.queued,
            in_system: self.in_system,
            seen_at_arrival: self.seen_at_arrival,
            idle_arrivals: self.idle_arrivals,
            busy: self.busy.clone(),
            records: None,
        }
    }

    pub(crate) fn completed(&self) -> u64 {
        self.completed
    }

    pub(crate) fn finish(
        mut self,
        now: SimTime,
        names: &Names,
    ) -> (Summary, Option<RequestRecords>, Vec<SeriesRow>) {
        let start = self.first_arrival.unwrap_or(0);
        let end = now.max(self.last_done);
        self.queued.set(end, self.queued.value);
        let busy_area: f64 =
            self.busy.iter().map(|b| b.mean(start, end)).sum::<f64>() / self.busy.len() as f64;
        let elapsed_s = end.saturating_sub(start) as f64 / 1e9;
        let fg_service_n = self.service.len().max(1) as f64;
        let summary = Summary {
            requests: self.completed,
            reads: self.reads,
            writes: self.writes,
            background_requests: self.background,
            host_made_requests: self.host_made,
            host_served_requests: self.host_served,
            deadline_misses: self.deadline_misses,
            arrived: self.arrived,
            cache_hits: self.cache_hits,
            sectors: self.sectors,
            elapsed_s,
            throughput_iops: if elapsed_s > 0.0 {
                self.completed as f64 / elapsed_s
            } else {
                0.0
            },
            throughput_mb_s: if elapsed_s > 0.0 {
                self.sectors as f64 * 512.0 / 1e6 / elapsed_s
            } else {
                0.0
            },
            utilisation: busy_area,
            media_utilisation: if end > start {
                self.media_ns as f64 / (end - start) as f64 / self.busy.len() as f64
            } else {
                0.0
            },
            media_efficiency: if busy_area > 0.0 && end > start {
                self.media_ns as f64 / (busy_area * self.busy.len() as f64 * (end - start) as f64)
            } else {
                0.0
            },
            prediction: self.prediction.summary(),
            response: Distribution::from_hist(&self.response.histogram()),
            service: Distribution::from_hist(&self.service.histogram()),
            mean_seek_ms: self.seek_sum_ns as f64 / fg_service_n / 1e6,
            mean_rotate_ms: self.rotate_sum_ns as f64 / fg_service_n / 1e6,
            mean_transfer_ms: self.transfer_sum_ns as f64 / fg_service_n / 1e6,
            mean_queue_length: self.queued.mean(start, end),
            max_queue_length: self.queued.max,
            mean_in_system: self.in_system.mean(start, end),
            mean_seen_at_arrival: self.seen_at_arrival as f64 / self.arrived.max(1) as f64,
            idle_arrival_fraction: self.idle_arrivals as f64 / self.arrived.max(1) as f64,
            ..Default::default()
        };
        let mut summary = summary;
        let series = self.sections(&mut summary, names, start, end);
        (summary, self.records, series)
    }

    /// The by-class, by-process, by-device and by-origin sections, and the class series.
    fn sections(
        &mut self,
        summary: &mut Summary,
        names: &Names,
        start: SimTime,
        end: SimTime,
    ) -> Vec<SeriesRow> {
        let info = &names.info;
        let response = summary.response;
        let whole = |name: String, requests: u64, bytes: u64, busy_ns: u128| {
            let d = response;
            GroupSummary {
                name,
                requests,
                bytes,
                mean_response_ms: d.mean_ms,
                p99_response_ms: d.p99_ms,
                max_response_ms: d.max_ms,
                busy_s: busy_ns as f64 / 1e9,
                utilisation: None,
                deadline_misses: None,
            }
        };
        let fg_bytes = self.sectors * 512;
        let name_or = |v: &[String], i: usize, fallback: &str| {
            v.get(i)
                .cloned()
                .unwrap_or_else(|| format!("{fallback}{i}"))
        };
        let origin_name = |slot: usize| {
            if slot < self.workloads {
                name_or(&info.workloads, slot, "workload")
            } else {
                name_or(&names.host_origins, slot - self.workloads, "host")
            }
        };
        let opts = self.dims.as_ref().map(|d| d.opts).unwrap_or_default();
        let dims = self.dims.take().unwrap_or_default();
        let all_workload = |name: String| whole(name, self.completed, fg_bytes, self.fg_busy_ns);
        summary.by_class = if opts.classes {
            dims.classes
                .iter()
                .map(|(i, g)| {
                    let mut s = g.summary(name_or(&info.classes, i, "class"));
                    s.deadline_misses = Some(g.deadline_misses);
                    s
                })
                .collect()
        } else {
            let mut s = all_workload(name_or(&info.classes, 0, "class"));
            s.deadline_misses = Some(self.deadline_misses);
            vec![s]
        };
        summary.by_process = if opts.processes {
            dims.processes
                .iter()
                .map(|(i, g)| g.summary(i.to_string()))
                .collect()
        } else {
            vec![all_workload("all".into())]
        };
        summary.by_origin = if opts.origins {
            dims.origins
                .iter()
                .map(|(i, g)| g.summary(origin_name(i)))
                .collect()
        } else {
            vec![all_workload(origin_name(0))]
        };
        let utilisation = |dev: usize| {
            self.busy
                .get(dev)
                .map(|b| b.mean(start, end))
                .unwrap_or(0.0)
        };
        summary.by_device = if opts.devices {
            dims.devices
                .iter()
                .map(|(i, g)| {
                    let mut s = g.summary(name_or(&info.devices, i, "device"));
                    s.utilisation = Some(utilisation(i));
                    s
                })
                .collect()
        } else {
            // One device: every request it served. Host-served and host-made requests are
            // only in the totals when the by-origin dimension is not tracked, i.e. when
            // there are none of them.
            let mut s = whole(
                name_or(&info.devices, 0, "device"),
                self.completed - self.host_served,
                fg_bytes,
                self.fg_busy_ns,
            );
            s.utilisation = Some(utilisation(0));
            vec![s]
        };
        let series = dims
            .series
            .iter()
            .map(
                |(&(interval, class), &(requests, busy_ns, bytes))| SeriesRow {
                    interval,
                    class: name_or(&info.classes, class as usize, "class"),
                    requests,
                    busy_ns,
                    bytes,
                },
            )
            .collect();
        series
    }
}
