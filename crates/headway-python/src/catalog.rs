//! The drive catalog as Python dicts.
//!
//! STOPGAP until the catalog branch lands: `entries()` below is derived from
//! `catalog::names()` + `lookup()` + `Mechanics`; on merge it is replaced by the core's
//! `catalog::entries()` (same field names), leaving only `disks()`.

use headway::device::catalog;
use headway::device::hdd::Mechanics;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_pyerr;

struct CatalogEntry {
    name: String,
    description: String,
    capacity_sectors: u64,
    capacity_bytes: u64,
    rpm: f64,
    zones: usize,
    cylinders: u32,
    surfaces: u32,
    mean_seek_ms: f64,
}

fn entries() -> headway::Result<Vec<CatalogEntry>> {
    catalog::names()
        .into_iter()
        .map(|name| {
            let spec = catalog::lookup(&name)?;
            let mech = Mechanics::new(&spec)?;
            Ok(CatalogEntry {
                name,
                description: spec.description.clone(),
                capacity_sectors: spec.block_count,
                capacity_bytes: spec.block_count * 512,
                rpm: spec.rpm,
                zones: spec.layout.zones.len(),
                cylinders: spec.cylinders,
                surfaces: spec.surfaces,
                mean_seek_ms: mech.seek.mean_random_ns() / 1e6,
            })
        })
        .collect()
}

/// The built-in drives, one dict each.
#[pyfunction]
pub fn disks(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let list = entries().map_err(|e| to_pyerr(py, e, None))?;
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
            Ok(d)
        })
        .collect()
}
