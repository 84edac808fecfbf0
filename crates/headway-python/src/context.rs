//! `Context`: what a Python scheduler may look at during one callback. It borrows the
//! core's `SchedCtx` through a pointer that is cleared when the callback returns, so a
//! context kept past its call raises `RuntimeError` instead of reading freed memory.

use std::cell::Cell;

use headway::predict::Predictor;
use headway::sched::SchedCtx;
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;

use crate::request::{PyEstimate, PyRequest};

/// `unsendable`: the pointer may only be followed on the thread running the simulation
/// (pyo3 refuses access from any other thread).
#[pyclass(unsendable, module = "headway", name = "Context")]
pub struct PyContext {
    ctx: Cell<*const SchedCtx<'static>>,
}

/// Clears the context's pointer when dropped, i.e. when the callback returns or unwinds.
pub struct Lease<'py> {
    obj: Bound<'py, PyContext>,
}

impl<'py> Lease<'py> {
    /// Wrap `ctx` for the duration of one callback.
    pub fn new(py: Python<'py>, ctx: &SchedCtx<'_>) -> PyResult<Self> {
        let ptr = (ctx as *const SchedCtx<'_>).cast::<SchedCtx<'static>>();
        let obj = Bound::new(
            py,
            PyContext {
                ctx: Cell::new(ptr),
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
            inner: p.estimate(p.head(), now, r.lbn, r.sectors, r.op),
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
    fn __repr__(&self) -> String {
        match self.ctx() {
            Ok(c) => format!("Context(now_ns={})", c.now),
            Err(_) => "Context(<expired>)".into(),
        }
    }
}
