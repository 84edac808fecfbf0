//! The reading and filtering options every trace tool takes (`format`, `csv_map`,
//! `blkparse_event`, `device`, `devices`, `op`, `start_s`, `end_s`, `limit`, `skip_bad`),
//! passed as keywords and read in one place so the tools cannot drift apart.

use headway::workload::trace::{
    BlkparseEvent, CsvSpec, DeviceSelect, FeedOptions, TraceFormat, TraceSource,
};
use headway::{HeadwayError, Op};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[derive(Default)]
pub(crate) struct TraceOptions {
    format: Option<String>,
    csv_map: Option<String>,
    blkparse_event: Option<String>,
    device: Option<u16>,
    devices: Option<Vec<u16>>,
    op: Option<String>,
    start_s: Option<f64>,
    end_s: Option<f64>,
    limit: Option<u64>,
    skip_bad: bool,
}

/// `value` as a `T`, or the `TypeError` Python gives for a bad argument (naming it).
fn argument<'py, T: FromPyObjectOwned<'py>>(key: &str, value: &Bound<'py, PyAny>) -> PyResult<T> {
    value.extract::<T>().map_err(|e| {
        let e: PyErr = e.into();
        let py = value.py();
        if e.is_instance_of::<PyTypeError>(py) {
            let err = PyTypeError::new_err(format!("argument '{key}': {}", e.value(py)));
            err.set_cause(py, Some(e));
            err
        } else {
            e
        }
    })
}

impl TraceOptions {
    /// The options given to `function` as keywords; `None` leaves an option at its default,
    /// and an unknown keyword is the `TypeError` Python gives for one.
    pub(crate) fn from_kwargs(
        function: &str,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut o = TraceOptions::default();
        for (k, v) in kwargs.into_iter().flat_map(|d| d.iter()) {
            let key: String = k.extract()?;
            if v.is_none() && key != "skip_bad" {
                continue;
            }
            match key.as_str() {
                "format" => o.format = Some(argument(&key, &v)?),
                "csv_map" => o.csv_map = Some(argument(&key, &v)?),
                "blkparse_event" => o.blkparse_event = Some(argument(&key, &v)?),
                "device" => o.device = Some(argument(&key, &v)?),
                "devices" => o.devices = Some(argument(&key, &v)?),
                "op" => o.op = Some(argument(&key, &v)?),
                "start_s" => o.start_s = Some(argument(&key, &v)?),
                "end_s" => o.end_s = Some(argument(&key, &v)?),
                "limit" => o.limit = Some(argument(&key, &v)?),
                "skip_bad" => o.skip_bad = argument(&key, &v)?,
                _ => {
                    return Err(PyTypeError::new_err(format!(
                        "{function}() got an unexpected keyword argument '{key}'"
                    )))
                }
            }
        }
        Ok(o)
    }

    /// How to read the file.
    pub(crate) fn source(&self) -> headway::Result<TraceSource> {
        let mut src = TraceSource::new(match &self.format {
            Some(f) => TraceFormat::from_name(f)?,
            None => TraceFormat::Auto,
        });
        if let Some(m) = &self.csv_map {
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
        if let Some(e) = &self.blkparse_event {
            src.blkparse_event = BlkparseEvent::parse(e).ok_or_else(|| {
                HeadwayError::config(
                    "blkparse-event",
                    format!("`{e}`: expected Q (queued) or D (dispatched)"),
                )
            })?;
        }
        Ok(src)
    }

    /// Which records to keep.
    pub(crate) fn feed(&self) -> headway::Result<FeedOptions> {
        let op = match self.op.as_deref() {
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
            devices: match (self.device, &self.devices) {
                (Some(d), None) => DeviceSelect::One(d),
                (None, Some(v)) => DeviceSelect::Set(v.clone()),
                (None, None) => DeviceSelect::Merge,
                (Some(_), Some(_)) => {
                    return Err(HeadwayError::config(
                        "device",
                        "give device or devices, not both",
                    ))
                }
            },
            op,
            start_ns: secs("start", self.start_s)?.unwrap_or(0),
            end_ns: secs("end", self.end_s)?,
            limit: self.limit,
            skip_bad: self.skip_bad,
            ..FeedOptions::default()
        })
    }
}
