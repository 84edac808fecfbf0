//! `check_config`: parse and build an experiment without running it, so a sweep can report
//! a bad setting before any of its runs start.

use std::path::PathBuf;

use headway::config::{build_simulation, ExperimentConfig};
use pyo3::prelude::*;

use crate::errors::to_pyerr;

/// Raise the error `run` would raise for this experiment at build time; `None` when it is
/// sound. `origin` names the file and anchors relative paths, as for `run`.
#[pyfunction]
#[pyo3(signature = (config_toml, origin=None))]
pub fn check_config(py: Python<'_>, config_toml: &str, origin: Option<PathBuf>) -> PyResult<()> {
    let err = |e| to_pyerr(py, e, None);
    let cfg = ExperimentConfig::from_toml_str(config_toml, origin.as_deref()).map_err(err)?;
    build_simulation(&cfg, None).map_err(err)?;
    Ok(())
}
