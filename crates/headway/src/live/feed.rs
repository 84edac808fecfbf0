//! The workload of a live simulation: requests submitted from outside, handed to the run
//! loop one at a time in arrival order, as a trace replay hands over its records.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::error::Result;
use crate::request::{Op, Request};
use crate::time::{SimTime, NEVER};
use crate::workload::{Arrivals, Workload};

/// What the live simulation and its workload share.
#[derive(Default)]
pub(crate) struct Feed {
    /// Submitted requests not yet handed to the run loop, by (arrival, submission id).
    pub(crate) waiting: BTreeMap<(SimTime, u64), Request>,
    /// The submission id of the request the run loop holds as its next arrival; `None`
    /// when it holds the stand-in.
    pub(crate) scheduled: Option<u64>,
    /// Submission id by the run's request id, from the arrival to the completion.
    pub(crate) arrived: HashMap<u64, u64>,
    /// No more submissions will come: once the waiting ones are handed over, the run loop
    /// holds no next arrival (not even the stand-in), as after a trace's last record.
    pub(crate) closed: bool,
}

/// The request the run loop holds when nothing is submitted: it never arrives (its time is
/// [`NEVER`]), and a submission takes its place, its request id and its order among the
/// events of the submission's time, which are those the next record of a trace replay
/// would have had.
pub(crate) fn stand_in() -> Request {
    Request::new(NEVER, 0, 1, Op::Read)
}

/// Whether `req` is the stand-in.
pub(crate) fn is_stand_in(req: &Request) -> bool {
    req.arrival_ns == NEVER
}

/// The [`Workload`] side of a [`Feed`].
pub(crate) struct FeedWorkload(pub(crate) Rc<RefCell<Feed>>);

impl FeedWorkload {
    /// Hand the run loop the next waiting request, or the stand-in.
    fn next(&self, out: &mut Arrivals) {
        let mut feed = self.0.borrow_mut();
        match feed.waiting.pop_first() {
            Some(((_, id), req)) => {
                feed.scheduled = Some(id);
                out.push(req);
            }
            None => {
                feed.scheduled = None;
                if !feed.closed {
                    out.push(stand_in());
                }
            }
        }
    }
}

impl Workload for FeedWorkload {
    fn name(&self) -> &str {
        "live"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.next(out);
        Ok(())
    }
    fn on_arrival(&mut self, req: &Request, out: &mut Arrivals) -> Result<()> {
        {
            let mut feed = self.0.borrow_mut();
            if let Some(id) = feed.scheduled.take() {
                feed.arrived.insert(req.id, id);
            }
        }
        self.next(out);
        Ok(())
    }
    fn on_completion(&mut self, _req: &Request, _now: SimTime, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
    fn ignores_completions(&self) -> bool {
        true
    }
}
