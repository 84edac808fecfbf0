//! A scheduler written in Python, plugged into the core's `Scheduler` trait.
//!
//! The Python object sees requests as they arrive and answers `decide`; the Rust side keeps
//! every pending request by id so that a decision (a request, an id, or a list to merge) can
//! be turned into a command without trusting Python with the request's contents. A Python
//! exception cannot cross the trait (it returns no `Result`), so it is stored, reported
//! through `take_failure`, and the original is kept for `__cause__`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use headway::request::{Command, Completion};
use headway::sched::{Decision, SchedCtx, Scheduler};
use headway::{HeadwayError, Request};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString, PyTuple};

use crate::context::Lease;
use crate::errors::describe_py_exception;
use crate::request::{PyCompletion, PyRequest, PyWait};

/// Where a plug-in's Python exception waits for `run` to chain it onto the `PluginError`.
pub type CauseSlot = Rc<RefCell<Option<PyErr>>>;

pub struct PyScheduler {
    name: String,
    on_arrival: Py<PyAny>,
    decide: Py<PyAny>,
    on_completion: Option<Py<PyAny>>,
    on_timer: Option<Py<PyAny>>,
    pending: HashMap<u64, Request>,
    failure: Option<HeadwayError>,
    cause: CauseSlot,
}

impl PyScheduler {
    /// Look the methods up once; a missing required method is reported before the run.
    pub fn new(obj: &Bound<'_, PyAny>, cause: CauseSlot) -> Result<Self, HeadwayError> {
        let name = match obj.getattr("name") {
            Ok(n) if n.is_instance_of::<PyString>() => n.to_string(),
            _ => obj
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_else(|_| "python".into()),
        };
        let method = |m: &str| -> Option<Py<PyAny>> {
            obj.getattr(m)
                .ok()
                .filter(|f| f.is_callable())
                .map(Bound::unbind)
        };
        let required = |m: &str| {
            method(m).ok_or_else(|| HeadwayError::Plugin {
                name: name.clone(),
                msg: format!("a Python scheduler needs a `{m}` method"),
            })
        };
        Ok(PyScheduler {
            on_arrival: required("on_arrival")?,
            decide: required("decide")?,
            on_completion: method("on_completion"),
            on_timer: method("on_timer"),
            name,
            pending: HashMap::new(),
            failure: None,
            cause,
        })
    }

    /// Record the first failure; later ones are consequences of it.
    fn fail(&mut self, msg: String, cause: Option<PyErr>) {
        if self.failure.is_none() {
            self.failure = Some(HeadwayError::Plugin {
                name: self.name.clone(),
                msg,
            });
            *self.cause.borrow_mut() = cause;
        }
    }

    fn fail_py(&mut self, py: Python<'_>, method: &str, err: PyErr) {
        let msg = format!("{method}() raised {}", describe_py_exception(py, &err));
        self.fail(msg, Some(err));
    }

    /// Call `f(arg, ctx)` with a context valid for this call only.
    fn call_with_ctx<'py>(
        py: Python<'py>,
        f: &Py<PyAny>,
        arg: Option<Bound<'py, PyAny>>,
        ctx: &SchedCtx<'_>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = Lease::new(py, ctx)?;
        let c = lease.object().clone().into_any();
        match arg {
            Some(a) => f.bind(py).call1((a, c)),
            None => f.bind(py).call1((c,)),
        }
    }

    /// Turn what `decide` returned into a decision, taking dispatched requests out of the
    /// pending map. Errors are messages for a `PluginError`.
    fn decision(&mut self, out: &Bound<'_, PyAny>) -> Result<Decision, String> {
        if out.is_none() {
            return Ok(Decision::Idle);
        }
        if let Ok(w) = out.cast::<PyWait>() {
            return Ok(Decision::WaitUntil(w.get().until_ns));
        }
        if let Ok(t) = out.cast::<PyTuple>() {
            if t.len() == 2 && t.get_item(0).is_ok_and(|k| k.eq("wait").unwrap_or(false)) {
                let at = t
                    .get_item(1)
                    .and_then(|v| v.extract::<u64>())
                    .map_err(|_| {
                        "decide() returned (\"wait\", x) where x is not a non-negative integer of nanoseconds"
                            .to_string()
                    })?;
                return Ok(Decision::WaitUntil(at));
            }
        }
        if out.is_instance_of::<PyList>() || out.is_instance_of::<PyTuple>() {
            let ids = out
                .try_iter()
                .and_then(|it| it.map(|x| x.and_then(|x| request_id(&x))).collect::<PyResult<Vec<u64>>>())
                .map_err(|_| "decide() returned a list that holds something other than requests or request ids".to_string())?;
            return self.take_merged(&ids).map(Decision::Dispatch);
        }
        match request_id(out) {
            Ok(id) => self.take_merged(&[id]).map(Decision::Dispatch),
            Err(_) => Err(format!(
                "decide() returned {}; expected None, a Request, a request id, a list of them \
                 (merged into one command), or headway.Wait(until_ns)",
                out.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_else(|_| "an object".into())
            )),
        }
    }

    fn take_merged(&mut self, ids: &[u64]) -> Result<Command, String> {
        let mut reqs = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(format!("decide() returned request {id} twice"));
            }
            match self.pending.get(id) {
                Some(r) => reqs.push(*r),
                None => {
                    return Err(format!(
                        "decide() returned request id {id}, which is not pending (never arrived, or already dispatched)"
                    ))
                }
            }
        }
        let cmd = match reqs.as_slice() {
            [] => {
                return Err("decide() returned an empty list; return None to stay idle".to_string())
            }
            [one] => Command::single(*one),
            many => Command::merged(many).ok_or_else(|| {
                format!(
                    "decide() returned requests {ids:?}, which cannot form one command: merged \
                     requests must cover one contiguous range, with the same op, on the same device"
                )
            })?,
        };
        for id in ids {
            self.pending.remove(id);
        }
        Ok(cmd)
    }
}

/// A `Request` or a plain integer id.
fn request_id(x: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(r) = x.cast::<PyRequest>() {
        return Ok(r.get().inner.id);
    }
    // Only real integers: a float id would be a silent truncation.
    x.cast::<PyInt>()?.extract()
}

impl Scheduler for PyScheduler {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        if self.failure.is_some() {
            return;
        }
        self.pending.insert(req.id, req);
        Python::attach(|py| {
            let r = Bound::new(py, PyRequest { inner: req }).map(Bound::into_any);
            let res = r.and_then(|r| Self::call_with_ctx(py, &self.on_arrival, Some(r), ctx));
            if let Err(e) = res {
                self.fail_py(py, "on_arrival", e);
            }
        });
    }

    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        if self.on_completion.is_none() || self.failure.is_some() {
            return;
        }
        Python::attach(|py| {
            let f = self.on_completion.as_ref().expect("checked above");
            let c = Bound::new(py, PyCompletion::new(done)).map(Bound::into_any);
            if let Err(e) = c.and_then(|c| Self::call_with_ctx(py, f, Some(c), ctx)) {
                self.fail_py(py, "on_completion", e);
            }
        });
    }

    fn on_timer(&mut self, ctx: &SchedCtx) {
        if self.on_timer.is_none() || self.failure.is_some() {
            return;
        }
        Python::attach(|py| {
            let f = self.on_timer.as_ref().expect("checked above");
            if let Err(e) = Self::call_with_ctx(py, f, None, ctx) {
                self.fail_py(py, "on_timer", e);
            }
        });
    }

    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        if self.failure.is_some() {
            return Decision::Idle;
        }
        Python::attach(
            |py| match Self::call_with_ctx(py, &self.decide, None, ctx) {
                Err(e) => {
                    self.fail_py(py, "decide", e);
                    Decision::Idle
                }
                Ok(out) => self.decision(&out).unwrap_or_else(|msg| {
                    self.fail(msg, None);
                    Decision::Idle
                }),
            },
        )
    }

    fn pending(&self) -> usize {
        self.pending.len()
    }

    fn take_failure(&mut self) -> Option<HeadwayError> {
        self.failure.take()
    }
}
