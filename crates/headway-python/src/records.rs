//! Per-request records to Python as `{column: (numpy dtype, little-endian bytes)}`: one flat
//! copy per column, so Python builds numpy/pandas/Arrow columns with `frombuffer` and no
//! per-row work.

use headway::stats::RequestRecords;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// A column element with a fixed little-endian width.
pub(crate) trait Element: Copy {
    const DTYPE: &'static str;
    const WIDTH: usize;
    fn put(self, out: &mut [u8]);
}

macro_rules! int_element {
    ($t:ty, $dtype:literal) => {
        impl Element for $t {
            const DTYPE: &'static str = $dtype;
            const WIDTH: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}
int_element!(u64, "<u8");
int_element!(u32, "<u4");
int_element!(u16, "<u2");
int_element!(i64, "<i8");

impl Element for f64 {
    const DTYPE: &'static str = "<f8";
    const WIDTH: usize = 8;
    #[inline]
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
}

impl Element for bool {
    const DTYPE: &'static str = "|b1";
    const WIDTH: usize = 1;
    #[inline]
    fn put(self, out: &mut [u8]) {
        out[0] = self as u8;
    }
}

pub(crate) fn column<T: Element>(
    dict: &Bound<'_, PyDict>,
    name: &str,
    values: &[T],
) -> PyResult<()> {
    let py = dict.py();
    let bytes = PyBytes::new_with(py, values.len() * T::WIDTH, |buf| {
        for (out, v) in buf.chunks_exact_mut(T::WIDTH).zip(values) {
            v.put(out);
        }
        Ok(())
    })?;
    dict.set_item(name, (T::DTYPE, bytes))
}

/// A column of short names as numpy fixed-width bytes (`|S<width>`, NUL-padded); Python
/// turns it into a `str` column.
fn name_column(dict: &Bound<'_, PyDict>, name: &str, values: &[&str]) -> PyResult<()> {
    let width = values.iter().map(|v| v.len()).max().unwrap_or(0).max(1);
    let py = dict.py();
    let bytes = PyBytes::new_with(py, values.len() * width, |buf| {
        for (out, v) in buf.chunks_exact_mut(width).zip(values) {
            out[..v.len()].copy_from_slice(v.as_bytes());
            out[v.len()..].fill(0);
        }
        Ok(())
    })?;
    dict.set_item(name, (format!("|S{width}"), bytes))
}

pub fn to_columns<'py>(py: Python<'py>, rec: &RequestRecords) -> PyResult<Bound<'py, PyDict>> {
    // Destructured so that a column added to the core fails to compile here until it is
    // passed on.
    let RequestRecords {
        id,
        arrival_ns,
        dispatch_ns,
        start_ns,
        overhead_ns,
        seek_ns,
        rotate_ns,
        transfer_ns,
        bus_ns,
        done_ns,
        lbn,
        sectors,
        is_read,
        device,
        process,
        class,
        origin,
        deadline_ns,
        cache_hit,
        predicted_ns,
        logical_id,
        zone_op,
        error,
    } = rec;
    let d = PyDict::new(py);
    column(&d, "id", id)?;
    column(&d, "arrival_ns", arrival_ns)?;
    column(&d, "dispatch_ns", dispatch_ns)?;
    column(&d, "start_ns", start_ns)?;
    column(&d, "overhead_ns", overhead_ns)?;
    column(&d, "seek_ns", seek_ns)?;
    column(&d, "rotate_ns", rotate_ns)?;
    column(&d, "transfer_ns", transfer_ns)?;
    column(&d, "bus_ns", bus_ns)?;
    column(&d, "done_ns", done_ns)?;
    column(&d, "lbn", lbn)?;
    column(&d, "sectors", sectors)?;
    column(&d, "is_read", is_read)?;
    column(&d, "device", device)?;
    column(&d, "process", process)?;
    column(&d, "class", class)?;
    column(&d, "origin", origin)?;
    column(&d, "deadline_ns", deadline_ns)?;
    column(&d, "cache_hit", cache_hit)?;
    // Milliseconds with NaN where no estimate was made (the device was busy at dispatch), so
    // pandas users get a float column they can average without a sentinel to filter.
    let predicted_ms: Vec<f64> = predicted_ns
        .iter()
        .map(|&p| {
            if p == headway::time::NEVER {
                f64::NAN
            } else {
                p as f64 / 1e6
            }
        })
        .collect();
    column(&d, "predicted_ms", &predicted_ms)?;
    // Only runs with `[[arrays]]` link member operations to logical requests.
    if !logical_id.is_empty() {
        column(&d, "logical_id", logical_id)?;
    }
    // Only runs with zone commands or refusals (zoned drives) carry these.
    for (name, values) in [("zone_op", zone_op), ("error", error)] {
        if values.iter().any(|v| !v.is_empty()) {
            name_column(&d, name, values)?;
        }
    }
    Ok(d)
}
