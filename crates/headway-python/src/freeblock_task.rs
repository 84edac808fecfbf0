//! A freeblock background task written in Python: receives its blocks as they are read.
//!
//! The object's `delivered(lbn, sectors, now_ms)` is called once per completed free (or
//! idle-time) read, in completion order. It returns None, or a list of changes
//! `("want", lbn, sectors)` (read these too) and `("drop", lbn, sectors)` (no longer read
//! these), applied at once.

use headway::sched::freeblock::task::{BlockSink, WantChange};
use headway::{HeadwayError, SimTime};
use pyo3::prelude::*;

pub struct PyBlockSink {
    pub obj: Py<PyAny>,
}

impl BlockSink for PyBlockSink {
    fn delivered(
        &mut self,
        lbn: u64,
        sectors: u32,
        now_ns: SimTime,
    ) -> headway::Result<Vec<WantChange>> {
        Python::attach(|py| -> PyResult<Result<Vec<WantChange>, String>> {
            let reply =
                self.obj
                    .call_method1(py, "delivered", (lbn, sectors, now_ns as f64 / 1e6))?;
            if reply.is_none(py) {
                return Ok(Ok(Vec::new()));
            }
            let items: Vec<(String, u64, u64)> = match reply.extract(py) {
                Ok(v) => v,
                Err(_) => return Ok(Err(
                    "delivered() must return None or a list of (\"want\" | \"drop\", lbn, sectors)"
                        .into(),
                )),
            };
            let mut out = Vec::with_capacity(items.len());
            for (what, l, n) in items {
                out.push(match what.as_str() {
                    "want" => WantChange::Want(l, n),
                    "drop" => WantChange::Drop(l, n),
                    other => {
                        return Ok(Err(format!(
                            "delivered() returned change `{other}`: expected \"want\" or \"drop\""
                        )))
                    }
                });
            }
            Ok(Ok(out))
        })
        .map_err(|e| crate::errors::plugin_error("background_task", e))?
        .map_err(|msg| HeadwayError::config("background_task.delivered", msg))
    }
}
