//! A predictor without a queue model (the calibrated one) planned with the read tail the
//! wrapper measured for it (`tail.rs`): its own estimates and geometry, releasing the drive
//! that tail after a read's media end.

use crate::order::freeblock::planner::{PlanModel, Tail};
use crate::order::{Access, Estimate, Geometry, Moment, Release};
use crate::predict::Predictor;
use crate::request::Op;
use crate::time::SimTime;

pub(super) struct Measured<'a> {
    pub(super) p: &'a dyn Predictor,
    /// The read tail the drive is released after.
    pub(super) tail: Tail,
}

impl PlanModel for Measured<'_> {
    fn name(&self) -> &str {
        self.p.name()
    }
    fn cylinders(&self) -> u32 {
        self.p.cylinders()
    }
    fn estimate(&self, at: Moment, a: Access) -> Estimate {
        self.p.estimate(at, a)
    }
    fn geometry(&self) -> Option<&dyn Geometry> {
        self.p.geometry()
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

/// What the wrapper plans with: the predictor itself, or (without a queue model) the
/// predictor with the measured tail.
pub(super) enum Model<'a> {
    Predictor(&'a dyn Predictor),
    Measured(Measured<'a>),
}

impl<'a> Model<'a> {
    pub(super) fn of(p: &'a dyn Predictor, tail: Tail) -> Self {
        match p.geometry() {
            Some(_) if p.queue_model().is_none() => Model::Measured(Measured { p, tail }),
            _ => Model::Predictor(p),
        }
    }
}

impl PlanModel for Model<'_> {
    fn name(&self) -> &str {
        match self {
            Model::Predictor(p) => PlanModel::name(*p),
            Model::Measured(s) => s.name(),
        }
    }
    fn cylinders(&self) -> u32 {
        match self {
            Model::Predictor(p) => PlanModel::cylinders(*p),
            Model::Measured(s) => s.cylinders(),
        }
    }
    fn estimate(&self, at: Moment, a: Access) -> Estimate {
        match self {
            Model::Predictor(p) => PlanModel::estimate(*p, at, a),
            Model::Measured(s) => s.estimate(at, a),
        }
    }
    fn geometry(&self) -> Option<&dyn Geometry> {
        match self {
            Model::Predictor(p) => PlanModel::geometry(*p),
            Model::Measured(s) => s.geometry(),
        }
    }
    fn release(&self, at: Moment, a: Access) -> Release {
        match self {
            Model::Predictor(p) => PlanModel::release(*p, at, a),
            Model::Measured(s) => s.release(at, a),
        }
    }
    fn exact_tail(&self) -> bool {
        match self {
            Model::Predictor(p) => PlanModel::exact_tail(*p),
            Model::Measured(s) => s.exact_tail(),
        }
    }
}
