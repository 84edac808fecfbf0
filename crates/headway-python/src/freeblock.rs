//! Freeblock scheduling: the paper's reproduction, a thin wrapper over
//! `headway::experiments::freeblock`; the result crosses as JSON.

use headway::experiments::freeblock::{reproduce, ReproduceOptions};
use headway::HeadwayError;
use pyo3::prelude::*;

use crate::errors::to_pyerr;

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
        if n == 0 {
            return Err(to_pyerr(
                py,
                HeadwayError::config("requests", "must be at least 1"),
                None,
            ));
        }
        o.requests = n;
    }
    let mut interrupt: Option<PyErr> = None;
    let mut on_progress = |what: &str| -> headway::Result<()> {
        Python::attach(|py| {
            py.check_signals()?;
            if let Some(cb) = &progress {
                cb.call1(py, (what,))?;
            }
            Ok(())
        })
        .map_err(|e: PyErr| {
            interrupt = Some(e);
            HeadwayError::Plugin {
                name: "progress".into(),
                msg: "reproduction interrupted".into(),
            }
        })
    };
    let out = py.detach(|| reproduce(&o, &mut on_progress));
    match out {
        Ok(r) => Ok(serde_json::to_string(&r).expect("reproduction serialises")),
        Err(e) => Err(interrupt.unwrap_or_else(|| to_pyerr(py, e, None))),
    }
}
