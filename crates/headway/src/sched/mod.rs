//! Host I/O schedulers.
//!
//! A scheduler is told of arrivals, completions and timer expiries, and whenever a device
//! has a free slot it is asked to [`decide`](Scheduler::decide): dispatch a command now,
//! wait until a time (non-work-conserving: anticipation), or stay idle. It may ask the
//! predictors anything. Schedulers compose: a wrapper (anticipation, freeblock, Cello,
//! flash-backed redirection) holds inner schedulers and forwards to them.

use std::cell::Cell;

use crate::predict::Predictor;
use crate::request::{Command, Completion, DeviceId, Request};
use crate::time::SimTime;

mod aged_sptf;
mod clook;
mod cscan;
mod elevator;
mod fcfs;
mod fscan;
mod gstf;
mod lbn;
mod look;
mod options;
mod registry;
mod scan;
mod sptf;
mod sptf_sw;
mod sstf;
mod sweep;
#[cfg(test)]
mod testkit;
mod timed;
mod vscan;
mod wstf;

pub use aged_sptf::AgedSptf;
pub use clook::CLook;
pub use cscan::CScan;
pub use elevator::Elevator;
pub use fcfs::Fcfs;
pub use fscan::FScan;
pub use gstf::Gstf;
pub use lbn::LbnScheduler;
pub use look::Look;
pub use options::{OptionReader, SchedOptions};
pub use registry::{scheduler_by_name, scheduler_with_options, SCHEDULER_NAMES};
pub use scan::Scan;
pub use sptf::Sptf;
pub use sptf_sw::SptfSw;
pub use sstf::Sstf;
pub use vscan::VScan;
pub use wstf::Wstf;

/// What the host should do now.
#[derive(Debug, PartialEq)]
pub enum Decision {
    /// Send this command to its device now.
    Dispatch(Command),
    /// Keep the device(s) idle on purpose; ask again at this time (or at the next arrival or
    /// completion, whichever comes first).
    WaitUntil(SimTime),
    /// Nothing to do until something arrives or completes.
    Idle,
}

/// What a scheduler may look at while deciding.
pub struct SchedCtx<'a> {
    pub now: SimTime,
    /// One predictor per device, indexed by [`DeviceId`].
    pub predictors: &'a [Box<dyn Predictor>],
    /// Commands outstanding at each device.
    pub outstanding: &'a [usize],
    /// Commands each device may hold at once (host-side limit).
    pub max_outstanding: &'a [usize],
    /// Host CPU time one service-time estimate costs (`[host] decision_ns_per_estimate`); the
    /// host delays each dispatched command by the estimates counted during its decision.
    pub ns_per_estimate: SimTime,
    /// Estimates counted during the current call (see [`SchedCtx::count_estimates`]).
    pub estimates: Cell<u64>,
}

impl<'a> SchedCtx<'a> {
    /// A context with no decision cost.
    pub fn new(
        now: SimTime,
        predictors: &'a [Box<dyn Predictor>],
        outstanding: &'a [usize],
        max_outstanding: &'a [usize],
    ) -> Self {
        SchedCtx {
            now,
            predictors,
            outstanding,
            max_outstanding,
            ns_per_estimate: 0,
            estimates: Cell::new(0),
        }
    }
    /// Record `n` service-time estimates made while deciding: the host charges them as CPU
    /// time before the command leaves (the paper's 8 µs per access-time prediction).
    #[inline]
    pub fn count_estimates(&self, n: u64) {
        self.estimates.set(self.estimates.get() + n);
    }
    #[inline]
    pub fn predictor(&self, dev: DeviceId) -> &dyn Predictor {
        &*self.predictors[dev as usize]
    }
    /// Whether `dev` can take another command now.
    #[inline]
    pub fn has_slot(&self, dev: DeviceId) -> bool {
        self.outstanding[dev as usize] < self.max_outstanding[dev as usize]
    }
}

/// A host I/O scheduler.
pub trait Scheduler {
    fn name(&self) -> &str;
    /// A request has arrived at the host.
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx);
    /// A command this scheduler dispatched has completed.
    fn on_completion(&mut self, _done: &Completion, _ctx: &SchedCtx) {}
    /// A `WaitUntil` time has been reached.
    fn on_timer(&mut self, _ctx: &SchedCtx) {}
    /// Choose what to do now. Called whenever a device has a free slot and after every
    /// arrival, completion and timer, until it returns something other than `Dispatch`.
    fn decide(&mut self, ctx: &SchedCtx) -> Decision;
    /// Requests held by the scheduler and not yet dispatched.
    fn pending(&self) -> usize;
    /// A failure the scheduler could not report through the calls above (a plug-in written
    /// in Python raised). The host checks after every call and aborts the run with it.
    fn take_failure(&mut self) -> Option<crate::error::HeadwayError> {
        None
    }
}
