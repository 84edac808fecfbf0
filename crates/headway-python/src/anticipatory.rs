//! The anticipatory-scheduling paper's reproduction: a thin wrapper over
//! `headway::experiments::anticipatory`; the result crosses as JSON.

use headway::experiments::anticipatory::{reproduce, ReproduceOptions};
use pyo3::prelude::*;

use crate::reproduce::{at_least_one, run_reproduction};

/// Run the anticipatory paper's evaluation. `quick` picks the reduced sizes; `requests`
/// overrides the reads per process per run. `progress(what)` is called before each run
/// (with the GIL; Ctrl-C stops the reproduction there). Returns the reproduction as JSON.
#[pyfunction]
#[pyo3(signature = (quick=false, seed=None, drive=None, requests=None, progress=None))]
pub fn reproduce_anticipatory(
    py: Python<'_>,
    quick: bool,
    seed: Option<u64>,
    drive: Option<String>,
    requests: Option<u64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let mut o = if quick {
        ReproduceOptions::quick()
    } else {
        ReproduceOptions::full()
    };
    if let Some(s) = seed {
        o.seed = s;
    }
    if let Some(d) = drive {
        o.drive = d;
    }
    if let Some(n) = requests {
        o.requests = at_least_one(py, "requests", n)?;
    }
    run_reproduction(py, progress, |on_progress| reproduce(&o, on_progress))
}
