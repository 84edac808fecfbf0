//! Experiment files: TOML parsed once into typed config, with errors that name the file,
//! line and key. The same structures are built from Python dicts.

mod arm_devices;
mod build;
mod bus;
mod capabilities;
mod disksim;
mod drive;
mod locate;
mod predictor_kind;
mod shared_bus;
mod smr;
mod zone_plug;

pub use crate::host::array::settings::{
    ArrayConfig, ArrayLevel, BackgroundConfig, BackgroundPolicy, FailureConfig, MirrorRead,
    ParityRotation, SmallWrite,
};
pub use build::{build_simulation, resolve_drive, Built, PREDICTOR_NAMES};
pub use drive::{DeviceConfig, DriveConfig, DriveSettings, PinConfig};
pub use predictor_kind::PredictorKind;
pub use shared_bus::BusConfig;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{HeadwayError, Result};
use crate::link::LinkConfig;
use crate::sched::SchedSpec;
use crate::workload::{WorkloadCommon, WorkloadConfig, WorkloadEntry};

/// A whole experiment.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    /// Run seed; every random stream derives from it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Free-form label carried into results.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub drive: DriveConfig,
    #[serde(default)]
    pub host: HostConfig,
    #[serde(default)]
    pub link: LinkConfig,
    #[serde(default)]
    pub workload: WorkloadConfig,
    /// `[[devices]]`: several devices, each with its drive, queue and predictor (instead of
    /// `[drive]`).
    #[serde(default)]
    pub devices: Vec<DeviceConfig>,
    /// `[[workloads]]`: several workloads, each with a name, class, device, region, share
    /// and deadline (instead of `[workload]`).
    #[serde(default)]
    pub workloads: Vec<WorkloadEntry>,
    /// `[[arrays]]`: logical volumes over some of the `[[devices]]` (RAID 0, 1, 10, 4, 5,
    /// 6); a workload addresses one by its name.
    #[serde(default)]
    pub arrays: Vec<ArrayConfig>,
    /// `[[buses]]`: settings of the shared buses the `[[devices]]` name in `shared_bus`
    /// (arbitration time, whether reads' data holds the bus); a bus without an entry takes
    /// the defaults.
    #[serde(default)]
    pub buses: Vec<BusConfig>,
    #[serde(default)]
    pub output: OutputConfig,
    /// Where relative paths in this config are resolved from (the config file's folder).
    #[serde(skip)]
    pub base_dir: Option<PathBuf>,
    /// The file this config was read from: errors found when it is built name it too.
    #[serde(skip)]
    pub source_file: Option<PathBuf>,
    /// Which single-form tables the file wrote (they may not be mixed with the array forms).
    #[serde(skip)]
    pub written: Written,
    /// What reading the file left unmodelled (a DiskSim experiment's parameters headway does
    /// not model), one line each; a run reports them as warnings.
    #[serde(skip)]
    pub reader_warnings: Vec<String>,
}

/// Tables and keys an experiment file wrote explicitly (defaults cannot tell).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Written {
    pub drive: bool,
    pub workload: bool,
    /// `host.predictor`, `host.predictor_options` or `host.max_outstanding`: per device in
    /// the `[[devices]]` form.
    pub host_device_keys: Option<&'static str>,
}

fn default_seed() -> u64 {
    1
}

impl Default for ExperimentConfig {
    fn default() -> Self {
        ExperimentConfig {
            seed: default_seed(),
            name: None,
            drive: DriveConfig::default(),
            host: HostConfig::default(),
            link: LinkConfig::default(),
            workload: WorkloadConfig::default(),
            devices: Vec::new(),
            workloads: Vec::new(),
            arrays: Vec::new(),
            buses: Vec::new(),
            output: OutputConfig::default(),
            base_dir: None,
            source_file: None,
            written: Written::default(),
            reader_warnings: Vec::new(),
        }
    }
}

/// The host's scheduler and its model of the drive.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    #[serde(default = "default_sched")]
    pub scheduler: String,
    #[serde(default = "drive::default_predictor")]
    pub predictor: String,
    /// Commands the host keeps outstanding at the drive; default: the drive's queue depth.
    #[serde(default)]
    pub max_outstanding: Option<usize>,
    /// `[host.options]`: knobs of the chosen scheduler (e.g. `group_cylinders = 700` for
    /// `gstf`); each scheduler rejects keys it does not take.
    #[serde(default)]
    pub options: crate::sched::SchedOptions,
    /// Host CPU time per service-time estimate a scheduler makes while deciding, charged
    /// before the chosen command leaves (the paper measured about 8 µs on a 300 MHz CPU).
    /// Default 0: decisions are free.
    #[serde(default)]
    pub decision_ns_per_estimate: u64,
    /// `[host.predictor_options]`: the imperfections and calibration settings of the
    /// `calibrated` and `lbn-curve` predictors (see `predict::PredictorOptions`).
    #[serde(default)]
    pub predictor_options: crate::predict::PredictorOptions,
    /// `[host.inner]`: the scheduler a wrapper scheduler wraps (`scheduler`, `options`, and
    /// its own `inner` for a wrapper inside a wrapper).
    #[serde(default)]
    pub inner: Option<Box<SchedSpec>>,
    /// Zone write plugging for zoned drives (`docs/smr.md`): at most one write per
    /// sequential zone past the host's scheduler at a time, the zone's later writes held in
    /// arrival order. Default: off, unless `zone_append = "emulated"` (which needs it).
    #[serde(default)]
    pub zone_write_plugging: Option<bool>,
    /// How a ZONE APPEND reaches a zoned drive: `native` (the drive places it; default) or
    /// `emulated` (the host writes it at the write pointer it tracks).
    #[serde(default)]
    pub zone_append: Option<crate::sched::ZoneAppend>,
    /// Whether zone write plugging merges the writes waiting in a zone's plug that continue
    /// the one it lets go into one command, as Linux does. Default: on when plugging is.
    #[serde(default)]
    pub zone_plug_merge: Option<bool>,
    /// The largest command such a merge builds, in sectors (Linux's `max_sectors_kb` times
    /// two). Default 2,560 (1,280 KiB).
    #[serde(default)]
    pub zone_plug_max_merge_sectors: Option<u32>,
}

impl HostConfig {
    /// The configured scheduler with its options and inner schedulers.
    pub(crate) fn sched_spec(&self) -> SchedSpec {
        SchedSpec {
            scheduler: self.scheduler.clone(),
            options: self.options.clone(),
            inner: self.inner.clone(),
        }
    }
}

fn default_sched() -> String {
    "fcfs".into()
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            scheduler: default_sched(),
            predictor: drive::default_predictor(),
            max_outstanding: None,
            options: Default::default(),
            decision_ns_per_estimate: 0,
            predictor_options: Default::default(),
            inner: None,
            zone_write_plugging: None,
            zone_append: None,
            zone_plug_merge: None,
            zone_plug_max_merge_sectors: None,
        }
    }
}

/// What to collect besides the summary.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    /// Keep one record per request (arrival, dispatch, start, seek, rotation, transfer, done).
    #[serde(default)]
    pub records: bool,
    /// Stop the simulated clock here (seconds).
    #[serde(default)]
    pub max_time_s: Option<f64>,
    /// Estimate each command sent to an idle drive and compare with what it took (the
    /// summary's prediction statistics, the records' `predicted_ns`). Default: on when the
    /// predictor is not `oracle` or the drive has imperfections (TEAM CHOICE: the estimate
    /// costs about a fifth of an SPTF run, and the oracle on a nominal drive only ever misses
    /// by the completion latency it does not model).
    #[serde(default)]
    pub predictions: Option<bool>,
    /// Keep busy time and bytes per class per interval of this many milliseconds (the
    /// result's class series); default: none.
    #[serde(default)]
    pub series_ms: Option<f64>,
}

impl ExperimentConfig {
    /// Parse an experiment: headway TOML, or a DiskSim experiment (`.parv`; or text from
    /// elsewhere than a `.toml` file that is not TOML at all but reads as DiskSim's
    /// parameter language); `origin` names the file in error messages and locates the files a DiskSim
    /// experiment sources.
    pub fn from_toml_str(text: &str, origin: Option<&Path>) -> Result<Self> {
        let ext = origin.and_then(|p| p.extension()).and_then(|e| e.to_str());
        if ext == Some("parv") {
            return Self::from_disksim(text, origin);
        }
        let mut cfg: ExperimentConfig = match toml::from_str(text) {
            Ok(cfg) => cfg,
            // Valid TOML with a wrong key or value is a headway experiment with a mistake.
            Err(e) if ext == Some("toml") || text.parse::<toml::Table>().is_ok() => {
                return Err(toml_error(text, origin, e))
            }
            Err(e) => {
                let toml_err = toml_error(text, origin, e);
                return Self::from_disksim(text, origin)
                    .map_err(|ds_err| neither(toml_err, &ds_err));
            }
        };
        cfg.base_dir = origin.and_then(|p| p.parent()).map(Path::to_path_buf);
        cfg.source_file = origin.map(Path::to_path_buf);
        if let Ok(table) = text.parse::<toml::Table>() {
            let host = table.get("host").and_then(|h| h.as_table());
            cfg.written = Written {
                drive: table.contains_key("drive"),
                workload: table.contains_key("workload"),
                host_device_keys: ["predictor", "predictor_options", "max_outstanding"]
                    .into_iter()
                    .find(|k| host.is_some_and(|h| h.contains_key(*k))),
            };
        }
        cfg.validate().map_err(|e| match origin {
            Some(p) => locate::in_experiment(e, text, p),
            None => e,
        })?;
        Ok(cfg)
    }

    /// A DiskSim 4.0 experiment (`config/disksim/`).
    fn from_disksim(text: &str, origin: Option<&Path>) -> Result<Self> {
        let origin = origin.unwrap_or(Path::new("experiment.parv"));
        let cfg = disksim::experiment(text, origin)?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn from_toml_file(path: &Path) -> Result<Self> {
        let text =
            crate::limits::read_text(path, crate::limits::MAX_TOML_BYTES, "not an experiment")
                .map_err(|e| HeadwayError::io(path, e))?;
        Self::from_toml_str(&text, Some(path))
    }

    /// The devices of the run: `[[devices]]`, or the one `[drive]` (named `disk`) with the
    /// host's predictor settings.
    pub(crate) fn device_list(&self) -> Vec<DeviceConfig> {
        if !self.devices.is_empty() {
            return self.devices.clone();
        }
        vec![DeviceConfig {
            name: "disk".into(),
            drive: self.drive.name.clone(),
            settings: self.drive.settings.clone(),
            predictor: self.host.predictor.clone(),
            predictor_options: self.host.predictor_options.clone(),
            max_outstanding: self.host.max_outstanding,
            flash: None,
            power: None,
            platter: None,
            concurrent: false,
            pins: Vec::new(),
            cache: None,
            shared_bus: None,
        }]
    }

    /// The workloads of the run: `[[workloads]]`, or the one `[workload]`.
    pub fn workload_list(&self) -> Vec<WorkloadEntry> {
        if !self.workloads.is_empty() {
            return self.workloads.clone();
        }
        vec![WorkloadEntry {
            config: self.workload.clone(),
            common: WorkloadCommon::default(),
        }]
    }

    /// Checks that need more than one key, or ranges serde cannot express.
    pub fn validate(&self) -> Result<()> {
        self.workload.validate()?;
        if !self.devices.is_empty() && self.written.drive {
            return Err(HeadwayError::config(
                "drive",
                "give [drive] (one device) or [[devices]] (several), not both",
            ));
        }
        if !self.workloads.is_empty() && self.written.workload {
            return Err(HeadwayError::config(
                "workload",
                "give [workload] (one workload) or [[workloads]] (several), not both",
            ));
        }
        if let (false, Some(k)) = (self.devices.is_empty(), self.written.host_device_keys) {
            return Err(HeadwayError::config(
                format!("host.{k}"),
                "with [[devices]], each device sets its own predictor, predictor_options and \
                 max_outstanding",
            ));
        }
        let devices = self.device_list();
        for (i, d) in devices.iter().enumerate() {
            let key = |k: &str| {
                if self.devices.is_empty() {
                    match k {
                        "queue_depth" => "drive.queue_depth".to_string(),
                        "max_outstanding" => "host.max_outstanding".to_string(),
                        other => format!("drive.{other}"),
                    }
                } else {
                    format!("devices[{i}].{k}")
                }
            };
            let depth = d.settings.queue_depth;
            if depth == 0 {
                return Err(HeadwayError::config(
                    key("queue_depth"),
                    "must be at least 1",
                ));
            }
            let max_depth = crate::device::hdd::MAX_QUEUE_DEPTH;
            if depth > max_depth {
                return Err(HeadwayError::config(
                    key("queue_depth"),
                    format!("must be at most {max_depth}, got {depth}"),
                ));
            }
            if d.max_outstanding == Some(0) {
                return Err(HeadwayError::config(
                    key("max_outstanding"),
                    "must be at least 1",
                ));
            }
            if d.name.is_empty() {
                return Err(HeadwayError::config(key("name"), "must not be empty"));
            }
            if devices[..i].iter().any(|e| e.name == d.name) {
                return Err(HeadwayError::config(
                    key("name"),
                    format!("two devices are named `{}`; names must be unique", d.name),
                ));
            }
            d.predictor_options.validate()?;
            d.settings.imperfections.validate()?;
        }
        if !self.arrays.is_empty() && self.devices.is_empty() {
            return Err(HeadwayError::config(
                "arrays",
                "an array is built over [[devices]]: name its members there",
            ));
        }
        let device_names: Vec<&str> = devices.iter().map(|d| d.name.as_str()).collect();
        crate::host::array::settings::validate_arrays(&self.arrays, &device_names)?;
        for (i, w) in self.workloads.iter().enumerate() {
            let key = |k: &str| format!("workloads[{i}].{k}");
            w.config
                .validate()
                .map_err(|e| e.under(&format!("workloads[{i}]")))?;
            if let Some(name) = &w.common.device {
                if let Some(a) = self.arrays.iter().find(|a| a.members.contains(name)) {
                    return Err(HeadwayError::config(
                        key("device"),
                        format!(
                            "`{name}` is a member of array `{}`: address the volume, not its \
                             member",
                            a.name
                        ),
                    ));
                }
                let is_volume = self.arrays.iter().any(|a| &a.name == name);
                if !is_volume && !devices.iter().any(|d| &d.name == name) {
                    return Err(HeadwayError::config(
                        key("device"),
                        format!(
                            "no device is named `{name}`; devices: {}",
                            devices
                                .iter()
                                .map(|d| d.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
            }
            if w.common.deadline_ms.is_some() && w.common.class.is_none() {
                return Err(HeadwayError::config(
                    key("deadline_ms"),
                    "a deadline is counted per class: give this workload a class \
                     (class = \"video\")",
                ));
            }
            if let Some(n) = &w.common.name {
                if self.workloads[..i]
                    .iter()
                    .any(|o| o.common.name.as_ref() == Some(n))
                {
                    return Err(HeadwayError::config(
                        key("name"),
                        format!("two workloads are named `{n}`; names must be unique"),
                    ));
                }
            }
        }
        // Build the scheduler once to check its options and nesting now rather than at run
        // time (an unknown name is left for the build, where a plug-in may stand in for it).
        match crate::sched::build_scheduler(&self.host.sched_spec()) {
            Ok(_) => {}
            Err(HeadwayError::Unknown { .. }) if self.host.inner.is_none() => {}
            Err(e) => return Err(e),
        }
        if let Some(t) = self.output.series_ms {
            if !(t > 0.0 && t.is_finite()) {
                return Err(HeadwayError::config(
                    "output.series_ms",
                    format!("must be a positive number of milliseconds, got {t}"),
                ));
            }
        }
        if let Some(t) = self.output.max_time_s {
            if !(t > 0.0 && t.is_finite()) {
                return Err(HeadwayError::config(
                    "output.max_time_s",
                    format!("must be a positive number of seconds, got {t}"),
                ));
            }
        }
        Ok(())
    }
}

/// Turn a `toml` error into ours: line number from the span, the offending key from the
/// message where serde names it.
/// The TOML reader's error (its place kept) saying that DiskSim's reader failed too.
fn neither(toml_err: HeadwayError, ds_err: &HeadwayError) -> HeadwayError {
    match toml_err {
        HeadwayError::Config {
            file,
            line,
            key,
            msg,
        } => HeadwayError::Config {
            file,
            line,
            key,
            msg: format!(
                "{msg} (read as headway TOML; read as a DiskSim experiment it fails too: \
                 {ds_err})"
            ),
        },
        other => other,
    }
}

pub(crate) fn toml_error(text: &str, origin: Option<&Path>, e: toml::de::Error) -> HeadwayError {
    let line = e
        .span()
        .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
    let msg = in_words(e.message());
    let key = msg
        .split('`')
        .nth(1)
        .map(str::to_string)
        .filter(|_| msg.contains("field"))
        .or_else(|| line.and_then(|l| key_on_line(text, l)));
    HeadwayError::Config {
        file: origin.map(Path::to_path_buf),
        line,
        key,
        msg,
    }
}

/// serde's names of number types said in words: `requests = -5` reads "expected a whole
/// number, 0 or more", not "expected u64".
fn in_words(msg: &str) -> String {
    const TYPES: [(&str, &str); 9] = [
        ("expected u64", "expected a whole number, 0 or more"),
        (
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        ),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected usize", "expected a whole number, 0 or more"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
    ];
    let mut out = msg.to_string();
    for (name, words) in TYPES {
        if let Some(at) = out.find(name) {
            let end = at + name.len();
            // Whole words only: `expected u8` is not the start of `expected u64`.
            if !out[end..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
                out.replace_range(at..end, words);
            }
        }
    }
    out
}

/// The dotted key assigned on 1-based line `line` (`drive.name` for `name = 3` under
/// `[drive]`): type errors from `toml` point at the value but do not name its key.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?;
    let (lhs, _) = here.split_once('=')?;
    let key = lhs.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('[') {
        return None;
    }
    let table = lines[..line - 1]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key.to_string(),
    })
}
