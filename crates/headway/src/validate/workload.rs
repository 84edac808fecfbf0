use std::sync::Arc;

use super::ValidateRecord;
use crate::error::Result;
use crate::request::Request;
use crate::time::{ms_to_ns, SimTime};
use crate::workload::{Arrivals, Workload};

/// Validate-mode replay: issue record 0 at time 0, and each next record its predecessor's
/// delay after the predecessor completes, so exactly one request is ever outstanding.
pub struct ValidateWorkload {
    records: Arc<Vec<ValidateRecord>>,
    next: usize,
    start_ns: SimTime,
}

impl ValidateWorkload {
    /// Issue the first record at `start_ns` instead of 0: the spindle's phase at the first
    /// request is unknown, so this is how to see how much a result owes to it.
    pub(crate) fn starting_at(records: Arc<Vec<ValidateRecord>>, start_ns: SimTime) -> Self {
        ValidateWorkload {
            records,
            next: 0,
            start_ns,
        }
    }

    fn issue(&mut self, at: SimTime, out: &mut Arrivals) {
        if let Some(r) = self.records.get(self.next) {
            out.push(Request::new(at, r.lbn, r.sectors, r.op));
            self.next += 1;
        }
    }
}

impl Workload for ValidateWorkload {
    fn name(&self) -> &str {
        "validate"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.issue(self.start_ns, out);
        Ok(())
    }
    fn on_arrival(&mut self, _req: &Request, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
    fn on_completion(&mut self, _req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()> {
        let delay = self.records[self.next - 1].delay_ms;
        self.issue(now + ms_to_ns(delay), out);
        Ok(())
    }
}
