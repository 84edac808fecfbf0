use std::path::Path;
use std::sync::Arc;

use super::predictor_kind::PredictorKind;
use super::{DeviceConfig, ExperimentConfig};
use crate::calibrate;
use crate::device::hdd::{HddDevice, HddSpec, Mechanics};
use crate::device::imperfect::with_imperfections;
use crate::device::{catalog, Device, DeviceKind};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::host::array::Arrays;
use crate::host::ctlr_cache;
use crate::host::Host;
use crate::link::Link;
use crate::predict::{CalibratedPredictor, LbnCurvePredictor, OraclePredictor, Predictor};
use crate::sched::{build_for_devices, ProcessInfo, RunInfo, Scheduler};
use crate::sim::{RunLimits, Simulation};
use crate::stats::{DimsOptions, StatsOptions};
use crate::time::{SimTime, NEVER, NS_PER_S};
use crate::workload::{Member, MultiWorkload, Workload, WorkloadConfig};

/// Runs with more processes than this report them together (`by_process` = `all`): each
/// tracked process keeps its own response-time histogram (about 24 KiB).
pub const MAX_TRACKED_PROCESSES: usize = 1024;

/// Known predictor names.
pub const PREDICTOR_NAMES: &[&str] = PredictorKind::NAMES;

/// A drive by catalog name or file path (resolved against `base`), or `FILE.parv#disk`: the
/// disk component `disk` of a DiskSim experiment.
pub fn resolve_drive(name: &str, base: Option<&Path>) -> Result<HddSpec> {
    let in_base = |file: &str| match base {
        Some(b) if Path::new(file).is_relative() => b.join(file),
        _ => Path::new(file).to_path_buf(),
    };
    // `experiment.parv#disk3`: one disk of a DiskSim experiment, by its component name.
    if let Some((file, component)) = name.rsplit_once('#') {
        if file.ends_with(".parv") {
            return crate::device::disksim::load_parv_component(&in_base(file), component);
        }
    }
    let looks_like_path = name.contains('/')
        || name.ends_with(".toml")
        || name.ends_with(".parv")
        || name.ends_with(".diskspecs");
    if !looks_like_path {
        return catalog::lookup(name);
    }
    catalog::load_file(&in_base(name))
}

/// Everything assembled, before running.
pub struct Built {
    pub simulation: Simulation,
    /// The first rotating device's drive (the only one in the `[drive]` form); `None` when
    /// every device is flash (a DiskSim experiment over simple disks).
    pub spec: Option<HddSpec>,
    /// Every device's drive, in `[[devices]]` order.
    pub specs: Vec<HddSpec>,
}

/// One device and the host's model of it.
struct BuiltDevice {
    device: Box<dyn Device>,
    predictor: Box<dyn Predictor>,
    /// `None` for a flash device.
    spec: Option<HddSpec>,
    max_outstanding: usize,
    imperfect: bool,
}

fn build_device(
    d: &DeviceConfig,
    index: usize,
    single: bool,
    base: Option<&Path>,
    rng: &RngStreams,
    link: Link,
    arms: &mut super::arm_devices::ArmDevices,
) -> Result<BuiltDevice> {
    let hybrid = match DeviceKind::of(&d.drive) {
        DeviceKind::Flash => return build_flash(d, index, single),
        DeviceKind::Hybrid => true,
        DeviceKind::Rotating => false,
    };
    let table = device_table(index, single);
    if hybrid && single {
        return Err(HeadwayError::config(
            "drive.name",
            "a hybrid drive is a `[[devices]]` entry (`drive = \"hybrid\"`, `platter = \"ek1000\"`)",
        ));
    }
    if hybrid {
        check_hybrid(d, &table)?;
    } else {
        check_not_hybrid(d, &table)?;
    }
    let drive = if hybrid {
        d.platter.as_deref().expect("checked")
    } else {
        &d.drive
    };
    let mut spec = resolve_drive(drive, base)?;
    if let Some(ms) = d.settings.bus_sector_transfer_ms {
        if !ms.is_finite() || ms <= 0.0 || ms > 1000.0 {
            return Err(HeadwayError::config(
                format!("{table}.bus_sector_transfer_ms"),
                format!("must be a time in ms in (0, 1000], got {ms}"),
            ));
        }
        spec.bus.sector_transfer_ms = ms;
        spec.bus.write_sector_transfer_ms = None;
    }
    super::bus::apply_interface(&mut spec, &d.settings, &table)?;
    let mech = Arc::new(Mechanics::new(&spec)?);
    let depth = d.settings.queue_depth;
    // A shingled layer sends the mechanics one step at a time.
    let shingled = super::smr::chosen(&spec, &d.settings, &table).is_some();
    let mut device = HddDevice::with_mechanics(
        &spec,
        mech.clone(),
        if shingled { 1 } else { depth },
        d.settings.firmware_scheduler.as_deref(),
    )?;
    if let Some(angle) = d.settings.firmware_sptf_angle {
        device = device.with_sptf_angle(angle);
    }
    if let Some(fb) = &d.settings.firmware_freeblock {
        device = device
            .with_firmware_freeblock(fb)
            .map_err(|e| e.under(&table))?;
    }
    let device: Box<dyn Device> = match spec.actuators {
        1 if d.settings.actuator.is_some() => {
            return Err(HeadwayError::config(
                format!("{table}.actuator"),
                format!(
                    "`{}` has one actuator; `actuator` picks an arm of a dual-actuator drive",
                    spec.name
                ),
            ))
        }
        1 => Box::new(device),
        2 => {
            let per_arm = [
                (
                    "firmware_scheduler",
                    d.settings.firmware_scheduler.is_some(),
                ),
                (
                    "firmware_sptf_angle",
                    d.settings.firmware_sptf_angle.is_some(),
                ),
                (
                    "firmware_freeblock",
                    d.settings.firmware_freeblock.is_some(),
                ),
            ];
            if let Some((key, _)) = per_arm.iter().find(|(_, set)| *set) {
                return Err(HeadwayError::config(
                    format!("{table}.{key}"),
                    format!(
                        "`{}` has two actuators, whose firmware queues take the drive's own \
                         policy; `{key}` is not available for it",
                        spec.name
                    ),
                ));
            }
            match d.settings.actuator {
                None => Box::new(crate::device::hdd::dual::DualActuator::new(&spec, depth)?),
                Some(a) if a < 2 => {
                    let half = arms.take(&d.drive, &spec, a as usize, depth, &table)?;
                    // The host's model of this device is its arm's half of the drive.
                    spec = crate::device::hdd::dual::half_spec(&spec)?;
                    Box::new(half)
                }
                Some(a) => {
                    return Err(HeadwayError::config(
                        format!("{table}.actuator"),
                        format!("an arm of a dual-actuator drive is 0 or 1, got {a}"),
                    ))
                }
            }
        }
        n => {
            return Err(HeadwayError::params(
                None,
                None,
                Some("actuators".into()),
                format!("{}: a drive has 1 or 2 actuators, got {n}", spec.name),
            ))
        }
    };
    let imperfections = &d.settings.imperfections;
    // Device 0 draws from the streams the single-device form always used, so adding the
    // array form changed no run; later devices get streams of their own.
    let dev_rng = if index == 0 {
        *rng
    } else {
        rng.derive(&format!("device{index}"))
    };
    let device = with_imperfections(device, mech.clone(), imperfections, &dev_rng);
    let device = super::smr::with_shingling(device, &spec, &d.settings, depth, &table)?;
    let device: Box<dyn Device> = match &d.power {
        None => device,
        Some(p) => Box::new(
            crate::device::power::Powered::boxed(device, p.clone())
                .map_err(|e| e.under(&device_table(index, single)))?,
        ),
    };
    let device: Box<dyn Device> = if hybrid {
        Box::new(build_hybrid(device, &spec.name, d, &table)?)
    } else {
        device
    };
    let predictor: Box<dyn Predictor> = match PredictorKind::parse(&d.predictor)? {
        PredictorKind::Oracle => Box::new(OraclePredictor::of_drive(&spec, mech, link.command_ns)),
        // Built from what timing a fresh copy of the same drive reveals (once per process).
        PredictorKind::Calibrated => Box::new(CalibratedPredictor::new(
            calibrate::extract_cached(&spec, link, imperfections)?,
            &d.predictor_options,
            link.completion_ns,
        )),
        PredictorKind::LbnCurve => Box::new(LbnCurvePredictor::new(calibrate::extract_cached(
            &spec,
            link,
            imperfections,
        )?)),
    };
    let max_out = d.max_outstanding.unwrap_or(depth);
    if max_out > depth {
        let (key, depth_key) = if single {
            (
                "host.max_outstanding".to_string(),
                "drive.queue_depth".to_string(),
            )
        } else {
            (
                format!("devices[{index}].max_outstanding"),
                format!("devices[{index}].queue_depth"),
            )
        };
        return Err(HeadwayError::config(
            key,
            format!("{max_out} commands outstanding cannot fit a drive queue of depth {depth} ({depth_key})"),
        ));
    }
    Ok(BuiltDevice {
        device,
        predictor,
        spec: Some(spec),
        max_outstanding: max_out,
        imperfect: !d.settings.imperfections.is_none(),
    })
}

fn device_table(index: usize, single: bool) -> String {
    if single {
        "drive".into()
    } else {
        format!("devices[{index}]")
    }
}

/// The keys only a hybrid has, on any other device, are errors (not silently ignored).
fn check_not_hybrid(d: &DeviceConfig, table: &str) -> Result<()> {
    let misplaced = [
        ("platter", d.platter.is_some()),
        ("flash", d.flash.is_some()),
        ("concurrent", d.concurrent),
        ("pins", !d.pins.is_empty()),
    ];
    match misplaced.iter().find(|(_, set)| *set) {
        Some((key, _)) => Err(HeadwayError::config(
            format!("{table}.{key}"),
            format!(
                "`{key}` is for `drive = \"hybrid\"` (or `flash` for `drive = \"flash\"`), not drive `{}`",
                d.drive
            ),
        )),
        None => Ok(()),
    }
}

fn check_hybrid(d: &DeviceConfig, table: &str) -> Result<()> {
    match d.platter.as_deref() {
        None => Err(HeadwayError::config(
            format!("{table}.platter"),
            "a hybrid drive needs a platter drive (`platter = \"ek1000\"`, any catalog drive or drive file)",
        )),
        Some(p) if DeviceKind::of(p) != DeviceKind::Rotating => Err(HeadwayError::config(
            format!("{table}.platter"),
            format!("a hybrid's platter is a rotating drive, not `{p}`"),
        )),
        Some(_) => Ok(()),
    }
}

/// A hybrid drive (`drive = "hybrid"`): the platter drive built as any rotating drive
/// (imperfections, power states), its NVCache, and the pins made before the run.
fn build_hybrid(
    platter: Box<dyn Device>,
    platter_name: &str,
    d: &DeviceConfig,
    table: &str,
) -> Result<crate::device::hybrid::HybridDevice> {
    use crate::device::flash::FlashSpec;
    let flash = d
        .flash
        .clone()
        .unwrap_or_else(|| FlashSpec::ultra2_cf(128 << 20));
    let mut dev = crate::device::hybrid::HybridDevice::with_platter(
        platter,
        platter_name,
        flash,
        d.concurrent,
        table,
    )?
    .with_queue_depth(d.settings.queue_depth);
    for (i, pin) in d.pins.iter().enumerate() {
        dev.pin(pin.lbn, pin.lbn.saturating_add(pin.sectors), pin.populate)
            .map_err(|e| match e {
                HeadwayError::Config { msg, .. } => {
                    HeadwayError::config(format!("{table}.pins[{i}]"), msg)
                }
                other => other,
            })?;
    }
    Ok(dev)
}

/// A flash device (`drive = "flash"`): one channel, size-based times, its own predictor.
fn build_flash(d: &DeviceConfig, index: usize, single: bool) -> Result<BuiltDevice> {
    use crate::device::flash::{FlashDevice, FlashSpec};
    use crate::predict::FlashPredictor;
    let table = device_table(index, single);
    if d.power.is_some() {
        return Err(HeadwayError::config(
            format!("{table}.power"),
            "power states are for rotating drives; a flash device has none",
        ));
    }
    let spec = d
        .flash
        .clone()
        .unwrap_or_else(|| FlashSpec::ultra2_cf(128 << 20));
    let device = FlashDevice::new(spec.clone(), d.settings.queue_depth, false)
        .map_err(|e| e.under(&table))?;
    let max_out = d
        .max_outstanding
        .unwrap_or(d.settings.queue_depth)
        .min(d.settings.queue_depth.max(1));
    Ok(BuiltDevice {
        device: Box::new(device),
        predictor: Box::new(FlashPredictor::new(spec)),
        spec: None,
        max_outstanding: max_out.max(1),
        imperfect: false,
    })
}

/// Processes a workload runs (closed: its population; otherwise one stream).
fn process_count(w: &WorkloadConfig) -> u32 {
    match w {
        WorkloadConfig::Closed(c) => c.processes.max(1),
        WorkloadConfig::Video(c) => c.clients.max(1),
        WorkloadConfig::Text(c) => c.clients.max(1),
        WorkloadConfig::Synthgen(c) => c.generators.len().max(1) as u32,
        WorkloadConfig::Zoned(c) => c.writers.max(1),
        _ => 1,
    }
}

/// The workloads, and what the run tells the host about them.
fn build_workloads(
    cfg: &ExperimentConfig,
    devices: &[DeviceConfig],
    capacities: &[u64],
    volumes: &Option<Arrays>,
    rng: &RngStreams,
) -> Result<(Box<dyn Workload>, RunInfo)> {
    let entries = cfg.workload_list();
    let base = cfg.base_dir.as_deref();
    let mut info = RunInfo {
        devices: devices.iter().map(|d| d.name.clone()).collect(),
        classes: Vec::new(),
        workloads: Vec::new(),
        processes: Vec::new(),
    };
    // With volumes, even the one `[workload]` is placed on its device (the first volume),
    // unless it addresses devices itself (DiskSim's generators name theirs, volumes too).
    let own_devices = matches!(cfg.workload, WorkloadConfig::Synthgen(_));
    let single = cfg.workloads.is_empty() && (volumes.is_none() || own_devices);
    if single {
        let w = cfg.workload.build(capacities[0], rng, base)?;
        info.classes.push("default".into());
        info.workloads.push("workload".into());
        let synchronous = matches!(
            cfg.workload,
            WorkloadConfig::Closed(_) | WorkloadConfig::Sync(_) | WorkloadConfig::App(_)
        ) || matches!(&cfg.workload, WorkloadConfig::Synthgen(c)
            if c.generators.iter().any(|g| g.prob_time_critical > 0.0));
        for _ in 0..process_count(&cfg.workload) {
            info.processes.push(ProcessInfo {
                workload: 0,
                class: 0,
                share: 1.0,
                synchronous,
            });
        }
        return Ok((w, info));
    }
    let mut members = Vec::with_capacity(entries.len());
    let mut process_base = 0u32;
    for (i, e) in entries.iter().enumerate() {
        let table = format!("workloads[{i}]");
        let c = &e.common;
        let class_name = c.class.clone().unwrap_or_else(|| "default".into());
        let class = match info.classes.iter().position(|n| *n == class_name) {
            Some(k) => k,
            None => {
                info.classes.push(class_name);
                info.classes.len() - 1
            }
        } as u16;
        // A volume's id follows the devices'; a workload naming no device addresses the
        // first volume when there are volumes.
        let volume = |k: usize| {
            let a = volumes.as_ref().expect("a volume");
            (devices.len() + k, a.capacities[k])
        };
        let (device, cap) = match &c.device {
            Some(n) => match devices.iter().position(|d| &d.name == n) {
                Some(d) => (d, capacities[d]),
                None => volume(
                    volumes
                        .as_ref()
                        .and_then(|a| a.names.iter().position(|v| v == n))
                        .expect("validated: workloads name existing devices or volumes"),
                ),
            },
            None if volumes.is_some() => volume(0),
            None => (0, capacities[0]),
        };
        let (region_start, region_sectors) = match &c.region {
            Some(r) => r.resolve(cap, &format!("{table}.region"))?,
            None => (0, cap),
        };
        // Each workload draws from streams of its own (the first from the single form's).
        let wrng = if i == 0 {
            *rng
        } else {
            rng.derive(&format!("workload{i}"))
        };
        let workload = e
            .config
            .build(region_sectors, &wrng, base)
            .map_err(|err| err.under(&table))?;
        info.workloads
            .push(c.name.clone().unwrap_or_else(|| format!("workload{i}")));
        let n = process_count(&e.config);
        let synchronous = matches!(
            e.config,
            WorkloadConfig::Closed(_) | WorkloadConfig::Sync(_) | WorkloadConfig::App(_)
        ) || matches!(&cfg.workload, WorkloadConfig::Synthgen(c)
            if c.generators.iter().any(|g| g.prob_time_critical > 0.0));
        for _ in 0..n {
            info.processes.push(ProcessInfo {
                workload: i as u16,
                class,
                share: c.share.unwrap_or(1.0),
                synchronous,
            });
        }
        members.push(Member {
            workload,
            class,
            device: device as u16,
            process_base,
            region_start,
            deadline_ns: c.deadline_ms.map(|ms| (ms * 1e6).round() as SimTime),
        });
        process_base += n;
    }
    Ok((Box::new(MultiWorkload::new(members)), info))
}

/// Build a simulation from a config; `scheduler` overrides the configured one (a Python
/// plug-in, for instance).
pub fn build_simulation(
    cfg: &ExperimentConfig,
    scheduler: Option<Box<dyn Scheduler>>,
) -> Result<Built> {
    // A setting refused here (a device's keys, a scheduler's options) names the experiment
    // file as one refused while reading it does; trace errors keep their own file.
    // An unknown name or a missing trace is placed at the key that names it.
    build(cfg, scheduler).map_err(|e| match &cfg.source_file {
        Some(f) => {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            super::locate::in_experiment(e, &text, f)
        }
        None => e,
    })
}

fn build(cfg: &ExperimentConfig, scheduler: Option<Box<dyn Scheduler>>) -> Result<Built> {
    let rng = RngStreams::new(cfg.seed);
    let link = Link::new(&cfg.link);
    let device_cfgs = cfg.device_list();
    let single = cfg.devices.is_empty();
    let mut devices = Vec::with_capacity(device_cfgs.len());
    let mut predictors = Vec::with_capacity(device_cfgs.len());
    let mut max_out = Vec::with_capacity(device_cfgs.len());
    let mut specs = Vec::with_capacity(device_cfgs.len());
    let mut imperfect = false;
    let mut arms = super::arm_devices::ArmDevices::default();
    let mut bus_holds = Vec::with_capacity(device_cfgs.len());
    for (i, d) in device_cfgs.iter().enumerate() {
        let b = build_device(d, i, single, cfg.base_dir.as_deref(), &rng, link, &mut arms)?;
        bus_holds.push(b.spec.as_ref().map(super::shared_bus::bus_hold));
        devices.push(b.device);
        predictors.push(b.predictor);
        max_out.push(b.max_outstanding);
        specs.extend(b.spec);
        imperfect |= b.imperfect;
    }
    let buses = super::shared_bus::shared_buses(&device_cfgs, &bus_holds, &cfg.buses)?;
    let capacities: Vec<u64> = devices.iter().map(|d| d.info().capacity_sectors).collect();
    let plugin = scheduler.is_some();
    let scheduler = match scheduler {
        Some(s) => s,
        None => {
            let spec = cfg.host.sched_spec();
            super::capabilities::check(&spec, &device_cfgs, single, &predictors)?;
            build_for_devices(&spec, device_cfgs.len())?
        }
    };
    let scheduler = super::zone_plug::wrap(cfg, scheduler, &devices)?;
    let caches: Vec<_> = device_cfgs
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let c = d.cache.as_ref()?;
            Some((i as u16, c, format!("devices[{i}].cache")))
        })
        .collect();
    let scheduler = ctlr_cache::front(scheduler, &caches)?;
    let wraps = cfg.host.inner.is_some() || !caches.is_empty();
    // Prediction accuracy is only news when the host's model can differ from the drive:
    // a predictor other than the drive's own, or a drive with imperfections.
    let track_predictions = cfg.output.predictions.unwrap_or(
        device_cfgs
            .iter()
            .any(|d| d.predictor != PredictorKind::Oracle.name())
            || imperfect,
    );
    let volumes = if cfg.arrays.is_empty() {
        None
    } else {
        let names: Vec<String> = device_cfgs.iter().map(|d| d.name.clone()).collect();
        Some(Arrays::build(&cfg.arrays, &names, &capacities)?)
    };
    let (workload, info) = build_workloads(cfg, &device_cfgs, &capacities, &volumes, &rng)?;
    let (scheduler, array_report) = match volumes {
        None => (scheduler, None),
        Some(a) => {
            let caps = a.capacities.clone();
            let (s, report) = a.front(scheduler, devices.len() as u16, cfg.output.records)?;
            (s, Some((report, caps)))
        }
    };
    // A dimension with one value costs nothing: only the others are tracked per request.
    // Host-made work can come from any wrapper and any plug-in.
    let origins = info.workloads.len() > 1 || wraps || plugin;
    let dims = DimsOptions {
        classes: info.classes.len() > 1,
        processes: info.processes.len() > 1 && info.processes.len() <= MAX_TRACKED_PROCESSES,
        devices: devices.len() > 1 || origins,
        origins: origins || array_report.is_some(),
        series_ns: cfg
            .output
            .series_ms
            .map_or(0, |ms| ((ms * 1e6).round() as SimTime).max(1)),
    };
    let host = Host::new(scheduler, predictors, max_out)
        .with_decision_cost(cfg.host.decision_ns_per_estimate)
        .with_prediction_tracking(track_predictions)
        .with_info(info);
    let limits = RunLimits {
        max_time_ns: cfg
            .output
            .max_time_s
            .map(|s| (s * NS_PER_S as f64) as u64)
            .unwrap_or(NEVER),
    };
    let spec = specs.first().cloned();
    let warnings = cfg
        .reader_warnings
        .iter()
        .cloned()
        .chain(specs.iter().flat_map(|s| s.unmodelled_settings()))
        .collect();
    let simulation = Simulation::new(
        workload,
        host,
        devices,
        link,
        StatsOptions {
            records: cfg.output.records,
            dims,
        },
        limits,
    )
    .with_rotation_ns(spec.as_ref().map_or(0.0, |s| 60.0e9 / s.rpm))
    .with_warnings(warnings)
    .with_shared_buses(buses)
    .with_arrays(array_report);
    Ok(Built {
        simulation,
        spec,
        specs,
    })
}
