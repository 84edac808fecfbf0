//! What a scheduler may look at and ask for while it is called: the time, one predictor per
//! device, the devices' queues, what the run is made of (devices, classes, processes), and
//! the host's services (ids for work the host makes itself, origin names).

use std::cell::{Cell, RefCell};

use crate::error::HeadwayError;
use crate::predict::Predictor;
use crate::request::{DeviceId, Op, Request, HOST_ORIGIN_BASE};
use crate::time::{SimTime, NEVER};

pub use crate::stats::{ProcessInfo, RunInfo};

/// The host's services to schedulers, shared by every call: request ids (one sequence for
/// workload and host-made requests), host origin names, and the host-made requests created
/// during the current call (the engine counts them as they are made).
#[derive(Debug, Default)]
pub struct HostWork {
    next_id: Cell<u64>,
    origins: RefCell<Vec<String>>,
    created: RefCell<Vec<Request>>,
    /// `created` is not empty (checked after every host call, so kept apart from the cell).
    any_created: Cell<bool>,
}

impl HostWork {
    pub fn new() -> Self {
        Self::default()
    }
    /// The id the next request will get, without taking it.
    #[inline]
    pub(crate) fn peek_id(&self) -> u64 {
        self.next_id.get()
    }
    /// The next request id (the engine takes workload ids from here too).
    #[inline]
    pub(crate) fn next_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }
    /// The origin id of host component `name`, registering it on first use.
    pub(crate) fn origin(&self, name: &str) -> u16 {
        let mut o = self.origins.borrow_mut();
        let i = match o.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                o.push(name.to_string());
                o.len() - 1
            }
        };
        HOST_ORIGIN_BASE + i as u16
    }
    /// Host origin names, indexed by origin − [`HOST_ORIGIN_BASE`].
    pub(crate) fn origin_names(&self) -> Vec<String> {
        self.origins.borrow().clone()
    }
    /// Hand each host-made request created since the last call to `f` (the engine drains
    /// them after every host call) and forget them, keeping the list's room: taking the
    /// list instead allocated it again at the next request the host made, which an
    /// array's member operations paid each.
    pub(crate) fn drain_created(&self, mut f: impl FnMut(&Request)) {
        self.any_created.set(false);
        let mut created = self.created.borrow_mut();
        for r in created.iter() {
            f(r);
        }
        created.clear();
    }
    #[inline]
    pub(crate) fn created_any(&self) -> bool {
        self.any_created.get()
    }
    fn record(&self, r: Request) {
        self.any_created.set(true);
        self.created.borrow_mut().push(r);
    }
}

/// What a scheduler may look at while deciding. Valid for one call.
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
    /// The run's devices, classes, workloads and processes.
    pub info: &'a RunInfo,
    work: Option<&'a HostWork>,
    /// Boxed: checked after every call, so the empty case must cost one word.
    failure: Cell<Option<Box<HeadwayError>>>,
}

static EMPTY_INFO: std::sync::OnceLock<RunInfo> = std::sync::OnceLock::new();

impl<'a> SchedCtx<'a> {
    /// A context with no decision cost, a single-device run description and no host
    /// services (for tests of a scheduler alone; the host uses [`SchedCtx::for_host`]).
    pub fn new(
        now: SimTime,
        predictors: &'a [Box<dyn Predictor>],
        outstanding: &'a [usize],
        max_outstanding: &'a [usize],
    ) -> Self {
        let info = EMPTY_INFO.get_or_init(RunInfo::single);
        Self::with_parts(now, predictors, outstanding, max_outstanding, info, None)
    }

    /// The context the host passes: with the run's description and the host's services.
    pub(crate) fn for_host(
        now: SimTime,
        predictors: &'a [Box<dyn Predictor>],
        outstanding: &'a [usize],
        max_outstanding: &'a [usize],
        info: &'a RunInfo,
        work: &'a HostWork,
    ) -> Self {
        // Not from `new`: the host builds one per call, and `new` looks up the shared empty
        // description first.
        Self::with_parts(
            now,
            predictors,
            outstanding,
            max_outstanding,
            info,
            Some(work),
        )
    }

    #[inline]
    fn with_parts(
        now: SimTime,
        predictors: &'a [Box<dyn Predictor>],
        outstanding: &'a [usize],
        max_outstanding: &'a [usize],
        info: &'a RunInfo,
        work: Option<&'a HostWork>,
    ) -> Self {
        SchedCtx {
            now,
            predictors,
            outstanding,
            max_outstanding,
            ns_per_estimate: 0,
            estimates: Cell::new(0),
            info,
            work,
            failure: Cell::new(None),
        }
    }

    /// Give a context built with [`SchedCtx::new`] host services (tests of wrappers).
    pub fn with_work(mut self, work: &'a HostWork) -> Self {
        self.work = Some(work);
        self
    }

    /// Record `n` service-time estimates made while deciding: the host charges them as CPU
    /// time before the command leaves (the paper's 8 µs per access-time prediction).
    #[inline]
    pub(crate) fn count_estimates(&self, n: u64) {
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
    pub(crate) fn devices(&self) -> usize {
        self.predictors.len()
    }

    /// What the run says about process `p`, if its workload declared it.
    pub fn process(&self, p: u32) -> Option<&ProcessInfo> {
        self.info.processes.get(p as usize)
    }

    /// The origin id of host component `name` (e.g. `"freeblock"`), for requests the
    /// scheduler makes itself.
    pub fn host_origin(&self, name: &str) -> u16 {
        self.services().origin(name)
    }

    /// A new request made by the host itself (a freeblock read, a flush write-back): it gets
    /// a run-unique id, arrives now, and is counted under `origin` (from
    /// [`SchedCtx::host_origin`]). It never reaches a workload. The caller holds it until it
    /// dispatches or serves it: it counts as pending.
    pub fn host_request(
        &self,
        origin: u16,
        device: DeviceId,
        lbn: u64,
        sectors: u32,
        op: Op,
    ) -> Request {
        debug_assert!(
            origin >= HOST_ORIGIN_BASE,
            "host requests need a host origin"
        );
        let work = self.services();
        let r = Request {
            id: work.next_id(),
            ..self.preview_host_request(origin, device, lbn, sectors, op)
        };
        work.record(r);
        r
    }

    /// The request [`SchedCtx::host_request`] would make now, without making it: what a
    /// proposal carries, since proposing must not make work. Committing the proposal makes
    /// it for real with `host_request`, which gives it this same id (nothing else can take
    /// an id between a proposal and its commit).
    pub(crate) fn preview_host_request(
        &self,
        origin: u16,
        device: DeviceId,
        lbn: u64,
        sectors: u32,
        op: Op,
    ) -> Request {
        Request {
            id: self.services().peek_id(),
            arrival_ns: self.now,
            lbn,
            sectors,
            op,
            device,
            process: u32::MAX,
            class: 0,
            deadline_ns: NEVER,
            origin: origin.max(HOST_ORIGIN_BASE),
            marks: Default::default(),
        }
    }

    /// Report a failure that cannot be returned through the current call; the host stops the
    /// run with it when the call returns.
    pub(crate) fn fail(&self, e: HeadwayError) {
        // The first failure wins; later ones are its consequences.
        let first = self.failure.take().unwrap_or_else(|| Box::new(e));
        self.failure.set(Some(first));
    }
    /// The failure reported during this call, if any.
    #[inline]
    pub(crate) fn take_failure(&self) -> Option<HeadwayError> {
        self.failure.take().map(|b| *b)
    }

    fn services(&self) -> &'a HostWork {
        // Every context the host builds has them; a scheduler tested alone that makes host
        // work must be given some with `with_work`.
        self.work
            .expect("host services: build the context with SchedCtx::for_host or with_work")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_requests_are_drained_once_in_order_and_the_list_keeps_its_room() {
        let work = HostWork::new();
        let ctx = SchedCtx::new(0, &[], &[], &[]).with_work(&work);
        let origin = ctx.host_origin("array");
        let a = ctx.host_request(origin, 0, 8, 8, Op::Read);
        let b = ctx.host_request(origin, 1, 16, 8, Op::Write);
        assert!(work.created_any());
        let mut seen = Vec::new();
        work.drain_created(|r| seen.push(*r));
        assert_eq!(seen, vec![a, b]);
        assert_eq!((a.id + 1, a.origin), (b.id, origin));
        assert!(!work.created_any());
        assert!(work.created.borrow().capacity() >= 2);
        seen.clear();
        work.drain_created(|r| seen.push(*r));
        assert!(seen.is_empty());
    }
}
