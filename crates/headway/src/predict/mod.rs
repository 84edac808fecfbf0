//! The host's belief about a device. Schedulers only ever see a predictor, never the device:
//! the gap between the two is what external-scheduling research studies, so it is a
//! first-class, configurable thing. `oracle` (the device's own model) is the default.

mod oracle;

pub use oracle::OraclePredictor;

use crate::request::{Completion, HeadPosition, Op};
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
}

/// A request's target as one predictor sees it, computed once (at arrival) so that repeated
/// positioning estimates skip the address lookup: SPTF re-evaluates every queued request at
/// every decision. Opaque to schedulers except for `cylinder`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
    pub cylinder: u32,
    pub surface: u32,
    /// Angular start of the first sector, in revolutions (predictor-specific meaning).
    pub angle: f64,
}

/// The host's model of one device.
pub trait Predictor {
    fn name(&self) -> &str;
    fn capacity_sectors(&self) -> u64;
    fn cylinders(&self) -> u32;
    /// Cylinder holding `lbn` (as the host believes the layout to be).
    fn cylinder_of(&self, lbn: u64) -> u32;
    /// Where the host believes the head is now.
    fn head(&self) -> HeadPosition;
    /// Predicted cost of an access dispatched at `start_ns` with the head at `from`.
    fn estimate(
        &self,
        from: HeadPosition,
        start_ns: SimTime,
        lbn: u64,
        sectors: u32,
        op: Op,
    ) -> Estimate;
    /// A lower bound on positioning time over every request whose cylinder is `distance`
    /// or more cylinders from the head, whatever its rotational position. Non-decreasing in
    /// `distance`; SPTF uses it to stop searching.
    fn positioning_floor_ns(&self, distance: u32) -> SimTime;
    /// Learn from a completion (the calibrated predictor refreshes its reference point).
    fn observe(&mut self, completion: &Completion);

    /// Precompute what [`Predictor::positioning_to`] needs about a request.
    fn target(&self, lbn: u64, sectors: u32, op: Op) -> Target {
        Target {
            lbn,
            sectors,
            op,
            cylinder: self.cylinder_of(lbn),
            surface: 0,
            angle: 0.0,
        }
    }

    /// Positioning time to a prepared target; must equal
    /// `estimate(from, start_ns, t.lbn, t.sectors, t.op).positioning_ns()`.
    fn positioning_to(&self, from: HeadPosition, start_ns: SimTime, t: &Target) -> SimTime {
        self.estimate(from, start_ns, t.lbn, t.sectors, t.op)
            .positioning_ns()
    }

    /// Predicted positioning time of an access dispatched now from the believed head position.
    #[inline]
    fn positioning_ns(&self, now: SimTime, lbn: u64, sectors: u32, op: Op) -> SimTime {
        self.estimate(self.head(), now, lbn, sectors, op)
            .positioning_ns()
    }
}
