//! A Cello class scheduler written in Python: asked where each of its class's requests goes
//! in Cello's scheduled queue.
//!
//! The object's `place(request, queue, positions)` gets the request as a dict (`id`, `lbn`,
//! `sectors`, `arrival_ms`, `deadline_ms` or None), the scheduled queue as a list of dicts
//! (`id`, `lbn`, `class`, `tau_ms`, `deadline_ms`, `realtime`) and, for every position k
//! from 0 to len (insert before entry k; len is the tail), a dict with `start_ms` (earliest
//! start there), `tau_ms` (the request's service time there), `added_ms` (service time the
//! insertion adds for everything after) and `keeps_deadlines` (slack stealing allows it).
//! It returns the position. An optional `pick(pending)` returns the index of the pending
//! request to place (default: the oldest).

use headway::request::Request;
use headway::sched::cello::{ClassScheduler, QueueView};
use headway::HeadwayError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

pub struct PyClassScheduler {
    pub obj: Py<PyAny>,
    pub label: String,
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn request_dict<'py>(py: Python<'py>, r: &Request) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", r.id)?;
    d.set_item("lbn", r.lbn)?;
    d.set_item("sectors", r.sectors)?;
    d.set_item("arrival_ms", ms(r.arrival_ns))?;
    d.set_item(
        "deadline_ms",
        (r.deadline_ns != headway::time::NEVER).then(|| ms(r.deadline_ns)),
    )?;
    Ok(d)
}

impl PyClassScheduler {
    fn fail(&self, e: PyErr) -> HeadwayError {
        crate::errors::plugin_error(&self.label, e)
    }
}

impl ClassScheduler for PyClassScheduler {
    fn name(&self) -> &str {
        &self.label
    }
    fn pick(&self, pending: &std::collections::VecDeque<Request>) -> usize {
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            if !obj.hasattr("pick").unwrap_or(false) {
                return 0;
            }
            let list = PyList::empty(py);
            for r in pending {
                if let Ok(d) = request_dict(py, r) {
                    let _ = list.append(d);
                }
            }
            obj.call_method1("pick", (list,))
                .and_then(|v| v.extract::<usize>())
                .ok()
                .filter(|&i| i < pending.len())
                .unwrap_or(0)
        })
    }
    fn place(&self, r: &Request, _class: usize, view: &QueueView) -> headway::Result<usize> {
        Python::attach(|py| -> PyResult<usize> {
            let queue = PyList::empty(py);
            for k in 0..view.len() {
                let e = view.entry(k);
                let d = PyDict::new(py);
                d.set_item("id", e.req.id)?;
                d.set_item("lbn", e.req.lbn)?;
                d.set_item("class", e.class)?;
                d.set_item("tau_ms", ms(e.tau_ns))?;
                d.set_item("realtime", e.realtime)?;
                d.set_item("deadline_ms", e.realtime.then(|| ms(e.req.deadline_ns)))?;
                queue.append(d)?;
            }
            let positions = PyList::empty(py);
            for k in 0..=view.len() {
                let (tau, added) = view.cost(k, r);
                let d = PyDict::new(py);
                d.set_item("start_ms", ms(view.start_at(k)))?;
                d.set_item("tau_ms", ms(tau))?;
                d.set_item("added_ms", added as f64 / 1e6)?;
                d.set_item("keeps_deadlines", view.keeps_deadlines(k, added))?;
                positions.append(d)?;
            }
            self.obj
                .bind(py)
                .call_method1("place", (request_dict(py, r)?, queue, positions))?
                .extract::<usize>()
        })
        .map_err(|e| self.fail(e))
    }
}
