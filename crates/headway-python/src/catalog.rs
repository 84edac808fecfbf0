//! The drive catalog as Python dicts.

use headway::device::catalog;
use headway::device::hdd::interface::INTERFACES;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_pyerr;

/// The built-in drives, one dict each, in catalog order.
#[pyfunction]
pub fn disks(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let list = catalog::entries().map_err(|e| to_pyerr(py, e, None))?;
    list.into_iter()
        .map(|e| {
            let d = PyDict::new(py);
            d.set_item("name", e.name)?;
            d.set_item("description", e.description)?;
            d.set_item("capacity_sectors", e.capacity_sectors)?;
            d.set_item("capacity_bytes", e.capacity_bytes)?;
            d.set_item("rpm", e.rpm)?;
            d.set_item("zones", e.zones)?;
            d.set_item("cylinders", e.cylinders)?;
            d.set_item("surfaces", e.surfaces)?;
            d.set_item("mean_seek_ms", e.mean_seek_ms)?;
            d.set_item("actuators", e.actuators)?;
            d.set_item("recording", e.recording)?;
            Ok(d)
        })
        .collect()
}

/// The named host interfaces (`[drive] interface`), one dict each, the default first: name,
/// title, payload rate (MB/s; `None` for the drive's own bus), time per sector (ms; `None`
/// likewise) and the standard it is from.
#[pyfunction]
pub fn interfaces(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    INTERFACES
        .iter()
        .map(|i| {
            let d = PyDict::new(py);
            d.set_item("name", i.name)?;
            d.set_item("title", i.title)?;
            d.set_item("payload_mb_s", i.payload_mb_s)?;
            d.set_item("sector_transfer_ms", i.sector_transfer_ms())?;
            d.set_item("source", i.source)?;
            Ok(d)
        })
        .collect()
}

/// The text of an embedded DiskSim parameter file (`atlas10k.parv`), or `None`.
#[pyfunction]
pub fn disksim_file(name: &str) -> Option<&'static str> {
    catalog::disksim_file(name)
}
