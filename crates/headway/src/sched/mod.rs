//! Host I/O schedulers.
//!
//! A scheduler is told of arrivals, completions and timer expiries, and whenever a device
//! has a free slot it is asked to [`decide`](Scheduler::decide): dispatch a command now,
//! wait until a time (non-work-conserving: anticipation), or stay idle. It may ask the
//! predictors anything. Schedulers compose: a wrapper (anticipation, freeblock, Cello,
//! flash-backed redirection) holds inner schedulers and forwards to them.

use crate::predict::Predictor;
use crate::request::{Command, Completion, DeviceId, Request};
use crate::time::SimTime;

mod clook;
mod cscan;
mod elevator;
mod fcfs;
mod look;
mod registry;
mod scan;
mod sptf;
mod sstf;
mod sweep;

pub use clook::CLook;
pub use cscan::CScan;
pub use elevator::Elevator;
pub use fcfs::Fcfs;
pub use look::Look;
pub use registry::{scheduler_by_name, SCHEDULER_NAMES};
pub use scan::Scan;
pub use sptf::Sptf;
pub use sstf::Sstf;

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
}

impl<'a> SchedCtx<'a> {
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
