//! `serve`: the NBD server in front of a live simulation, until a signal (Ctrl-C, SIGTERM)
//! or a failure stops it. The GIL is released while it serves; every tenth of a second it
//! is taken back to notice a signal and to report progress.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use headway::config::ExperimentConfig;
use headway::serve::{Listen, LiveModel, ServeOptions, Server};
use headway::HeadwayError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_pyerr;
use crate::records::to_columns;

const POLL: Duration = Duration::from_millis(100);
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Serve CONFIG's devices over NBD. Returns `(summary_json, records, meta_json,
/// interrupted)`: `records` maps each column to `(numpy dtype, bytes)` when asked for;
/// `interrupted` says a signal ended it. `on_ready(address)` is called once listening;
/// `progress(completed, mean_response_ms, queue_depth, connections, now_ns)` twice a second.
#[pyfunction]
#[pyo3(signature = (config_toml=None, origin=None, listen="unix:headway.sock", backing=None, speed=1.0, max_connections=16, records=false, record_arrivals=None, on_ready=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn serve<'py>(
    py: Python<'py>,
    config_toml: Option<&str>,
    origin: Option<PathBuf>,
    listen: &str,
    backing: Option<PathBuf>,
    speed: f64,
    max_connections: usize,
    records: bool,
    record_arrivals: Option<PathBuf>,
    on_ready: Option<Py<PyAny>>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Option<Bound<'py, PyDict>>, String, bool)> {
    let err = |e: HeadwayError| to_pyerr(py, e, None);
    let cfg = match (config_toml, &origin) {
        (Some(text), origin) => ExperimentConfig::from_toml_str(text, origin.as_deref()),
        (None, Some(path)) => ExperimentConfig::from_toml_file(path),
        (None, None) => ExperimentConfig::from_toml_str("", None),
    }
    .map_err(err)?;
    let options = ServeOptions {
        listen: Listen::parse(listen).map_err(err)?,
        backing,
        speed,
        max_connections,
        record_arrivals,
    };
    let model = LiveModel::from_config(&cfg).map_err(err)?;
    let devices: Vec<String> = headway::serve::ServeModel::devices(&model)
        .into_iter()
        .map(|d| d.name)
        .collect();
    let server = py
        .detach(|| Server::start(Box::new(model), &options))
        .map_err(err)?;
    let address = server.address().to_string();

    let mut interrupted = false;
    let mut failure: Option<PyErr> = None;
    if let Some(cb) = &on_ready {
        failure = cb.call1(py, (address.clone(),)).err();
    }
    let mut last_progress = Instant::now();
    while failure.is_none() && !server.failed() {
        py.detach(|| std::thread::sleep(POLL));
        if py.check_signals().is_err() {
            interrupted = true;
            break;
        }
        if let Some(cb) = &progress {
            if last_progress.elapsed() >= PROGRESS_EVERY {
                last_progress = Instant::now();
                let p = server.progress();
                let args = (
                    p.completed,
                    p.mean_response_ms,
                    p.queue_depth,
                    p.connections,
                    p.now_ns,
                );
                failure = cb.call1(py, args).err();
            }
        }
    }
    let stopped = py.detach(|| server.stop()).map_err(err)?;
    if let Some(e) = failure {
        return Err(e);
    }
    let columns = match (&stopped.records, records) {
        (Some(r), true) => Some(to_columns(py, r)?),
        _ => None,
    };
    let meta = serde_json::json!({
        "name": cfg.name,
        "seed": cfg.seed,
        "address": address,
        "devices": devices,
        "speed": speed,
    })
    .to_string();
    Ok((stopped.summary.to_string(), columns, meta, interrupted))
}
