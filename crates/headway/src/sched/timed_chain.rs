//! The commands a timed scheduler has sent to a device and not yet seen complete, as the
//! host plans them: where and when each begins, so that the next command can be planned
//! behind them (a drive queue deeper than one).
//!
//! With a predictor that models the drive's bus ([`Predictor::exact_tail`] and a
//! [`Release::queued_next_ns`]), a command that waited in the drive's queue has its command
//! overhead done by the time the one ahead releases the drive, and the reads the host sends
//! while a read miss is in service can hold the bus and move its completion
//! ([`Predictor::release_among`]). Both depend on commands sent after the one planned, so
//! the chain is walked again, from the oldest command still at the drive, each time the host
//! plans: the host knows every command it sent and when.
//!
//! [`Release::queued_next_ns`]: crate::predict::Release::queued_next_ns

use smallvec::SmallVec;

use crate::predict::{Arrival, Predictor};
use crate::request::{HeadPosition, Op};
use crate::time::SimTime;

/// A command sent to the device, with where and when the host plans it to begin.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    /// Where the head is when it begins.
    pub from: HeadPosition,
    /// When it begins, in the convention of [`Predictor::estimate`]'s `start_ns` (its
    /// command overhead counted on top).
    pub start_ns: SimTime,
    /// When the drive takes it up: it arrived at an idle drive, or the one ahead completed.
    /// Only commands reaching the drive from then on can hold the bus during its service.
    pub taken_ns: SimTime,
    /// When it reaches the drive (the host sent it).
    pub arrives_ns: SimTime,
    /// Its first request's id, to find it again at its completion.
    pub id: u64,
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
}

/// Walk `chain` (the commands at the device, oldest first, the first's origin as planned)
/// with `next` reaching the device behind them: returns where and when `next` begins and
/// when the drive takes it up. `plan` gets each command's (index, from, start, taken) as
/// the walk finds them (the first's as given), for a caller that keeps them.
pub fn walk<P: Predictor + ?Sized>(
    p: &P,
    chain: &[Sent],
    next: Arrival,
    mut plan: impl FnMut(usize, HeadPosition, SimTime, SimTime),
) -> (HeadPosition, SimTime, SimTime) {
    let (mut from, mut start, mut taken) = (chain[0].from, chain[0].start_ns, chain[0].taken_ns);
    for (i, s) in chain.iter().enumerate() {
        plan(i, from, start, taken);
        // The commands sent after this one that reach the drive once it is taken up (in
        // the order sent, which is the order they arrive); `release_among` stops at its
        // completion.
        let arrivals: SmallVec<[Arrival; 8]> = chain[i + 1..]
            .iter()
            .map(|t| Arrival {
                at_ns: t.arrives_ns,
                op: t.op,
            })
            .chain(std::iter::once(next))
            .filter(|a| a.at_ns >= taken)
            .collect();
        // It began at its own arrival, the drive idle: not taken from the drive's queue.
        let began_idle = start == s.arrives_ns && taken == s.arrives_ns;
        let r = p.release_among(from, start, s.lbn, s.sectors, s.op, &arrivals, began_idle);
        let behind = chain.get(i + 1).map_or(next.at_ns, |t| t.arrives_ns);
        (from, start, taken) = match (r.queued_next_ns, r.done_ns) {
            (Some(queued), Some(done)) => {
                // Its overhead was done while it waited, counted from when it arrived; one
                // reaching the drive after this one asked for the bus back waits for the
                // completion, its overhead not begun.
                let late = r.bus_asked_ns.is_some_and(|asked| behind >= asked);
                let begins = queued.max(behind).max(if late { done } else { 0 });
                (r.head, begins, done.max(behind))
            }
            // No queued rule for this command: after its media end and tail, as a command
            // sent to an idle drive would be planned.
            _ => {
                let begins = r.next_start_ns(start).max(behind);
                (r.head, begins, begins)
            }
        };
    }
    (from, start, taken)
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
    if taken != next.taken_ns {
        let moved = next.start_ns as i64 + (taken as i64 - next.taken_ns as i64);
        next.start_ns = (moved.max(0) as SimTime).max(next.arrives_ns);
        next.taken_ns = taken;
    }
}
