//! What a command leaves to the command queued behind it at the device: when and where the
//! next can begin. The predictors' queue models compute it; the freeblock planner reads it.

use super::cost::Estimate;
use crate::request::HeadPosition;
use crate::time::SimTime;

/// A command's estimate with what it leaves to the command queued behind it at the device
/// (see `predict::QueueModel::release`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// The command's own estimate.
    pub estimate: Estimate,
    /// Time from its media end until the device can begin the next command: the bus
    /// transfer the media did not overlap and the completion (see `predict::QueueModel::tail_ns`),
    /// or, with the bus modelled, until a read-ahead after it has been stopped.
    pub tail_ns: SimTime,
    /// Where the head is when the device can begin the next command: where the media
    /// transfer ends, or where stopping a read-ahead after a read leaves it.
    pub head: HeadPosition,
    /// When the command completes, for a predictor that models the device's bus (it can
    /// be before the next command can begin: the device may first stop a read-ahead).
    pub done_ns: Option<SimTime>,
    /// When the command, a read miss that disconnected, asks for the bus back, for a
    /// predictor that models the device's bus: a read reaching the device before then holds
    /// the bus (see `predict::QueueModel::release_among`) and has its command overhead done by the
    /// completion; one reaching it later waits for the completion, its overhead not begun.
    pub bus_asked_ns: Option<SimTime>,
    /// When a command that waited in the device's queue behind this one begins, in the
    /// convention of `start_ns` (its overhead counted on top), for a predictor that models
    /// the device's bus: its command overhead was done while it waited, so it may begin
    /// before this one's media end plus tail ([`Release::next_start_ns`] floors the tail at
    /// zero, which holds when the overhead is shorter than the tail, as on the Atlas 10K,
    /// and predicts a whole overhead late when it is longer, 3.1 ms on the HP C2490A).
    pub queued_next_ns: Option<SimTime>,
}

impl Release {
    /// A release known only from the estimate: the next command begins `tail_ns` after the
    /// media end, where the media transfer leaves the head.
    #[inline]
    pub(crate) fn after(estimate: Estimate, tail_ns: SimTime) -> Release {
        Release {
            estimate,
            tail_ns,
            head: estimate.end,
            done_ns: None,
            bus_asked_ns: None,
            queued_next_ns: None,
        }
    }

    /// When the device can begin the next command, for this command started at `start_ns`.
    #[inline]
    pub fn next_start_ns(&self, start_ns: SimTime) -> SimTime {
        start_ns + self.estimate.service_ns() + self.tail_ns
    }
}
