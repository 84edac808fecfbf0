//! Statistics by dimension: per class, per process, per device and per origin (workload or
//! host component), each with its own response-time distribution, bytes, busy time and, per
//! class, deadline misses; and a per-class time series of busy time and bytes (Cello's
//! allocation plots).
//!
//! A dimension with a single possible value is not tracked per request: its one entry is the
//! whole run's figures (so runs that do not use a dimension pay nothing for it).

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use serde::Serialize;

use super::latency::{highest_equivalent, HIGHEST, LOWEST, SIGNIFICANT_DIGITS};
use crate::request::Request;
use crate::time::{SimTime, NEVER};

/// Figures of one class, process, device or origin.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GroupSummary {
    pub name: String,
    /// Requests completed.
    pub requests: u64,
    /// Bytes they asked for.
    pub bytes: u64,
    pub mean_response_ms: f64,
    pub p99_response_ms: f64,
    pub max_response_ms: f64,
    /// Device service time attributed to the group (a command's service time, start of
    /// service to completion, shared among its requests in proportion to their sectors).
    pub busy_s: f64,
    /// Devices only: fraction of the elapsed time the device had a command.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilisation: Option<f64>,
    /// Classes only: requests that completed after their deadline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_misses: Option<u64>,
}

/// One row of the per-class time series.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesRow {
    /// Interval index: the interval covers `[i * interval, (i + 1) * interval)`.
    pub interval: u64,
    pub class: String,
    pub requests: u64,
    pub busy_ns: u64,
    pub bytes: u64,
}

/// Accumulates one group.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    pub requests: u64,
    pub bytes: u64,
    response: Histogram<u32>,
    /// Two-digit histogram: the max is reported from `max_ns` at the run's precision.
    coarse: bool,
    max_ns: u64,
    pub(crate) busy_ns: u128,
    pub deadline_misses: u64,
}

impl Group {
    /// Classes, devices and origins (a few groups) keep the run histogram's buckets, so a
    /// group's figures are read off the same buckets as the run's: a group holding every
    /// request gives the run's figures, and no group's max exceeds the run's (a coarser
    /// bucket's highest value can). Processes (there may be thousands) use two significant
    /// digits (1%): enough for a p99 per process, and a tenth of the memory.
    fn new(coarse: bool) -> Self {
        let digits = if coarse { 2 } else { SIGNIFICANT_DIGITS };
        Group {
            requests: 0,
            bytes: 0,
            response: Histogram::new_with_bounds(LOWEST, HIGHEST, digits).expect("valid bounds"),
            coarse,
            max_ns: 0,
            busy_ns: 0,
            deadline_misses: 0,
        }
    }

    #[inline]
    pub(crate) fn record(
        &mut self,
        r: &Request,
        response_ns: SimTime,
        busy_ns: u128,
        done_ns: SimTime,
    ) {
        self.requests += 1;
        self.bytes += r.sectors as u64 * 512;
        self.response.saturating_record(response_ns.max(1));
        // Clamped as the histograms clamp a value beyond their range.
        self.max_ns = self.max_ns.max(response_ns.min(HIGHEST));
        self.busy_ns += busy_ns;
        self.deadline_misses += (r.deadline_ns != NEVER && done_ns > r.deadline_ns) as u64;
    }

    pub(crate) fn summary(&self, name: String) -> GroupSummary {
        let h = &self.response;
        let ms = |ns: u64| ns as f64 / 1e6;
        GroupSummary {
            name,
            requests: self.requests,
            bytes: self.bytes,
            mean_response_ms: if h.is_empty() { 0.0 } else { h.mean() / 1e6 },
            p99_response_ms: if h.is_empty() {
                0.0
            } else {
                ms(h.value_at_quantile(0.99))
            },
            max_response_ms: if h.is_empty() {
                0.0
            } else if self.coarse {
                // A two-digit bucket's highest value can exceed the run's max.
                ms(highest_equivalent(self.max_ns))
            } else {
                ms(h.max())
            },
            busy_s: self.busy_ns as f64 / 1e9,
            utilisation: None,
            deadline_misses: None,
        }
    }
}

/// Groups indexed by a small integer (class, process, device, origin slot), grown on demand.
#[derive(Clone, Debug, Default)]
pub(crate) struct GroupVec {
    groups: Vec<Option<Group>>,
    /// Two-digit histograms (processes), else the run's precision.
    coarse: bool,
}

impl GroupVec {
    #[inline]
    pub(crate) fn get(&mut self, i: usize) -> &mut Group {
        if i >= self.groups.len() {
            self.groups.resize_with(i + 1, || None);
        }
        let coarse = self.coarse;
        self.groups[i].get_or_insert_with(|| Group::new(coarse))
    }
    /// The groups that saw at least one request, with their index.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, &Group)> {
        self.groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| g.as_ref().map(|g| (i, g)))
    }
}

/// Which dimensions a run tracks per request (the others have one value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DimsOptions {
    pub classes: bool,
    pub processes: bool,
    pub devices: bool,
    pub origins: bool,
    /// Per-class time series interval (0: none).
    pub(crate) series_ns: SimTime,
}

impl DimsOptions {
    pub(crate) fn any(&self) -> bool {
        self.classes || self.processes || self.devices || self.origins || self.series_ns > 0
    }
}

/// The per-dimension collectors.
#[derive(Clone, Debug, Default)]
pub(crate) struct Dims {
    pub opts: DimsOptions,
    pub classes: GroupVec,
    pub processes: GroupVec,
    pub devices: GroupVec,
    pub origins: GroupVec,
    /// (interval, class) → (requests, busy ns, bytes).
    pub series: BTreeMap<(u64, u16), (u64, u64, u64)>,
}

/// Workload origins keep their index; host origins follow the workloads' slots.
#[inline]
pub(crate) fn origin_slot(origin: u16, workloads: usize) -> usize {
    if origin >= crate::request::HOST_ORIGIN_BASE {
        workloads + (origin - crate::request::HOST_ORIGIN_BASE) as usize
    } else {
        origin as usize
    }
}

impl Dims {
    pub(crate) fn new(opts: DimsOptions) -> Self {
        Dims {
            opts,
            processes: GroupVec {
                coarse: true,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// A request completed: `device` is `None` when the host served it from memory.
    #[inline]
    pub(crate) fn record(
        &mut self,
        r: &Request,
        device: Option<u16>,
        done_ns: SimTime,
        busy_ns: u128,
        workloads: usize,
    ) {
        let resp = done_ns.saturating_sub(r.arrival_ns);
        if self.opts.origins {
            self.origins
                .get(origin_slot(r.origin, workloads))
                .record(r, resp, busy_ns, done_ns);
        }
        if let (true, Some(d)) = (self.opts.devices, device) {
            self.devices
                .get(d as usize)
                .record(r, resp, busy_ns, done_ns);
        }
        if r.is_host_work() {
            return;
        }
        if self.opts.classes {
            self.classes
                .get(r.class as usize)
                .record(r, resp, busy_ns, done_ns);
        }
        if self.opts.processes {
            self.processes
                .get(r.process as usize)
                .record(r, resp, busy_ns, done_ns);
        }
        if let Some(interval) = done_ns.checked_div(self.opts.series_ns) {
            let e = self.series.entry((interval, r.class)).or_default();
            e.0 += 1;
            e.1 += busy_ns as u64;
            e.2 += r.sectors as u64 * 512;
        }
    }
}
