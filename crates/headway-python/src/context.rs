//! `Context`: what a Python scheduler may look at during one callback. It borrows the
//! core's `SchedCtx` through a pointer that is cleared when the callback returns, so a
//! context kept past its call raises `RuntimeError` instead of reading freed memory.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use headway::predict::{
    estimate_with_margin, require_geometry, Access, Geometry, Moment, Predictor,
};
use headway::request::{HeadPosition, Request};
use headway::sched::SchedCtx;
use headway::Op;
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::request::{PyEstimate, PyRequest, PyTrackInfo};

/// Requests a plug-in made through `host_request` during one callback, for the plug-in to
/// hold as pending.
pub type Made = Rc<RefCell<Vec<Request>>>;

/// `unsendable`: the pointer may only be followed on the thread running the simulation
/// (pyo3 refuses access from any other thread).
#[pyclass(unsendable, module = "headway", name = "Context")]
pub struct PyContext {
    ctx: Cell<*const SchedCtx<'static>>,
    made: Option<Made>,
}

/// Clears the context's pointer when dropped, i.e. when the callback returns or unwinds.
pub struct Lease<'py> {
    obj: Bound<'py, PyContext>,
}

impl<'py> Lease<'py> {
    /// Wrap `ctx` for the duration of one callback.
    pub fn new(py: Python<'py>, ctx: &SchedCtx<'_>) -> PyResult<Self> {
        Self::with_made(py, ctx, None)
    }
    /// A context through which the plug-in may make host requests, collected in `made`.
    pub fn with_made(py: Python<'py>, ctx: &SchedCtx<'_>, made: Option<Made>) -> PyResult<Self> {
        let ptr = (ctx as *const SchedCtx<'_>).cast::<SchedCtx<'static>>();
        let obj = Bound::new(
            py,
            PyContext {
                ctx: Cell::new(ptr),
                made,
            },
        )?;
        Ok(Lease { obj })
    }
    pub fn object(&self) -> &Bound<'py, PyContext> {
        &self.obj
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        // Methods only take `&self`, so a shared borrow cannot fail here.
        if let Ok(c) = self.obj.try_borrow() {
            c.ctx.set(std::ptr::null());
        }
    }
}

impl PyContext {
    fn ctx(&self) -> PyResult<&SchedCtx<'_>> {
        let p = self.ctx.get();
        if p.is_null() {
            return Err(PyRuntimeError::new_err(
                "this headway.Context is no longer valid: a context may only be used during \
                 the scheduler callback it was passed to",
            ));
        }
        // SAFETY: non-null only while the callback that received this context is running,
        // and the `SchedCtx` outlives that callback (`Lease` clears the pointer on return).
        // `unsendable` keeps every access on the simulation's thread.
        Ok(unsafe { &*p })
    }

    fn predictor(&self, device: u16) -> PyResult<&dyn Predictor> {
        let ctx = self.ctx()?;
        if device as usize >= ctx.predictors.len() {
            return Err(PyIndexError::new_err(format!(
                "device {device} does not exist; the system has {} device(s)",
                ctx.predictors.len()
            )));
        }
        Ok(ctx.predictor(device))
    }

    /// The device's predictor's geometry, or the error naming a predictor without one.
    fn geometry(&self, device: u16) -> PyResult<&dyn Geometry> {
        require_geometry(self.predictor(device)?).map_err(geometry_err)
    }
}

fn geometry_err(e: headway::HeadwayError) -> PyErr {
    Python::attach(|py| crate::errors::to_pyerr(py, e, None))
}

fn parse_op(op: &str) -> PyResult<Op> {
    match op {
        "read" => Ok(Op::Read),
        "write" => Ok(Op::Write),
        other => Err(PyValueError::new_err(format!(
            "op must be \"read\" or \"write\", got {other:?}"
        ))),
    }
}

#[pymethods]
impl PyContext {
    /// Simulated time now, in nanoseconds.
    #[getter]
    fn now_ns(&self) -> PyResult<u64> {
        Ok(self.ctx()?.now)
    }
    /// Number of devices in the system.
    #[getter]
    fn devices(&self) -> PyResult<usize> {
        Ok(self.ctx()?.predictors.len())
    }
    /// Cylinder the host believes the head is on.
    #[pyo3(signature = (device = 0))]
    fn head_cylinder(&self, device: u16) -> PyResult<u32> {
        Ok(self.predictor(device)?.head().cylinder)
    }
    #[pyo3(signature = (lbn, device = 0))]
    fn cylinder_of(&self, lbn: u64, device: u16) -> PyResult<u32> {
        let p = self.predictor(device)?;
        if lbn >= p.capacity_sectors() {
            return Err(PyIndexError::new_err(format!(
                "sector {lbn} is beyond device {device} ({} sectors)",
                p.capacity_sectors()
            )));
        }
        Ok(p.cylinder_of(lbn))
    }
    #[pyo3(signature = (device = 0))]
    fn cylinders(&self, device: u16) -> PyResult<u32> {
        Ok(self.predictor(device)?.cylinders())
    }
    #[pyo3(signature = (device = 0))]
    fn capacity_sectors(&self, device: u16) -> PyResult<u64> {
        Ok(self.predictor(device)?.capacity_sectors())
    }
    /// Predicted positioning time (overhead + seek + rotation) of `req` dispatched now.
    fn positioning_ns(&self, req: PyRef<'_, PyRequest>) -> PyResult<u64> {
        Ok(self.estimate(req)?.inner.positioning_ns())
    }
    /// The predictor's full estimate of `req` dispatched now from the believed head position.
    fn estimate(&self, req: PyRef<'_, PyRequest>) -> PyResult<PyEstimate> {
        let r = &req.inner;
        let p = self.predictor(r.device)?;
        let now = self.ctx()?.now;
        Ok(PyEstimate {
            inner: p.estimate(
                Moment::new(p.head(), now),
                Access::new(r.lbn, r.sectors, r.op),
            ),
        })
    }
    /// Commands outstanding at the device.
    #[pyo3(signature = (device = 0))]
    fn outstanding(&self, device: u16) -> PyResult<usize> {
        self.predictor(device)?;
        Ok(self.ctx()?.outstanding[device as usize])
    }
    /// Whether the device can take another command now.
    #[pyo3(signature = (device = 0))]
    fn has_slot(&self, device: u16) -> PyResult<bool> {
        self.predictor(device)?;
        Ok(self.ctx()?.has_slot(device))
    }
    /// The origin id of host component `name` (e.g. `"freeblock"`), for `host_request`.
    fn host_origin(&self, name: &str) -> PyResult<u16> {
        Ok(self.ctx()?.host_origin(name))
    }
    /// A request made by the host itself (counted under `origin`, never reported to a
    /// workload). The scheduler holds it: dispatch it by returning it from `decide`.
    #[pyo3(signature = (origin, lbn, sectors, op = "read", device = 0))]
    fn host_request(
        &self,
        origin: u16,
        lbn: u64,
        sectors: u32,
        op: &str,
        device: u16,
    ) -> PyResult<PyRequest> {
        let op = parse_op(op)?;
        let p = self.predictor(device)?;
        if sectors == 0
            || lbn
                .checked_add(sectors as u64)
                .is_none_or(|e| e > p.capacity_sectors())
        {
            return Err(PyIndexError::new_err(format!(
                "sectors {lbn}..{} are not on device {device} ({} sectors), or are none",
                lbn.saturating_add(sectors as u64),
                p.capacity_sectors()
            )));
        }
        if origin < headway::request::HOST_ORIGIN_BASE {
            return Err(PyValueError::new_err(format!(
                "origin {origin} is a workload's; take one from ctx.host_origin(name)"
            )));
        }
        let Some(made) = &self.made else {
            return Err(PyRuntimeError::new_err(
                "host_request is only available to schedulers during their own callbacks",
            ));
        };
        let r = self.ctx()?.host_request(origin, device, lbn, sectors, op);
        made.borrow_mut().push(r);
        Ok(PyRequest { inner: r })
    }
    /// What the run says about process `p` (`workload`, `class`, `share`, `synchronous`),
    /// or `None` for a process no workload declared.
    fn process<'py>(&self, py: Python<'py>, p: u32) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(info) = self.ctx()?.process(p) else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("workload", info.workload)?;
        d.set_item("class", info.class)?;
        d.set_item("share", info.share)?;
        d.set_item("synchronous", info.synchronous)?;
        Ok(Some(d))
    }
    /// Class names, indexed by `Request.cls`.
    #[getter]
    fn classes(&self) -> PyResult<Vec<String>> {
        Ok(self.ctx()?.info.classes.clone())
    }
    /// Device names, indexed by `Request.device`.
    #[getter]
    fn device_names(&self) -> PyResult<Vec<String>> {
        Ok(self.ctx()?.info.devices.clone())
    }
    /// `(cylinder, surface)` of the track holding `lbn`, as the predictor believes.
    #[pyo3(signature = (lbn, device = 0))]
    fn track_of(&self, lbn: u64, device: u16) -> PyResult<(u32, u32)> {
        let t = self.geometry(device)?.track_of(lbn);
        Ok((t.cylinder, t.surface))
    }
    /// The predictor's view of a track, or `None` if it holds no LBN.
    #[pyo3(signature = (cylinder, surface, device = 0))]
    fn track_info(
        &self,
        cylinder: u32,
        surface: u32,
        device: u16,
    ) -> PyResult<Option<PyTrackInfo>> {
        let t = self
            .geometry(device)?
            .track_info(HeadPosition { cylinder, surface });
        Ok(t.map(|inner| PyTrackInfo { inner }))
    }
    /// `[(lbn, sectors), ...]`: the LBN runs passing wholly under the head on the track
    /// between two times, in passing order.
    #[pyo3(signature = (cylinder, surface, from_ns, to_ns, device = 0))]
    fn passing(
        &self,
        cylinder: u32,
        surface: u32,
        from_ns: u64,
        to_ns: u64,
        device: u16,
    ) -> PyResult<Vec<(u64, u32)>> {
        let runs =
            self.geometry(device)?
                .passing(HeadPosition { cylinder, surface }, from_ns, to_ns);
        Ok(runs.iter().map(|r| (r.lbn, r.sectors)).collect())
    }
    /// Time to move the head between two tracks for an access of kind `op`.
    #[pyo3(signature = (from_track, to_track, op = "read", device = 0))]
    fn move_ns(
        &self,
        from_track: (u32, u32),
        to_track: (u32, u32),
        op: &str,
        device: u16,
    ) -> PyResult<u64> {
        let pos = |t: (u32, u32)| HeadPosition {
            cylinder: t.0,
            surface: t.1,
        };
        let p = self.predictor(device)?;
        let op = parse_op(op)?;
        let g = require_geometry(p).map_err(geometry_err)?;
        Ok(g.move_ns(pos(from_track), pos(to_track), op))
    }
    /// The estimate of `req` started at `start_ns` with the head on `from_track`, every seek
    /// `seek_margin_ns` longer (freeblock's conservatism).
    #[pyo3(signature = (req, from_track, start_ns, seek_margin_ns = 0))]
    fn estimate_from(
        &self,
        req: PyRef<'_, PyRequest>,
        from_track: (u32, u32),
        start_ns: u64,
        seek_margin_ns: u64,
    ) -> PyResult<PyEstimate> {
        let r = &req.inner;
        let p = self.predictor(r.device)?;
        let from = HeadPosition {
            cylinder: from_track.0,
            surface: from_track.1,
        };
        Ok(PyEstimate {
            inner: estimate_with_margin(
                p,
                Moment::new(from, start_ns),
                Access::new(r.lbn, r.sectors, r.op),
                seek_margin_ns,
            ),
        })
    }
    fn __repr__(&self) -> String {
        match self.ctx() {
            Ok(c) => format!("Context(now_ns={})", c.now),
            Err(_) => "Context(<expired>)".into(),
        }
    }
}
