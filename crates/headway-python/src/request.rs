//! Read-only views of the core's values handed to Python schedulers, and `Wait`, the one
//! value a scheduler builds itself.

use headway::predict::Estimate as CoreEstimate;
use headway::request::Completion as CoreCompletion;
use headway::time::NEVER;
use headway::{Op, Request as CoreRequest};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyTuple};

fn op_name(op: Op) -> &'static str {
    match op {
        Op::Read => "read",
        Op::Write => "write",
    }
}

/// One block request, as the scheduler received it. Immutable; hand it (or its `id`) back
/// from `decide` to dispatch it.
#[pyclass(frozen, module = "headway", name = "Request")]
pub struct PyRequest {
    pub inner: CoreRequest,
}

#[pymethods]
impl PyRequest {
    #[getter]
    fn id(&self) -> u64 {
        self.inner.id
    }
    #[getter]
    fn arrival_ns(&self) -> u64 {
        self.inner.arrival_ns
    }
    /// First sector (512-byte logical block).
    #[getter]
    fn lbn(&self) -> u64 {
        self.inner.lbn
    }
    #[getter]
    fn sectors(&self) -> u32 {
        self.inner.sectors
    }
    /// One past the last sector.
    #[getter]
    fn end_lbn(&self) -> u64 {
        self.inner.end_lbn()
    }
    /// `"read"` or `"write"`.
    #[getter]
    fn op(&self) -> &'static str {
        op_name(self.inner.op)
    }
    #[getter]
    fn is_read(&self) -> bool {
        self.inner.op.is_read()
    }
    #[getter]
    fn device(&self) -> u16 {
        self.inner.device
    }
    #[getter]
    fn process(&self) -> u32 {
        self.inner.process
    }
    /// QoS class (`class` is a Python keyword; `cls` is an alias).
    #[getter]
    fn class_(&self) -> u16 {
        self.inner.class
    }
    #[getter]
    fn cls(&self) -> u16 {
        self.inner.class
    }
    /// Absolute deadline, or `None`.
    #[getter]
    fn deadline_ns(&self) -> Option<u64> {
        (self.inner.deadline_ns != NEVER).then_some(self.inner.deadline_ns)
    }
    /// Who made it: the index of its workload, or (from 32768 on) a host component such
    /// as `freeblock` (see `is_host_work`).
    #[getter]
    fn origin(&self) -> u16 {
        self.inner.origin
    }
    /// Made by the host itself (a background read, a write-back), not by a workload.
    #[getter]
    fn is_host_work(&self) -> bool {
        self.inner.is_host_work()
    }
    /// Alias of `is_host_work`, the name earlier versions used.
    #[getter]
    fn background(&self) -> bool {
        self.inner.is_host_work()
    }
    fn __repr__(&self) -> String {
        let r = &self.inner;
        format!(
            "Request(id={}, arrival_ns={}, lbn={}, sectors={}, op='{}', device={})",
            r.id,
            r.arrival_ns,
            r.lbn,
            r.sectors,
            op_name(r.op),
            r.device
        )
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyRequest>() {
            Ok(o) => o.get().inner == self.inner,
            Err(_) => false,
        }
    }
    fn __hash__(&self) -> u64 {
        self.inner.id
    }
}

/// A finished command: the requests it carried and how its service time broke down.
#[pyclass(frozen, module = "headway", name = "Completion")]
pub struct PyCompletion {
    inner: CoreCompletion,
}

impl PyCompletion {
    pub fn new(inner: &CoreCompletion) -> Self {
        PyCompletion {
            inner: inner.clone(),
        }
    }
}

#[pymethods]
impl PyCompletion {
    /// The requests the command carried (one, or several merged).
    #[getter]
    fn requests<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(
            py,
            self.inner
                .command
                .requests
                .iter()
                .map(|r| PyRequest { inner: *r }),
        )
    }
    #[getter]
    fn device(&self) -> u16 {
        self.inner.command.device
    }
    #[getter]
    fn lbn(&self) -> u64 {
        self.inner.command.lbn
    }
    #[getter]
    fn sectors(&self) -> u32 {
        self.inner.command.sectors
    }
    #[getter]
    fn op(&self) -> &'static str {
        op_name(self.inner.command.op)
    }
    #[getter]
    fn dispatch_ns(&self) -> u64 {
        self.inner.command.dispatch_ns
    }
    #[getter]
    fn start_ns(&self) -> u64 {
        self.inner.phases.start_ns
    }
    #[getter]
    fn done_ns(&self) -> u64 {
        self.inner.done_ns
    }
    #[getter]
    fn seek_ns(&self) -> u64 {
        self.inner.phases.seek_ns
    }
    #[getter]
    fn rotate_ns(&self) -> u64 {
        self.inner.phases.rotate_ns
    }
    #[getter]
    fn transfer_ns(&self) -> u64 {
        self.inner.phases.transfer_ns
    }
    #[getter]
    fn cache_hit(&self) -> bool {
        self.inner.cache_hit
    }
    /// Cylinder the head was left on.
    #[getter]
    fn head_cylinder(&self) -> u32 {
        self.inner.head.cylinder
    }
    fn __repr__(&self) -> String {
        let c = &self.inner;
        format!(
            "Completion(requests={}, lbn={}, sectors={}, done_ns={})",
            c.command.requests.len(),
            c.command.lbn,
            c.command.sectors,
            c.done_ns
        )
    }
}

/// Returned from `decide` or `propose`: complete these requests now from host memory,
/// without any device (a read of data the host still holds, a write a newer one absorbed).
///
/// >>> import headway
/// >>> headway.Serve([3, 4]).ids
/// [3, 4]
#[pyclass(frozen, module = "headway", name = "Serve")]
pub struct PyServe {
    #[pyo3(get)]
    pub ids: Vec<u64>,
}

#[pymethods]
impl PyServe {
    #[new]
    fn new(requests: &Bound<'_, PyAny>) -> PyResult<Self> {
        let ids = requests
            .try_iter()?
            .map(|x| x.and_then(|x| request_id(&x)))
            .collect::<PyResult<Vec<u64>>>()?;
        Ok(PyServe { ids })
    }
    fn __repr__(&self) -> String {
        format!("Serve(ids={:?})", self.ids)
    }
}

/// A track as the host's predictor believes it (`Context.track_info`).
#[pyclass(frozen, module = "headway", name = "TrackInfo")]
pub struct PyTrackInfo {
    pub inner: headway::predict::TrackInfo,
}

#[pymethods]
impl PyTrackInfo {
    #[getter]
    fn cylinder(&self) -> u32 {
        self.inner.track.cylinder
    }
    #[getter]
    fn surface(&self) -> u32 {
        self.inner.track.surface
    }
    #[getter]
    fn first_lbn(&self) -> u64 {
        self.inner.first_lbn
    }
    #[getter]
    fn lbns(&self) -> u32 {
        self.inner.lbns
    }
    #[getter]
    fn slots(&self) -> u32 {
        self.inner.slots
    }
    /// Where slot 0 begins, in revolutions [0, 1).
    #[getter]
    fn slot0_angle(&self) -> f64 {
        self.inner.slot0_angle
    }
    #[getter]
    fn sector_ns(&self) -> f64 {
        self.inner.sector_ns
    }
    fn __repr__(&self) -> String {
        let t = &self.inner;
        format!(
            "TrackInfo(cylinder={}, surface={}, first_lbn={}, lbns={}, slots={})",
            t.track.cylinder, t.track.surface, t.first_lbn, t.lbns, t.slots
        )
    }
}

/// The predictor's estimate of one access started now from the believed head position.
#[pyclass(frozen, module = "headway", name = "Estimate")]
pub struct PyEstimate {
    pub inner: CoreEstimate,
}

#[pymethods]
impl PyEstimate {
    #[getter]
    fn overhead_ns(&self) -> u64 {
        self.inner.overhead_ns
    }
    #[getter]
    fn seek_ns(&self) -> u64 {
        self.inner.seek_ns
    }
    #[getter]
    fn rotate_ns(&self) -> u64 {
        self.inner.rotate_ns
    }
    #[getter]
    fn transfer_ns(&self) -> u64 {
        self.inner.transfer_ns
    }
    /// Overhead + seek + rotation: what SPTF minimises.
    #[getter]
    fn positioning_ns(&self) -> u64 {
        self.inner.positioning_ns()
    }
    /// Positioning plus media transfer.
    #[getter]
    fn service_ns(&self) -> u64 {
        self.inner.service_ns()
    }
    #[getter]
    fn end_cylinder(&self) -> u32 {
        self.inner.end.cylinder
    }
    fn __repr__(&self) -> String {
        let e = &self.inner;
        format!(
            "Estimate(seek_ns={}, rotate_ns={}, transfer_ns={}, positioning_ns={})",
            e.seek_ns,
            e.rotate_ns,
            e.transfer_ns,
            e.positioning_ns()
        )
    }
}

/// Returned from `decide`: keep the device idle on purpose until `until_ns` (or the next
/// arrival or completion, whichever comes first).
///
/// >>> import headway
/// >>> headway.Wait(5_000_000).until_ns
/// 5000000
#[pyclass(frozen, module = "headway", name = "Wait")]
pub struct PyWait {
    #[pyo3(get)]
    pub until_ns: u64,
}

#[pymethods]
impl PyWait {
    #[new]
    fn new(until_ns: u64) -> Self {
        PyWait { until_ns }
    }
    fn __repr__(&self) -> String {
        format!("Wait(until_ns={})", self.until_ns)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyWait>() {
            Ok(o) => o.get().until_ns == self.until_ns,
            Err(_) => false,
        }
    }
    fn __hash__(&self) -> u64 {
        self.until_ns
    }
}

/// A `Request` or a plain integer id.
pub(crate) fn request_id(x: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(r) = x.cast::<PyRequest>() {
        return Ok(r.get().inner.id);
    }
    // Only real integers: a float id would be a silent truncation.
    x.cast::<PyInt>()?.extract()
}
