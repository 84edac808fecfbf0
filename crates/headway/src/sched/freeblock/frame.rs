//! A predictor without a queue model (the calibrated one) seen in the frame the wrapper
//! measured: its estimates and spindle angle `shift_ns` later than asked.
//!
//! The calibrated predictor takes a read's completion as the moment the head was just past
//! its last sector, as calibration (one-sector reads) observed it. A longer read completes
//! later than that by the bus transfer of its other sectors, so after it the head is ahead
//! of the predictor's belief by that much time: the angle it believes at `t + shift` is the
//! one at `t`. The wrapper measures the shift (`tail.rs`) and plans in this frame.

use crate::order::freeblock::planner::{PlanModel, Tail};
use crate::order::{Access, Estimate, Geometry, Moment, Release, TrackInfo};
use crate::predict::Predictor;
use crate::request::{HeadPosition, Op};
use crate::time::SimTime;

pub(super) struct Shifted<'a> {
    pub(super) p: &'a dyn Predictor,
    pub(super) g: &'a dyn Geometry,
    pub(super) shift_ns: SimTime,
    /// The read tail the drive is released after.
    pub(super) tail: Tail,
}

impl PlanModel for Shifted<'_> {
    fn name(&self) -> &str {
        self.p.name()
    }
    fn cylinders(&self) -> u32 {
        self.p.cylinders()
    }
    fn estimate(&self, at: Moment, a: Access) -> Estimate {
        self.p.estimate(at.later(self.shift_ns), a)
    }
    fn geometry(&self) -> Option<&dyn Geometry> {
        Some(self)
    }
    /// The next command begins the measured tail after a read's media end (the tail line's
    /// margin is added as slack), at the media end of anything else.
    fn release(&self, at: Moment, a: Access) -> Release {
        let tail_ns = if a.op == Op::Read && a.sectors > 0 {
            (self.tail.fixed_ns + self.tail.per_sector_ns * a.sectors as f64)
                .ceil()
                .max(0.0) as SimTime
        } else {
            0
        };
        Release::after(self.estimate(at, a), tail_ns)
    }
    fn exact_tail(&self) -> bool {
        false
    }
}

impl Geometry for Shifted<'_> {
    fn track_of(&self, lbn: u64) -> HeadPosition {
        self.g.track_of(lbn)
    }
    fn track_info(&self, t: HeadPosition) -> Option<TrackInfo> {
        self.g.track_info(t)
    }
    fn slot_lbn(&self, t: HeadPosition, slot: u32) -> Option<u64> {
        self.g.slot_lbn(t, slot)
    }
    fn angle_at(&self, t: SimTime) -> f64 {
        self.g.angle_at(t + self.shift_ns)
    }
    fn period_ns(&self) -> f64 {
        self.g.period_ns()
    }
    fn move_ns(&self, from: HeadPosition, to: HeadPosition, op: Op) -> SimTime {
        self.g.move_ns(from, to, op)
    }
}

/// What the wrapper plans with: the predictor itself, or (without a queue model) the
/// predictor in the measured frame.
pub(super) enum Model<'a> {
    Predictor(&'a dyn Predictor),
    Shifted(Shifted<'a>),
}

impl<'a> Model<'a> {
    pub(super) fn of(p: &'a dyn Predictor, shift_ns: SimTime, tail: Tail) -> Self {
        match p.geometry() {
            Some(g) if p.queue_model().is_none() => Model::Shifted(Shifted {
                p,
                g,
                shift_ns,
                tail,
            }),
            _ => Model::Predictor(p),
        }
    }
}

impl PlanModel for Model<'_> {
    fn name(&self) -> &str {
        match self {
            Model::Predictor(p) => PlanModel::name(*p),
            Model::Shifted(s) => s.name(),
        }
    }
    fn cylinders(&self) -> u32 {
        match self {
            Model::Predictor(p) => PlanModel::cylinders(*p),
            Model::Shifted(s) => s.cylinders(),
        }
    }
    fn estimate(&self, at: Moment, a: Access) -> Estimate {
        match self {
            Model::Predictor(p) => PlanModel::estimate(*p, at, a),
            Model::Shifted(s) => s.estimate(at, a),
        }
    }
    fn geometry(&self) -> Option<&dyn Geometry> {
        match self {
            Model::Predictor(p) => PlanModel::geometry(*p),
            Model::Shifted(s) => Some(s),
        }
    }
    fn release(&self, at: Moment, a: Access) -> Release {
        match self {
            Model::Predictor(p) => PlanModel::release(*p, at, a),
            Model::Shifted(s) => s.release(at, a),
        }
    }
    fn exact_tail(&self) -> bool {
        match self {
            Model::Predictor(p) => PlanModel::exact_tail(*p),
            Model::Shifted(s) => s.exact_tail(),
        }
    }
}
