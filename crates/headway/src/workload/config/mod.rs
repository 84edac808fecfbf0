//! Workload configuration as written in experiment files (`[workload]`, `[[workloads]]`).
//!
//! The table is tagged by `kind`: `"open"` (the default when `kind` is absent), `"closed"`,
//! `"trace"`, `"bursty"`, `"sync"`, `"app"`, `"video"`, `"text"` or `"zoned"`. Each kind owns its config
//! type and the group of keys it reads (`OpenKeys` beside `OpenConfig`, ...); `table` reads
//! the table into those groups and builds the kind's config from them. Reading a value
//! checks its type; a key no group takes is unknown; the ownership check rejects keys of
//! another kind; [`build`] checks values, some of which depend on the drive's capacity.
//!
//! [`build`]: WorkloadConfig::build

mod table;

use std::path::Path;

use serde::Deserialize;

use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::workload::app::{AppConfig, AppWorkload};
use crate::workload::bursty::{BurstyConfig, BurstyWorkload};
use crate::workload::closed::{ClosedConfig, ClosedWorkload};
use crate::workload::open::{OpenConfig, OpenWorkload};
use crate::workload::sync_reader::{SyncConfig, SyncReader};
use crate::workload::synthgen::{SynthgenConfig, SynthgenWorkload};
use crate::workload::text::{TextConfig, TextWorkload};
use crate::workload::trace::{self, TraceConfig};
use crate::workload::video::VideoSpec;
use crate::workload::zoned_writers::{ZonedWriters, ZonedWritersConfig};
use crate::workload::Workload;

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
    /// ON/OFF (Markov-modulated Poisson) arrivals: bursts and quiet spells.
    Bursty(BurstyConfig),
    /// One synchronous reader of its own file (seq / alter / random), adversary bursts.
    Sync(SyncConfig),
    /// An application stand-in of the anticipatory paper (Andrew, web server, linker, TPC-B).
    App(AppConfig),
    /// Video clients in rounds (Cello's soft real-time class).
    Video(VideoSpec),
    /// Text clients reading files sequentially (Cello's best-effort classes).
    Text(TextConfig),
    /// DiskSim's synthetic generator, read from a DiskSim experiment (`.parv`); its
    /// requests name their devices themselves.
    Synthgen(SynthgenConfig),
    /// Sequential writers on a zoned drive, one per zone, each resetting its zone when it
    /// has written it (docs/smr.md).
    Zoned(ZonedWritersConfig),
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
            WorkloadConfig::Bursty(c) => Box::new(BurstyWorkload::new(c, capacity_sectors, rng)?),
            WorkloadConfig::Sync(c) => Box::new(SyncReader::new(c, capacity_sectors, rng)?),
            WorkloadConfig::App(c) => Box::new(AppWorkload::new(c, capacity_sectors, rng)?),
            WorkloadConfig::Video(c) => Box::new(c.build(capacity_sectors, rng, base_dir)?),
            WorkloadConfig::Text(c) => {
                Box::new(TextWorkload::new(c.clone(), capacity_sectors, rng)?)
            }
            WorkloadConfig::Synthgen(c) => Box::new(SynthgenWorkload::new(c, rng)?),
            WorkloadConfig::Zoned(c) => Box::new(ZonedWriters::new(c, capacity_sectors)?),
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
            WorkloadConfig::Bursty(c) => BurstyWorkload::new(c, u64::MAX, &rng).map(drop),
            WorkloadConfig::Sync(c) => SyncReader::new(c, u64::MAX, &rng).map(drop),
            WorkloadConfig::App(c) => c.validate(),
            // Trace files are read when the run starts, as for `kind = "trace"`.
            WorkloadConfig::Video(c) => VideoSpec {
                frame_traces: Vec::new(),
                ..c.clone()
            }
            .build(u64::MAX / 2, &rng, None)
            .map(drop),
            WorkloadConfig::Text(c) => TextWorkload::new(c.clone(), u64::MAX / 2, &rng).map(drop),
            WorkloadConfig::Synthgen(c) => c.validate(),
            WorkloadConfig::Zoned(c) => ZonedWriters::new(c, u64::MAX).map(drop),
        }
    }

    pub fn kind(&self) -> WorkloadKind {
        match self {
            WorkloadConfig::Open(_) => WorkloadKind::Open,
            WorkloadConfig::Closed(_) => WorkloadKind::Closed,
            WorkloadConfig::Trace(_) => WorkloadKind::Trace,
            WorkloadConfig::Bursty(_) => WorkloadKind::Bursty,
            WorkloadConfig::Sync(_) => WorkloadKind::Sync,
            WorkloadConfig::App(_) => WorkloadKind::App,
            WorkloadConfig::Video(_) => WorkloadKind::Video,
            WorkloadConfig::Text(_) => WorkloadKind::Text,
            WorkloadConfig::Synthgen(_) => WorkloadKind::Synthgen,
            WorkloadConfig::Zoned(_) => WorkloadKind::Zoned,
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
    Bursty,
    Sync,
    App,
    Video,
    Text,
    /// Only from a DiskSim experiment file.
    #[serde(skip)]
    Synthgen,
    Zoned,
}

impl WorkloadKind {
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Open => "open",
            WorkloadKind::Closed => "closed",
            WorkloadKind::Trace => "trace",
            WorkloadKind::Bursty => "bursty",
            WorkloadKind::Sync => "sync",
            WorkloadKind::App => "app",
            WorkloadKind::Video => "video",
            WorkloadKind::Text => "text",
            WorkloadKind::Synthgen => "synthgen",
            WorkloadKind::Zoned => "zoned",
        }
    }
}

/// The part of the device a workload addresses: `{ start_fraction, size_fraction }` of the
/// capacity, or `{ start_lbn, sectors }`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Region {
    pub start_fraction: Option<f64>,
    pub size_fraction: Option<f64>,
    pub start_lbn: Option<u64>,
    pub sectors: Option<u64>,
}

impl Region {
    /// `(first sector, sectors)` on a device of `capacity` sectors; `key` names the table in
    /// errors.
    pub(crate) fn resolve(&self, capacity: u64, key: &str) -> Result<(u64, u64)> {
        let bad = |m: String| HeadwayError::config(key, m);
        let by_fraction = self.start_fraction.is_some() || self.size_fraction.is_some();
        let by_lbn = self.start_lbn.is_some() || self.sectors.is_some();
        if by_fraction && by_lbn {
            return Err(bad(
                "give start_fraction/size_fraction or start_lbn/sectors, not both".into(),
            ));
        }
        let (start, size) = if by_lbn {
            let start = self.start_lbn.unwrap_or(0);
            (
                start,
                self.sectors.unwrap_or(capacity.saturating_sub(start)),
            )
        } else {
            let sf = self.start_fraction.unwrap_or(0.0);
            let zf = self.size_fraction.unwrap_or(1.0 - sf);
            if !((0.0..1.0).contains(&sf) && zf > 0.0 && sf + zf <= 1.0 + 1e-12) {
                return Err(bad(format!(
                    "fractions must satisfy 0 <= start_fraction < 1 and 0 < size_fraction <=                      1 - start_fraction; got {sf} and {zf}"
                )));
            }
            let start = (sf * capacity as f64) as u64;
            (start, ((zf * capacity as f64) as u64).min(capacity - start))
        };
        if size == 0 || start.checked_add(size).is_none_or(|e| e > capacity) {
            return Err(bad(format!(
                "sectors {start}..{} do not fit the device ({capacity} sectors)",
                start.saturating_add(size)
            )));
        }
        Ok((start, size))
    }
}

/// What a `[[workloads]]` entry adds to a workload: its name, class, device, the region it
/// addresses, its processes' share and a relative deadline. Each entry is one range of
/// processes (numbered on from the previous entry's), so per-process settings are given by
/// splitting processes into entries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkloadCommon {
    pub name: Option<String>,
    pub class: Option<String>,
    /// The device's name (`[[devices]] name`); default the first device.
    pub device: Option<String>,
    pub region: Option<Region>,
    /// Proportional-share weight of each of its processes (default 1).
    pub share: Option<f64>,
    /// Each request must complete this long after it arrives (its class counts misses).
    pub deadline_ms: Option<f64>,
}

impl WorkloadCommon {
    fn is_default(&self) -> bool {
        *self == WorkloadCommon::default()
    }
}

/// One `[[workloads]]` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadEntry {
    pub config: WorkloadConfig,
    pub common: WorkloadCommon,
}
