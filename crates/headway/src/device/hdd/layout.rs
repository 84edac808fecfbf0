//! Logical-to-physical mapping: zones, skews, spares and slipped defects.
//!
//! PLACEHOLDER IMPLEMENTATION: zones and skews only (no spares, no slips). The full
//! DiskSim-faithful layout replaces the body of this file; the public API stays.

use super::spec::LayoutSpec;
use crate::error::{HeadwayError, Result};

/// Where one logical block lives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Location {
    pub cylinder: u32,
    pub surface: u32,
    /// Physical sector slot on the track, 0..spt.
    pub sector: u32,
    /// Physical sectors on this track.
    pub spt: u32,
    /// How many consecutive LBNs, starting with this one, sit in consecutive physical slots of
    /// this track (>= 1). The transfer loop moves this many sectors before it must switch.
    pub run_sectors: u32,
    /// Angular position where this sector begins, in revolutions in [0, 1), measured from the
    /// spindle's index mark. Skews are already folded in.
    pub angle: f64,
}

/// Summary of one zone, as the layout resolved it.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneInfo {
    pub first_cylinder: u32,
    pub last_cylinder: u32,
    pub sectors_per_track: u32,
    pub first_lbn: u64,
    /// One past the zone's last LBN.
    pub end_lbn: u64,
}

#[derive(Clone, Debug)]
pub struct Layout {
    surfaces: u32,
    zones: Vec<ZoneInfo>,
    track_skew: Vec<f64>,
    cyl_skew: Vec<f64>,
    offset: Vec<f64>,
    capacity: u64,
}

impl Layout {
    pub fn new(spec: &LayoutSpec, surfaces: u32, cylinders: u32) -> Result<Self> {
        let mut zones = Vec::new();
        let mut lbn = 0u64;
        for z in &spec.zones {
            if z.last_cylinder >= cylinders
                || z.first_cylinder > z.last_cylinder
                || z.sectors_per_track == 0
            {
                return Err(HeadwayError::params(
                    None,
                    None,
                    Some("zones".into()),
                    format!("bad zone {z:?}"),
                ));
            }
            let n = (z.last_cylinder - z.first_cylinder + 1) as u64
                * surfaces as u64
                * z.sectors_per_track as u64;
            zones.push(ZoneInfo {
                first_cylinder: z.first_cylinder,
                last_cylinder: z.last_cylinder,
                sectors_per_track: z.sectors_per_track,
                first_lbn: lbn,
                end_lbn: lbn + n,
            });
            lbn += n;
        }
        Ok(Layout {
            surfaces,
            track_skew: spec.zones.iter().map(|z| z.track_skew).collect(),
            cyl_skew: spec.zones.iter().map(|z| z.cylinder_skew).collect(),
            offset: spec.zones.iter().map(|z| z.first_block_offset).collect(),
            zones,
            capacity: lbn,
        })
    }

    pub fn capacity_sectors(&self) -> u64 {
        self.capacity
    }

    pub fn zones(&self) -> &[ZoneInfo] {
        &self.zones
    }

    fn zone_index(&self, lbn: u64) -> usize {
        self.zones.partition_point(|z| z.end_lbn <= lbn)
    }

    /// Physical location of `lbn` (which must be below the capacity).
    pub fn locate(&self, lbn: u64) -> Location {
        let zi = self.zone_index(lbn);
        let z = &self.zones[zi];
        let spt = z.sectors_per_track as u64;
        let rel = lbn - z.first_lbn;
        let track = rel / spt;
        let sector = (rel % spt) as u32;
        let cyl_rel = track / self.surfaces as u64;
        let surface = (track % self.surfaces as u64) as u32;
        let skew = cyl_rel as f64 * self.cyl_skew[zi]
            + (track - cyl_rel) as f64 * self.track_skew[zi]
            + self.offset[zi];
        let angle = ((sector as f64 + skew) / spt as f64).rem_euclid(1.0);
        Location {
            cylinder: z.first_cylinder + cyl_rel as u32,
            surface,
            sector,
            spt: spt as u32,
            run_sectors: (spt as u32 - sector),
            angle,
        }
    }

    pub fn cylinder_of(&self, lbn: u64) -> u32 {
        self.locate(lbn).cylinder
    }

    /// The LBN stored in a physical slot, or `None` for a spare, slipped or unmapped slot.
    pub fn lbn_at(&self, cylinder: u32, surface: u32, sector: u32) -> Option<u64> {
        let z = self
            .zones
            .iter()
            .find(|z| z.first_cylinder <= cylinder && cylinder <= z.last_cylinder)?;
        if surface >= self.surfaces || sector >= z.sectors_per_track {
            return None;
        }
        let track = (cylinder - z.first_cylinder) as u64 * self.surfaces as u64 + surface as u64;
        Some(z.first_lbn + track * z.sectors_per_track as u64 + sector as u64)
    }
}
