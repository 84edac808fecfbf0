//! The queue and search every rotation-aware scheduler shares (STF/SPTF, SATF, GSTF, WSTF,
//! aged SPTF, SPTF-SW): requests kept in cylinder order with their predictor targets, an
//! argmin over a cylinder range with a pluggable cost, and the bookkeeping of where the
//! next command starts.
//!
//! The search is pruned without changing its answer: it goes outward from the head's
//! cylinder, nearest first, and stops a direction once the cost's lower bound at that seek
//! distance (from the predictor's positioning floor, which never decreases with distance)
//! exceeds the best cost found. Equal bounds are still examined, so ties resolve exactly as
//! a brute-force search would: lowest cost, then oldest request.

use std::collections::BTreeMap;

use super::cyl_index::{CylIndex, Entry, Walk};
use super::proposal::{not_proposed, ProposalSlot};
use super::sweep::Key;
use super::timed_chain::{self, Sent};
use super::{Placement, SchedCtx};
use crate::error::Result;
use crate::predict::{self, Access, Arrival, Moment, Needs, Predictor, Target};
use crate::request::{Command, Completion, DeviceId, HeadPosition, Op, Request};
use crate::time::SimTime;

/// Where and when the command being chosen would begin.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Origin {
    /// Where a read would begin: the search's centre.
    pub from: HeadPosition,
    pub start_ns: SimTime,
    /// When the command leaves the host (and, the link aside, reaches the device): after
    /// the decision's CPU time.
    pub sent_ns: SimTime,
    /// Where and when a write would begin, when the plan behind the commands at the drive
    /// depends on the op reaching it (a read holds the bus during a read miss, a write to a
    /// drive without fast writes does not); else `from` and `start_ns`.
    pub write: (HeadPosition, SimTime),
}

impl Origin {
    /// The same origin for either op.
    pub fn uniform(from: HeadPosition, start_ns: SimTime, sent_ns: SimTime) -> Origin {
        Origin {
            from,
            start_ns,
            sent_ns,
            write: (from, start_ns),
        }
    }

    /// Where and when a command of `op` would begin.
    #[inline(always)]
    pub fn of(&self, op: Op) -> (HeadPosition, SimTime) {
        match op {
            Op::Read => (self.from, self.start_ns),
            Op::Write => self.write,
        }
    }

    /// Whether the two ops begin differently.
    #[inline]
    fn per_op(&self) -> bool {
        self.write != (self.from, self.start_ns)
    }

    /// What a candidate of each op adds to its positioning so that the two rank on one
    /// clock: the time from the earlier start to its own.
    #[inline]
    fn offsets_ns(&self) -> [SimTime; 2] {
        let base = self.start_ns.min(self.write.1);
        [self.start_ns - base, self.write.1 - base]
    }
}

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
    pub fn ranked_by(self, objective: Objective) -> Self {
        TimedQueue {
            with_transfer: objective == Objective::Service,
            ..self
        }
    }

    /// A queue that also knows its oldest request ([`TimedQueue::oldest`]).
    pub fn with_age(prune: bool) -> Self {
        TimedQueue {
            by_age: Some(BTreeMap::new()),
            ..Self::new(prune)
        }
    }

    pub fn insert(&mut self, req: Request, ctx: &SchedCtx) {
        self.insert_with(req, ctx.predictor(req.device));
    }

    /// [`TimedQueue::insert`] with the device's predictor `p` in hand: a caller that owns
    /// its predictor (the drive's firmware queue) passes it as its own type, so the target
    /// is worked out without a dynamic call.
    pub fn insert_with<P: Predictor + ?Sized>(&mut self, req: Request, p: &P) {
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
        let slot = match self.free.pop() {
            Some(i) => {
                self.held[i as usize] = (req, t);
                i
            }
            None => {
                self.held.push((req, t));
                (self.held.len() - 1) as u32
            }
        };
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
    pub fn oldest(&self) -> Option<(Key, SimTime)> {
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
    pub fn origin(&self, ctx: &SchedCtx, candidates: usize) -> Origin {
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
    pub fn count_in(&self, lo: u32, hi: u32) -> usize {
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
    pub fn argmin<C: Ord + Copy>(
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

    /// [`TimedQueue::argmin`] with the device's predictor `p` in hand (see
    /// [`TimedQueue::insert_with`]: as its own type, each estimate is inlined into the walk),
    /// for a caller whose context does not count estimates.
    pub fn argmin_with<P: Predictor + ?Sized, C: Ord + Copy>(
        &mut self,
        p: &P,
        origin: Origin,
        lo: u32,
        hi: u32,
        bound: impl Fn(SimTime) -> C,
        cost: impl FnMut(&Request, &Target, SimTime) -> C,
    ) -> Option<(Key, C)> {
        let held = &self.held[..];
        // A write planned from another cylinder than the reads has no floor by the
        // distance walked: that search goes over every candidate.
        let prune = self.prune && origin.write.0.cylinder == origin.from.cylinder;
        let walk = self.queue.walk(origin.from.cylinder, lo, hi);
        let (best, winner, evals) = match (walk, origin.per_op()) {
            (Walk::Flat(up, down, up_at, down_at), false) => nearest_first_flat::<_, _, false>(
                held,
                (up, up_at),
                (down, down_at),
                p,
                origin,
                prune,
                bound,
                cost,
            ),
            (Walk::Flat(up, down, up_at, down_at), true) => nearest_first_flat::<_, _, true>(
                held,
                (up, up_at),
                (down, down_at),
                p,
                origin,
                prune,
                bound,
                cost,
            ),
            (Walk::Tree(up, down), per_op) => {
                let (up, down) = (up.map(|(k, s)| (*k, *s)), down.map(|(k, s)| (*k, *s)));
                match per_op {
                    false => {
                        nearest_first::<_, _, false>(held, up, down, p, origin, prune, bound, cost)
                    }
                    true => {
                        nearest_first::<_, _, true>(held, up, down, p, origin, prune, bound, cost)
                    }
                }
            }
        };
        self.found = winner;
        self.evaluations += evals;
        self.search_evaluations = evals;
        self.found_at = best.map_or(u32::MAX, |b| b.3);
        best.map(|(c, _, k, _)| (k, c))
    }

    /// The command for `key`, remembered as the current proposal with where it would leave
    /// the head.
    pub fn propose(&mut self, key: Key, ctx: &SchedCtx, origin: Origin) -> Command {
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

    /// Take the request a search just found (`key`) out of the queue without proposing it:
    /// for a caller that never plans the command after it from where this one ends (see
    /// [`crate::sched::Sptf::take_unpipelined`]).
    pub fn take(&mut self, key: Key) -> Request {
        let r = self.remove(key);
        if let Some(ages) = &mut self.by_age {
            ages.remove(&(r.arrival_ns, r.id));
        }
        if self.prune {
            self.last_evaluations = self.search_evaluations;
        }
        r
    }

    /// Take the current proposal `cmd` out of the queue; if it went to the device, the next
    /// command is planned from where it leaves the head.
    pub fn commit(&mut self, cmd: &Command, placement: Placement, name: &str) -> Result<()> {
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

/// The state of a walk: the best (cost, id, key, position in the flat index) so far, the
/// winner itself (so that proposing it needs no second search of the queue), and the
/// estimates made.
struct Best<'a, C, const PER_OP: bool> {
    best: Option<(C, u64, Key, u32)>,
    winner: Option<&'a Request>,
    evals: u64,
    /// With the origin planned per op: each op's [`Origin::offsets_ns`].
    offsets_ns: [SimTime; 2],
}

impl<'a, C: Ord + Copy, const PER_OP: bool> Best<'a, C, PER_OP> {
    fn new(origin: &Origin) -> Self {
        Best {
            best: None,
            winner: None,
            evals: 0,
            offsets_ns: if PER_OP { origin.offsets_ns() } else { [0; 2] },
        }
    }

    /// Whether no request `dist` or more cylinders from the head can beat the best.
    #[inline(always)]
    fn bounded_out<P: Predictor + ?Sized>(
        &self,
        p: &P,
        dist: u32,
        bound: &impl Fn(SimTime) -> C,
    ) -> bool {
        matches!(self.best, Some((bc, ..)) if bound(p.positioning_floor_ns(dist)) > bc)
    }

    /// Estimate the request held in `slot` (at position `at` of the flat index) and keep it
    /// if it is better (ties to the older).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn consider<P: Predictor + ?Sized>(
        &mut self,
        held: &'a [(Request, Target)],
        key: Key,
        slot: u32,
        at: u32,
        p: &P,
        origin: Origin,
        cost: &mut impl FnMut(&Request, &Target, SimTime) -> C,
    ) {
        let (r, t) = &held[slot as usize];
        self.evals += 1;
        let positioning = if PER_OP {
            let (from, start_ns) = origin.of(t.op);
            p.positioning_to(from, start_ns, t) + self.offsets_ns[t.op as usize]
        } else {
            p.positioning_to(origin.from, origin.start_ns, t)
        };
        let c = cost(r, t, positioning);
        let better = match self.best {
            None => true,
            Some((bc, bid, ..)) => c < bc || (c == bc && r.id < bid),
        };
        if better {
            self.best = Some((c, r.id, key, at));
            self.winner = Some(r);
        }
    }

    fn done(self) -> (Option<(C, u64, Key, u32)>, Option<Request>, u64) {
        (self.best, self.winner.copied(), self.evals)
    }
}

/// [`TimedQueue::argmin`]'s walk over the requests at or above the head's cylinder (`up`)
/// and below it (`down`), each nearest first: the best (cost, id, key), the winner, and the
/// estimates made. Each step takes the nearer side (up on a tie), so the distances walked
/// never decrease and the walk can stop at the first whose floor bounds out the best.
#[allow(clippy::too_many_arguments)]
#[inline]
fn nearest_first<P: Predictor + ?Sized, C: Ord + Copy, const PER_OP: bool>(
    held: &[(Request, Target)],
    up: impl Iterator<Item = (Key, u32)>,
    down: impl Iterator<Item = (Key, u32)>,
    p: &P,
    origin: Origin,
    prune: bool,
    bound: impl Fn(SimTime) -> C,
    mut cost: impl FnMut(&Request, &Target, SimTime) -> C,
) -> (Option<(C, u64, Key, u32)>, Option<Request>, u64) {
    let hc = origin.from.cylinder;
    let mut w = Best::<C, PER_OP>::new(&origin);
    let mut up = up.peekable();
    let mut down = down.peekable();
    loop {
        let du = up.peek().map(|(k, _)| k.0.abs_diff(hc));
        let dd = down.peek().map(|(k, _)| k.0.abs_diff(hc));
        let go_up = match (du, dd) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => a <= b,
        };
        if prune {
            let dist = if go_up { du.unwrap() } else { dd.unwrap() };
            if w.bounded_out(p, dist, &bound) {
                // The nearest remaining candidate either way is at least this far.
                break;
            }
        }
        let (key, slot) = if go_up {
            up.next().unwrap()
        } else {
            down.next().unwrap()
        };
        w.consider(held, key, slot, u32::MAX, p, origin, &mut cost);
    }
    w.done()
}

/// [`nearest_first`] over the flat index's two slices (`up` in ascending cylinder order
/// from the head's, `down` ascending below it, walked from its end; each with the position
/// of its first entry in the index), the same steps in the same order: each side's next
/// distance is read from its slice by position, without an iterator's state to peek
/// through.
#[allow(clippy::too_many_arguments)]
#[inline]
fn nearest_first_flat<P: Predictor + ?Sized, C: Ord + Copy, const PER_OP: bool>(
    held: &[(Request, Target)],
    (up, up_at): (&[Entry], u32),
    (down, down_at): (&[Entry], u32),
    p: &P,
    origin: Origin,
    prune: bool,
    bound: impl Fn(SimTime) -> C,
    mut cost: impl FnMut(&Request, &Target, SimTime) -> C,
) -> (Option<(C, u64, Key, u32)>, Option<Request>, u64) {
    let hc = origin.from.cylinder;
    let mut w = Best::<C, PER_OP>::new(&origin);
    let (mut next_up, mut next_down) = (0, down.len());
    loop {
        // A side that is done is `u32::MAX` away, beyond any cylinder distance.
        let du = up.get(next_up).map_or(u32::MAX, |e| e.cylinder - hc);
        let dd = match next_down {
            0 => u32::MAX,
            i => hc - down[i - 1].cylinder,
        };
        let go_up = du <= dd;
        let dist = du.min(dd);
        if dist == u32::MAX || (prune && w.bounded_out(p, dist, &bound)) {
            break;
        }
        let (e, at) = if go_up {
            next_up += 1;
            (&up[next_up - 1], up_at + next_up as u32 - 1)
        } else {
            next_down -= 1;
            (&down[next_down], down_at + next_down as u32)
        };
        w.consider(held, (e.cylinder, e.id), e.slot, at, p, origin, &mut cost);
    }
    w.done()
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

    pub fn parse(name: &str) -> Self {
        if name == "service" {
            Objective::Service
        } else {
            Objective::Positioning
        }
    }

    /// The objective's value for a candidate with this positioning time.
    #[inline]
    pub fn of(self, positioning_ns: SimTime, t: &Target) -> SimTime {
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
