//! `LiveCore`: the live simulation (`headway::live::Live`) for the Python `headway.Live`,
//! which keeps the callers' tags and builds the completion objects.

use std::path::PathBuf;

use headway::config::ExperimentConfig;
use headway::live::{Live, LiveCompletion, LiveRequest};
use headway::{HeadwayError, Op};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_pyerr;
use crate::records::to_columns;

/// One completion: `(id, request_id, device, is_read, lbn, sectors, arrival_ns,
/// dispatch_ns, completion_ns)`.
type Row = (u64, u64, u16, bool, u64, u32, u64, u64, u64);

fn row(c: &LiveCompletion) -> Row {
    (
        c.id,
        c.request_id,
        c.device,
        c.op.is_read(),
        c.lbn,
        c.sectors,
        c.arrival_ns,
        c.dispatch_ns,
        c.completion_ns,
    )
}

#[pyclass(unsendable, module = "headway._headway")]
pub struct LiveCore {
    live: Live,
}

#[pymethods]
impl LiveCore {
    #[new]
    #[pyo3(signature = (config_toml=None, origin=None))]
    fn new(py: Python<'_>, config_toml: Option<&str>, origin: Option<PathBuf>) -> PyResult<Self> {
        let cfg = match (config_toml, &origin) {
            (Some(text), origin) => ExperimentConfig::from_toml_str(text, origin.as_deref()),
            (None, Some(path)) => ExperimentConfig::from_toml_file(path),
            (None, None) => ExperimentConfig::from_toml_str("", None),
        };
        let live = cfg
            .and_then(|c| Live::from_config(&c))
            .map_err(|e| to_pyerr(py, e, None))?;
        Ok(LiveCore { live })
    }

    #[allow(clippy::too_many_arguments)]
    fn submit(
        &mut self,
        py: Python<'_>,
        op: &str,
        lbn: u64,
        sectors: u32,
        at_ns: u64,
        device: u16,
        process: u32,
        class: u16,
    ) -> PyResult<u64> {
        let op = match op.to_ascii_lowercase().as_str() {
            "read" | "r" => Op::Read,
            "write" | "w" => Op::Write,
            other => {
                return Err(to_pyerr(
                    py,
                    HeadwayError::config("op", format!("`read` or `write`, got `{other}`")),
                    None,
                ))
            }
        };
        let req = LiveRequest::new(op, lbn, sectors, at_ns)
            .device(device)
            .process(process)
            .class(class);
        self.live.submit(req).map_err(|e| to_pyerr(py, e, None))
    }

    fn next_event_ns(&self) -> Option<u64> {
        self.live.next_event_ns()
    }

    fn now_ns(&self) -> u64 {
        self.live.now_ns()
    }

    fn outstanding(&self) -> usize {
        self.live.outstanding()
    }

    fn advance_to(&mut self, py: Python<'_>, ns: u64) -> PyResult<Vec<Row>> {
        let done = self
            .live
            .advance_to(ns)
            .map_err(|e| to_pyerr(py, e, None))?;
        Ok(done.iter().map(row).collect())
    }

    fn finish(&mut self, py: Python<'_>) -> PyResult<Vec<Row>> {
        let done = self.live.finish().map_err(|e| to_pyerr(py, e, None))?;
        Ok(done.iter().map(row).collect())
    }

    fn close(&mut self) {
        self.live.close();
    }

    /// The summary so far as flat JSON (the shape `run` returns).
    fn summary_json(&self) -> String {
        self.live.summary().to_flat_json().to_string()
    }

    /// The records so far, as `run` returns them.
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        to_columns(py, &self.live.records())
    }
}
