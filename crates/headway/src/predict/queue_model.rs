//! What a predictor knows about the device's queue and bus, for a host that plans a command
//! while others are still at the device: when the device can begin the next command, when
//! a command completes, what its buffer holds. A capability: only a predictor that shares
//! the device's own rules has it ([`super::Predictor::queue_model`]); without it a command
//! is planned to begin where and when the one ahead's media transfer ends.

use super::{Access, Arrival, Moment, Predictor, Release};
use crate::request::Op;
use crate::time::SimTime;

/// The commands that reach the device while one is in service (see
/// [`QueueModel::release_among`]).
pub struct Among<'a> {
    /// The arrivals, in order.
    pub arrivals: &'a [Arrival],
    /// The command reached an idle drive and began at once (not taken from the drive's
    /// queue): a read miss that did keeps the bus through its own command phase, and an
    /// arrival's hold begins after it.
    pub began_idle: bool,
    /// As long as `arrivals` (or shorter for a caller that wants fewer): gets when each
    /// arrival enters the device's queue, its command overhead counted from then.
    pub enters_ns: &'a mut [SimTime],
}

impl Among<'_> {
    /// No arrivals.
    pub(crate) fn none() -> Among<'static> {
        Among {
            arrivals: &[],
            began_idle: false,
            enters_ns: &mut [],
        }
    }

    /// Each arrival enters the queue as it arrives (nothing holds it back).
    #[inline]
    pub(crate) fn enter_as_they_arrive(&mut self) {
        for (e, a) in self.enters_ns.iter_mut().zip(self.arrivals) {
            *e = a.at_ns;
        }
    }
}

/// The device's queue and bus as a predictor models them.
pub trait QueueModel {
    /// Time from the end of a command's media transfer until the device can begin the next
    /// command: the bus transfer the media did not overlap, and the completion overhead. A
    /// scheduler planning a command while another is still at the device (a two-deep
    /// pipeline) starts it this much after the first one's predicted media end.
    fn tail_ns(&self, sectors: u32, op: Op) -> SimTime;

    /// Whether [`QueueModel::release`]'s tail is the device's own (then no margin over it
    /// is needed) rather than [`QueueModel::tail_ns`]'s learned one.
    fn exact_tail(&self) -> bool;

    /// Whether a command of `op` that waited in the device's queue has its command overhead
    /// done by the time it is taken up ([`Release::queued_next_ns`]'s convention). A write
    /// the drive does not take into its buffer pays its whole overhead when taken up.
    fn overhead_done_while_queued(&self, op: Op) -> bool;

    /// A command dispatched at `at`: its estimate, and when and where the device can begin
    /// the command queued behind it (a scheduler planning a command while another is still
    /// at the device, a two-deep pipeline, starts it there).
    fn release(&self, at: Moment, a: Access) -> Release {
        self.release_among(at, a, Among::none())
    }

    /// [`QueueModel::release`] with the commands that reach the device while this one is in
    /// service (the host knows them, it sends them): with commands queued at the device
    /// they can hold its bus and move this one's completion. `among.enters_ns` gets when
    /// each arrival enters the device's queue: its arrival, or with the bus modelled the
    /// start of its own hold of the bus, or this command's completion for one that asked
    /// for the bus after this one did (`BusWhileMiss::arrive`).
    fn release_among(&self, at: Moment, a: Access, among: Among<'_>) -> Release;

    /// The LBN range the device's buffer may hold after it serves this command (`None`:
    /// unknown or no buffer). A read of blocks in it may be served from the buffer, which
    /// [`Predictor::estimate`] does not model.
    fn buffer_reach(&self, a: Access) -> Option<(u64, u64)>;

    /// How many recent commands' [`QueueModel::buffer_reach`] the buffer can hold at once
    /// (its segments).
    fn buffer_segments(&self) -> u32;
}

/// [`QueueModel::release`] of `p`'s queue model, or for a predictor without one the next
/// command beginning where and when this one's media transfer ends.
#[inline]
pub(crate) fn release<P: Predictor + ?Sized>(p: &P, at: Moment, a: Access) -> Release {
    match p.queue_model() {
        Some(q) => q.release(at, a),
        None => Release::after(p.estimate(at, a), 0),
    }
}

/// [`QueueModel::tail_ns`] of `p`'s queue model, or none for a predictor without one.
#[inline]
pub(crate) fn tail_ns<P: Predictor + ?Sized>(p: &P, sectors: u32, op: Op) -> SimTime {
    p.queue_model().map_or(0, |q| q.tail_ns(sectors, op))
}

/// Whether `p` has the device's own tail ([`QueueModel::exact_tail`]).
#[inline]
pub(crate) fn exact_tail<P: Predictor + ?Sized>(p: &P) -> bool {
    p.queue_model().is_some_and(|q| q.exact_tail())
}
