//! The `[workload]` table of `kind = "trace"`: which file, how it is read, filtered, fitted
//! and replayed.

use std::path::PathBuf;

use serde::Deserialize;

use super::csv::CsvSetting;
use super::{BlkparseEvent, CsvSpec, Fit, TraceFormat, TraceSource};
use crate::error::{HeadwayError, Result};
use crate::request::Op;
use crate::table_keys::key_group;

/// How a trace is replayed (`mode = "..."`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ReplayMode {
    /// Each record arrives at its trace time (divided by `speed`).
    #[default]
    Open,
    /// Each process keeps one request in the system and issues its next one the trace's
    /// think time after the previous completes.
    Closed,
    /// Closed, with the whole trace as one process (DiskSim validate-style).
    Validate,
}

impl ReplayMode {
    pub fn name(self) -> &'static str {
        match self {
            ReplayMode::Open => "open",
            ReplayMode::Closed => "closed",
            ReplayMode::Validate => "validate",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        [ReplayMode::Open, ReplayMode::Closed, ReplayMode::Validate]
            .into_iter()
            .find(|m| m.name() == s)
    }
}

/// `kind = "trace"`.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceConfig {
    /// The trace file, relative to the experiment file's folder. gzip, zstd and xz files are
    /// decompressed while reading.
    pub path: PathBuf,
    /// Default `"auto"`: detected from the content.
    pub format: TraceFormat,
    /// Column mapping for `format = "csv"` (default: headway's own CSV).
    pub csv: Option<Box<CsvSpec>>,
    /// blkparse: which event is a request. Default `"Q"`.
    pub blkparse_event: BlkparseEvent,
    /// Default `"open"`.
    pub mode: ReplayMode,
    /// Time scale: a record at trace time t arrives at t / speed (2 = twice as fast); think
    /// times in closed modes are scaled alike. Default 1.
    pub speed: f64,
    /// Replay at most this many requests (counted after the filters).
    pub limit: Option<u64>,
    /// Replay only the records of this trace device number.
    pub device: Option<u16>,
    /// Replay the records of these devices, merged onto the drive.
    pub devices: Option<Vec<u16>>,
    /// Replay every device's records onto the drive. Without this, `device` or `devices`, a
    /// trace with records for two devices is refused.
    pub merge_devices: bool,
    /// Replay only reads or only writes.
    pub op: Option<Op>,
    /// Time window, seconds after the trace's first record: records before `start_s` or at
    /// or after `end_s` are left out, and the replay starts at `start_s`.
    pub start_s: Option<f64>,
    pub end_s: Option<f64>,
    /// Requests past the end of the drive: fail (default), wrap, scale or truncate.
    pub fit: Fit,
    /// The trace's address space for `fit = "scale"` (default: found by a first pass).
    pub volume_sectors: Option<u64>,
    /// Lenient mode: skip bad records (malformed, zero length, past the drive, time going
    /// backwards), count them and report them at the end, instead of failing at the first.
    pub skip_bad: bool,
}

key_group! {
    /// The keys of a trace replay's table besides `device` (a number here, which the
    /// workload table reads since a `[[workloads]]` entry also takes a device's name).
    pub(crate) struct TraceKeys {
        path: PathBuf,
        format: TraceFormat,
        speed: f64,
        limit: u64,
        devices: Vec<u16>,
        merge_devices: bool,
        mode: ReplayMode,
        op: Op,
        start_s: f64,
        end_s: f64,
        fit: Fit,
        volume_sectors: u64,
        skip_bad: bool,
        csv: CsvSetting,
        blkparse_event: BlkparseEvent,
    }
}

impl TraceConfig {
    pub(crate) fn from_keys(
        keys: TraceKeys,
        device: Option<u16>,
    ) -> std::result::Result<Self, String> {
        Ok(TraceConfig {
            path: keys.path.ok_or("missing field `path` (the trace file)")?,
            format: keys.format.unwrap_or_default(),
            speed: keys.speed.unwrap_or(1.0),
            limit: keys.limit,
            device,
            devices: keys.devices,
            merge_devices: keys.merge_devices.unwrap_or(false),
            mode: keys.mode.unwrap_or_default(),
            op: keys.op,
            start_s: keys.start_s,
            end_s: keys.end_s,
            fit: keys.fit.unwrap_or_default(),
            volume_sectors: keys.volume_sectors,
            skip_bad: keys.skip_bad.unwrap_or(false),
            csv: keys.csv.map(|c| c.0),
            blkparse_event: keys.blkparse_event.unwrap_or_default(),
        })
    }

    /// Replay all of `path` (format detected) at its own speed.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        TraceConfig {
            path: path.into(),
            format: TraceFormat::default(),
            csv: None,
            blkparse_event: BlkparseEvent::default(),
            mode: ReplayMode::default(),
            speed: 1.0,
            limit: None,
            device: None,
            devices: None,
            merge_devices: false,
            op: None,
            start_s: None,
            end_s: None,
            fit: Fit::default(),
            volume_sectors: None,
            skip_bad: false,
        }
    }

    /// How to read the file.
    pub fn source(&self) -> TraceSource {
        TraceSource {
            format: self.format,
            csv: self.csv.as_deref().cloned(),
            blkparse_event: self.blkparse_event,
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
        let chosen = [
            self.device.is_some(),
            self.devices.is_some(),
            self.merge_devices,
        ];
        if chosen.iter().filter(|c| **c).count() > 1 {
            return Err(HeadwayError::config(
                "workload.device",
                "give at most one of device, devices and merge_devices",
            ));
        }
        if self.devices.as_ref().is_some_and(|d| d.is_empty()) {
            return Err(HeadwayError::config(
                "workload.devices",
                "must name at least one device",
            ));
        }
        for (key, v) in [
            ("workload.start_s", self.start_s),
            ("workload.end_s", self.end_s),
        ] {
            if let Some(v) = v {
                if !(v >= 0.0 && v.is_finite() && v * 1e9 < u64::MAX as f64) {
                    return Err(HeadwayError::config(
                        key,
                        format!("must be a non-negative number of seconds, got {v}"),
                    ));
                }
            }
        }
        if let (Some(a), Some(b)) = (self.start_s, self.end_s) {
            if b <= a {
                return Err(HeadwayError::config(
                    "workload.end_s",
                    format!("the window ends ({b} s) before it starts ({a} s)"),
                ));
            }
        }
        if self.volume_sectors == Some(0) {
            return Err(HeadwayError::config(
                "workload.volume_sectors",
                "must be at least 1 sector",
            ));
        }
        if self.volume_sectors.is_some() && self.fit != Fit::Scale {
            return Err(HeadwayError::config(
                "workload.volume_sectors",
                "only means something with fit = \"scale\"",
            ));
        }
        if self.csv.is_some() && self.format != TraceFormat::Csv {
            return Err(HeadwayError::config(
                "workload.csv",
                format!(
                    "a column mapping needs format = \"csv\" (format is \"{}\")",
                    self.format.name()
                ),
            ));
        }
        if let Some(spec) = &self.csv {
            spec.validate()?;
        }
        Ok(())
    }
}
