//! Validation against real drives: a thin wrapper over `headway::validate`.

use std::path::Path;

use headway::config::resolve_drive;
use headway::validate::{
    builtin_trace, builtin_trace_names, disksim_demerit_ms, read_validate_trace,
    validate as run_validation, BuiltinTrace,
};
use headway::HeadwayError as CoreError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_pyerr;
use crate::records::to_columns;

/// Replay a validate-format trace (a file, or the name of a shipped trace such as
/// `atlas10k`) on `drive` (default: the shipped trace's drive, or the file's stem) in
/// validate mode. `drive` is a catalog name or a drive file (`.parv`, `.diskspecs`, `.toml`),
/// so an edited parameter file can be scored. Returns (report_json, measured_ms,
/// simulated_ms, record columns), per request in trace order.
#[pyfunction]
#[pyo3(signature = (trace, drive=None))]
pub fn validate<'py>(
    py: Python<'py>,
    trace: &str,
    drive: Option<&str>,
) -> PyResult<(String, Vec<f64>, Vec<f64>, Bound<'py, PyDict>)> {
    let go = || -> headway::Result<_> {
        let path = Path::new(trace);
        let (records, default_drive) = if path.exists() {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_lowercase();
            (read_validate_trace(path)?, stem)
        } else if let Ok(t) = BuiltinTrace::get(trace) {
            (builtin_trace(trace)?, t.drive.to_string())
        } else {
            return Err(CoreError::Unknown {
                kind: "validation trace (not a file, not a shipped trace)",
                name: trace.into(),
                known: builtin_trace_names(),
            });
        };
        let spec = resolve_drive(drive.unwrap_or(&default_drive), None)?;
        let report = run_validation(&spec, &records)?;
        // DiskSim's figure is for its own trace of the drive: shown when the drive is the
        // catalog's (a user's edited file has a name of its own).
        let disksim = disksim_demerit_ms(&report.drive);
        let mut json = serde_json::to_value(&report).expect("report serialises");
        json["disksim_demerit_ms"] = serde_json::json!(disksim);
        let (m, s): (Vec<f64>, Vec<f64>) = report.pairs.iter().copied().unzip();
        Ok((json.to_string(), m, s, report.records))
    };
    let (json, m, s, records) = py.detach(go).map_err(|e| to_pyerr(py, e, None))?;
    Ok((json, m, s, to_columns(py, &records)?))
}

/// Names of the validation traces shipped with headway.
#[pyfunction]
pub fn validation_traces() -> Vec<String> {
    builtin_trace_names()
}
