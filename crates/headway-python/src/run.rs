//! `run`: parse, build, simulate, hand back JSON and column buffers. The GIL is released
//! while a Rust-only simulation runs; progress reports re-attach to call back and to notice
//! Ctrl-C.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

use headway::config::{build_simulation, ExperimentConfig};
use headway::sched::{scheduler_by_name, Scheduler};
use headway::sim::{RunResult, Simulation};
use headway::{HeadwayError, SimTime};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::errors::{is_control_flow, to_pyerr};
use crate::py_scheduler::{CauseSlot, PyScheduler};
use crate::records::to_columns;

/// Lets a Rust-only simulation cross `Python::detach`, which demands `Send`.
///
/// Sound because `detach` runs the closure on this same thread, and a simulation built
/// without a Python scheduler holds no Python object (only `Py<...>` handles, which are
/// `Send`, enter through the progress closure).
struct RustOnly<T>(T);
unsafe impl<T> Send for RustOnly<T> {}
impl<T> RustOnly<T> {
    fn into_inner(self) -> T {
        self.0
    }
}

/// Run one experiment. Returns `(summary_json, records, meta_json)`; `records` maps each
/// column name to `(numpy dtype, bytes)`, or is `None` when records were not asked for.
#[pyfunction]
#[pyo3(signature = (config_toml=None, origin=None, seed=None, records=false, scheduler=None, progress=None, class_schedulers=None, background_task=None, parv_trace=None))]
#[allow(clippy::too_many_arguments)]
pub fn run<'py>(
    py: Python<'py>,
    config_toml: Option<&str>,
    origin: Option<PathBuf>,
    seed: Option<u64>,
    records: bool,
    scheduler: Option<Bound<'py, PyAny>>,
    progress: Option<Py<PyAny>>,
    class_schedulers: Option<Bound<'py, PyDict>>,
    background_task: Option<Py<PyAny>>,
    parv_trace: Option<&str>,
) -> PyResult<(String, Option<Bound<'py, PyDict>>, String)> {
    let err = |e: HeadwayError| to_pyerr(py, e, None);
    let mut cfg = match (config_toml, &origin) {
        // A trace replayed on a DiskSim experiment's whole system.
        (None, Some(path)) if parv_trace.is_some() => {
            ExperimentConfig::from_disksim_replay_toml(path, parv_trace.unwrap_or_default())
        }
        (Some(text), origin) => ExperimentConfig::from_toml_str(text, origin.as_deref()),
        (None, Some(path)) => ExperimentConfig::from_toml_file(path),
        (None, None) => ExperimentConfig::from_toml_str("", None),
    }
    .map_err(err)?;
    if let Some(s) = seed {
        cfg.seed = s;
    }
    cfg.output.records |= records;

    let cause: CauseSlot = Rc::new(RefCell::new(None));
    // A Python scheduler needs the GIL at every decision, so only a Rust-only run detaches.
    let (plugin, scheduler_name, in_python): (Option<Box<dyn Scheduler>>, String, bool) =
        match &scheduler {
            None => (None, cfg.host.scheduler.clone(), false),
            Some(s) if s.is_instance_of::<PyString>() => {
                // A built-in by name: configured as if the file had named it (default
                // options), so the run is the same run as the file's.
                let name = s.to_string();
                scheduler_by_name(&name).map_err(err)?;
                cfg.host.scheduler = name.clone();
                cfg.host.options.clear();
                cfg.host.inner = None;
                (None, name, false)
            }
            Some(obj) => {
                let ps = PyScheduler::new(obj, cause.clone()).map_err(err)?;
                let name = ps.name().to_string();
                (Some(Box::new(ps)), name, true)
            }
        };
    // Cello class schedulers written in Python: the configured `cello` with them plugged in.
    let (plugin, in_python) = match class_schedulers {
        Some(cs) if !cs.is_empty() => {
            if plugin.is_some() || cfg.host.scheduler != "cello" {
                return Err(err(HeadwayError::config(
                    "host.scheduler",
                    "class_schedulers plug into Cello: the experiment must say scheduler = \"cello\"",
                )));
            }
            let reader = headway::sched::OptionReader::new("cello", &cfg.host.options);
            let mut c = headway::sched::cello::Cello::new(
                "cello",
                headway::sched::cello::CelloConfig::from_options(&reader, false).map_err(err)?,
            );
            reader.finish().map_err(err)?;
            for (k, v) in cs.iter() {
                let class: String = k.extract()?;
                c = c.with_class_scheduler(
                    &class,
                    Box::new(crate::cello_class::PyClassScheduler {
                        obj: v.unbind(),
                        label: format!("class scheduler of `{class}`"),
                    }),
                );
            }
            (Some(Box::new(c) as Box<dyn Scheduler>), true)
        }
        _ => (plugin, in_python),
    };
    // A freeblock background task written in Python: the configured `freeblock` wrapper
    // delivering its blocks to the object.
    let (plugin, in_python) = match background_task {
        Some(obj) => {
            if plugin.is_some() || cfg.host.scheduler != "freeblock" {
                return Err(err(HeadwayError::config(
                    "host.scheduler",
                    "background_task plugs into freeblock: the experiment must say scheduler = \"freeblock\"",
                )));
            }
            let inner_spec = cfg.host.inner.as_deref().ok_or_else(|| {
                err(HeadwayError::config(
                    "host.inner",
                    "freeblock wraps another scheduler: name it in [host.inner]",
                ))
            })?;
            let inner = headway::sched::build_scheduler(inner_spec).map_err(err)?;
            let reader = headway::sched::OptionReader::new("freeblock", &cfg.host.options);
            let fb = headway::sched::freeblock::Freeblock::from_options(&reader, inner, None)
                .map_err(err)?;
            reader.finish().map_err(err)?;
            let sink = Box::new(crate::freeblock_task::PyBlockSink { obj });
            (
                Some(Box::new(fb.with_sink(sink)) as Box<dyn Scheduler>),
                true,
            )
        }
        None => (plugin, in_python),
    };
    let built = build_simulation(&cfg, plugin).map_err(err)?;
    let info = built.simulation.info().clone();

    // The progress hook's own failure (Ctrl-C, or the callback raising) is kept here and
    // re-raised as itself once the run has unwound.
    let mut interrupt: Option<PyErr> = None;
    let mut on_progress = |done: u64, now_ns: SimTime| -> headway::Result<()> {
        Python::attach(|py| {
            py.check_signals()?;
            if let Some(cb) = &progress {
                cb.call1(py, (done, now_ns))?;
            }
            Ok(())
        })
        .map_err(|e: PyErr| {
            interrupt = Some(e);
            HeadwayError::Plugin {
                name: "progress".into(),
                msg: "run interrupted".into(),
            }
        })
    };
    let timed = |sim: Simulation, hook: &mut dyn FnMut(u64, SimTime) -> headway::Result<()>| {
        let t0 = Instant::now();
        let out = sim.run_with_progress(hook);
        (out, t0.elapsed().as_secs_f64())
    };
    let (outcome, wall_s) = if in_python {
        timed(built.simulation, &mut on_progress)
    } else {
        let sim = RustOnly(built.simulation);
        py.detach(|| timed(sim.into_inner(), &mut on_progress))
    };

    let result: RunResult = match outcome {
        Ok(r) => r,
        Err(e) => {
            if let Some(stop) = interrupt {
                return Err(stop);
            }
            let cause = cause.borrow_mut().take();
            return Err(match cause {
                Some(c) if is_control_flow(py, &c) => c,
                c => to_pyerr(py, e, c),
            });
        }
    };

    let summary = result.summary.to_flat_json().to_string();
    let columns = match &result.records {
        Some(r) => Some(to_columns(py, r)?),
        None => None,
    };
    let meta = serde_json::json!({
        "name": cfg.name,
        "seed": cfg.seed,
        "drive": built.spec.as_ref().map_or("flash", |s| s.name.as_str()),
        "scheduler": scheduler_name,
        "queue_depth": cfg.drive.settings.queue_depth,
        "arrived": result.summary.arrived,
        "end_ns": result.end_ns,
        "events": result.events,
        "sim_wall_s": wall_s,
        "warnings": result.warnings,
        "trace_report": result.trace_report,
        "prediction_errors": result.summary.prediction.error_histogram,
        "classes": info.classes,
        "devices": info.devices,
        "workloads": info.workloads,
        "host_origins": result.host_origins,
        "class_series": result.series,
        "arrays": result.arrays,
        "smr": result.smr,
        "zoned": result.zoned,
    })
    .to_string();
    Ok((summary, columns, meta))
}
