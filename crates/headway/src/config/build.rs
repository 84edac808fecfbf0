use std::path::Path;
use std::sync::Arc;

use super::ExperimentConfig;
use crate::calibrate;
use crate::device::hdd::{HddDevice, HddSpec, Mechanics, Overheads};
use crate::device::imperfect::with_imperfections;
use crate::device::{catalog, Device};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::host::Host;
use crate::link::Link;
use crate::predict::{CalibratedPredictor, LbnCurvePredictor, OraclePredictor, Predictor};
use crate::sched::{scheduler_with_options, Scheduler};
use crate::sim::{RunLimits, Simulation};
use crate::stats::StatsOptions;
use crate::time::{NEVER, NS_PER_S};

/// Known predictor names.
pub const PREDICTOR_NAMES: &[&str] = &["oracle", "calibrated", "lbn-curve"];

/// A drive by catalog name or file path (resolved against `base`).
pub fn resolve_drive(name: &str, base: Option<&Path>) -> Result<HddSpec> {
    let looks_like_path = name.contains('/')
        || name.ends_with(".toml")
        || name.ends_with(".parv")
        || name.ends_with(".diskspecs");
    if !looks_like_path {
        return catalog::lookup(name);
    }
    let path = match base {
        Some(b) if Path::new(name).is_relative() => b.join(name),
        _ => Path::new(name).to_path_buf(),
    };
    catalog::load_file(&path)
}

/// Everything assembled, before running.
pub struct Built {
    pub simulation: Simulation,
    pub spec: HddSpec,
}

/// Build a simulation from a config; `scheduler` overrides the configured one (a Python
/// plug-in, for instance).
pub fn build_simulation(
    cfg: &ExperimentConfig,
    scheduler: Option<Box<dyn Scheduler>>,
) -> Result<Built> {
    let spec = resolve_drive(&cfg.drive.name, cfg.base_dir.as_deref()).map_err(|e| match e {
        HeadwayError::Unknown { .. } | HeadwayError::Params { .. } | HeadwayError::Io { .. } => e,
        other => other,
    })?;
    let rng = RngStreams::new(cfg.seed);
    let mech = Arc::new(Mechanics::new(&spec)?);
    let depth = cfg.drive.queue_depth;
    let device = HddDevice::with_mechanics(
        &spec,
        mech.clone(),
        depth,
        cfg.drive.firmware_scheduler.as_deref(),
    )?;
    let capacity = device.info().capacity_sectors;
    let imperfections = &cfg.drive.imperfections;
    let device = with_imperfections(Box::new(device), mech.clone(), imperfections, &rng);
    let link = Link::new(&cfg.link);
    let predictor: Box<dyn Predictor> = match cfg.host.predictor.as_str() {
        "oracle" => Box::new(OraclePredictor::new(
            mech,
            Overheads::from_spec(&spec),
            link.command_ns,
        )),
        // Built from what timing a fresh copy of the same drive reveals (once per process).
        "calibrated" => Box::new(CalibratedPredictor::new(
            calibrate::extract_cached(&spec, link, imperfections)?,
            &cfg.host.predictor_options,
            link.completion_ns,
        )),
        "lbn-curve" => Box::new(LbnCurvePredictor::new(calibrate::extract_cached(
            &spec,
            link,
            imperfections,
        )?)),
        other => {
            return Err(HeadwayError::Unknown {
                kind: "predictor",
                name: other.into(),
                known: PREDICTOR_NAMES.iter().map(|s| s.to_string()).collect(),
            })
        }
    };
    let scheduler = match scheduler {
        Some(s) => s,
        None => scheduler_with_options(&cfg.host.scheduler, &cfg.host.options)?,
    };
    let max_out = cfg.host.max_outstanding.unwrap_or(depth);
    if max_out > depth {
        return Err(HeadwayError::config(
            "host.max_outstanding",
            format!("{max_out} commands outstanding cannot fit a drive queue of depth {depth} (drive.queue_depth)"),
        ));
    }
    // Prediction accuracy is only news when the host's model can differ from the drive:
    // a predictor other than the drive's own, or a drive with imperfections.
    let track_predictions = cfg
        .output
        .predictions
        .unwrap_or(cfg.host.predictor != "oracle" || !cfg.drive.imperfections.is_none());
    let host = Host::new(scheduler, vec![predictor], vec![max_out])
        .with_decision_cost(cfg.host.decision_ns_per_estimate)
        .with_prediction_tracking(track_predictions);
    let workload = cfg
        .workload
        .build(capacity, &rng, cfg.base_dir.as_deref())?;
    let limits = RunLimits {
        max_time_ns: cfg
            .output
            .max_time_s
            .map(|s| (s * NS_PER_S as f64) as u64)
            .unwrap_or(NEVER),
    };
    let simulation = Simulation::new(
        workload,
        host,
        vec![device],
        link,
        StatsOptions {
            records: cfg.output.records,
        },
        limits,
    )
    .with_rotation_ns(60.0e9 / spec.rpm)
    .with_warnings(spec.unmodelled_settings());
    Ok(Built { simulation, spec })
}
