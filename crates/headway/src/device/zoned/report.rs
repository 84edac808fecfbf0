//! What a zoned drive refused and did in a run: the run's `zoned` section.

use serde::Serialize;

use super::zones::ZoneError;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ZonedReport {
    /// The device's name in the run (set by the run loop).
    pub device: String,
    pub zones: u64,
    pub conventional_zones: u64,
    /// Writes to a sequential-write-required zone not at its write pointer.
    pub unaligned_writes: u64,
    /// Commands crossing a zone boundary.
    pub boundary_crossings: u64,
    /// Writes to a full zone.
    pub full_zone_writes: u64,
    /// Reads past a sequential-write-required zone's write pointer.
    pub reads_beyond_write_pointer: u64,
    /// Opens refused by the open-zone limit.
    pub open_limit_refusals: u64,
    /// Implicitly open zones the drive closed to open another.
    pub implicit_closes: u64,
    pub resets: u64,
    pub appends: u64,
}

impl ZonedReport {
    /// Every refused command, of any kind.
    pub fn errors(&self) -> u64 {
        self.unaligned_writes
            + self.boundary_crossings
            + self.full_zone_writes
            + self.reads_beyond_write_pointer
            + self.open_limit_refusals
    }

    pub(crate) fn count(&mut self, e: ZoneError) {
        let n = match e {
            ZoneError::UnalignedWrite => &mut self.unaligned_writes,
            ZoneError::CrossesZoneBoundary => &mut self.boundary_crossings,
            ZoneError::ZoneFull => &mut self.full_zone_writes,
            ZoneError::ReadBeyondWritePointer => &mut self.reads_beyond_write_pointer,
            ZoneError::TooManyOpenZones => &mut self.open_limit_refusals,
        };
        *n += 1;
    }
}
