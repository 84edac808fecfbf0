//! The pruned shortest-positioning search every rotation-aware queue shares (the host's STF
//! family and the drive's firmware SPTF): the queued requests in cylinder order with their
//! targets, the least cost over a cylinder range, ties to the older request.
//!
//! The search is pruned without changing its answer: it goes outward from the head's
//! cylinder, nearest first, and stops a direction once the cost's lower bound at that seek
//! distance (from the model's positioning floor, which never decreases with distance)
//! exceeds the best cost found. Equal bounds are still examined, so ties resolve exactly as
//! a brute-force search would: lowest cost, then oldest request.

use super::cost::{PositionCost, Target};
use super::cyl_index::{CylIndex, Entry, Walk};
use super::sweep::Key;
use crate::request::{HeadPosition, Op, Request};
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
    pub(crate) fn uniform(from: HeadPosition, start_ns: SimTime, sent_ns: SimTime) -> Origin {
        Origin {
            from,
            start_ns,
            sent_ns,
            write: (from, start_ns),
        }
    }

    /// Where and when a command of `op` would begin.
    #[inline(always)]
    pub(crate) fn of(&self, op: Op) -> (HeadPosition, SimTime) {
        match op {
            Op::Read => (self.from, self.start_ns),
            Op::Write => self.write,
        }
    }

    /// Whether the two ops begin differently.
    #[inline]
    pub(crate) fn per_op(&self) -> bool {
        self.write != (self.from, self.start_ns)
    }

    /// What a candidate of each op adds to its positioning so that the two rank on one
    /// clock: the time from the earlier start to its own.
    #[inline]
    pub(crate) fn offsets_ns(&self) -> [SimTime; 2] {
        let base = self.start_ns.min(self.write.1);
        [self.start_ns - base, self.write.1 - base]
    }
}

/// Keep `entry` in `held`, in a slot `free` lists if there is one; its slot.
#[inline]
pub(crate) fn hold(
    held: &mut Vec<(Request, Target)>,
    free: &mut Vec<u32>,
    entry: (Request, Target),
) -> u32 {
    match free.pop() {
        Some(i) => {
            held[i as usize] = entry;
            i
        }
        None => {
            held.push(entry);
            (held.len() - 1) as u32
        }
    }
}

/// What a search found: the best (cost, id, key, position in the flat index, `u32::MAX`
/// from the B-tree), the winner itself, and the estimates made.
pub(crate) type Found<C> = (Option<(C, u64, Key, u32)>, Option<Request>, u64);

/// The request of `index` (held in `held` by slot) on cylinders `lo..=hi` with the least
/// `cost`, ties to the older. `cost` gets each candidate and its predicted positioning time
/// (from the earlier of the ops' starts when the origin is planned per op:
/// [`Origin::write`]); `bound(floor)` must not exceed the cost of any candidate whose
/// positioning time is at least `floor`, and must not decrease as `floor` grows. `p` comes
/// as its own type where the caller has it, so every estimate is inlined into the walk.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn argmin<P: PositionCost + ?Sized, C: Ord + Copy>(
    held: &[(Request, Target)],
    index: &CylIndex,
    p: &P,
    origin: Origin,
    lo: u32,
    hi: u32,
    prune: bool,
    bound: impl Fn(SimTime) -> C,
    cost: impl FnMut(&Request, &Target, SimTime) -> C,
) -> Found<C> {
    // A write planned from another cylinder than the reads has no floor by the
    // distance walked: that search goes over every candidate.
    let prune = prune && origin.write.0.cylinder == origin.from.cylinder;
    match (index.walk(origin.from.cylinder, lo, hi), origin.per_op()) {
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
                true => nearest_first::<_, _, true>(held, up, down, p, origin, prune, bound, cost),
            }
        }
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
    fn bounded_out<P: PositionCost + ?Sized>(
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
    fn consider<P: PositionCost + ?Sized>(
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

/// [`argmin`]'s walk over the requests at or above the head's cylinder (`up`)
/// and below it (`down`), each nearest first: the best (cost, id, key), the winner, and the
/// estimates made. Each step takes the nearer side (up on a tie), so the distances walked
/// never decrease and the walk can stop at the first whose floor bounds out the best.
#[allow(clippy::too_many_arguments)]
#[inline]
fn nearest_first<P: PositionCost + ?Sized, C: Ord + Copy, const PER_OP: bool>(
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
fn nearest_first_flat<P: PositionCost + ?Sized, C: Ord + Copy, const PER_OP: bool>(
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
