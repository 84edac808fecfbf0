use super::{Arrivals, Workload};
use crate::error::{HeadwayError, Result};
use crate::request::Request;
use crate::time::SimTime;

/// A fixed list of requests, replayed open-loop at their arrival times (used by tests and by
/// the Python API when a user hands over requests directly).
pub struct ListWorkload {
    reqs: std::vec::IntoIter<Request>,
    last: SimTime,
}

impl ListWorkload {
    /// `reqs` must be sorted by arrival time.
    pub fn new(reqs: Vec<Request>) -> Result<Self> {
        if let Some(w) = reqs.windows(2).find(|w| w[1].arrival_ns < w[0].arrival_ns) {
            return Err(HeadwayError::config(
                "requests",
                format!(
                    "arrival times must not decrease ({} after {})",
                    w[1].arrival_ns, w[0].arrival_ns
                ),
            ));
        }
        Ok(ListWorkload {
            reqs: reqs.into_iter(),
            last: 0,
        })
    }

    fn next(&mut self, out: &mut Arrivals) {
        if let Some(r) = self.reqs.next() {
            self.last = r.arrival_ns;
            out.push(r);
        }
    }
}

impl Workload for ListWorkload {
    fn name(&self) -> &str {
        "list"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.next(out);
        Ok(())
    }
    fn on_arrival(&mut self, _req: &Request, out: &mut Arrivals) -> Result<()> {
        self.next(out);
        Ok(())
    }
    fn on_completion(&mut self, _req: &Request, _now: SimTime, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
}
