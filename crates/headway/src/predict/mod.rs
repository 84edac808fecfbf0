//! The host's belief about a device. Schedulers only ever see a predictor, never the device:
//! the gap between the two is what external-scheduling research studies, so it is a
//! first-class, configurable thing. `oracle` (the device's own model) is the default.

mod arrivals;
mod calibrated;
mod flash;
mod geometry;
mod lbn_curve;
mod options;
mod oracle;
mod oracle_bus;
mod queue_model;

pub(crate) use crate::order::no_geometry;
pub use crate::order::{Access, Estimate, Moment, Needs, Target};
pub use crate::order::{Geometry, LbnRun, Release, TrackInfo};
pub use arrivals::{Arrival, ArrivalCosts, BusWhileMiss};
pub use geometry::require_geometry;
pub(crate) use queue_model::{exact_tail, release, tail_ns};
pub use queue_model::{Among, QueueModel};

pub use calibrated::CalibratedPredictor;
pub(crate) use flash::FlashPredictor;
pub use lbn_curve::LbnCurvePredictor;
pub use options::PredictorOptions;
pub use oracle::OraclePredictor;
pub use oracle_bus::{ReadBus, ReadRelease};

use crate::order::freeblock::planner::{self, PlanModel};
use crate::order::PositionCost;
use crate::request::{Completion, HeadPosition};
use crate::time::SimTime;

/// The host's model of one device: the calls every scheduler may make, and the
/// capabilities only some predictors have ([`Predictor::geometry`],
/// [`Predictor::queue_model`]).
pub trait Predictor {
    fn name(&self) -> &str;
    fn capacity_sectors(&self) -> u64;
    fn cylinders(&self) -> u32;
    /// Cylinder holding `lbn` (as the host believes the layout to be).
    fn cylinder_of(&self, lbn: u64) -> u32;
    /// Where the host believes the head is now.
    fn head(&self) -> HeadPosition;
    /// Predicted cost of access `a` dispatched at `at`.
    fn estimate(&self, at: Moment, a: Access) -> Estimate;
    /// A lower bound on positioning time over every request whose cylinder is `distance`
    /// or more cylinders from the head, whatever its rotational position. Non-decreasing in
    /// `distance`; SPTF uses it to stop searching.
    fn positioning_floor_ns(&self, distance: u32) -> SimTime;
    /// Learn from a completion (the calibrated predictor refreshes its reference point).
    fn observe(&mut self, completion: &Completion);

    /// Precompute what [`Predictor::positioning_to`] needs about a request. With
    /// [`Needs::Positioning`] (a scheduler that ranks by positioning alone never reads
    /// `transfer_ns`) a predictor may leave `transfer_ns` at 0 and skip working it out.
    fn target(&self, a: Access, needs: Needs) -> Target {
        let _ = needs;
        Target {
            lbn: a.lbn,
            sectors: a.sectors,
            op: a.op,
            cylinder: self.cylinder_of(a.lbn),
            surface: 0,
            angle: 0.0,
            transfer_ns: self.estimate(Moment::new(self.head(), 0), a).transfer_ns,
        }
    }

    /// Positioning time to a prepared target; must equal
    /// `estimate(Moment::new(from, start_ns), t.access()).positioning_ns()`. The search's
    /// inner call: its arguments stay scalars.
    fn positioning_to(&self, from: HeadPosition, start_ns: SimTime, t: &Target) -> SimTime {
        self.estimate(Moment::new(from, start_ns), t.access())
            .positioning_ns()
    }

    /// What the host believes about tracks, for a predictor that knows them (the LBN
    /// distance curve does not).
    fn geometry(&self) -> Option<&dyn Geometry> {
        None
    }

    /// The device's queue and bus, for a predictor that models them.
    fn queue_model(&self) -> Option<&dyn QueueModel> {
        None
    }
}

/// [`Predictor::estimate`] with every seek `seek_margin_ns` longer than predicted
/// (freeblock's conservatism constants c_fg and c_fb): the head is assumed to arrive later,
/// so a target it would reach just in time costs a rotation instead.
#[inline]
pub fn estimate_with_margin<P: Predictor + ?Sized>(
    p: &P,
    at: Moment,
    a: Access,
    seek_margin_ns: SimTime,
) -> Estimate {
    planner::estimate_with_margin(p, at, a, seek_margin_ns)
}

/// Every predictor answers the questions of the queue-ordering searches.
impl<P: Predictor + ?Sized> PositionCost for P {
    #[inline(always)]
    fn cylinder_of(&self, lbn: u64) -> u32 {
        Predictor::cylinder_of(self, lbn)
    }
    #[inline(always)]
    fn head(&self) -> HeadPosition {
        Predictor::head(self)
    }
    #[inline(always)]
    fn target(&self, a: Access, needs: Needs) -> Target {
        Predictor::target(self, a, needs)
    }
    #[inline(always)]
    fn positioning_to(&self, from: HeadPosition, start_ns: SimTime, t: &Target) -> SimTime {
        Predictor::positioning_to(self, from, start_ns, t)
    }
    #[inline(always)]
    fn positioning_floor_ns(&self, distance: u32) -> SimTime {
        Predictor::positioning_floor_ns(self, distance)
    }
}

/// Every predictor is a model the freeblock planner can plan with.
impl<P: Predictor + ?Sized> PlanModel for P {
    fn name(&self) -> &str {
        Predictor::name(self)
    }
    fn cylinders(&self) -> u32 {
        Predictor::cylinders(self)
    }
    #[inline]
    fn estimate(&self, at: Moment, a: Access) -> Estimate {
        Predictor::estimate(self, at, a)
    }
    fn geometry(&self) -> Option<&dyn Geometry> {
        Predictor::geometry(self)
    }
    fn release(&self, at: Moment, a: Access) -> Release {
        release(self, at, a)
    }
    fn exact_tail(&self) -> bool {
        exact_tail(self)
    }
}
