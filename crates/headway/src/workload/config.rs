//! Workload configuration as written in experiment files (`[workload]`).
//!
//! The table is tagged by `kind`: `"open"` (the default when `kind` is absent), `"closed"`
//! or `"trace"`. Serde checks the shape of each kind (unknown keys are errors); [`build`]
//! checks the values, some of which depend on the drive's capacity.
//!
//! [`build`]: WorkloadConfig::build

use std::path::{Path, PathBuf};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

use super::closed::ClosedWorkload;
use super::locality::LocalityConfig;
use super::open::OpenWorkload;
use super::shape::ShapeFields;
use super::size::SizeConfig;
use super::trace::{self, TraceFormat};
use super::Workload;
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};

/// The `[workload]` table.
#[derive(Clone, Debug, PartialEq)]
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

const KINDS: &[&str] = &["open", "closed", "trace"];

// Hand-written so that `kind` may be omitted (meaning "open"): serde's internally tagged
// enums require the tag.
impl<'de> Deserialize<'de> for WorkloadConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut table = toml::Table::deserialize(d)?;
        let kind = match table.remove("kind") {
            None => "open".to_string(),
            Some(toml::Value::String(s)) => s,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "`kind` must be one of \"open\", \"closed\", \"trace\"; got a {}",
                    other.type_str()
                )))
            }
        };
        let rest = toml::Value::Table(table);
        let parsed = match kind.as_str() {
            "open" => OpenConfig::deserialize(rest).map(WorkloadConfig::Open),
            "closed" => ClosedConfig::deserialize(rest).map(WorkloadConfig::Closed),
            "trace" => TraceConfig::deserialize(rest).map(WorkloadConfig::Trace),
            other => return Err(D::Error::unknown_variant(other, KINDS)),
        };
        parsed.map_err(|e| D::Error::custom(e.message()))
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
    /// file fails when it is read rather than when it is run.
    pub fn validate(&self) -> Result<()> {
        let rng = RngStreams::new(0);
        match self {
            WorkloadConfig::Open(c) => OpenWorkload::new(c, u64::MAX, &rng).map(drop),
            WorkloadConfig::Closed(c) => ClosedWorkload::new(c, u64::MAX, &rng).map(drop),
            WorkloadConfig::Trace(c) => c.validate(),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadConfig::Open(_) => "open",
            WorkloadConfig::Closed(_) => "closed",
            WorkloadConfig::Trace(_) => "trace",
        }
    }
}

/// How an open workload spaces its arrivals.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ArrivalKind {
    /// Exponential inter-arrival times (a Poisson process).
    #[default]
    Poisson,
    /// Exactly `interarrival_ms` apart.
    Fixed,
}

/// `kind = "open"`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OpenConfig {
    /// Requests issued in total. Default 10,000.
    #[serde(default = "default_requests")]
    pub requests: u64,
    /// Default `"poisson"`.
    #[serde(default)]
    pub arrival: ArrivalKind,
    /// Mean (poisson) or exact (fixed) time between arrivals, milliseconds. Give this or
    /// `rate_iops`, not both; with neither, 10 ms.
    #[serde(default)]
    pub interarrival_ms: Option<f64>,
    /// Arrivals per second, the alternative to `interarrival_ms`.
    #[serde(default)]
    pub rate_iops: Option<f64>,
    /// Every request this many sectors (512 bytes). Default 8 (4 KiB). Exclusive with `size`.
    #[serde(default)]
    pub size_sectors: Option<u32>,
    /// A size distribution instead of a fixed size.
    #[serde(default)]
    pub size: Option<SizeConfig>,
    /// Request starts and sizes are multiples of this many sectors. Default 8.
    #[serde(default = "default_align")]
    pub align_sectors: u32,
    /// Fraction of requests that are reads. Default 1.
    #[serde(default = "default_read_fraction")]
    pub read_fraction: f64,
    /// Where requests go. Default uniform over the drive.
    #[serde(default)]
    pub locality: LocalityConfig,
}

impl Default for OpenConfig {
    fn default() -> Self {
        OpenConfig {
            requests: default_requests(),
            arrival: ArrivalKind::Poisson,
            interarrival_ms: None,
            rate_iops: None,
            size_sectors: None,
            size: None,
            align_sectors: default_align(),
            read_fraction: default_read_fraction(),
            locality: LocalityConfig::Uniform,
        }
    }
}

impl OpenConfig {
    pub(crate) fn shape(&self) -> ShapeFields<'_> {
        ShapeFields {
            size_sectors: self.size_sectors,
            size: self.size.as_ref(),
            align_sectors: self.align_sectors,
            read_fraction: self.read_fraction,
            locality: &self.locality,
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

/// `kind = "closed"`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ClosedConfig {
    /// Processes, each with at most one request outstanding; requests carry their process's
    /// index (0-based) in `process`. Default 1.
    #[serde(default = "default_processes")]
    pub processes: u32,
    /// Requests issued in total, over all processes. Default 10,000.
    #[serde(default = "default_requests")]
    pub requests: u64,
    /// Default `"fixed"`.
    #[serde(default)]
    pub think: ThinkKind,
    /// Think time (fixed) or its mean (exponential), milliseconds. Default 0 for fixed;
    /// required for exponential; not used by uniform.
    #[serde(default)]
    pub think_ms: Option<f64>,
    /// Lower bound of a uniform think time, milliseconds.
    #[serde(default)]
    pub think_min_ms: Option<f64>,
    /// Upper bound of a uniform think time, milliseconds.
    #[serde(default)]
    pub think_max_ms: Option<f64>,
    /// As for open workloads.
    #[serde(default)]
    pub size_sectors: Option<u32>,
    #[serde(default)]
    pub size: Option<SizeConfig>,
    #[serde(default = "default_align")]
    pub align_sectors: u32,
    #[serde(default = "default_read_fraction")]
    pub read_fraction: f64,
    /// Each process keeps its own position: with `sequential`, each reads its own runs.
    #[serde(default)]
    pub locality: LocalityConfig,
}

impl Default for ClosedConfig {
    fn default() -> Self {
        ClosedConfig {
            processes: default_processes(),
            requests: default_requests(),
            think: ThinkKind::Fixed,
            think_ms: None,
            think_min_ms: None,
            think_max_ms: None,
            size_sectors: None,
            size: None,
            align_sectors: default_align(),
            read_fraction: default_read_fraction(),
            locality: LocalityConfig::Uniform,
        }
    }
}

impl ClosedConfig {
    pub(crate) fn shape(&self) -> ShapeFields<'_> {
        ShapeFields {
            size_sectors: self.size_sectors,
            size: self.size.as_ref(),
            align_sectors: self.align_sectors,
            read_fraction: self.read_fraction,
            locality: &self.locality,
        }
    }
}

/// `kind = "trace"`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// The trace file, relative to the experiment file's folder. A name ending in `.gz` is
    /// decompressed while reading.
    pub path: PathBuf,
    /// Default `"disksim-ascii"`.
    #[serde(default)]
    pub format: TraceFormat,
    /// Time scale: a record at trace time t arrives at t / speed (2 = twice as fast).
    /// Default 1.
    #[serde(default = "default_speed")]
    pub speed: f64,
    /// Replay at most this many requests (counted after the device filter).
    #[serde(default)]
    pub limit: Option<u64>,
    /// Replay only the records of this trace device number. Every replayed record goes to
    /// the simulated drive, whatever its device number.
    #[serde(default)]
    pub device: Option<u16>,
}

impl TraceConfig {
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

fn default_requests() -> u64 {
    10_000
}
fn default_processes() -> u32 {
    1
}
fn default_align() -> u32 {
    8
}
fn default_read_fraction() -> f64 {
    1.0
}
fn default_speed() -> f64 {
    1.0
}
