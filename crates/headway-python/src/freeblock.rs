//! Freeblock scheduling: the paper's reproduction, a thin wrapper over
//! `headway::experiments::freeblock`; the result crosses as JSON.

use headway::experiments::freeblock::{reproduce, ReproduceOptions};
use pyo3::prelude::*;

use crate::reproduce::{at_least_one, run_reproduction};

/// Run the freeblock paper's evaluation. `quick` picks the reduced sizes; `seed` and
/// `requests` override single options. `progress(what)` is called before each run (with
/// the GIL; Ctrl-C stops the reproduction there). Returns the reproduction as JSON.
#[pyfunction]
#[pyo3(signature = (quick=false, seed=None, requests=None, progress=None))]
pub fn reproduce_freeblock(
    py: Python<'_>,
    quick: bool,
    seed: Option<u64>,
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
    if let Some(n) = requests {
        o.requests = at_least_one(py, "requests", n)?;
    }
    run_reproduction(py, progress, |on_progress| reproduce(&o, on_progress))
}
