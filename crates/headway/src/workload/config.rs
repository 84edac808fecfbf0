//! Workload configuration as written in experiment files (`[workload]`).
//!
//! The table is tagged by `kind`: `"open"` (the default when `kind` is absent), `"closed"`
//! or `"trace"`. It is read as one flat table of every key (`RawWorkload`) and then sorted
//! into the typed config of its kind, rather than through serde's tagged enums: those buffer
//! the table before parsing it, which loses the line numbers of type errors, and they cannot
//! make the tag optional. Serde checks types and unknown keys; the conversion rejects keys
//! of another kind; [`build`] checks values, some of which depend on the drive's capacity.
//!
//! [`build`]: WorkloadConfig::build

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::closed::ClosedWorkload;
use super::locality::LocalityConfig;
use super::open::OpenWorkload;
use super::shape::{ShapeConfig, DEFAULT_ALIGN_SECTORS, DEFAULT_READ_FRACTION};
use super::size::SizeConfig;
use super::trace::{self, TraceFormat};
use super::Workload;
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};

/// The `[workload]` table.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(try_from = "RawWorkload")]
pub enum WorkloadConfig {
    /// Requests arrive on their own schedule, regardless of completions.
    Open(OpenConfig),
    /// A fixed population of processes, each issuing its next request a think time after
    /// its previous one completes.
    Closed(ClosedConfig),
    /// Replay a trace file open-loop at its timestamps.
    Trace(TraceConfig),
}

impl Default for WorkloadConfig {
    /// 10,000 random 4 KiB reads, Poisson arrivals with a mean inter-arrival time of 10 ms.
    fn default() -> Self {
        WorkloadConfig::Open(OpenConfig::default())
    }
}

impl WorkloadConfig {
    /// The workload for a drive of `capacity_sectors`, drawing from `rng`'s `workload.*`
    /// streams; relative trace paths are resolved against `base_dir`.
    pub fn build(
        &self,
        capacity_sectors: u64,
        rng: &RngStreams,
        base_dir: Option<&Path>,
    ) -> Result<Box<dyn Workload>> {
        Ok(match self {
            WorkloadConfig::Open(c) => Box::new(OpenWorkload::new(c, capacity_sectors, rng)?),
            WorkloadConfig::Closed(c) => Box::new(ClosedWorkload::new(c, capacity_sectors, rng)?),
            WorkloadConfig::Trace(c) => trace::build(c, capacity_sectors, base_dir)?,
        })
    }

    /// The checks that need neither the drive nor the trace file, so that a bad experiment
    /// file can fail when it is read rather than when it is run.
    pub fn validate(&self) -> Result<()> {
        let rng = RngStreams::new(0);
        match self {
            WorkloadConfig::Open(c) => OpenWorkload::new(c, u64::MAX, &rng).map(drop),
            WorkloadConfig::Closed(c) => ClosedWorkload::new(c, u64::MAX, &rng).map(drop),
            WorkloadConfig::Trace(c) => c.validate(),
        }
    }

    pub fn kind(&self) -> WorkloadKind {
        match self {
            WorkloadConfig::Open(_) => WorkloadKind::Open,
            WorkloadConfig::Closed(_) => WorkloadKind::Closed,
            WorkloadConfig::Trace(_) => WorkloadKind::Trace,
        }
    }
}

/// `kind = "..."`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadKind {
    #[default]
    Open,
    Closed,
    Trace,
}

impl WorkloadKind {
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Open => "open",
            WorkloadKind::Closed => "closed",
            WorkloadKind::Trace => "trace",
        }
    }
}

/// Every key any kind of workload takes; see the typed configs for their meaning.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkload {
    kind: Option<WorkloadKind>,
    requests: Option<u64>,
    arrival: Option<ArrivalKind>,
    interarrival_ms: Option<f64>,
    rate_iops: Option<f64>,
    size_sectors: Option<u32>,
    size: Option<SizeConfig>,
    align_sectors: Option<u32>,
    read_fraction: Option<f64>,
    locality: Option<LocalityConfig>,
    processes: Option<u32>,
    think: Option<ThinkKind>,
    think_ms: Option<f64>,
    think_min_ms: Option<f64>,
    think_max_ms: Option<f64>,
    path: Option<PathBuf>,
    format: Option<TraceFormat>,
    speed: Option<f64>,
    limit: Option<u64>,
    device: Option<u16>,
}

impl TryFrom<RawWorkload> for WorkloadConfig {
    type Error = String;

    fn try_from(r: RawWorkload) -> std::result::Result<Self, String> {
        let kind = r.kind.unwrap_or_default();
        let open_only = [
            ("arrival", r.arrival.is_some()),
            ("interarrival_ms", r.interarrival_ms.is_some()),
            ("rate_iops", r.rate_iops.is_some()),
        ];
        let closed_only = [
            ("processes", r.processes.is_some()),
            ("think", r.think.is_some()),
            ("think_ms", r.think_ms.is_some()),
            ("think_min_ms", r.think_min_ms.is_some()),
            ("think_max_ms", r.think_max_ms.is_some()),
        ];
        let synthetic_only = [
            ("requests", r.requests.is_some()),
            ("size_sectors", r.size_sectors.is_some()),
            ("size", r.size.is_some()),
            ("align_sectors", r.align_sectors.is_some()),
            ("read_fraction", r.read_fraction.is_some()),
            ("locality", r.locality.is_some()),
        ];
        let trace_only = [
            ("path", r.path.is_some()),
            ("format", r.format.is_some()),
            ("speed", r.speed.is_some()),
            ("limit", r.limit.is_some()),
            ("device", r.device.is_some()),
        ];
        // Each group with the kinds it belongs to, for the error message.
        let groups: [(&[(&str, bool)], &str); 4] = [
            (&open_only, "kind = \"open\""),
            (&closed_only, "kind = \"closed\""),
            (&synthetic_only, "kind = \"open\" and \"closed\""),
            (&trace_only, "kind = \"trace\""),
        ];
        let allowed: &[usize] = match kind {
            WorkloadKind::Open => &[0, 2],
            WorkloadKind::Closed => &[1, 2],
            WorkloadKind::Trace => &[3],
        };
        for (i, (keys, owner)) in groups.iter().enumerate() {
            if allowed.contains(&i) {
                continue;
            }
            if let Some((key, _)) = keys.iter().find(|(_, present)| *present) {
                // "field `x`" lets the experiment parser report the key.
                return Err(format!(
                    "field `{key}` belongs to {owner} workloads, but this one is kind = \"{}\"{}",
                    kind.name(),
                    if r.kind.is_none() {
                        " (the default when kind is absent)"
                    } else {
                        ""
                    }
                ));
            }
        }
        let shape = ShapeConfig {
            size_sectors: r.size_sectors,
            size: r.size,
            align_sectors: r.align_sectors.unwrap_or(DEFAULT_ALIGN_SECTORS),
            read_fraction: r.read_fraction.unwrap_or(DEFAULT_READ_FRACTION),
            locality: r.locality.unwrap_or_default(),
        };
        Ok(match kind {
            WorkloadKind::Open => WorkloadConfig::Open(OpenConfig {
                requests: r.requests.unwrap_or(DEFAULT_REQUESTS),
                arrival: r.arrival.unwrap_or_default(),
                interarrival_ms: r.interarrival_ms,
                rate_iops: r.rate_iops,
                shape,
            }),
            WorkloadKind::Closed => WorkloadConfig::Closed(ClosedConfig {
                processes: r.processes.unwrap_or(DEFAULT_PROCESSES),
                requests: r.requests.unwrap_or(DEFAULT_REQUESTS),
                think: r.think.unwrap_or_default(),
                think_ms: r.think_ms,
                think_min_ms: r.think_min_ms,
                think_max_ms: r.think_max_ms,
                shape,
            }),
            WorkloadKind::Trace => WorkloadConfig::Trace(TraceConfig {
                path: r.path.ok_or("missing field `path` (the trace file)")?,
                format: r.format.unwrap_or_default(),
                speed: r.speed.unwrap_or(1.0),
                limit: r.limit,
                device: r.device,
            }),
        })
    }
}

/// How an open workload spaces its arrivals.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ArrivalKind {
    /// Exponential inter-arrival times (a Poisson process started at time 0).
    #[default]
    Poisson,
    /// Exactly `interarrival_ms` apart: request k (from 1) arrives at k × interarrival_ms,
    /// computed afresh each time so that rounding to nanoseconds never accumulates.
    Fixed,
}

/// `kind = "open"`.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenConfig {
    /// Requests issued in total. Default 10,000.
    pub requests: u64,
    /// Default `"poisson"`.
    pub arrival: ArrivalKind,
    /// Mean (poisson) or exact (fixed) time between arrivals, milliseconds. Give this or
    /// `rate_iops`, not both; with neither, 10 ms.
    pub interarrival_ms: Option<f64>,
    /// Arrivals per second, the alternative to `interarrival_ms`.
    pub rate_iops: Option<f64>,
    /// Size, direction and place of each request (keys at the top level of the table).
    pub shape: ShapeConfig,
}

impl Default for OpenConfig {
    fn default() -> Self {
        OpenConfig {
            requests: DEFAULT_REQUESTS,
            arrival: ArrivalKind::Poisson,
            interarrival_ms: None,
            rate_iops: None,
            shape: ShapeConfig::default(),
        }
    }
}

/// How long a closed-loop process thinks between a completion and its next request.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ThinkKind {
    /// Exactly `think_ms`.
    #[default]
    Fixed,
    /// Exponential with mean `think_ms`.
    Exponential,
    /// Uniform between `think_min_ms` and `think_max_ms`.
    Uniform,
}

impl ThinkKind {
    pub fn name(self) -> &'static str {
        match self {
            ThinkKind::Fixed => "fixed",
            ThinkKind::Exponential => "exponential",
            ThinkKind::Uniform => "uniform",
        }
    }
}

/// `kind = "closed"`.
#[derive(Clone, Debug, PartialEq)]
pub struct ClosedConfig {
    /// Processes, each with at most one request outstanding; requests carry their process's
    /// index (0-based) in `process`. Default 1.
    pub processes: u32,
    /// Requests issued in total, over all processes. Default 10,000.
    pub requests: u64,
    /// Default `"fixed"`.
    pub think: ThinkKind,
    /// Think time (fixed) or its mean (exponential), milliseconds. Default 0 for fixed;
    /// required for exponential; not used by uniform.
    pub think_ms: Option<f64>,
    /// Lower bound of a uniform think time, milliseconds.
    pub think_min_ms: Option<f64>,
    /// Upper bound of a uniform think time, milliseconds.
    pub think_max_ms: Option<f64>,
    /// Size, direction and place of each request (keys at the top level of the table).
    /// Each process keeps its own position, so with `sequential` locality each reads its
    /// own runs.
    pub shape: ShapeConfig,
}

impl Default for ClosedConfig {
    fn default() -> Self {
        ClosedConfig {
            processes: DEFAULT_PROCESSES,
            requests: DEFAULT_REQUESTS,
            think: ThinkKind::Fixed,
            think_ms: None,
            think_min_ms: None,
            think_max_ms: None,
            shape: ShapeConfig::default(),
        }
    }
}

/// `kind = "trace"`.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceConfig {
    /// The trace file, relative to the experiment file's folder. A name ending in `.gz` is
    /// decompressed while reading.
    pub path: PathBuf,
    /// Default `"disksim-ascii"`.
    pub format: TraceFormat,
    /// Time scale: a record at trace time t arrives at t / speed (2 = twice as fast).
    /// Default 1.
    pub speed: f64,
    /// Replay at most this many requests (counted after the device filter).
    pub limit: Option<u64>,
    /// Replay only the records of this trace device number. Every replayed record goes to
    /// the simulated drive, whatever its device number.
    pub device: Option<u16>,
}

impl TraceConfig {
    /// Replay all of `path` (DiskSim ASCII) at its own speed.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        TraceConfig {
            path: path.into(),
            format: TraceFormat::default(),
            speed: 1.0,
            limit: None,
            device: None,
        }
    }

    pub fn validate(&self) -> Result<()> {
        if !(self.speed > 0.0 && self.speed.is_finite()) {
            return Err(HeadwayError::config(
                "workload.speed",
                format!("must be a positive factor, got {}", self.speed),
            ));
        }
        if self.limit == Some(0) {
            return Err(HeadwayError::config(
                "workload.limit",
                "must be at least 1 request (omit it to replay the whole trace)",
            ));
        }
        Ok(())
    }
}

const DEFAULT_REQUESTS: u64 = 10_000;
const DEFAULT_PROCESSES: u32 = 1;
