//! The commands a timed scheduler has sent to a device and not yet seen complete, as the
//! host plans them: where and when each begins, so that the next command can be planned
//! behind them (a drive queue deeper than one).
//!
//! With a predictor that models the drive's bus ([`QueueModel::exact_tail`] and a
//! [`Release::queued_next_ns`]), a command that waited in the drive's queue has its command
//! overhead done by the time the one ahead releases the drive, and the reads the host sends
//! while a read miss is in service can hold the bus and move its completion
//! ([`QueueModel::release_among`]). Both depend on commands sent after the one planned, so
//! the chain is walked again, from the oldest command still at the drive, each time the host
//! plans: the host knows every command it sent and when.
//!
//! [`Release::queued_next_ns`]: crate::predict::Release::queued_next_ns

use smallvec::SmallVec;

use crate::predict::{Access, Among, Arrival, Moment, QueueModel};
use crate::request::{HeadPosition, Op};
use crate::time::SimTime;

/// A command sent to the device, with where and when the host plans it to begin.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    /// Where the head is when it begins.
    pub from: HeadPosition,
    /// When it begins, in the convention of [`crate::predict::Predictor::estimate`]'s start (its
    /// command overhead counted on top).
    pub start_ns: SimTime,
    /// When the drive takes it up: it arrived at an idle drive, or the one ahead completed.
    /// Only commands reaching the drive from then on can hold the bus during its service.
    pub taken_ns: SimTime,
    /// When it reaches the drive (the host sent it).
    pub arrives_ns: SimTime,
    /// When it enters the drive's queue, its command overhead done from then on: its
    /// arrival, the start of its own hold of the bus (which may wait for earlier holds), or
    /// the completion of the read ahead of it when it asked for the bus after that read
    /// did (`QueueModel::release_among`'s `enters_ns`). Equal to `taken_ns` when its whole
    /// overhead is still to do when it is taken up: then it holds the bus through it.
    pub enters_ns: SimTime,
    /// Its first request's id, to find it again at its completion.
    pub id: u64,
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
}

/// Where and when the walk plans a command to begin (the fields of [`Sent`] it sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Planned {
    pub from: HeadPosition,
    pub start_ns: SimTime,
    pub taken_ns: SimTime,
    pub enters_ns: SimTime,
}

impl Sent {
    /// This command planned as `p` says.
    pub fn planned(self, p: Planned) -> Sent {
        Sent {
            from: p.from,
            start_ns: p.start_ns,
            taken_ns: p.taken_ns,
            enters_ns: p.enters_ns,
            ..self
        }
    }
}

/// Walk `chain` (the commands at the device, oldest first, the first's origin as planned)
/// with `next` reaching the device behind them: returns where and when `next` begins, when
/// the drive takes it up and when it enters the drive's queue. `plan` gets each command's
/// index and plan as the walk finds them (the first's as given), for a caller that keeps
/// them.
pub fn walk<Q: QueueModel + ?Sized>(
    q: &Q,
    chain: &[Sent],
    next: Arrival,
    mut plan: impl FnMut(usize, Planned),
) -> Planned {
    let n = chain.len();
    let arrives = |j: usize| chain.get(j).map_or(next.at_ns, |t| t.arrives_ns);
    // When each command (`next` last) enters the drive's queue: found by the walk at the
    // service during which it arrived.
    let mut enters: SmallVec<[SimTime; 9]> = chain
        .iter()
        .map(|t| t.enters_ns)
        .chain(std::iter::once(next.at_ns))
        .collect();
    let (mut from, mut start, mut taken) = (chain[0].from, chain[0].start_ns, chain[0].taken_ns);
    for (i, s) in chain.iter().enumerate() {
        plan(
            i,
            Planned {
                from,
                start_ns: start,
                taken_ns: taken,
                enters_ns: enters[i],
            },
        );
        // The commands that reach the drive once this one is taken up, in the order sent:
        // those arriving from then on, and those that waited for the bus through the
        // completion ahead (entered at it), which reach the drive as this one is taken up
        // and hold the bus before it asks for it (the drive's reselection of its `on_bus`).
        let mut arrivals: SmallVec<[Arrival; 8]> = SmallVec::new();
        let mut who: SmallVec<[usize; 8]> = SmallVec::new();
        for j in i + 1..=n {
            let at_ns = match arrives(j) {
                a if a >= taken => a,
                _ if enters[j] >= taken => taken,
                _ => continue,
            };
            let op = chain.get(j).map_or(next.op, |t| t.op);
            arrivals.push(Arrival { at_ns, op });
            who.push(j);
        }
        // It began with its whole command overhead to do (at its arrival at an idle drive,
        // or taken up as it entered): it holds the bus through it.
        let began_idle = enters[i] == taken;
        let mut entered: SmallVec<[SimTime; 8]> = SmallVec::from_elem(0, arrivals.len());
        let among = Among {
            arrivals: &arrivals,
            began_idle,
            enters_ns: &mut entered,
        };
        let r = q.release_among(
            Moment::new(from, start),
            Access::new(s.lbn, s.sectors, s.op),
            among,
        );
        for (&j, &e) in who.iter().zip(&entered) {
            enters[j] = e;
        }
        let behind = arrives(i + 1);
        (from, start, taken) = match (r.queued_next_ns, r.done_ns) {
            // Its overhead was done while it waited, counted from when it entered the
            // queue: the end of the holds ahead of it, or this one's completion.
            // A write-through write pays its whole overhead once taken up.
            (Some(queued), Some(done)) => {
                let taken = done.max(behind);
                let op = chain.get(i + 1).map_or(next.op, |t| t.op);
                let begins = match q.overhead_done_while_queued(op) {
                    true => queued.max(enters[i + 1]),
                    false => taken,
                };
                (r.head, begins, taken)
            }
            // No queued rule for this command: after its media end and tail, as a command
            // sent to an idle drive would be planned.
            _ => {
                let begins = r.next_start_ns(start).max(behind);
                (r.head, begins, begins)
            }
        };
    }
    Planned {
        from,
        start_ns: start,
        taken_ns: taken,
        enters_ns: enters[n],
    }
}

/// `done` completed at `done_ns`, as the host sees it: the commands of `chain` up to it
/// leave, and if it was a read miss (whose completion the drive reports when its bus
/// transfer ends, not before its work is done, as a fast write's is), the command taken up
/// behind it is re-anchored at the completion: moved by the prediction's error, so that a
/// mechanism the predictor does not model moves the plan once instead of every plan after
/// it.
pub fn completed(chain: &mut Vec<Sent>, id: u64, read_miss: bool, done_ns: SimTime) {
    let Some(i) = chain.iter().position(|s| s.id == id) else {
        return;
    };
    chain.drain(..=i);
    let Some(next) = chain.first_mut().filter(|_| read_miss) else {
        return;
    };
    // It was planned to be taken up at the predicted completion (or on arrival, if later).
    let taken = done_ns.max(next.arrives_ns);
    let planned = next.taken_ns;
    if taken != planned {
        let moved = next.start_ns as i64 + (taken as i64 - planned as i64);
        next.start_ns = (moved.max(0) as SimTime).max(next.arrives_ns);
        next.taken_ns = taken;
        // Those that waited for the bus through that completion enter at the actual one.
        for s in chain.iter_mut().filter(|s| s.enters_ns == planned) {
            s.enters_ns = taken;
        }
    }
}
