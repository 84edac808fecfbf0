//! The LBN-distance estimator: positioning time as a measured function of how far a request
//! is, in LBNs, from the last one (the anticipatory-scheduling paper's cheap disk model). It
//! knows nothing of cylinders or rotation, so it predicts the average rotational latency
//! every time; schedulers that need cylinders get pseudo-cylinders of equal LBN counts.

use std::sync::Arc;

use super::{Access, Estimate, Moment, Predictor};
use crate::calibrate::ExtractedDrive;
use crate::request::{Completion, HeadPosition};
use crate::time::SimTime;

pub struct LbnCurvePredictor {
    drive: Arc<ExtractedDrive>,
    /// LBNs per pseudo-cylinder.
    per_cyl: u64,
    cylinders: u32,
    /// One past the last sector accessed.
    last_end: u64,
    head: HeadPosition,
}

impl LbnCurvePredictor {
    pub fn new(drive: Arc<ExtractedDrive>) -> Self {
        let cylinders = drive.table.cylinders().max(1);
        let per_cyl = drive
            .table
            .capacity_sectors
            .div_ceil(cylinders as u64)
            .max(1);
        LbnCurvePredictor {
            drive,
            per_cyl,
            cylinders,
            last_end: 0,
            head: HeadPosition::default(),
        }
    }

    fn origin_lbn(&self, from: HeadPosition) -> u64 {
        if from == self.head {
            self.last_end
        } else {
            from.cylinder as u64 * self.per_cyl
        }
    }
}

impl Predictor for LbnCurvePredictor {
    fn name(&self) -> &str {
        "lbn-curve"
    }
    fn capacity_sectors(&self) -> u64 {
        self.drive.table.capacity_sectors
    }
    fn cylinders(&self) -> u32 {
        self.cylinders
    }
    #[inline]
    fn cylinder_of(&self, lbn: u64) -> u32 {
        (lbn / self.per_cyl) as u32
    }
    fn head(&self) -> HeadPosition {
        self.head
    }
    fn estimate(&self, at: Moment, a: Access) -> Estimate {
        let (lbn, sectors, op) = (a.lbn, a.sectors, a.op);
        let curve = &self.drive.lbn_curve;
        let d = lbn.abs_diff(self.origin_lbn(at.from)).max(1);
        let positioning = (curve.eval(op, d) - curve.sector_ns).max(0.0);
        let last = lbn + (sectors.max(1) as u64 - 1);
        Estimate {
            overhead_ns: 0,
            seek_ns: (positioning + 0.5) as SimTime,
            rotate_ns: 0,
            transfer_ns: (sectors as f64 * curve.sector_ns + 0.5) as SimTime,
            end: HeadPosition {
                cylinder: self.cylinder_of(last),
                surface: 0,
            },
        }
    }
    fn positioning_floor_ns(&self, distance: u32) -> SimTime {
        if distance > self.cylinders {
            return SimTime::MAX;
        }
        // Requests `distance` pseudo-cylinders away are more than (distance - 1) cylinders'
        // worth of LBNs away.
        let lbns = (distance.saturating_sub(1) as u64 * self.per_cyl + 1).max(1);
        let curve = &self.drive.lbn_curve;
        (curve.floor(lbns) - curve.sector_ns).max(0.0).floor() as SimTime
    }
    fn observe(&mut self, c: &Completion) {
        if c.cache_hit || c.command.sectors == 0 {
            return;
        }
        self.last_end = c.command.end_lbn();
        self.head = HeadPosition {
            cylinder: self.cylinder_of(self.last_end - 1),
            surface: 0,
        };
    }
}
