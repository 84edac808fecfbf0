//! `headway._headway`: the Python binding of the headway simulator. Thin glue only; the
//! Python package `headway` is the public face.

mod anticipatory;
mod catalog;
mod cello;
mod cello_class;
mod check;
mod context;
mod errors;
mod flash_backed;
mod freeblock;
mod freeblock_task;
mod live;
mod py_scheduler;
mod records;
mod reproduce;
mod request;
mod rotational;
mod run;
mod serve;
mod trace_options;
mod traces;
mod validate;

use pyo3::prelude::*;

/// Names of the built-in schedulers, in the order headway lists them.
#[pyfunction]
fn schedulers() -> Vec<&'static str> {
    headway::sched::SCHEDULER_NAMES.to_vec()
}

/// Every built-in scheduler as `(name, wraps_another, one-line summary)`.
#[pyfunction]
fn scheduler_info() -> Vec<(&'static str, bool, &'static str)> {
    headway::sched::SCHEDULERS
        .iter()
        .map(|s| (s.name, s.wraps, s.summary))
        .collect()
}

/// Version of the Rust core.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule(name = "_headway")]
mod headway_module {
    use super::*;

    #[pymodule_export]
    use super::{scheduler_info, schedulers, version};
    #[pymodule_export]
    use crate::anticipatory::reproduce_anticipatory;
    #[pymodule_export]
    use crate::catalog::{disks, disksim_file, interfaces};
    #[pymodule_export]
    use crate::cello::reproduce_cello;
    #[pymodule_export]
    use crate::check::check_config;
    #[pymodule_export]
    use crate::context::PyContext;
    #[pymodule_export]
    use crate::errors::{
        ConfigError, DriveParamsError, HeadwayError, InvariantError, PluginError, TraceError,
    };
    #[pymodule_export]
    use crate::flash_backed::reproduce_flash_backed;
    #[pymodule_export]
    use crate::freeblock::reproduce_freeblock;
    #[pymodule_export]
    use crate::live::LiveCore;
    #[pymodule_export]
    use crate::request::{PyCompletion, PyEstimate, PyRequest, PyServe, PyTrackInfo, PyWait};
    #[pymodule_export]
    use crate::rotational::{extract, extract_device, reproduce_rotational};
    #[pymodule_export]
    use crate::run::run;
    #[pymodule_export]
    use crate::serve::serve;
    #[pymodule_export]
    use crate::traces::{trace_convert, trace_detect, trace_stats, PyTraceBatches};
    #[pymodule_export]
    use crate::validate::{validate, validation_traces};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add(
            "UnknownNameError",
            crate::errors::unknown_name_error(m.py())?,
        )
    }
}
