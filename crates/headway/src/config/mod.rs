//! Experiment files: TOML parsed once into typed config, with errors that name the file,
//! line and key. The same structures are built from Python dicts.

mod build;
mod capabilities;
mod locate;
mod predictor_kind;

pub use build::{build_simulation, resolve_drive, Built, PREDICTOR_NAMES};
pub use predictor_kind::PredictorKind;

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

/// One `[[devices]]` entry.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// How workloads (`device = "..."`) and the results name it.
    pub name: String,
    /// A catalog name or a drive file, as `[drive] name`.
    #[serde(default = "default_drive")]
    pub drive: String,
    #[serde(default = "one")]
    pub queue_depth: usize,
    #[serde(default)]
    pub firmware_scheduler: Option<String>,
    /// See `[drive] firmware_sptf_angle`.
    #[serde(default)]
    pub firmware_sptf_angle: Option<crate::device::hdd::SptfAngle>,
    /// Free reads planned inside the firmware (see `[drive] firmware_freeblock`).
    #[serde(default)]
    pub firmware_freeblock: Option<crate::device::hdd::FirmwareFreeblockConfig>,
    /// Overrides the drive's bus time per sector (see `[drive] bus_sector_transfer_ms`).
    #[serde(default)]
    pub bus_sector_transfer_ms: Option<f64>,
    #[serde(default)]
    pub imperfections: crate::device::imperfect::Imperfections,
    /// The host's model of this device (`oracle`, `calibrated`, `lbn-curve`).
    #[serde(default = "default_pred")]
    pub predictor: String,
    #[serde(default)]
    pub predictor_options: crate::predict::PredictorOptions,
    /// Commands the host keeps outstanding here; default the queue depth.
    #[serde(default)]
    pub max_outstanding: Option<usize>,
    /// `drive = "flash"`: the flash device's geometry and timing (default: the Ultra II CF
    /// stand-in, 128 MiB).
    #[serde(default)]
    pub flash: Option<crate::device::flash::FlashSpec>,
    /// Power states of a rotating drive (off when absent: the drive is as before).
    #[serde(default)]
    pub power: Option<crate::device::power::PowerSpec>,
    /// `drive = "hybrid"`: the platter drive in the enclosure (a catalog drive or drive
    /// file); `flash` is then its NVCache (default: the Ultra II CF stand-in, 128 MiB).
    #[serde(default)]
    pub platter: Option<String>,
    /// `drive = "hybrid"`: platter and flash serve at the same time (default: one command
    /// at a time through one channel, the spec's serialised assumption).
    #[serde(default)]
    pub concurrent: bool,
    /// `drive = "hybrid"`: ATA-8 NVCache pins made before the run.
    #[serde(default)]
    pub pins: Vec<PinConfig>,
}

/// One ATA-8 NVCache pin of a hybrid drive: `sectors` LBAs from `lbn`; `populate`: Populate
/// Immediate (the flash is filled from the platter, so reads of the range are served by
/// flash at once; without it the next host write of the range lands in flash).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PinConfig {
    pub lbn: u64,
    pub sectors: u64,
    #[serde(default)]
    pub populate: bool,
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
            output: OutputConfig::default(),
            base_dir: None,
            source_file: None,
            written: Written::default(),
        }
    }
}

/// Which drive, and how deep its command queue is.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DriveConfig {
    /// A catalog name (`headway disks`), or a path to a drive file: headway TOML, or a
    /// DiskSim `.parv` / `.diskspecs`.
    #[serde(default = "default_drive")]
    pub name: String,
    /// Commands the drive accepts at once. Default: 1 (the host does all scheduling).
    #[serde(default = "one")]
    pub queue_depth: usize,
    /// How the drive orders its own queue (`fcfs`, `sstf`, `look`, `clook`, `sptf`); default:
    /// the policy its parameter file names (DiskSim's "Scheduling policy").
    #[serde(default)]
    pub firmware_scheduler: Option<String>,
    /// Where the firmware's SPTF ranks its queue from: `decision` (default: where the head
    /// is when it decides) or `last-media-event` (DiskSim 4.0's: the head's track and angle
    /// at the end of the last sector the mechanism moved, to reproduce DiskSim's results).
    #[serde(default)]
    pub firmware_sptf_angle: Option<crate::device::hdd::SptfAngle>,
    /// `[drive.firmware_freeblock]`: the firmware fills the rotational latency of the reads
    /// it starts with free reads of a background scan (the freeblock paper's simulated upper
    /// bound; `docs/freeblock.md`). Default: off.
    #[serde(default)]
    pub firmware_freeblock: Option<crate::device::hdd::FirmwareFreeblockConfig>,
    /// The drive's bus time per sector, reads and writes (ms), in place of its parameters'
    /// (e.g. a catalog drive behind a faster interface: Ultra2 Wide SCSI, 80 MB/s, is
    /// 0.0064 ms). Default: the parameters'.
    #[serde(default)]
    pub bus_sector_transfer_ms: Option<f64>,
    /// `[drive.imperfections]`: seek jitter, spindle drift and the drive's own head
    /// movements, added to the model (default: none).
    #[serde(default)]
    pub imperfections: crate::device::imperfect::Imperfections,
}

fn default_drive() -> String {
    "atlas10k".into()
}
fn one() -> usize {
    1
}

impl Default for DriveConfig {
    fn default() -> Self {
        DriveConfig {
            name: default_drive(),
            queue_depth: 1,
            firmware_scheduler: None,
            firmware_sptf_angle: None,
            firmware_freeblock: None,
            bus_sector_transfer_ms: None,
            imperfections: Default::default(),
        }
    }
}

/// The host's scheduler and its model of the drive.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    #[serde(default = "default_sched")]
    pub scheduler: String,
    #[serde(default = "default_pred")]
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
}

impl HostConfig {
    /// The configured scheduler with its options and inner schedulers.
    pub fn sched_spec(&self) -> SchedSpec {
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
fn default_pred() -> String {
    "oracle".into()
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            scheduler: default_sched(),
            predictor: default_pred(),
            max_outstanding: None,
            options: Default::default(),
            decision_ns_per_estimate: 0,
            predictor_options: Default::default(),
            inner: None,
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
    /// Parse experiment TOML; `origin` names the file in error messages.
    pub fn from_toml_str(text: &str, origin: Option<&Path>) -> Result<Self> {
        let mut cfg: ExperimentConfig =
            toml::from_str(text).map_err(|e| toml_error(text, origin, e))?;
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
            Some(p) => locate::with_key_line(e, text).in_file(p),
            None => e,
        })?;
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
    pub fn device_list(&self) -> Vec<DeviceConfig> {
        if !self.devices.is_empty() {
            return self.devices.clone();
        }
        vec![DeviceConfig {
            name: "disk".into(),
            drive: self.drive.name.clone(),
            queue_depth: self.drive.queue_depth,
            firmware_scheduler: self.drive.firmware_scheduler.clone(),
            firmware_sptf_angle: self.drive.firmware_sptf_angle,
            firmware_freeblock: self.drive.firmware_freeblock.clone(),
            bus_sector_transfer_ms: self.drive.bus_sector_transfer_ms,
            imperfections: self.drive.imperfections.clone(),
            predictor: self.host.predictor.clone(),
            predictor_options: self.host.predictor_options.clone(),
            max_outstanding: self.host.max_outstanding,
            flash: None,
            power: None,
            platter: None,
            concurrent: false,
            pins: Vec::new(),
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
            if d.queue_depth == 0 {
                return Err(HeadwayError::config(
                    key("queue_depth"),
                    "must be at least 1",
                ));
            }
            let max_depth = crate::device::hdd::MAX_QUEUE_DEPTH;
            if d.queue_depth > max_depth {
                return Err(HeadwayError::config(
                    key("queue_depth"),
                    format!("must be at most {max_depth}, got {}", d.queue_depth),
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
            d.imperfections.validate()?;
        }
        for (i, w) in self.workloads.iter().enumerate() {
            let key = |k: &str| format!("workloads[{i}].{k}");
            w.config
                .validate()
                .map_err(|e| e.under(&format!("workloads[{i}]")))?;
            if let Some(name) = &w.common.device {
                if !devices.iter().any(|d| &d.name == name) {
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
pub(crate) fn toml_error(text: &str, origin: Option<&Path>, e: toml::de::Error) -> HeadwayError {
    let line = e
        .span()
        .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
    let msg = e.message().to_string();
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
