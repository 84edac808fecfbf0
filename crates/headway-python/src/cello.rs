//! Cello's evaluation: a thin wrapper over `headway::experiments::cello`; the result
//! crosses as JSON.

use headway::experiments::cello::{reproduce, ReproduceOptions};
use headway::HeadwayError;
use pyo3::prelude::*;

use crate::errors::to_pyerr;
use crate::reproduce::run_reproduction;

/// Run Cello's evaluation. `quick` picks the reduced sizes; `duration_s` overrides the
/// simulated seconds per run; `frame_traces` are MPEG-4 frame-size traces to rescale to the
/// paper's four clips (else the synthetic GOP model). `progress(what)` is called before
/// each run. Returns the reproduction as JSON.
#[pyfunction]
#[pyo3(signature = (quick=false, seed=None, duration_s=None, frame_traces=None, progress=None))]
pub fn reproduce_cello(
    py: Python<'_>,
    quick: bool,
    seed: Option<u64>,
    duration_s: Option<f64>,
    frame_traces: Option<Vec<String>>,
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
    if let Some(d) = duration_s {
        if !(d >= 1.0 && d.is_finite()) {
            return Err(to_pyerr(
                py,
                HeadwayError::config("duration_s", "must be at least 1 second"),
                None,
            ));
        }
        o.duration_s = d;
    }
    if let Some(t) = frame_traces {
        o.frame_traces = t.into_iter().map(Into::into).collect();
    }
    run_reproduction(py, progress, |on_progress| reproduce(&o, on_progress))
}
