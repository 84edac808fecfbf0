//! The one place where core errors become Python exceptions. `str(exception)` is always the
//! core's message exactly (file, line and key included), so the CLI can print it as is.

use headway::HeadwayError as CoreError;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyIsADirectoryError, PyLookupError, PyOSError,
    PyPermissionError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use pyo3::{create_exception, PyTypeInfo};

create_exception!(
    headway,
    HeadwayError,
    PyException,
    "Base class of every error headway reports about its input or a run."
);
create_exception!(
    headway,
    ConfigError,
    HeadwayError,
    "An experiment file or dict has a wrong, missing or impossible key."
);
create_exception!(
    headway,
    DriveParamsError,
    HeadwayError,
    "A drive parameter file (catalog TOML, DiskSim .diskspecs/.model/.seek/.parv) is malformed."
);
create_exception!(
    headway,
    TraceError,
    HeadwayError,
    "A trace record is malformed."
);
create_exception!(
    headway,
    PluginError,
    HeadwayError,
    "A plug-in (a scheduler written in Python) failed; the original exception is __cause__."
);
create_exception!(
    headway,
    InvariantError,
    HeadwayError,
    "A scheduler or device broke one of the simulator's invariants."
);

static UNKNOWN_NAME_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `UnknownNameError(HeadwayError, LookupError)`: a name missing from a registry is a failed
/// lookup, so `except LookupError` works too. Not `KeyError`: its `str()` adds quotes, and the
/// message must stay exactly the core's. Built with `type()` because `create_exception!`
/// takes a single base.
pub fn unknown_name_error(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let ty = UNKNOWN_NAME_ERROR.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        let bases = PyTuple::new(
            py,
            [
                HeadwayError::type_object(py).into_any(),
                PyLookupError::type_object(py).into_any(),
            ],
        )?;
        let body = PyDict::new(py);
        body.set_item("__module__", "headway")?;
        body.set_item(
            "__doc__",
            "A drive, scheduler, predictor or trace format name that headway does not know; \
             the message lists the known ones.",
        )?;
        let made = PyType::type_object(py).call1(("UnknownNameError", bases, body))?;
        Ok(made.cast_into::<PyType>()?.unbind())
    })?;
    Ok(ty.bind(py))
}

/// Map a core error to its exception. `cause` is the Python exception behind a plug-in
/// failure; it becomes `__cause__` so the user's traceback survives.
pub fn to_pyerr(py: Python<'_>, err: CoreError, cause: Option<PyErr>) -> PyErr {
    let msg = err.to_string();
    let exc = match err.kind() {
        // `kind()` looks through a placing in a file, so `At` only stands for itself here.
        CoreError::Config { .. } | CoreError::At { .. } => ConfigError::new_err(msg),
        CoreError::Params { .. } => DriveParamsError::new_err(msg),
        CoreError::Trace { .. } => TraceError::new_err(msg),
        CoreError::Plugin { .. } => PluginError::new_err(msg),
        CoreError::Invariant(_) => InvariantError::new_err(msg),
        CoreError::Unknown { .. } => match unknown_name_error(py) {
            Ok(ty) => PyErr::from_type(ty.clone(), msg),
            Err(e) => e,
        },
        CoreError::Io { source, .. } => os_error(source, msg),
    };
    if let Some(cause) = cause {
        exc.set_cause(py, Some(cause));
    }
    exc
}

/// The OSError subclass Python itself would raise, carrying the core's message. `errno` and
/// `filename` stay unset on purpose: setting them makes `str()` reformat the message.
fn os_error(source: &std::io::Error, msg: String) -> PyErr {
    use std::io::ErrorKind;
    match source.kind() {
        ErrorKind::NotFound => PyFileNotFoundError::new_err(msg),
        ErrorKind::PermissionDenied => PyPermissionError::new_err(msg),
        ErrorKind::IsADirectory => PyIsADirectoryError::new_err(msg),
        _ => PyOSError::new_err(msg),
    }
}

/// A plug-in failure described for the core (which only carries text); the Python exception
/// itself travels separately and is chained back by [`to_pyerr`].
pub fn describe_py_exception(py: Python<'_>, err: &PyErr) -> String {
    let ty = err
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    let text = err
        .value(py)
        .str()
        .map(|s| s.to_string())
        .unwrap_or_default();
    if text.is_empty() {
        ty
    } else {
        format!("{ty}: {text}")
    }
}

/// Whether `err` should stop the run as itself (Ctrl-C, `sys.exit`) rather than as a
/// `PluginError`: anything that is not an `Exception`.
pub fn is_control_flow(py: Python<'_>, err: &PyErr) -> bool {
    !err.is_instance_of::<PyException>(py)
}

/// A Python plugin's exception as the core's plugin error, with its traceback (for the
/// plugins the core calls outside a scheduler: Cello class schedulers, freeblock tasks).
pub fn plugin_error(name: &str, e: PyErr) -> CoreError {
    CoreError::Plugin {
        name: name.to_string(),
        msg: Python::attach(|py| {
            let tb = e
                .traceback(py)
                .and_then(|t| t.format().ok())
                .unwrap_or_default();
            format!("{tb}{e}")
        }),
    }
}
