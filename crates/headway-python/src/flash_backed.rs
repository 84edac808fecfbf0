//! The flash-backed I/O paper's reproduction. A thin wrapper over
//! `headway::experiments::flash_backed`; the result crosses as JSON.

use headway::experiments::flash_backed::{reproduce, ReproduceOptions};
use pyo3::prelude::*;

use crate::reproduce::{at_least_one, run_reproduction};

/// Run the flash-backed paper's evaluation. `quick` picks the reduced sizes; `hp_trace` is
/// the path of the HP `ajw.1week.srt` week (the HP rows and `hp_idle_share_10mb` need it);
/// `progress(what)` is called before each step (Ctrl-C stops there). Returns JSON.
#[pyfunction]
#[pyo3(signature = (quick=false, hp_trace=None, synthetic_requests=None, core_requests=None, progress=None, seed=None))]
pub fn reproduce_flash_backed(
    py: Python<'_>,
    quick: bool,
    hp_trace: Option<String>,
    synthetic_requests: Option<usize>,
    core_requests: Option<u64>,
    progress: Option<Py<PyAny>>,
    seed: Option<u64>,
) -> PyResult<String> {
    let mut o = if quick {
        ReproduceOptions::quick()
    } else {
        ReproduceOptions::full()
    };
    o.hp_trace = hp_trace.map(Into::into);
    if let Some(n) = synthetic_requests {
        o.synthetic_requests = at_least_one(py, "synthetic_requests", n)?;
    }
    if let Some(n) = core_requests {
        o.core_requests = n;
    }
    if let Some(s) = seed {
        o.seed = s;
    }
    run_reproduction(py, progress, |on_progress| reproduce(&o, on_progress))
}
