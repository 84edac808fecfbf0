//! Experiment files: TOML parsed once into typed config, with errors that name the file,
//! line and key. The same structures are built from Python dicts.

mod build;

pub use build::{build_simulation, resolve_drive, Built, PREDICTOR_NAMES};

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{HeadwayError, Result};
use crate::link::LinkConfig;
use crate::workload::WorkloadConfig;

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
    #[serde(default)]
    pub output: OutputConfig,
    /// Where relative paths in this config are resolved from (the config file's folder).
    #[serde(skip)]
    pub base_dir: Option<PathBuf>,
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
            output: OutputConfig::default(),
            base_dir: None,
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
}

impl ExperimentConfig {
    /// Parse experiment TOML; `origin` names the file in error messages.
    pub fn from_toml_str(text: &str, origin: Option<&Path>) -> Result<Self> {
        let mut cfg: ExperimentConfig =
            toml::from_str(text).map_err(|e| toml_error(text, origin, e))?;
        cfg.base_dir = origin.and_then(|p| p.parent()).map(Path::to_path_buf);
        cfg.validate().map_err(|e| match origin {
            Some(p) => e.in_file(p),
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

    /// Checks that need more than one key, or ranges serde cannot express.
    pub fn validate(&self) -> Result<()> {
        self.workload.validate()?;
        if self.drive.queue_depth == 0 {
            return Err(HeadwayError::config(
                "drive.queue_depth",
                "must be at least 1",
            ));
        }
        let max_depth = crate::device::hdd::MAX_QUEUE_DEPTH;
        if self.drive.queue_depth > max_depth {
            return Err(HeadwayError::config(
                "drive.queue_depth",
                format!(
                    "must be at most {max_depth}, got {}",
                    self.drive.queue_depth
                ),
            ));
        }
        // Build the scheduler once to check its options now rather than at run time (an
        // unknown name is left for the build, where a plug-in may stand in for it).
        match crate::sched::scheduler_with_options(&self.host.scheduler, &self.host.options) {
            Ok(_) | Err(HeadwayError::Unknown { .. }) => {}
            Err(e) => return Err(e),
        }
        self.host.predictor_options.validate()?;
        self.drive.imperfections.validate()?;
        if self.host.max_outstanding == Some(0) {
            return Err(HeadwayError::config(
                "host.max_outstanding",
                "must be at least 1",
            ));
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
