//! Trace tools for Python: format detection, statistics, conversion and column batches.
//! Thin: the keyword options ([`TraceOptions`]) become the core's `TraceSource` and
//! `FeedOptions`, results cross as JSON or column buffers.

use std::path::PathBuf;

use headway::workload::trace::{self, ConvertFormat, TraceBatches};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_pyerr;
use crate::records::column;
use crate::trace_options::TraceOptions;

/// The format of the trace at `path`, detected from its content.
#[pyfunction]
pub fn trace_detect(py: Python<'_>, path: PathBuf) -> PyResult<&'static str> {
    trace::detect_format(&path)
        .map(|f| f.name())
        .map_err(|e| to_pyerr(py, e, None))
}

/// Statistics of a trace as JSON (`TraceStats`).
#[pyfunction]
#[pyo3(signature = (path, **options))]
pub fn trace_stats(
    py: Python<'_>,
    path: PathBuf,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let options = TraceOptions::from_kwargs("trace_stats", options)?;
    let run = || -> headway::Result<String> {
        let src = options.source()?;
        let opts = options.feed()?;
        let s = trace::stats(&path, &src, &opts)?;
        Ok(serde_json::to_string(&s).expect("stats serialise"))
    };
    py.detach(run).map_err(|e| to_pyerr(py, e, None))
}

/// Convert a trace to `to` (`disksim-ascii` or `csv`); returns the records written.
#[pyfunction]
#[pyo3(signature = (input, output, to, **options))]
pub fn trace_convert(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    to: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<u64> {
    let options = TraceOptions::from_kwargs("trace_convert", options)?;
    let run = || -> headway::Result<u64> {
        let to = ConvertFormat::from_name(to)?;
        let src = options.source()?;
        let opts = options.feed()?;
        trace::convert(&input, &src, &output, to, &opts)
    };
    py.detach(run).map_err(|e| to_pyerr(py, e, None))
}

/// A trace read in column batches: `next_batch()` gives `{column: (dtype, bytes)}` or `None`.
#[pyclass(name = "TraceBatchReader", module = "headway._headway", unsendable)]
pub struct PyTraceBatches {
    inner: TraceBatches,
    format: &'static str,
}

#[pymethods]
impl PyTraceBatches {
    #[new]
    #[pyo3(signature = (path, batch_size=65536, **options))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        batch_size: usize,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let options = TraceOptions::from_kwargs("TraceBatchReader.__new__", options)?;
        let open = || -> headway::Result<(TraceBatches, &'static str)> {
            let mut src = options.source()?;
            src.format = src.resolve(&path)?;
            let opts = options.feed()?;
            Ok((
                TraceBatches::open(&path, &src, &opts, batch_size)?,
                src.format.name(),
            ))
        };
        let (inner, format) = open().map_err(|e| to_pyerr(py, e, None))?;
        Ok(PyTraceBatches { inner, format })
    }

    /// The format read (after detection).
    #[getter]
    fn format(&self) -> &'static str {
        self.format
    }

    fn next_batch<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(b) = self.inner.next_batch().map_err(|e| to_pyerr(py, e, None))? else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        column(&d, "time_ns", &b.time_ns)?;
        column(&d, "device", &b.device)?;
        column(&d, "lbn", &b.lbn)?;
        column(&d, "sectors", &b.sectors)?;
        column(&d, "is_read", &b.is_read)?;
        column(&d, "process", &b.process)?;
        let response: Vec<i64> = b
            .response_ns
            .iter()
            .map(|r| r.map_or(-1, |v| v as i64))
            .collect();
        column(&d, "response_ns", &response)?;
        Ok(Some(d))
    }

    /// The name of process `pid`, where the format records names.
    fn process_name(&self, pid: u32) -> Option<String> {
        self.inner.process_name(pid).map(str::to_string)
    }

    /// What was skipped or filtered so far, as JSON (`TraceReport`).
    fn report(&self) -> String {
        serde_json::to_string(&self.inner.report()).expect("report serialises")
    }
}
