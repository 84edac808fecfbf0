//! The host's model of a flash device: no head, no seek, no rotation; a command costs the
//! size-dependent access time of its spec.

use super::{Access, Estimate, Moment, Predictor};
use crate::device::flash::FlashSpec;
use crate::request::{Completion, HeadPosition};
use crate::time::SimTime;

pub(crate) struct FlashPredictor {
    spec: FlashSpec,
}

impl FlashPredictor {
    pub fn new(spec: FlashSpec) -> Self {
        FlashPredictor { spec }
    }
}

impl Predictor for FlashPredictor {
    fn name(&self) -> &str {
        "flash"
    }
    fn capacity_sectors(&self) -> u64 {
        self.spec.capacity_sectors()
    }
    fn cylinders(&self) -> u32 {
        1
    }
    fn cylinder_of(&self, _lbn: u64) -> u32 {
        0
    }
    fn head(&self) -> HeadPosition {
        HeadPosition::default()
    }
    fn estimate(&self, _at: Moment, a: Access) -> Estimate {
        Estimate {
            transfer_ns: self.spec.access_ns(a.sectors, a.op),
            ..Estimate::default()
        }
    }
    fn positioning_floor_ns(&self, _distance: u32) -> SimTime {
        0
    }
    fn observe(&mut self, _completion: &Completion) {}
}
