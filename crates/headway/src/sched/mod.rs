//! Host I/O schedulers.
//!
//! A scheduler is told of arrivals, completions and timer expiries, and whenever a device
//! has a free slot it is asked what to do: dispatch a command now, wait until a time
//! (non-work-conserving: anticipation), serve requests from host memory, or stay idle. It
//! may ask the predictors anything.
//!
//! Choosing is split from committing ([`Scheduler::propose`] / [`Scheduler::commit`]) so
//! that schedulers compose: a wrapper (anticipation, freeblock, Cello's class-independent
//! level, flash-backed redirection) asks its inner schedulers what they would do, without
//! side effects, and then commits what it takes, saying where it went ([`Placement`]).
//! `decide` is the two in one, for the host and for wrappers that take every proposal.
//! See `docs/architecture.md` for how the four research systems sit on this.

use smallvec::SmallVec;

use crate::error::Result;
use crate::request::{Command, Completion, Request};
use crate::time::SimTime;

mod anticipatory;
pub mod cello;
mod context;
mod hints;
mod idle_scan;
mod per_device;
mod proposal;

mod aged_sptf;
mod bfq;
mod clook;
mod cscan;
mod deadline;
mod elevator;
mod fcfs;
pub mod flash_backed;
mod free_reads;
pub mod freeblock;
mod fscan;
mod gstf;
mod lbn;
mod look;
mod mclock;
mod options;
mod priority;
mod ready;
mod registry;
mod scan;
mod sptf;
mod sptf_sw;
mod sstf;
mod stf;
#[cfg(test)]
mod testkit;
mod timed;
mod timed_chain;
mod timeslice;
mod vscan;
mod wstf;
mod zone_plug;

pub use aged_sptf::AgedSptf;
pub use anticipatory::{Anticipatory, MqDeadline, Stride};
pub use bfq::Bfq;
pub use clook::CLook;
pub use context::{HostWork, ProcessInfo, RunInfo, SchedCtx};
pub use cscan::CScan;
pub use deadline::{DeadlineRule, DeadlineScheduler};
pub use elevator::Elevator;
pub use fcfs::Fcfs;
pub use free_reads::{FreeReads, FREE_READ_ORIGIN};
pub use freeblock::Freeblock;
pub use fscan::FScan;
pub use gstf::Gstf;
pub use idle_scan::IdleScan;
pub use lbn::LbnScheduler;
pub use look::Look;
pub use mclock::MClock;
pub use options::{OptionReader, SchedOptions};
pub use per_device::PerDevice;
pub use priority::Priority;
pub(crate) use ready::ReadyList;
pub use registry::{
    build_for_devices, build_scheduler, scheduler_by_name, scheduler_info, scheduler_with_options,
    SchedSpec, SchedulerInfo, SCHEDULERS, SCHEDULER_NAMES,
};
pub use scan::Scan;
pub use sptf::Sptf;
pub use sptf_sw::SptfSw;
pub use sstf::Sstf;
pub use stf::Stf;
pub use timed_chain::{
    completed as queued_plan_completed, walk as plan_behind_queue, Planned as PlannedCommand,
    Sent as SentCommand,
};
pub use timeslice::TimeSlice;
pub use vscan::VScan;
pub use wstf::Wstf;
pub use zone_plug::ZoneAppend;
pub(crate) use zone_plug::{PlugSettings, ZonePlug};

/// The requests of a `Serve` decision.
pub type Served = SmallVec<[Request; 1]>;

/// What the host should do now.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Send this command to its device now.
    Dispatch(Command),
    /// Keep the device(s) idle on purpose; ask again at this time (or at the next arrival or
    /// completion, whichever comes first).
    WaitUntil(SimTime),
    /// Complete these requests now without any device: a read served from host memory (a
    /// write-back cache's copy), a write absorbed by a newer one. They leave the scheduler.
    Serve(Served),
    /// Nothing to do until something arrives or completes.
    Idle,
}

/// Where a committed proposal went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// To the device it names, as proposed: the scheduler's idea of where the head goes
    /// (an elevator's position, STF's predicted end) follows it.
    Device,
    /// Taken by the wrapper but not served by the proposing scheduler's device: redirected
    /// to flash, served from host memory, absorbed. The requests leave the scheduler, and its
    /// head-position bookkeeping stays where it was.
    Diverted,
}

/// A host I/O scheduler.
///
/// Contract of the two-step interface:
/// - [`propose`](Scheduler::propose) says what the scheduler would do now. It changes
///   nothing a later decision depends on: asking twice gives the same answer, and a
///   proposal that is never committed leaves the scheduler as if it had not been asked.
/// - [`commit`](Scheduler::commit) takes the last `Dispatch` proposal (its requests leave
///   the scheduler, its bookkeeping advances). It must follow the proposal with no arrival
///   or completion in between; a command the scheduler did not propose is an error.
/// - [`decide`](Scheduler::decide) = propose, then commit a dispatch to its device.
///
/// `Serve` decisions are final when proposed only through `decide`; wrappers that propose
/// must commit them too (`commit` with a command holding the served requests).
pub trait Scheduler {
    fn name(&self) -> &str;
    /// A request has arrived at the host.
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx);
    /// A command this scheduler dispatched has completed.
    fn on_completion(&mut self, _done: &Completion, _ctx: &SchedCtx) {}
    /// A `WaitUntil` time has been reached.
    fn on_timer(&mut self, _ctx: &SchedCtx) {}
    /// What this scheduler would do now, without side effects.
    fn propose(&mut self, ctx: &SchedCtx) -> Decision;
    /// The proposal `cmd` was taken and went to `placement`.
    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()>;
    /// The proposal `cmd` was looked at and not taken. Nothing needs undoing (proposals
    /// have no side effects); plug-ins may want to know.
    fn declined(&mut self, _cmd: &Command, _ctx: &SchedCtx) {}
    /// Choose and commit in one step. Called by the host whenever a device has a free slot
    /// and after every arrival, completion and timer, until it returns something other than
    /// `Dispatch`.
    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        let d = self.propose(ctx);
        let done = match &d {
            Decision::Dispatch(c) => self.commit(c, Placement::Device, ctx),
            Decision::Serve(reqs) => {
                self.commit(&proposal::serve_command(reqs), Placement::Diverted, ctx)
            }
            _ => Ok(()),
        };
        // The host checks the context for a failure before it looks at the decision, so
        // `d` can be returned on every path (and built in place: no copy of a command).
        if let Err(e) = done {
            ctx.fail(e);
        }
        d
    }
    /// What this scheduler promises the host, so that the host can skip calls that would
    /// find nothing to do (see [`Hints`]). Read once, when the scheduler is installed
    /// (`Host::new`): the value must stay the same for the scheduler's life. Default
    /// [`Hints::ASK_ALWAYS`]: a plug-in is always asked.
    fn hints(&self) -> Hints {
        Hints::ASK_ALWAYS
    }
    /// A setting, not a hint: whether a timed scheduler plans a command behind the ones at
    /// the drive with the predictor's queued rules (`sched::plan_behind_queue`; default on),
    /// or from the last one's media end plus tail as before. A wrapper that plans the
    /// drive's queue itself from `QueueModel::release` (freeblock, whose pipeline and free
    /// reads are planned from the inner scheduler's chain) turns it off so that both plan
    /// alike. Default: nothing to set.
    fn set_queued_planning(&mut self, _on: bool) {}
    /// Requests held by the scheduler and not yet dispatched.
    fn pending(&self) -> usize;
    /// A failure the scheduler could not report through the calls above (a plug-in written
    /// in Python raised). The host checks after every call and aborts the run with it.
    fn take_failure(&mut self) -> Option<crate::error::HeadwayError> {
        None
    }
    /// The free-read capability for `device`, if this scheduler (or the stack scheduling
    /// that device) reads host-chosen blocks in the foreground's gaps. Default: none.
    fn free_reads(&mut self, _device: crate::request::DeviceId) -> Option<&mut dyn FreeReads> {
        None
    }
}

pub use hints::Hints;
pub use proposal::serve_command;
