//! The zone table GeoExtraction's boundaries imply, and the address arithmetic on it: the
//! host's "zone/SPT table".

use serde::{Deserialize, Serialize};

use super::geometry::GeoScan;
use crate::error::{HeadwayError, Result};

/// One track holding LBNs, as measured. Tracks are listed in LBN order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrackEntry {
    pub first_lbn: u64,
    /// Cylinder, counted from the one holding LBN 0 (timing cannot tell how many cylinders
    /// lie before it), with the empty cylinders between zones that seek timing revealed.
    pub cylinder: u32,
    /// Track within the cylinder, in LBN order.
    pub track: u32,
    /// Where the track's first LBN starts on the platter, in revolutions [0, 1), relative to
    /// LBN 0 (`phases.rs`). Measured at the first LBN rather than inferred from a model of
    /// skews, so that slipped sectors and tracks, spares at the front of a track and skews
    /// a formatter laid out irregularly all come out as they are.
    pub phase: f64,
}

/// One recording zone as measured: a run of cylinders whose tracks have the same number of
/// physical sectors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExtractedZone {
    pub first_cylinder: u32,
    pub last_cylinder: u32,
    pub first_lbn: u64,
    /// One past the zone's last LBN.
    pub end_lbn: u64,
    /// Physical sectors (slots) per track: the rotation period over the sector time.
    pub sectors_per_track: u32,
    /// Tracks holding LBNs in the zone's most common cylinder.
    pub tracks_per_cylinder: u32,
    /// LBNs in the zone's most common cylinder.
    pub lbns_per_cylinder: u64,
}

impl ExtractedZone {
    /// Slots per cylinder that hold no LBN in the zone's most common cylinder: the spares
    /// (whether the drive keeps them at the end of every track or of every cylinder).
    pub(crate) fn spares_per_cylinder(&self) -> u64 {
        (self.tracks_per_cylinder as u64 * self.sectors_per_track as u64)
            .saturating_sub(self.lbns_per_cylinder)
    }
}

/// Where an LBN is, in the extracted geometry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Loc {
    pub zone: usize,
    /// Index into [`ZoneTable::tracks`].
    pub index: usize,
    pub cylinder: u32,
    /// Track within the cylinder, in LBN order.
    pub track: u32,
    /// Slot on the track, counted from the track's first LBN.
    pub slot: u32,
    pub spt: u32,
    /// LBNs from this one to the end of its track.
    pub(crate) left_on_track: u32,
}

/// Tracks, zones and slipped sectors: enough to turn any LBN into (cylinder, track, slot)
/// and an angle on the platter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZoneTable {
    pub zones: Vec<ExtractedZone>,
    pub tracks: Vec<TrackEntry>,
    /// `cylinder_tracks[c]..cylinder_tracks[c + 1]` index the tracks of cylinder `c` (none
    /// for an empty cylinder).
    pub cylinder_tracks: Vec<u32>,
    /// Slipped sectors: (first LBN after the gap, slots skipped), sorted by LBN. Every later
    /// LBN of the same track sits that many slots further on.
    pub gaps: Vec<(u64, u32)>,
    pub capacity_sectors: u64,
    /// First cylinders after the empty cylinders whose count timing could not match and
    /// calibration extrapolated from the seek curve (`cylinders.rs`).
    #[serde(default)]
    pub inferred_gaps: Vec<u32>,
}

impl ZoneTable {
    pub(crate) fn cylinders(&self) -> u32 {
        self.cylinder_tracks.len().saturating_sub(1) as u32
    }

    /// LBN-holding tracks on cylinder `cyl`.
    pub(crate) fn tracks_on(&self, cyl: u32) -> u32 {
        let c = cyl as usize;
        match (self.cylinder_tracks.get(c), self.cylinder_tracks.get(c + 1)) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        }
    }

    #[inline]
    pub(crate) fn zone_of(&self, lbn: u64) -> usize {
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
        let i = self
            .tracks
            .partition_point(|t| t.first_lbn <= lbn)
            .saturating_sub(1);
        let t = &self.tracks[i];
        let end = self
            .tracks
            .get(i + 1)
            .map_or(self.capacity_sectors, |n| n.first_lbn);
        let zone = self.zone_of(lbn);
        // A gap at the track's first LBN is inside the measured phase already.
        let slot = lbn - t.first_lbn + self.gap_slots(t.first_lbn + 1, lbn);
        Loc {
            zone,
            index: i,
            cylinder: t.cylinder,
            track: t.track,
            slot: slot as u32,
            spt: self.zones[zone].sectors_per_track,
            left_on_track: (end - lbn) as u32,
        }
    }

    /// The LBN in slot `slot` of track `index` (slots as [`Loc::slot`] counts them), or
    /// `None` for a slot past the track's LBNs or inside a slipped gap: the inverse of
    /// [`ZoneTable::locate`] on the track, without a search over the LBNs.
    pub(crate) fn slot_lbn(&self, index: usize, slot: u32) -> Option<u64> {
        let first = self.tracks.get(index)?.first_lbn;
        let end = self
            .tracks
            .get(index + 1)
            .map_or(self.capacity_sectors, |n| n.first_lbn);
        // The track's gaps after its first LBN (one at the first LBN is in its phase), in
        // LBN order: each shifts the LBNs from it on by its slots.
        let lo = self.gaps.partition_point(|g| g.0 <= first);
        let hi = self.gaps.partition_point(|g| g.0 < end);
        let slot = slot as u64;
        let (mut lbn, mut at_slot) = (first, 0u64);
        for &(gap_lbn, skipped) in &self.gaps[lo..hi] {
            let before = gap_lbn - lbn;
            if slot < at_slot + before {
                break;
            }
            if slot < at_slot + before + skipped as u64 {
                return None;
            }
            lbn = gap_lbn;
            at_slot += before + skipped as u64;
        }
        let found = lbn + (slot - at_slot);
        (found < end).then_some(found)
    }

    /// Where slot 0 of the located track starts, in revolutions [0, 1).
    #[inline]
    pub(crate) fn angle(&self, l: &Loc) -> f64 {
        let a = self.tracks[l.index].phase + l.slot as f64 / l.spt as f64;
        a - a.floor()
    }

    /// Index of track `track` of cylinder `cyl`, if the cylinder has that many.
    pub(crate) fn track_index(&self, cyl: u32, track: u32) -> Option<usize> {
        (track < self.tracks_on(cyl)).then(|| (self.cylinder_tracks[cyl as usize] + track) as usize)
    }

    /// The first LBN of track `track` of cylinder `cyl`.
    pub(crate) fn track_start(&self, cyl: u32, track: u32) -> Option<u64> {
        self.track_index(cyl, track)
            .map(|i| self.tracks[i].first_lbn)
    }

    /// The phase of track `track` of cylinder `cyl` (revolutions).
    pub(crate) fn track_phase(&self, cyl: u32, track: u32) -> Option<f64> {
        self.track_index(cyl, track).map(|i| self.tracks[i].phase)
    }
}

/// How each track boundary GeoExtraction found is crossed: `None` for a head switch, or a
/// cylinder switch over `Some(n)` cylinders (1 for the next cylinder; more where whole
/// cylinders of spares hold no LBN).
pub(crate) type Crossing = Option<u32>;

/// Build the table from a whole-disk scan, the crossing of each boundary and the period.
/// Phases are zero until `phases.rs` measures them (or copied from `phases`, one per track,
/// when the table is rebuilt with other crossings).
pub(crate) fn build_table(
    scan: &GeoScan,
    crossings: &[Crossing],
    period_ns: f64,
    capacity: u64,
    phases: Option<&[f64]>,
) -> Result<ZoneTable> {
    if scan.start_lbn != 0 || scan.end_lbn != capacity || scan.boundaries.is_empty() {
        return Err(HeadwayError::Invariant(
            "zone table: GeoExtraction must cover the whole disk and find track boundaries".into(),
        ));
    }
    let b = &scan.boundaries;
    debug_assert_eq!(b.len(), crossings.len());
    // Tracks and their sector times.
    let mut tracks = vec![TrackEntry {
        first_lbn: 0,
        cylinder: 0,
        track: 0,
        phase: 0.0,
    }];
    let sector_ns = track_sector_times(scan);
    for (j, c) in b.iter().zip(crossings) {
        let prev = *tracks.last().unwrap();
        let (cylinder, track) = match c {
            None => (prev.cylinder, prev.track + 1),
            Some(n) => (prev.cylinder + n.max(&1), 0),
        };
        tracks.push(TrackEntry {
            first_lbn: j.lbn,
            cylinder,
            track,
            phase: 0.0,
        });
    }
    if let Some(p) = phases {
        for (t, &p) in tracks.iter_mut().zip(p) {
            t.phase = p;
        }
    }
    let cylinders = tracks.last().unwrap().cylinder + 1;
    let mut cylinder_tracks = vec![0u32; cylinders as usize + 1];
    for (i, t) in tracks.iter().enumerate().rev() {
        cylinder_tracks[t.cylinder as usize] = i as u32;
    }
    cylinder_tracks[cylinders as usize] = tracks.len() as u32;
    // Empty cylinders start where the next non-empty one does.
    for c in (0..cylinders as usize).rev() {
        if c > 0 && tracks[cylinder_tracks[c] as usize].cylinder as usize != c {
            cylinder_tracks[c] = cylinder_tracks[c + 1];
        }
    }
    // Each cylinder's SPT: the median of its tracks' (a track's own sector time comes from
    // the boundary starting it, whose neighbours may lie in the zone before).
    let mut zones: Vec<ExtractedZone> = Vec::new();
    let mut counts: Vec<(u32, u64)> = vec![];
    let end_of = |i: usize| tracks.get(i).map_or(capacity, |t| t.first_lbn);
    let close = |z: &mut ExtractedZone, counts: &mut Vec<(u32, u64)>| {
        counts.sort_unstable();
        let mut best = (0usize, (0u32, 0u64));
        let mut i = 0;
        while i < counts.len() {
            let n = counts[i..].iter().take_while(|c| **c == counts[i]).count();
            if n > best.0 {
                best = (n, counts[i]);
            }
            i += n;
        }
        z.tracks_per_cylinder = best.1 .0;
        z.lbns_per_cylinder = best.1 .1;
        counts.clear();
    };
    for c in 0..cylinders {
        let (lo, hi) = (
            cylinder_tracks[c as usize] as usize,
            cylinder_tracks[c as usize + 1] as usize,
        );
        if lo == hi {
            // An empty cylinder belongs to the zone it follows.
            if let Some(z) = zones.last_mut() {
                z.last_cylinder = c;
            }
            continue;
        }
        let mut s: Vec<f64> = sector_ns[lo..hi].to_vec();
        s.sort_by(f64::total_cmp);
        let spt = (period_ns / s[s.len() / 2]).round() as u32;
        let (first, end) = (tracks[lo].first_lbn, end_of(hi));
        match zones.last_mut() {
            Some(z) if z.sectors_per_track == spt => {
                z.last_cylinder = c;
                z.end_lbn = end;
            }
            _ => {
                if let Some(z) = zones.last_mut() {
                    close(z, &mut counts);
                }
                zones.push(ExtractedZone {
                    first_cylinder: c,
                    last_cylinder: c,
                    first_lbn: first,
                    end_lbn: end,
                    sectors_per_track: spt,
                    tracks_per_cylinder: 0,
                    lbns_per_cylinder: 0,
                });
            }
        }
        counts.push(((hi - lo) as u32, end - first));
    }
    if let Some(z) = zones.last_mut() {
        close(z, &mut counts);
    }
    let gaps: Vec<(u64, u32)> = scan
        .gaps
        .iter()
        .map(|g| (g.lbn, g.sectors.round().max(1.0) as u32))
        .collect();
    Ok(ZoneTable {
        zones,
        tracks,
        cylinder_tracks,
        gaps,
        capacity_sectors: capacity,
        inferred_gaps: vec![],
    })
}

/// The sector time of track `k` (the one starting at boundary `k - 1`, or at LBN 0), for
/// every track of `scan`. A boundary's sector time is the quicker of the tracks either side
/// (its on-track neighbours in the same pass, `geometry.rs`), and a slipped sector within a
/// stride of it makes it slower, so a track takes the median of its two boundaries and the
/// next one: the tracks on either side of a zone change each get their own zone's, and one
/// boundary disturbed by a slip is outvoted. A track shorter than two strides has no
/// on-track neighbours in a pass (the partial track that ends a unit of spares), so it
/// keeps the track before it's sector time: spares end a zone, they never start one. (The
/// phase scan times every track of three LBNs or more on its own, however short against
/// the stride.)
pub(crate) fn track_sector_times(scan: &GeoScan) -> Vec<f64> {
    let b = &scan.boundaries;
    let md = scan.min_distance as u64;
    let mut out: Vec<f64> = Vec::with_capacity(b.len() + 1);
    for k in 0..=b.len() {
        let start = k.checked_sub(1).map_or(scan.start_lbn, |i| b[i].lbn);
        let end = b.get(k).map_or(scan.end_lbn, |j| j.lbn);
        let mut near: Vec<f64> = b[k.saturating_sub(1)..(k + 2).min(b.len())]
            .iter()
            .map(|j| j.sector_ns)
            .collect();
        near.sort_by(f64::total_cmp);
        let own = near.get(near.len() / 2).copied().unwrap_or(f64::NAN);
        out.push(match out.last() {
            Some(&prev) if !scan.per_track_sector_times && end - start < 2 * md => prev,
            _ => own,
        });
    }
    out
}

/// A track cannot hold more LBNs than it has sectors. `unmarked.rs` cuts runs longer than
/// their local track before the table is built, and the crossings decide which zone (and so
/// how many sectors) each track has; a track still too long once every crossing is decided
/// means the timing contradicts itself there. Better to say so than to hand the predictor
/// a geometry that is wrong.
pub(crate) fn check_track_lengths(t: &ZoneTable) -> Result<()> {
    for (i, tr) in t.tracks.iter().enumerate() {
        let end = t
            .tracks
            .get(i + 1)
            .map_or(t.capacity_sectors, |n| n.first_lbn);
        let len = end - tr.first_lbn;
        let spt = t.zones[t.zone_of(tr.first_lbn)].sectors_per_track;
        if len > spt as u64 {
            return Err(HeadwayError::params(
                None,
                None,
                None,
                format!(
                    "calibration: the track starting at LBN {} holds {len} LBNs but the zone \
                     it was placed in has only {spt} sectors per track, and the timing around \
                     it does not say where it should be cut",
                    tr.first_lbn
                ),
            ));
        }
    }
    Ok(())
}

/// How sure lateness alone makes a boundary's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    HeadSwitch,
    CylinderSwitch,
    /// Neither the usual head switch nor the usual cylinder switch of its neighbourhood (a
    /// head switch over a slipped track, a zone change, a cylinder switch after a slip):
    /// `cylinders.rs` times the move itself. The flag is lateness's guess.
    Unsure(bool),
    /// The sectors per track change here. Zones are bands of whole cylinders, so this is a
    /// cylinder switch whatever its lateness; empty cylinders may lie across it.
    ZoneChange,
}

impl Kind {
    /// Lateness's guess at the crossing, before any move is timed.
    pub(crate) fn guess(self) -> Crossing {
        match self {
            Kind::HeadSwitch | Kind::Unsure(false) => None,
            Kind::CylinderSwitch | Kind::Unsure(true) | Kind::ZoneChange => Some(1),
        }
    }
}

/// Boundaries on either side that set a boundary's neighbourhood.
const NEIGHBOURS: usize = 40;

/// Classify every boundary by its lateness against its neighbourhood (boundaries of the same
/// sector time within [`NEIGHBOURS`] either side). Head switches are the commonest jumps: a
/// cylinder has more head switches than cylinder switches as soon as it has three tracks, so
/// the lower quartile is a head switch. A cylinder switch costs clearly more (a seek, the
/// cylinder skew); its usual size is the commonest lateness well above the head switch.
/// Skews differ from zone to zone, which is why the neighbourhood is local.
pub(crate) fn classify(scan: &GeoScan, period_ns: f64) -> Vec<Kind> {
    let b = &scan.boundaries;
    let spt = |i: usize| (period_ns / b[i].sector_ns).round() as i64;
    let track_spt: Vec<i64> = track_sector_times(scan)
        .iter()
        .map(|s| (period_ns / s).round() as i64)
        .collect();
    (0..b.len())
        .map(|i| {
            if b[i].inferred {
                return Kind::HeadSwitch;
            }
            let lo = i.saturating_sub(NEIGHBOURS);
            let hi = (i + NEIGHBOURS + 1).min(b.len());
            let mut late: Vec<f64> = (lo..hi)
                .filter(|&k| spt(k) == spt(i) && !b[k].inferred)
                .map(|k| b[k].sectors)
                .collect();
            late.sort_by(f64::total_cmp);
            let head = late[late.len() / 4];
            let above: Vec<i64> = late
                .iter()
                .filter(|&&l| l >= head + 3.0)
                .map(|l| l.round() as i64)
                .collect();
            // `above` is sorted: its commonest value is its longest run.
            let (mut cyl, mut best, mut k) = (None, 0, 0);
            while k < above.len() {
                let n = above[k..].iter().take_while(|&&w| w == above[k]).count();
                if n > best {
                    (best, cyl) = (n, Some(above[k] as f64));
                }
                k += n;
            }
            let l = b[i].sectors;
            // Where the sector time changes, a zone ends: the new zone's skews owe nothing
            // to the old one's, and empty cylinders may lie between, so a lateness that
            // looks like a head switch there proves nothing (`cylinders.rs` times it).
            if track_spt[i] != track_spt[i + 1] {
                Kind::ZoneChange
            } else if (l - head).abs() <= 1.0 {
                Kind::HeadSwitch
            } else if cyl.is_some_and(|c| (l - c).abs() <= 1.0) {
                Kind::CylinderSwitch
            } else {
                Kind::Unsure(l >= head + 3.0)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two zones, three tracks; gaps at a track's first LBN, inside a track twice (one LBN
    /// twice), and at the last track's end.
    fn table() -> ZoneTable {
        let track = |first_lbn, cylinder, track| TrackEntry {
            first_lbn,
            cylinder,
            track,
            phase: 0.0,
        };
        let zone = |first_cylinder, first_lbn, end_lbn, sectors_per_track| ExtractedZone {
            first_cylinder,
            last_cylinder: first_cylinder,
            first_lbn,
            end_lbn,
            sectors_per_track,
            tracks_per_cylinder: 2,
            lbns_per_cylinder: end_lbn - first_lbn,
        };
        ZoneTable {
            zones: vec![zone(0, 0, 17, 10), zone(1, 17, 23, 8)],
            tracks: vec![track(0, 0, 0), track(9, 0, 1), track(17, 1, 0)],
            cylinder_tracks: vec![0, 2, 3],
            gaps: vec![(3, 1), (9, 2), (12, 1), (12, 1), (22, 1)],
            capacity_sectors: 23,
            inferred_gaps: vec![],
        }
    }

    #[test]
    fn slot_lbn_inverts_locate_on_every_slot() {
        let t = table();
        for index in 0..t.tracks.len() {
            let spt = t.zones[t.zone_of(t.tracks[index].first_lbn)].sectors_per_track;
            for slot in 0..spt + 3 {
                let by_search = (0..t.capacity_sectors).find(|&lbn| {
                    let l = t.locate(lbn);
                    l.index == index && l.slot == slot
                });
                assert_eq!(
                    t.slot_lbn(index, slot),
                    by_search,
                    "track {index} slot {slot}"
                );
            }
        }
        // Hand-checked: track 0 holds LBNs 0-2 in slots 0-2, a gap slot, 3-8 in 4-9; track
        // 1 (its gap at LBN 9 is in its phase) 9-11 in 0-2, two gap slots, 12-16 in 5-9.
        assert_eq!((t.slot_lbn(0, 3), t.slot_lbn(0, 4)), (None, Some(3)));
        assert_eq!((t.slot_lbn(1, 0), t.slot_lbn(1, 5)), (Some(9), Some(12)));
        assert_eq!((t.slot_lbn(1, 4), t.slot_lbn(1, 10)), (None, None));
    }
}
