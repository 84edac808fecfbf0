//! Statistics: observe every arrival, dispatch and completion cheaply, keeping full
//! distributions (HDR histograms, 3 significant digits) rather than running means, and
//! optionally one record per request.

mod records;
mod summary;

pub use records::RequestRecords;
pub use summary::{Distribution, Summary};

use hdrhistogram::Histogram;

use crate::request::{Command, Completion, Op, Request};
use crate::time::SimTime;

/// What to keep beyond the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct StatsOptions {
    /// Keep one record per completed request (memory grows with the run).
    pub records: bool,
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

fn new_hist() -> Histogram<u64> {
    // 1 ns to about 52 simulated days at 3 significant digits (0.1% resolution). Fixed bounds
    // so recording never resizes (no allocation on the hot path); longer values saturate.
    Histogram::new_with_bounds(1, 1 << 52, 3).expect("valid histogram bounds")
}

/// The collector. The engine calls it at every event; it never allocates on the hot path
/// unless per-request records are on.
pub struct Stats {
    opts: StatsOptions,
    response: Histogram<u64>,
    service: Histogram<u64>,
    seek_sum_ns: u128,
    rotate_sum_ns: u128,
    transfer_sum_ns: u128,
    completed: u64,
    reads: u64,
    writes: u64,
    background: u64,
    sectors: u64,
    cache_hits: u64,
    arrived: u64,
    first_arrival: Option<SimTime>,
    last_done: SimTime,
    /// Requests waiting at the host (not yet dispatched).
    queued: Level,
    /// Requests in the system (arrived, not yet completed).
    in_system: Level,
    /// Devices busy (>= 1 outstanding command), for utilisation.
    busy: Vec<Level>,
    records: Option<RequestRecords>,
}

impl Stats {
    pub fn new(opts: StatsOptions, devices: usize) -> Self {
        Stats {
            opts,
            response: new_hist(),
            service: new_hist(),
            seek_sum_ns: 0,
            rotate_sum_ns: 0,
            transfer_sum_ns: 0,
            completed: 0,
            reads: 0,
            writes: 0,
            background: 0,
            sectors: 0,
            cache_hits: 0,
            arrived: 0,
            first_arrival: None,
            last_done: 0,
            queued: Level::default(),
            in_system: Level::default(),
            busy: vec![Level::default(); devices.max(1)],
            records: if opts.records {
                Some(RequestRecords::default())
            } else {
                None
            },
        }
    }

    #[inline]
    pub fn arrival(&mut self, now: SimTime, _req: &Request) {
        self.arrived += 1;
        self.first_arrival.get_or_insert(now);
        self.queued.add(now, 1);
        self.in_system.add(now, 1);
    }

    #[inline]
    pub fn dispatch(&mut self, now: SimTime, cmd: &Command) {
        self.queued.add(now, -(cmd.requests.len() as i64));
    }

    /// Device `dev` now has `outstanding` commands.
    #[inline]
    pub fn device_level(&mut self, now: SimTime, dev: usize, outstanding: usize) {
        let b = &mut self.busy[dev];
        let v = (outstanding > 0) as u64;
        if b.value != v {
            b.set(now, v);
        }
    }

    #[inline]
    pub fn completion(&mut self, c: &Completion) {
        let now = c.done_ns;
        self.in_system.add(now, -(c.command.requests.len() as i64));
        self.last_done = self.last_done.max(now);
        if c.command.requests.is_empty() {
            return; // a pure seek (SCAN's travel to the edge): time, but no request
        }
        let service = now - c.phases.start_ns;
        let fg = c.command.requests.iter().any(|r| !r.background);
        if fg {
            self.service.saturating_record(service.max(1));
            self.seek_sum_ns += c.phases.seek_ns as u128;
            self.rotate_sum_ns += c.phases.rotate_ns as u128;
            self.transfer_sum_ns += c.phases.transfer_ns as u128;
        }
        for r in &c.command.requests {
            if r.background {
                self.background += 1;
                continue;
            }
            self.completed += 1;
            match r.op {
                Op::Read => self.reads += 1,
                Op::Write => self.writes += 1,
            }
            self.sectors += r.sectors as u64;
            self.cache_hits += c.cache_hit as u64;
            self.response.saturating_record((now - r.arrival_ns).max(1));
            if let Some(rec) = self.records.as_mut() {
                rec.push(r, c);
            }
        }
    }

    /// Requests that arrived but never completed (non-zero only if a run was cut short).
    pub fn in_flight(&self) -> u64 {
        self.in_system.value
    }

    pub fn completed(&self) -> u64 {
        self.completed
    }

    pub fn finish(mut self, now: SimTime) -> (Summary, Option<RequestRecords>) {
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
            response: Distribution::from_hist(&self.response),
            service: Distribution::from_hist(&self.service),
            mean_seek_ms: self.seek_sum_ns as f64 / fg_service_n / 1e6,
            mean_rotate_ms: self.rotate_sum_ns as f64 / fg_service_n / 1e6,
            mean_transfer_ms: self.transfer_sum_ns as f64 / fg_service_n / 1e6,
            mean_queue_length: self.queued.mean(start, end),
            max_queue_length: self.queued.max,
            mean_in_system: self.in_system.mean(start, end),
        };
        let _ = self.opts;
        (summary, self.records)
    }
}
