//! Trace tools for Python: format detection, statistics, conversion and column batches.
//! Thin: options are turned into the core's `TraceSource` and `FeedOptions`, results cross as
//! JSON or column buffers.

use std::path::PathBuf;

use headway::workload::trace::{
    self, BlkparseEvent, ConvertFormat, CsvSpec, DeviceSelect, FeedOptions, TraceBatches,
    TraceFormat, TraceSource,
};
use headway::{HeadwayError, Op};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_pyerr;
use crate::records::column;

fn source(
    format: Option<&str>,
    csv_map: Option<&str>,
    blkparse_event: Option<&str>,
) -> headway::Result<TraceSource> {
    let mut src = TraceSource::new(match format {
        Some(f) => TraceFormat::from_name(f)?,
        None => TraceFormat::Auto,
    });
    if let Some(m) = csv_map {
        if !matches!(src.format, TraceFormat::Csv | TraceFormat::Auto) {
            return Err(HeadwayError::config(
                "csv-map",
                format!(
                    "a column mapping needs format csv (format is {})",
                    src.format.name()
                ),
            ));
        }
        src.format = TraceFormat::Csv;
        src.csv = Some(CsvSpec::parse_map(m)?);
    }
    if let Some(e) = blkparse_event {
        src.blkparse_event = BlkparseEvent::parse(e).ok_or_else(|| {
            HeadwayError::config(
                "blkparse-event",
                format!("`{e}`: expected Q (queued) or D (dispatched)"),
            )
        })?;
    }
    Ok(src)
}

#[allow(clippy::too_many_arguments)]
fn feed_options(
    device: Option<u16>,
    devices: Option<Vec<u16>>,
    op: Option<&str>,
    start_s: Option<f64>,
    end_s: Option<f64>,
    limit: Option<u64>,
    skip_bad: bool,
) -> headway::Result<FeedOptions> {
    let op = match op {
        None => None,
        Some("read") => Some(Op::Read),
        Some("write") => Some(Op::Write),
        Some(o) => {
            return Err(HeadwayError::config(
                "op",
                format!("`{o}`: expected read or write"),
            ))
        }
    };
    let secs = |key: &str, v: Option<f64>| -> headway::Result<Option<u64>> {
        match v {
            Some(s) if !(s >= 0.0 && s.is_finite()) => Err(HeadwayError::config(
                key,
                format!("must be a non-negative number of seconds, got {s}"),
            )),
            Some(s) => Ok(Some((s * 1e9).round() as u64)),
            None => Ok(None),
        }
    };
    Ok(FeedOptions {
        devices: match (device, devices) {
            (Some(d), None) => DeviceSelect::One(d),
            (None, Some(v)) => DeviceSelect::Set(v),
            (None, None) => DeviceSelect::Merge,
            (Some(_), Some(_)) => {
                return Err(HeadwayError::config(
                    "device",
                    "give device or devices, not both",
                ))
            }
        },
        op,
        start_ns: secs("start", start_s)?.unwrap_or(0),
        end_ns: secs("end", end_s)?,
        limit,
        skip_bad,
        ..FeedOptions::default()
    })
}

/// The format of the trace at `path`, detected from its content.
#[pyfunction]
pub fn trace_detect(py: Python<'_>, path: PathBuf) -> PyResult<&'static str> {
    trace::detect_format(&path)
        .map(|f| f.name())
        .map_err(|e| to_pyerr(py, e, None))
}

/// Statistics of a trace as JSON (`TraceStats`).
#[pyfunction]
#[pyo3(signature = (path, format=None, csv_map=None, blkparse_event=None, device=None, devices=None, op=None, start_s=None, end_s=None, limit=None, skip_bad=false))]
#[allow(clippy::too_many_arguments)]
pub fn trace_stats(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    csv_map: Option<&str>,
    blkparse_event: Option<&str>,
    device: Option<u16>,
    devices: Option<Vec<u16>>,
    op: Option<&str>,
    start_s: Option<f64>,
    end_s: Option<f64>,
    limit: Option<u64>,
    skip_bad: bool,
) -> PyResult<String> {
    let run = || -> headway::Result<String> {
        let src = source(format, csv_map, blkparse_event)?;
        let opts = feed_options(device, devices, op, start_s, end_s, limit, skip_bad)?;
        let s = trace::stats(&path, &src, &opts)?;
        Ok(serde_json::to_string(&s).expect("stats serialise"))
    };
    py.detach(run).map_err(|e| to_pyerr(py, e, None))
}

/// Convert a trace to `to` (`disksim-ascii` or `csv`); returns the records written.
#[pyfunction]
#[pyo3(signature = (input, output, to, format=None, csv_map=None, blkparse_event=None, device=None, devices=None, op=None, start_s=None, end_s=None, limit=None, skip_bad=false))]
#[allow(clippy::too_many_arguments)]
pub fn trace_convert(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    to: &str,
    format: Option<&str>,
    csv_map: Option<&str>,
    blkparse_event: Option<&str>,
    device: Option<u16>,
    devices: Option<Vec<u16>>,
    op: Option<&str>,
    start_s: Option<f64>,
    end_s: Option<f64>,
    limit: Option<u64>,
    skip_bad: bool,
) -> PyResult<u64> {
    let run = || -> headway::Result<u64> {
        let to = ConvertFormat::from_name(to)?;
        let src = source(format, csv_map, blkparse_event)?;
        let opts = feed_options(device, devices, op, start_s, end_s, limit, skip_bad)?;
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
    #[pyo3(signature = (path, batch_size=65536, format=None, csv_map=None, blkparse_event=None, device=None, devices=None, op=None, start_s=None, end_s=None, limit=None, skip_bad=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        batch_size: usize,
        format: Option<&str>,
        csv_map: Option<&str>,
        blkparse_event: Option<&str>,
        device: Option<u16>,
        devices: Option<Vec<u16>>,
        op: Option<&str>,
        start_s: Option<f64>,
        end_s: Option<f64>,
        limit: Option<u64>,
        skip_bad: bool,
    ) -> PyResult<Self> {
        let open = || -> headway::Result<(TraceBatches, &'static str)> {
            let mut src = source(format, csv_map, blkparse_event)?;
            src.format = src.resolve(&path)?;
            let opts = feed_options(device, devices, op, start_s, end_s, limit, skip_bad)?;
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
