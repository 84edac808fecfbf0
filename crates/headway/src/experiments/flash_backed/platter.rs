//! Platter access time as a function of LBA distance, size and direction, the form the
//! paper measured for its drive (spec section 2): seek over the cylinder distance, an
//! average half revolution of rotation unless the access continues where the head is, and
//! the media transfer. [TEAM CHOICE] built from a catalog drive's own seek curve and
//! geometry (the EK1000 stand-in for the paper's results), single zone average density.

use crate::device::hdd::seek::SeekCurve;
use crate::device::hdd::HddSpec;
use crate::error::Result;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct PlatterModel {
    seek: SeekCurve,
    sectors_per_cylinder: f64,
    sectors_per_track: f64,
    period_ns: f64,
    head_switch_ns: SimTime,
    capacity_sectors: u64,
}

impl PlatterModel {
    pub fn new(spec: &HddSpec) -> Result<Self> {
        let seek = SeekCurve::new(&spec.seek, spec.cylinders)?;
        let cyl = spec.cylinders.max(1) as f64;
        let spc = spec.block_count as f64 / cyl;
        Ok(PlatterModel {
            seek,
            sectors_per_cylinder: spc,
            sectors_per_track: spc / spec.surfaces.max(1) as f64,
            period_ns: 60e9 / spec.rpm,
            head_switch_ns: crate::time::ms_to_ns(spec.head_switch_ms),
            capacity_sectors: spec.block_count,
        })
    }

    pub(crate) fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }

    fn cylinder(&self, lbn: u64) -> u32 {
        (lbn as f64 / self.sectors_per_cylinder) as u32
    }

    /// Positioning from the head (just past `from`) to `to`: 0 when `to == from`.
    pub(crate) fn position_ns(&self, from: u64, to: u64) -> SimTime {
        if from == to {
            return 0;
        }
        let d = self.cylinder(from).abs_diff(self.cylinder(to));
        let seek = if d == 0 {
            self.head_switch_ns
        } else {
            self.seek.seek_ns(d)
        };
        seek + (self.period_ns / 2.0) as SimTime
    }

    pub fn transfer_ns(&self, sectors: u64) -> SimTime {
        (sectors as f64 / self.sectors_per_track * self.period_ns) as SimTime
    }

    /// t_disk: head at `from`, access `sectors` at `to`.
    pub(crate) fn access_ns(&self, from: u64, to: u64, sectors: u64) -> SimTime {
        self.position_ns(from, to) + self.transfer_ns(sectors)
    }
}
