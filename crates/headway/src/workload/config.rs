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

use super::app::{AppConfig, AppKind, AppWorkload};
use super::bursty::{BurstyConfig, BurstyWorkload};
use super::closed::ClosedWorkload;
use super::locality::LocalityConfig;
use super::open::OpenWorkload;
use super::shape::{ShapeConfig, DEFAULT_ALIGN_SECTORS, DEFAULT_READ_FRACTION};
use super::size::SizeConfig;
use super::sync_reader::{FsMode, SyncConfig, SyncPattern, SyncReader};
use super::text::{TextConfig, TextWorkload};
use super::trace::csv::CsvSetting;
use super::trace::{self, BlkparseEvent, CsvSpec, Fit, TraceFormat, TraceSource};
use super::video::VideoSpec;
use super::Workload;
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::Op;

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
    device: Option<DeviceKey>,
    devices: Option<Vec<u16>>,
    merge_devices: Option<bool>,
    mode: Option<ReplayMode>,
    op: Option<Op>,
    start_s: Option<f64>,
    end_s: Option<f64>,
    fit: Option<Fit>,
    volume_sectors: Option<u64>,
    skip_bad: Option<bool>,
    csv: Option<CsvSetting>,
    blkparse_event: Option<BlkparseEvent>,
    on_rate_iops: Option<f64>,
    off_rate_iops: Option<f64>,
    on_mean_ms: Option<f64>,
    off_mean_ms: Option<f64>,
    pattern: Option<SyncPattern>,
    burst: Option<u64>,
    burst_pause_ms: Option<f64>,
    fs: Option<FsMode>,
    readahead_sectors: Option<u32>,
    readahead_max_sectors: Option<u32>,
    app: Option<AppKind>,
    think_scale: Option<f64>,
    clients: Option<u32>,
    block_bytes: Option<u32>,
    rounds: Option<u64>,
    round_ms: Option<f64>,
    frame_traces: Option<Vec<PathBuf>>,
    pause_rounds: Option<[u64; 2]>,
    duration_s: Option<f64>,
    size_mean_bytes: Option<f64>,
    size_sd_bytes: Option<f64>,
    file_min_bytes: Option<u64>,
    file_max_bytes: Option<u64>,
    // Keys of a `[[workloads]]` entry (see `WorkloadCommon`).
    name: Option<String>,
    class: Option<String>,
    region: Option<Region>,
    share: Option<f64>,
    deadline_ms: Option<f64>,
}

/// `device = 5` (a trace's device number, to replay only its records) or `device = "disk1"`
/// (in a `[[workloads]]` entry: the simulated device the workload addresses).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
enum DeviceKey {
    Number(u16),
    Name(String),
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
    pub fn resolve(&self, capacity: u64, key: &str) -> Result<(u64, u64)> {
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
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(try_from = "RawWorkload")]
pub struct WorkloadEntry {
    pub config: WorkloadConfig,
    pub common: WorkloadCommon,
}

impl TryFrom<RawWorkload> for WorkloadEntry {
    type Error = String;

    fn try_from(r: RawWorkload) -> std::result::Result<Self, String> {
        let (config, common) = convert(r)?;
        if let Some(s) = common.share {
            if !(s > 0.0 && s.is_finite()) {
                return Err(format!("field `share` must be a positive number, got {s}"));
            }
        }
        if let Some(d) = common.deadline_ms {
            if !(d > 0.0 && d.is_finite()) {
                return Err(format!(
                    "field `deadline_ms` must be a positive number of milliseconds, got {d}"
                ));
            }
        }
        Ok(WorkloadEntry { config, common })
    }
}

impl TryFrom<RawWorkload> for WorkloadConfig {
    type Error = String;

    fn try_from(r: RawWorkload) -> std::result::Result<Self, String> {
        let (config, common) = convert(r)?;
        if !common.is_default() {
            let key = [
                ("name", common.name.is_some()),
                ("class", common.class.is_some()),
                ("device", common.device.is_some()),
                ("region", common.region.is_some()),
                ("share", common.share.is_some()),
                ("deadline_ms", common.deadline_ms.is_some()),
            ]
            .into_iter()
            .find(|k| k.1)
            .map_or("class", |k| k.0);
            return Err(format!(
                "field `{key}` belongs to `[[workloads]]` entries (several workloads, classes, \
                 devices); write this workload as [[workloads]] to use it"
            ));
        }
        Ok(config)
    }
}

/// Sort the flat table into the typed config of its kind and the `[[workloads]]` keys.
fn convert(r: RawWorkload) -> std::result::Result<(WorkloadConfig, WorkloadCommon), String> {
    {
        let (trace_device, device_name) = match r.device.clone() {
            Some(DeviceKey::Number(n)) => (Some(n), None),
            Some(DeviceKey::Name(s)) => (None, Some(s)),
            None => (None, None),
        };
        let common = WorkloadCommon {
            name: r.name.clone(),
            class: r.class.clone(),
            device: device_name,
            region: r.region,
            share: r.share,
            deadline_ms: r.deadline_ms,
        };
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
            ("device", trace_device.is_some()),
            ("devices", r.devices.is_some()),
            ("merge_devices", r.merge_devices.is_some()),
            ("mode", r.mode.is_some()),
            ("op", r.op.is_some()),
            ("start_s", r.start_s.is_some()),
            ("end_s", r.end_s.is_some()),
            ("fit", r.fit.is_some()),
            ("volume_sectors", r.volume_sectors.is_some()),
            ("skip_bad", r.skip_bad.is_some()),
            ("csv", r.csv.is_some()),
            ("blkparse_event", r.blkparse_event.is_some()),
        ];
        let bursty_only = [
            ("on_rate_iops", r.on_rate_iops.is_some()),
            ("off_rate_iops", r.off_rate_iops.is_some()),
            ("on_mean_ms", r.on_mean_ms.is_some()),
            ("off_mean_ms", r.off_mean_ms.is_some()),
        ];
        let sync_only = [
            ("pattern", r.pattern.is_some()),
            ("burst", r.burst.is_some()),
            ("burst_pause_ms", r.burst_pause_ms.is_some()),
            ("fs", r.fs.is_some()),
            ("readahead_sectors", r.readahead_sectors.is_some()),
            ("readahead_max_sectors", r.readahead_max_sectors.is_some()),
        ];
        let app_only = [
            ("app", r.app.is_some()),
            ("think_scale", r.think_scale.is_some()),
        ];
        // The synthetic keys a sync reader does not take.
        let sync_refuses = [
            ("processes", r.processes.is_some()),
            ("size", r.size.is_some()),
            ("align_sectors", r.align_sectors.is_some()),
            ("read_fraction", r.read_fraction.is_some()),
            ("locality", r.locality.is_some()),
        ];
        let clients_only = [
            ("clients", r.clients.is_some()),
            ("block_bytes", r.block_bytes.is_some()),
        ];
        let video_only = [
            ("rounds", r.rounds.is_some()),
            ("round_ms", r.round_ms.is_some()),
            ("frame_traces", r.frame_traces.is_some()),
            ("pause_rounds", r.pause_rounds.is_some()),
        ];
        let text_only = [
            ("duration_s", r.duration_s.is_some()),
            ("size_mean_bytes", r.size_mean_bytes.is_some()),
            ("size_sd_bytes", r.size_sd_bytes.is_some()),
            ("file_min_bytes", r.file_min_bytes.is_some()),
            ("file_max_bytes", r.file_max_bytes.is_some()),
        ];
        // Each group with the kinds it belongs to, for the error message.
        let groups: [(&[(&str, bool)], &str); 11] = [
            (&open_only, "kind = \"open\""),
            (&closed_only, "kind = \"closed\""),
            (
                &synthetic_only,
                "kind = \"open\", \"closed\" and \"bursty\"",
            ),
            (&trace_only, "kind = \"trace\""),
            (&bursty_only, "kind = \"bursty\""),
            (&sync_only, "kind = \"sync\""),
            (
                &sync_refuses,
                "kind = \"open\", \"closed\" and \"bursty\" (not \"sync\")",
            ),
            (&app_only, "kind = \"app\""),
            (&clients_only, "kind = \"video\" and \"text\""),
            (&video_only, "kind = \"video\""),
            (&text_only, "kind = \"text\""),
        ];
        let allowed: &[usize] = match kind {
            WorkloadKind::Open => &[0, 2, 6],
            WorkloadKind::Closed => &[1, 2, 6],
            WorkloadKind::Trace => &[3],
            WorkloadKind::Bursty => &[2, 4, 6],
            WorkloadKind::Sync => &[1, 2, 5],
            // `requests` and `fs` are checked below.
            WorkloadKind::App => &[2, 5, 7],
            WorkloadKind::Video => &[8, 9],
            // Text clients take `interarrival_ms` (checked below: not the other open keys).
            WorkloadKind::Text => &[0, 8, 10],
        };
        if kind == WorkloadKind::Text {
            if let Some(k) = [
                ("arrival", r.arrival.is_some()),
                ("rate_iops", r.rate_iops.is_some()),
            ]
            .iter()
            .find(|k| k.1)
            {
                return Err(format!(
                    "field `{}` belongs to kind = \"open\" workloads; text clients take \
                     interarrival_ms (exponential, per client)",
                    k.0
                ));
            }
        }
        for (i, (keys, owner)) in groups.iter().enumerate() {
            if allowed.contains(&i) && kind != WorkloadKind::App {
                continue;
            }
            let app_takes = |key: &str| {
                i == 7 || (kind == WorkloadKind::App && (key == "requests" || key == "fs"))
            };
            if let Some((key, _)) = keys
                .iter()
                .find(|(key, present)| *present && !(kind == WorkloadKind::App && app_takes(key)))
            {
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
        let config = match kind {
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
            WorkloadKind::App => WorkloadConfig::App(AppConfig {
                app: r
                    .app
                    .ok_or("missing field `app` (kind = \"app\" needs it: \"andrew\", \"andrew-scan\", \"web\", \"linker\", \"tpcb-update\" or \"tpcb-select\")")?,
                requests: r.requests.unwrap_or(DEFAULT_REQUESTS),
                fs: r.fs.unwrap_or_default(),
                think_scale: r.think_scale.unwrap_or(1.0),
            }),
            WorkloadKind::Video => WorkloadConfig::Video(VideoSpec {
                clients: r
                    .clients
                    .ok_or("missing field `clients` (kind = \"video\" needs it)")?,
                rounds: r.rounds.unwrap_or(600),
                round_ms: r.round_ms.unwrap_or(1000.0),
                block_bytes: r.block_bytes.unwrap_or(65536),
                frame_traces: r.frame_traces.unwrap_or_default(),
                pause_rounds: r.pause_rounds.map(|[a, b]| (a, b)),
            }),
            WorkloadKind::Text => {
                let d = TextConfig::paper(0, 0.0);
                WorkloadConfig::Text(TextConfig {
                    clients: r
                        .clients
                        .ok_or("missing field `clients` (kind = \"text\" needs it)")?,
                    duration_ms: r
                        .duration_s
                        .ok_or("missing field `duration_s` (kind = \"text\" needs it)")?
                        * 1000.0,
                    interarrival_ms: r.interarrival_ms.unwrap_or(d.interarrival_ms),
                    size_mean_bytes: r.size_mean_bytes.unwrap_or(d.size_mean_bytes),
                    size_sd_bytes: r.size_sd_bytes.unwrap_or(d.size_sd_bytes),
                    block_bytes: r.block_bytes.unwrap_or(d.block_bytes),
                    file_min_bytes: r.file_min_bytes.unwrap_or(d.file_min_bytes),
                    file_max_bytes: r.file_max_bytes.unwrap_or(d.file_max_bytes),
                })
            }
            WorkloadKind::Sync => WorkloadConfig::Sync(SyncConfig {
                closed: ClosedConfig {
                    processes: 1,
                    requests: r.requests.unwrap_or(DEFAULT_REQUESTS),
                    think: r.think.unwrap_or_default(),
                    think_ms: r.think_ms,
                    think_min_ms: r.think_min_ms,
                    think_max_ms: r.think_max_ms,
                    shape: ShapeConfig::default(),
                },
                size_sectors: r.size_sectors.unwrap_or(8),
                pattern: r.pattern.unwrap_or_default(),
                burst: r.burst,
                burst_pause_ms: r.burst_pause_ms,
                fs: r.fs.unwrap_or_default(),
                readahead_sectors: r.readahead_sectors,
                readahead_max_sectors: r.readahead_max_sectors,
            }),
            WorkloadKind::Bursty => {
                let need = |k: &str, v: Option<f64>| {
                    v.ok_or_else(|| format!("missing field `{k}` (kind = \"bursty\" needs it)"))
                };
                WorkloadConfig::Bursty(BurstyConfig {
                    requests: r.requests.unwrap_or(DEFAULT_REQUESTS),
                    on_rate_iops: need("on_rate_iops", r.on_rate_iops)?,
                    off_rate_iops: r.off_rate_iops.unwrap_or(0.0),
                    on_mean_ms: need("on_mean_ms", r.on_mean_ms)?,
                    off_mean_ms: need("off_mean_ms", r.off_mean_ms)?,
                    shape,
                })
            }
            WorkloadKind::Trace => WorkloadConfig::Trace(TraceConfig {
                path: r.path.ok_or("missing field `path` (the trace file)")?,
                format: r.format.unwrap_or_default(),
                speed: r.speed.unwrap_or(1.0),
                limit: r.limit,
                device: trace_device,
                devices: r.devices,
                merge_devices: r.merge_devices.unwrap_or(false),
                mode: r.mode.unwrap_or_default(),
                op: r.op,
                start_s: r.start_s,
                end_s: r.end_s,
                fit: r.fit.unwrap_or_default(),
                volume_sectors: r.volume_sectors,
                skip_bad: r.skip_bad.unwrap_or(false),
                csv: r.csv.map(|c| c.0),
                blkparse_event: r.blkparse_event.unwrap_or_default(),
            }),
        };
        Ok((config, common))
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

impl TraceConfig {
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

const DEFAULT_REQUESTS: u64 = 10_000;
const DEFAULT_PROCESSES: u32 = 1;
