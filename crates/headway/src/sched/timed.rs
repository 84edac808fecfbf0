//! The queue and search every rotation-aware scheduler shares (STF/SPTF, SATF, GSTF, WSTF,
//! aged SPTF, SPTF-SW): requests kept in cylinder order with their predictor targets, an
//! argmin over a cylinder range with a pluggable cost, and the bookkeeping of where the
//! next command starts.
//!
//! The search itself, pruned without changing its answer, is the one the drive's firmware
//! uses too ([`crate::order::search`]).

use std::collections::BTreeMap;

use super::proposal::{not_proposed, ProposalSlot};
use super::timed_chain::{self, Sent};
use super::{Placement, SchedCtx};
use crate::error::Result;
use crate::order::cyl_index::CylIndex;
use crate::order::search;
pub(crate) use crate::order::search::Origin;
use crate::order::sweep::Key;
use crate::predict::{self, Access, Arrival, Moment, Needs, Predictor, Target};
use crate::request::{Command, Completion, DeviceId, HeadPosition, Op, Request};
use crate::time::SimTime;

pub(crate) struct TimedQueue {
    /// Keys in cylinder order, each with the slot of its request in `held`: the index's
    /// entries stay small (a request and its target are 112 bytes, which every insert and
    /// removal would otherwise shift).
    pub queue: CylIndex,
    /// The queued requests with their targets, by slot; `free` lists the unused slots.
    held: Vec<(Request, Target)>,
    free: Vec<u32>,
    /// How many of the queued requests are writes (the origin is planned per op only for
    /// the ops queued).
    writes: usize,
    /// (arrival, id) → cylinder, for the oldest request and the largest age. Kept only by
    /// the schedulers that ask (aged SPTF, WSTF): it costs a tree insert and remove per
    /// request, a tenth of a plain SPTF decision.
    by_age: Option<BTreeMap<(SimTime, u64), u32>>,
    pub device: DeviceId,
    pub prune: bool,
    /// Whether the targets carry their transfer time (a scheduler ranking by positioning
    /// alone never reads it, and the oracle then skips working it out).
    with_transfer: bool,
    /// Predicted head position and completion time of the last command dispatched, for
    /// choosing the next one while it is still outstanding (a two-deep pipeline).
    last: Option<(HeadPosition, SimTime)>,
    /// With a predictor that has the drive's queued rules
    /// ([`predict::QueueModel::exact_tail`]): the commands sent and perhaps still at the
    /// device, oldest first, as planned ([`timed_chain`]); the ones at the device are the
    /// last `outstanding` (the drive completes them in the order sent when it keeps that
    /// order).
    chain: Vec<Sent>,
    /// The chain as committing the current proposal leaves it.
    proposed_chain: Vec<Sent>,
    /// Whether to plan with the chain when the predictor has the queued rules
    /// ([`crate::sched::Scheduler::set_queued_planning`]).
    pub queued_planning: bool,
    /// Estimates the previous pruned decision made: the best guess of this one's CPU time.
    last_evaluations: u64,
    /// Estimates the latest search made (becomes `last_evaluations` when its choice is
    /// committed).
    search_evaluations: u64,
    /// The request the latest search chose.
    found: Option<Request>,
    /// Where the latest search found its choice in the flat index (`u32::MAX` from the
    /// B-tree), for taking it out there ([`CylIndex::remove_at`]).
    found_at: u32,
    /// The last proposal: its key, the head position and time it is predicted to end at,
    /// and the estimates its search made.
    proposal: ProposalSlot<(Key, (HeadPosition, SimTime), u64)>,
    /// Positioning estimates performed (for measuring pruning).
    pub evaluations: u64,
}

impl TimedQueue {
    pub fn new(prune: bool) -> Self {
        TimedQueue {
            queue: CylIndex::default(),
            held: Vec::new(),
            free: Vec::new(),
            writes: 0,
            by_age: None,
            device: 0,
            prune,
            with_transfer: true,
            last: None,
            chain: Vec::new(),
            proposed_chain: Vec::new(),
            queued_planning: true,
            last_evaluations: 0,
            search_evaluations: 0,
            found: None,
            found_at: u32::MAX,
            proposal: ProposalSlot::default(),
            evaluations: 0,
        }
    }

    /// A queue for a scheduler that ranks by `objective`: targets carry their transfer time
    /// only if it is [`Objective::Service`].
    pub(crate) fn ranked_by(self, objective: Objective) -> Self {
        TimedQueue {
            with_transfer: objective == Objective::Service,
            ..self
        }
    }

    /// A queue that also knows its oldest request ([`TimedQueue::oldest`]).
    pub(crate) fn with_age(prune: bool) -> Self {
        TimedQueue {
            by_age: Some(BTreeMap::new()),
            ..Self::new(prune)
        }
    }

    pub fn insert(&mut self, req: Request, ctx: &SchedCtx) {
        let p = ctx.predictor(req.device);
        self.device = req.device;
        let needs = if self.with_transfer {
            Needs::Service
        } else {
            Needs::Positioning
        };
        let t = p.target(Access::new(req.lbn, req.sectors, req.op), needs);
        if let Some(ages) = &mut self.by_age {
            ages.insert((req.arrival_ns, req.id), t.cylinder);
        }
        self.writes += usize::from(req.op == Op::Write);
        let slot = search::hold(&mut self.held, &mut self.free, (req, t));
        self.queue.insert(t.cylinder, req.id, slot);
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The oldest queued request's key and arrival time (the queue must be built
    /// [`TimedQueue::with_age`]).
    pub(crate) fn oldest(&self) -> Option<(Key, SimTime)> {
        debug_assert!(
            self.by_age.is_some(),
            "oldest() on a queue built without ages"
        );
        self.by_age
            .as_ref()?
            .iter()
            .next()
            .map(|(&(arr, id), &cyl)| ((cyl, id), arr))
    }

    /// Where and when the next command begins. A full scan's CPU time is known before it
    /// starts (one estimate per candidate), so the command is planned for the moment it will
    /// leave the host; a pruned scan uses the previous decision's count as its guess.
    pub(crate) fn origin(&self, ctx: &SchedCtx, candidates: usize) -> Origin {
        let planned = if self.prune {
            self.last_evaluations
        } else {
            candidates as u64
        };
        let sent = ctx.now + planned * ctx.ns_per_estimate;
        let outstanding = ctx.outstanding[self.device as usize];
        match self.last {
            Some((end, done)) if outstanding > 0 => {
                // Planned behind the commands at the drive with its queued rules, once for
                // each op queued (the op reaching the drive decides whether it holds the
                // bus, and, with a write rule, whether its overhead overlaps the commands
                // ahead); otherwise after the last one's media end and tail.
                let q = ctx.predictor(self.device).queue_model();
                match self.at_device(outstanding).zip(q) {
                    Some((chain, q)) => {
                        let plan = |op| {
                            let at = timed_chain::walk(q, chain, Arrival::new(sent, op), |_, _| {});
                            (at.from, at.start_ns)
                        };
                        let reads = self.len() > self.writes;
                        // With only writes queued the one origin is a write's.
                        let read = plan(if reads { Op::Read } else { Op::Write });
                        let write = if reads && self.writes > 0 {
                            plan(Op::Write)
                        } else {
                            read
                        };
                        Origin {
                            write,
                            ..Origin::uniform(read.0, read.1, sent)
                        }
                    }
                    None => Origin::uniform(end, done.max(sent), sent),
                }
            }
            _ => Origin::uniform(ctx.predictor(self.device).head(), sent, sent),
        }
    }

    /// The commands of the chain still at the device, if the host plans with the drive's
    /// queued rules (the chain is kept only then).
    fn at_device(&self, outstanding: usize) -> Option<&[Sent]> {
        at_device(&self.chain, outstanding)
    }

    /// The chain as it stands once `r` is sent at `origin`: the commands still at the
    /// device, each planned again with `r` among the arrivals, and `r` behind them (or `r`
    /// alone, sent to an idle device). Empty unless the predictor has the drive's queued
    /// rules.
    fn plan_chain(&mut self, ctx: &SchedCtx, origin: Origin, r: &Request) {
        self.proposed_chain.clear();
        let Some(q) = ctx.predictor(self.device).queue_model() else {
            return;
        };
        if !(self.queued_planning && q.exact_tail()) {
            return;
        }
        let outstanding = ctx.outstanding[self.device as usize];
        let (from, start_ns) = origin.of(r.op);
        let mut sent = Sent {
            from,
            start_ns,
            taken_ns: origin.sent_ns,
            arrives_ns: origin.sent_ns,
            enters_ns: origin.sent_ns,
            id: r.id,
            lbn: r.lbn,
            sectors: r.sectors,
            op: r.op,
        };
        let at = at_device(&self.chain, outstanding);
        if let Some(chain) = at.filter(|_| self.last.is_some() && outstanding > 0) {
            let next = Arrival::new(origin.sent_ns, r.op);
            let planned = &mut self.proposed_chain;
            planned.extend_from_slice(chain);
            let last = timed_chain::walk(q, chain, next, |i, at| {
                planned[i] = planned[i].planned(at);
            });
            sent = sent.planned(last);
        }
        self.proposed_chain.push(sent);
    }

    /// A command completed: the chain of commands at the device follows it
    /// ([`timed_chain::completed`]).
    pub fn completed(&mut self, c: &Completion) {
        if let Some(r) = c.command.requests.first() {
            let read_miss = c.command.op == Op::Read && !c.cache_hit;
            timed_chain::completed(&mut self.chain, r.id, read_miss, c.done_ns);
        }
    }

    /// Requests on cylinders `lo..=hi`.
    pub(crate) fn count_in(&self, lo: u32, hi: u32) -> usize {
        if lo == 0 && hi == u32::MAX {
            return self.queue.len();
        }
        self.queue.count_in(lo, hi)
    }

    /// The request on cylinders `lo..=hi` with the least `cost`, ties to the older. `cost`
    /// gets each candidate and its predicted positioning time (from the earlier of the
    /// ops' starts when the origin is planned per op: [`Origin::write`]); `bound(floor)` must not exceed
    /// the cost of any candidate whose positioning time is at least `floor`, and must not
    /// decrease as `floor` grows.
    pub(crate) fn argmin<C: Ord + Copy>(
        &mut self,
        ctx: &SchedCtx,
        origin: Origin,
        lo: u32,
        hi: u32,
        bound: impl Fn(SimTime) -> C,
        cost: impl FnMut(&Request, &Target, SimTime) -> C,
    ) -> Option<(Key, C)> {
        let found = self.argmin_with(ctx.predictor(self.device), origin, lo, hi, bound, cost);
        ctx.count_estimates(self.search_evaluations);
        found
    }

    /// [`TimedQueue::argmin`]'s search, with the device's predictor `p`.
    fn argmin_with<P: Predictor + ?Sized, C: Ord + Copy>(
        &mut self,
        p: &P,
        origin: Origin,
        lo: u32,
        hi: u32,
        bound: impl Fn(SimTime) -> C,
        cost: impl FnMut(&Request, &Target, SimTime) -> C,
    ) -> Option<(Key, C)> {
        // The pruned search never changes the answer, so a full scan runs it too: only the
        // scan's CPU time differs, and that is charged by the candidates it would estimate.
        let (best, winner, evals) = search::argmin(
            &self.held,
            &self.queue,
            p,
            origin,
            lo,
            hi,
            true,
            bound,
            cost,
        );
        let evals = if self.prune {
            evals
        } else {
            self.count_in(lo, hi) as u64
        };
        self.found = winner;
        self.evaluations += evals;
        self.search_evaluations = evals;
        self.found_at = best.map_or(u32::MAX, |b| b.3);
        best.map(|(c, _, k, _)| (k, c))
    }

    /// The command for `key`, remembered as the current proposal with where it would leave
    /// the head.
    pub(crate) fn propose(&mut self, key: Key, ctx: &SchedCtx, origin: Origin) -> Command {
        let r = match self.found {
            Some(f) if f.id == key.1 => f,
            _ => self.held[self.queue.get(key) as usize].0,
        };
        // When and where the device can begin the command after this one (what the next
        // search plans from while this one is outstanding): its media end plus the bus and
        // completion tail.
        let (from, start_ns) = origin.of(r.op);
        let release = predict::release(
            ctx.predictor(self.device),
            Moment::new(from, start_ns),
            Access::new(r.lbn, r.sectors, r.op),
        );
        let end = (release.head, release.next_start_ns(start_ns));
        self.plan_chain(ctx, origin, &r);
        let cmd = Command::single(r);
        self.proposal.set(&cmd, (key, end, self.search_evaluations));
        cmd
    }

    /// Take `key`'s request out of the queue.
    fn remove(&mut self, key: Key) -> Request {
        let slot = match self.found {
            Some(f) if f.id == key.1 => self.queue.remove_at(key, self.found_at),
            _ => self.queue.remove(key),
        };
        self.free.push(slot);
        let r = self.held[slot as usize].0;
        self.writes -= usize::from(r.op == Op::Write);
        r
    }

    /// Take the current proposal `cmd` out of the queue; if it went to the device, the next
    /// command is planned from where it leaves the head.
    pub(crate) fn commit(&mut self, cmd: &Command, placement: Placement, name: &str) -> Result<()> {
        let Some((key, end, evals)) = self.proposal.take_for(cmd) else {
            return Err(not_proposed(name, cmd));
        };
        let r = self.remove(key);
        if let Some(ages) = &mut self.by_age {
            ages.remove(&(r.arrival_ns, r.id));
        }
        if self.prune {
            self.last_evaluations = evals;
        }
        if placement == Placement::Device {
            self.last = Some(end);
            std::mem::swap(&mut self.chain, &mut self.proposed_chain);
        }
        Ok(())
    }
}

/// What an STF-family scheduler minimises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Objective {
    /// T_a: overheads, seek and rotational latency (SPTF).
    Positioning,
    /// T_s: positioning plus media transfer (the paper's "seek time, rotation time and media
    /// access time").
    Service,
}

impl Objective {
    pub const NAMES: &'static [&'static str] = &["positioning", "service"];

    pub(crate) fn parse(name: &str) -> Self {
        if name == "service" {
            Objective::Service
        } else {
            Objective::Positioning
        }
    }

    /// The objective's value for a candidate with this positioning time.
    #[inline]
    pub(crate) fn of(self, positioning_ns: SimTime, t: &Target) -> SimTime {
        match self {
            Objective::Positioning => positioning_ns,
            Objective::Service => positioning_ns + t.transfer_ns,
        }
    }
}

/// The last `outstanding` commands of `chain`, the ones still at the device (it completes
/// them in the order sent); `None` for an empty chain (not planning with the queued rules).
fn at_device(chain: &[Sent], outstanding: usize) -> Option<&[Sent]> {
    let n = chain.len();
    (n > 0).then(|| &chain[n - outstanding.min(n)..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testkit::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// A full scan runs the pruned search: over any cylinder band its choice must be the
        /// brute-force walk's, and its charge every candidate that walk estimates.
        #[test]
        fn a_full_scan_chooses_and_charges_as_the_brute_force_walk(
            head in head_strategy(), now in 0u64..50_000_000, reqs in requests_strategy(120),
            lo in 0u32..CYLINDERS, width in 0u32..CYLINDERS, whole in any::<bool>(),
        ) {
            let preds = predictor(head);
            let ctx = SchedCtx::new(now, &preds, &[0], &[1]);
            let mut q = TimedQueue::new(false);
            for (i, &(lbn, n, w, arrival)) in reqs.iter().enumerate() {
                let mut r = Request::new(arrival, lbn, n, if w { Op::Write } else { Op::Read });
                r.id = i as u64;
                q.insert(r, &ctx);
            }
            let (lo, hi) = if whole { (0, u32::MAX) } else { (lo, lo.saturating_add(width)) };
            let origin = q.origin(&ctx, q.count_in(lo, hi));
            let cost = |_: &Request, t: &Target, pos: SimTime| pos + t.transfer_ns;
            let (brute, _, brute_evals) = search::argmin(
                &q.held, &q.queue, ctx.predictor(0), origin, lo, hi, false, |f| f, cost,
            );
            let got = q.argmin(&ctx, origin, lo, hi, |f| f, cost);
            prop_assert_eq!(got, brute.map(|(c, _, k, _)| (k, c)));
            prop_assert_eq!(q.search_evaluations, brute_evals);
            prop_assert_eq!(ctx.estimates.get(), brute_evals);
        }
    }
}
