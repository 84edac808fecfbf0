//! The zone table GeoExtraction's boundaries imply, and the address arithmetic on it: the
//! host's "zone/SPT table".

use serde::{Deserialize, Serialize};

use super::geometry::GeoScan;
use crate::error::{HeadwayError, Result};

/// One run of cylinders built alike, as measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExtractedZone {
    pub first_cylinder: u32,
    pub last_cylinder: u32,
    pub first_lbn: u64,
    /// One past the zone's last LBN.
    pub end_lbn: u64,
    /// Physical sectors (slots) per track: the rotation period over the sector time.
    pub sectors_per_track: u32,
    /// Tracks holding LBNs in each cylinder.
    pub tracks_per_cylinder: u32,
    /// LBNs in each cylinder.
    pub lbns_per_cylinder: u64,
    /// Angular phase model (revolutions; see `phases.rs`): the first slot of track `h` of
    /// cylinder `c` starts at `phase0 + (c - first_cylinder) * cylinder_step + h * track_step`
    /// plus the last `phase_steps` entry at or before `c`.
    pub phase0: f64,
    pub cylinder_step: f64,
    pub track_step: f64,
    pub phase_steps: Vec<(u32, f64)>,
}

impl ExtractedZone {
    /// Slots per cylinder that hold no LBN: the spares.
    pub fn spares_per_cylinder(&self) -> u64 {
        (self.tracks_per_cylinder as u64 * self.sectors_per_track as u64)
            .saturating_sub(self.lbns_per_cylinder)
    }

    /// Where the first slot of track `track` of cylinder `cyl` starts, in revolutions [0, 1).
    #[inline]
    pub fn track_phase(&self, cyl: u32, track: u32) -> f64 {
        let mut p = self.phase0
            + (cyl - self.first_cylinder) as f64 * self.cylinder_step
            + track as f64 * self.track_step;
        if !self.phase_steps.is_empty() {
            let i = self.phase_steps.partition_point(|&(c, _)| c <= cyl);
            if i > 0 {
                p += self.phase_steps[i - 1].1;
            }
        }
        p - p.floor()
    }
}

/// Where an LBN is, in the extracted geometry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Loc {
    pub zone: usize,
    pub cylinder: u32,
    /// Track within the cylinder, in LBN order.
    pub track: u32,
    /// Slot within the track.
    pub slot: u32,
    pub spt: u32,
    /// LBNs from this one to the end of its track.
    pub left_on_track: u32,
}

/// Zones and slipped sectors: enough to turn any LBN into (cylinder, track, slot).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZoneTable {
    pub zones: Vec<ExtractedZone>,
    /// Slipped sectors: (first LBN after the gap, slots skipped), sorted by LBN. Within its
    /// cylinder every later LBN sits that many slots further on.
    pub gaps: Vec<(u64, u32)>,
    pub capacity_sectors: u64,
}

impl ZoneTable {
    pub fn cylinders(&self) -> u32 {
        self.zones.last().map_or(0, |z| z.last_cylinder + 1)
    }

    #[inline]
    pub fn zone_of(&self, lbn: u64) -> usize {
        self.zones
            .partition_point(|z| z.first_lbn <= lbn)
            .saturating_sub(1)
    }

    /// Slots skipped by gaps in `from..=lbn`.
    #[inline]
    fn gap_slots(&self, from: u64, lbn: u64) -> u64 {
        if self.gaps.is_empty() {
            return 0;
        }
        let lo = self.gaps.partition_point(|g| g.0 < from);
        let hi = self.gaps.partition_point(|g| g.0 <= lbn);
        self.gaps[lo..hi].iter().map(|g| g.1 as u64).sum()
    }

    pub fn locate(&self, lbn: u64) -> Loc {
        let zi = self.zone_of(lbn);
        let z = &self.zones[zi];
        let r = lbn - z.first_lbn;
        let ci = r / z.lbns_per_cylinder;
        let cyl_first = z.first_lbn + ci * z.lbns_per_cylinder;
        let o = r % z.lbns_per_cylinder;
        let slot_in_cyl = o + self.gap_slots(cyl_first, lbn);
        let spt = z.sectors_per_track as u64;
        let track = (slot_in_cyl / spt) as u32;
        let slot = (slot_in_cyl % spt) as u32;
        let left = (spt - slot as u64).min(z.lbns_per_cylinder - o);
        Loc {
            zone: zi,
            cylinder: z.first_cylinder + ci as u32,
            track,
            slot,
            spt: z.sectors_per_track,
            left_on_track: left as u32,
        }
    }

    /// The first LBN of track `track` of cylinder `cyl` and its slot (not 0 when a gap
    /// precedes it on the track).
    pub fn track_start(&self, cyl: u32, track: u32) -> Option<(u64, u32)> {
        let zi = self
            .zones
            .partition_point(|z| z.first_cylinder <= cyl)
            .checked_sub(1)?;
        let z = &self.zones[zi];
        if cyl > z.last_cylinder || track >= z.tracks_per_cylinder {
            return None;
        }
        let cyl_first = z.first_lbn + (cyl - z.first_cylinder) as u64 * z.lbns_per_cylinder;
        let mut lbn = cyl_first + (track as u64 * z.sectors_per_track as u64);
        // Gaps earlier in the cylinder pull the track's first LBN back.
        lbn -= self.gap_slots(cyl_first, lbn).min(lbn - cyl_first);
        let l = self.locate(lbn);
        (l.track == track).then_some((lbn, l.slot))
    }
}

/// Turn a whole-disk GeoExtraction scan into the zone table (phases still zero).
pub fn derive_zones(scan: &GeoScan, period_ns: f64, capacity: u64) -> Result<ZoneTable> {
    if scan.start_lbn != 0 || scan.end_lbn != capacity || scan.boundaries.is_empty() {
        return Err(HeadwayError::Invariant(
            "zone table: GeoExtraction must cover the whole disk and find track boundaries".into(),
        ));
    }
    let b = &scan.boundaries;
    // Head switches are the common, small jumps; a cylinder switch costs clearly more (a
    // seek, spares and the cylinder skew). The lower quartile is a head switch whenever a
    // cylinder has at least two tracks.
    let mut late: Vec<f64> = b.iter().map(|j| j.sectors).collect();
    late.sort_by(f64::total_cmp);
    let head_switch = late[late.len() / 4];
    let is_cyl = |j: &super::geometry::Jump| j.sectors >= head_switch + 3.0;
    // Cylinders: (first lbn, end lbn, tracks, sector times seen).
    struct Cyl {
        first: u64,
        end: u64,
        tracks: u32,
        sector_ns: Vec<f64>,
    }
    let mut cyls: Vec<Cyl> = vec![Cyl {
        first: 0,
        end: capacity,
        tracks: 1,
        sector_ns: vec![],
    }];
    for j in b {
        if is_cyl(j) {
            cyls.last_mut().unwrap().end = j.lbn;
            cyls.push(Cyl {
                first: j.lbn,
                end: capacity,
                tracks: 1,
                sector_ns: vec![j.sector_ns],
            });
        } else {
            let c = cyls.last_mut().unwrap();
            c.tracks += 1;
            c.sector_ns.push(j.sector_ns);
        }
    }
    // The first cylinder has no boundary of its own: borrow its neighbour's sector time.
    if cyls[0].sector_ns.is_empty() {
        cyls[0].sector_ns = vec![b[0].sector_ns];
    }
    let gaps: Vec<(u64, u32)> = scan
        .gaps
        .iter()
        .map(|g| (g.lbn, g.sectors.round().max(1.0) as u32))
        .collect();
    let mut zones: Vec<ExtractedZone> = Vec::new();
    for (i, c) in cyls.iter().enumerate() {
        let mut s = c.sector_ns.clone();
        s.sort_by(f64::total_cmp);
        let spt = (period_ns / s[s.len() / 2]).round() as u32;
        let lbns = c.end - c.first;
        let cyl = i as u32;
        if let Some(z) = zones.last_mut() {
            if z.sectors_per_track == spt
                && z.tracks_per_cylinder == c.tracks
                && z.lbns_per_cylinder == lbns
            {
                z.last_cylinder = cyl;
                z.end_lbn = c.end;
                continue;
            }
        }
        zones.push(ExtractedZone {
            first_cylinder: cyl,
            last_cylinder: cyl,
            first_lbn: c.first,
            end_lbn: c.end,
            sectors_per_track: spt,
            tracks_per_cylinder: c.tracks,
            lbns_per_cylinder: lbns,
            phase0: 0.0,
            cylinder_step: 0.0,
            track_step: 0.0,
            phase_steps: vec![],
        });
    }
    Ok(ZoneTable {
        zones,
        gaps,
        capacity_sectors: capacity,
    })
}
