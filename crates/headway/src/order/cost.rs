//! What an ordering algorithm asks of a model of the drive: where a block is (its cylinder,
//! a prepared [`Target`]), where the head is, and how long positioning to a target takes,
//! with a floor by seek distance for pruning a search. The host's predictors answer it
//! (every `Predictor` is a [`PositionCost`]) and so does the drive's model of itself, so the
//! same searches order the host's queue and the firmware's.

use super::access::Access;
use crate::request::{HeadPosition, Op};
use crate::time::SimTime;

/// A predicted access: how long each phase would take if the command started at the given
/// time with the head where given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    pub overhead_ns: SimTime,
    pub seek_ns: SimTime,
    pub rotate_ns: SimTime,
    pub transfer_ns: SimTime,
    /// Where the head ends up.
    pub end: HeadPosition,
}

impl Estimate {
    /// Time until the first target sector is under the head: the quantity SPTF minimises.
    #[inline]
    pub fn positioning_ns(&self) -> SimTime {
        self.overhead_ns + self.seek_ns + self.rotate_ns
    }
    /// Positioning plus media transfer.
    #[inline]
    pub fn service_ns(&self) -> SimTime {
        self.positioning_ns() + self.transfer_ns
    }
    /// This estimate (made for a start `margin_ns` later) with its seek `margin_ns` longer:
    /// see `predict::estimate_with_margin`.
    #[inline]
    pub(crate) fn with_seek_margin(mut self, margin_ns: SimTime) -> Estimate {
        self.seek_ns += margin_ns;
        self
    }
}

/// A request's target as one model sees it, computed once (at arrival) so that repeated
/// positioning estimates skip the address lookup: SPTF re-evaluates every queued request at
/// every decision. Opaque to schedulers except for `cylinder`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
    pub cylinder: u32,
    pub surface: u32,
    /// Angular start of the first sector, in revolutions (model-specific meaning).
    pub angle: f64,
    /// Predicted media transfer time. A transfer begins when the first sector comes under
    /// the head, at a fixed angle, so its duration does not depend on when it starts and can
    /// be computed once: schedulers that minimise service time add it to positioning.
    pub transfer_ns: SimTime,
}

impl Target {
    /// The access the target was prepared for.
    #[inline]
    pub(crate) fn access(&self) -> Access {
        Access::new(self.lbn, self.sectors, self.op)
    }
}

/// What a search reads of a [`Target`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Its position only (a search ranking by positioning time).
    Positioning,
    /// Its transfer time as well (one ranking by service time).
    Service,
}

/// The questions a queue-ordering search asks of a model of the drive.
pub(crate) trait PositionCost {
    /// Cylinder holding `lbn` (as the model believes the layout to be).
    fn cylinder_of(&self, lbn: u64) -> u32;
    /// Where the model believes the head is now.
    fn head(&self) -> HeadPosition;
    /// Precompute what [`PositionCost::positioning_to`] needs about an access.
    fn target(&self, a: Access, needs: Needs) -> Target;
    /// Positioning time to a prepared target from `from`, starting at `start_ns`.
    fn positioning_to(&self, from: HeadPosition, start_ns: SimTime, t: &Target) -> SimTime;
    /// A lower bound on positioning time to any target `distance` or more cylinders from
    /// the head, whatever its rotational position; non-decreasing in `distance`.
    fn positioning_floor_ns(&self, distance: u32) -> SimTime;
}
