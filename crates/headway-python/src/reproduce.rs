//! What every paper's reproduction binding shares: run it without the GIL, call the Python
//! progress callback (and check for Ctrl-C) before each run, and hand the result back as JSON.

use headway::HeadwayError;
use pyo3::prelude::*;
use serde::Serialize;

use crate::errors::to_pyerr;

/// A count option of a reproduction: a zero would be silently meaningless (nothing to
/// measure), so it is refused as a keyed error.
pub fn at_least_one<T: PartialEq + Default>(py: Python<'_>, key: &str, n: T) -> PyResult<T> {
    if n == T::default() {
        Err(to_pyerr(
            py,
            HeadwayError::config(key, "must be at least 1"),
            None,
        ))
    } else {
        Ok(n)
    }
}

/// Run `reproduce(progress)`; `progress(what)` is called with the GIL before each run. A
/// callback's exception (or Ctrl-C) stops the reproduction there and is raised as itself.
pub fn run_reproduction<R: Serialize + Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    reproduce: impl FnOnce(&mut dyn FnMut(&str) -> headway::Result<()>) -> headway::Result<R> + Send,
) -> PyResult<String> {
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
    let out = py.detach(|| reproduce(&mut on_progress));
    match out {
        Ok(r) => Ok(serde_json::to_string(&r).expect("reproduction serialises")),
        Err(e) => Err(interrupt.unwrap_or_else(|| to_pyerr(py, e, None))),
    }
}
