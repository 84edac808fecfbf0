//! A scheduler written in Python, plugged into the core's `Scheduler` trait.
//!
//! The Python object sees requests as they arrive and answers `decide` (or, to be wrapped by
//! another scheduler, `propose` and `commit`); the Rust side keeps every pending request by
//! id so that a decision (a request, an id, or a list to merge) can be turned into a command
//! without trusting Python with the request's contents. A Python exception cannot cross the
//! trait (it returns no `Result`), so it is stored, reported through `take_failure`, and the
//! original is kept for `__cause__`.
//!
//! A plug-in with only `decide` is proposed-to by calling `decide` once and holding its
//! answer until it is committed: `decide` may have changed the plug-in's own state, so it is
//! not asked again (a wrapper sees that choice as fixed until it takes it).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use headway::request::{Command, Completion};
use headway::sched::{Decision, Placement, SchedCtx, Scheduler};
use headway::{HeadwayError, Request};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::context::{Lease, Made};
use crate::errors::describe_py_exception;
use crate::request::{request_id, PyCompletion, PyRequest, PyServe, PyWait};

/// Where a plug-in's Python exception waits for `run` to chain it onto the `PluginError`.
pub type CauseSlot = Rc<RefCell<Option<PyErr>>>;

pub struct PyScheduler {
    name: String,
    on_arrival: Py<PyAny>,
    decide: Option<Py<PyAny>>,
    propose: Option<Py<PyAny>>,
    commit: Option<Py<PyAny>>,
    declined: Option<Py<PyAny>>,
    on_completion: Option<Py<PyAny>>,
    on_timer: Option<Py<PyAny>>,
    pending: HashMap<u64, Request>,
    /// A decide-only plug-in's answer, held until committed.
    held: Option<Decision>,
    /// Host requests the plug-in made during the current callback.
    made: Made,
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
        let (propose, commit) = (method("propose"), method("commit"));
        let decide = method("decide");
        if decide.is_none() && (propose.is_none() || commit.is_none()) {
            return Err(HeadwayError::Plugin {
                name,
                msg: "a Python scheduler needs a `decide` method (or `propose` and `commit`)"
                    .into(),
            });
        }
        if propose.is_some() != commit.is_some() {
            return Err(HeadwayError::Plugin {
                name,
                msg:
                    "a Python scheduler with `propose` needs `commit` too, and the other way round"
                        .into(),
            });
        }
        Ok(PyScheduler {
            on_arrival: required("on_arrival")?,
            decide,
            propose,
            commit,
            declined: method("declined"),
            on_completion: method("on_completion"),
            on_timer: method("on_timer"),
            name,
            pending: HashMap::new(),
            held: None,
            made: Made::default(),
            failure: None,
            cause,
        })
    }

    /// Hold the host requests made during the last callback as pending.
    fn absorb_made(&mut self) {
        for r in self.made.borrow_mut().drain(..) {
            self.pending.insert(r.id, r);
        }
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
        made: &Made,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = Lease::with_made(py, ctx, Some(made.clone()))?;
        let c = lease.object().clone().into_any();
        match arg {
            Some(a) => f.bind(py).call1((a, c)),
            None => f.bind(py).call1((c,)),
        }
    }

    /// Turn what `decide`/`propose` (`method`) returned into a decision; requests stay
    /// pending until committed. Errors are messages for a `PluginError`.
    fn decision(&mut self, method: &str, out: &Bound<'_, PyAny>) -> Result<Decision, String> {
        if out.is_none() {
            return Ok(Decision::Idle);
        }
        if let Ok(w) = out.cast::<PyWait>() {
            return Ok(Decision::WaitUntil(w.get().until_ns));
        }
        if let Ok(sv) = out.cast::<PyServe>() {
            let ids = &sv.get().ids;
            if ids.is_empty() {
                return Err(format!(
                    "{method}() returned Serve([]); return None to stay idle"
                ));
            }
            let mut reqs: headway::sched::Served = Default::default();
            for (i, id) in ids.iter().enumerate() {
                if ids[..i].contains(id) {
                    return Err(format!("{method}() served request {id} twice"));
                }
                match self.pending.get(id) {
                    Some(r) => reqs.push(*r),
                    None => {
                        return Err(format!(
                            "{method}() served request id {id}, which is not pending (never \
                             arrived, or already dispatched)"
                        ))
                    }
                }
            }
            return Ok(Decision::Serve(reqs));
        }
        if let Ok(t) = out.cast::<PyTuple>() {
            if t.len() == 2 && t.get_item(0).is_ok_and(|k| k.eq("wait").unwrap_or(false)) {
                let at = t
                    .get_item(1)
                    .and_then(|v| v.extract::<u64>())
                    .map_err(|_| {
                        format!("{method}() returned (\"wait\", x) where x is not a non-negative integer of nanoseconds")
                    })?;
                return Ok(Decision::WaitUntil(at));
            }
        }
        if out.is_instance_of::<PyList>() || out.is_instance_of::<PyTuple>() {
            let ids = out
                .try_iter()
                .and_then(|it| it.map(|x| x.and_then(|x| request_id(&x))).collect::<PyResult<Vec<u64>>>())
                .map_err(|_| format!("{method}() returned a list that holds something other than requests or request ids"))?;
            return self.lookup(method, &ids).map(Decision::Dispatch);
        }
        match request_id(out) {
            Ok(id) => self.lookup(method, &[id]).map(Decision::Dispatch),
            Err(_) => Err(format!(
                "{method}() returned {}; expected None, a Request, a request id, a list of them \
                 (merged into one command), headway.Wait(until_ns) or headway.Serve(requests)",
                out.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_else(|_| "an object".into())
            )),
        }
    }

    fn lookup(&self, method: &str, ids: &[u64]) -> Result<Command, String> {
        let mut reqs = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(format!("{method}() returned request {id} twice"));
            }
            match self.pending.get(id) {
                Some(r) => reqs.push(*r),
                None => {
                    return Err(format!(
                        "{method}() returned request id {id}, which is not pending (never arrived, or already dispatched)"
                    ))
                }
            }
        }
        Ok(match reqs.as_slice() {
            [] => {
                return Err(format!(
                    "{method}() returned an empty list; return None to stay idle"
                ))
            }
            [one] => Command::single(*one),
            many => Command::merged(many).ok_or_else(|| {
                format!(
                    "{method}() returned requests {ids:?}, which cannot form one command: merged \
                     requests must cover one contiguous range, with the same op, on the same device"
                )
            })?,
        })
    }

    /// Call `f(requests, placement, ctx)` (`commit`) or `f(requests, ctx)` (`declined`).
    fn call_with_requests(
        py: Python<'_>,
        f: &Py<PyAny>,
        cmd: &Command,
        placement: Option<&str>,
        ctx: &SchedCtx<'_>,
    ) -> PyResult<()> {
        let reqs =
            pyo3::types::PyTuple::new(py, cmd.requests.iter().map(|r| PyRequest { inner: *r }))?;
        let lease = Lease::new(py, ctx)?;
        let c = lease.object().clone().into_any();
        match placement {
            Some(p) => f.bind(py).call1((reqs, p, c))?,
            None => f.bind(py).call1((reqs, c))?,
        };
        Ok(())
    }
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
            let res =
                r.and_then(|r| Self::call_with_ctx(py, &self.on_arrival, Some(r), ctx, &self.made));
            if let Err(e) = res {
                self.fail_py(py, "on_arrival", e);
            }
        });
        self.absorb_made();
    }

    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        if self.on_completion.is_none() || self.failure.is_some() {
            return;
        }
        Python::attach(|py| {
            let f = self.on_completion.as_ref().expect("checked above");
            let c = Bound::new(py, PyCompletion::new(done)).map(Bound::into_any);
            if let Err(e) = c.and_then(|c| Self::call_with_ctx(py, f, Some(c), ctx, &self.made)) {
                self.fail_py(py, "on_completion", e);
            }
        });
        self.absorb_made();
    }

    fn on_timer(&mut self, ctx: &SchedCtx) {
        if self.on_timer.is_none() || self.failure.is_some() {
            return;
        }
        Python::attach(|py| {
            let f = self.on_timer.as_ref().expect("checked above");
            if let Err(e) = Self::call_with_ctx(py, f, None, ctx, &self.made) {
                self.fail_py(py, "on_timer", e);
            }
        });
        self.absorb_made();
    }

    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        if self.failure.is_some() {
            return Decision::Idle;
        }
        if self.propose.is_none() {
            if let Some(d) = &self.held {
                return d.clone();
            }
        }
        let method = if self.propose.is_some() {
            "propose"
        } else {
            "decide"
        };
        let d = Python::attach(|py| {
            let f = self
                .propose
                .as_ref()
                .or(self.decide.as_ref())
                .expect("checked at construction")
                .clone_ref(py);
            match Self::call_with_ctx(py, &f, None, ctx, &self.made) {
                Err(e) => {
                    self.fail_py(py, method, e);
                    Decision::Idle
                }
                Ok(out) => {
                    // Requests it made during the call may be what it returns.
                    self.absorb_made();
                    self.decision(method, &out).unwrap_or_else(|msg| {
                        self.fail(msg, None);
                        Decision::Idle
                    })
                }
            }
        });
        self.absorb_made();
        if self.propose.is_none() && matches!(d, Decision::Dispatch(_) | Decision::Serve(_)) {
            self.held = Some(d.clone());
        }
        d
    }

    fn commit(
        &mut self,
        cmd: &Command,
        placement: Placement,
        ctx: &SchedCtx,
    ) -> headway::Result<()> {
        for r in &cmd.requests {
            if self.pending.remove(&r.id).is_none() {
                return Err(HeadwayError::Plugin {
                    name: self.name.clone(),
                    msg: format!(
                        "asked to commit request {}, which it does not hold (never proposed, or \
                         already committed)",
                        r.id
                    ),
                });
            }
        }
        self.held = None;
        if self.commit.is_none() {
            return Ok(());
        }
        let where_ = match placement {
            Placement::Device => "device",
            Placement::Diverted => "diverted",
        };
        Python::attach(|py| {
            let f = self.commit.as_ref().expect("checked above").clone_ref(py);
            if let Err(e) = Self::call_with_requests(py, &f, cmd, Some(where_), ctx) {
                self.fail_py(py, "commit", e);
            }
        });
        Ok(())
    }

    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        if self.failure.is_some() {
            return;
        }
        if self.declined.is_some() {
            Python::attach(|py| {
                let f = self.declined.as_ref().expect("checked above").clone_ref(py);
                if let Err(e) = Self::call_with_requests(py, &f, cmd, None, ctx) {
                    self.fail_py(py, "declined", e);
                }
            });
        }
    }

    fn pending(&self) -> usize {
        self.pending.len()
    }

    fn take_failure(&mut self) -> Option<HeadwayError> {
        self.failure.take()
    }
}
