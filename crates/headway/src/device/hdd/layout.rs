//! Logical-to-physical mapping: zones, skews, spares, slipped and remapped defects, with the
//! semantics of DiskSim 4.0's `dm_layout_g1` (the layout every DiskSim drive model uses).
//!
//! # Vocabulary and the interpretations chosen
//!
//! * **Slots.** Inside a zone, physical sectors are numbered in *mapping order*: track by
//!   track (cylinder-major, surfaces in the order the mapping scheme visits them), each track
//!   `sectors_per_track` slots long. Slot `t * spt + s` is slot `s` of the zone's `t`-th track
//!   in that order. DiskSim numbers slips and remapped defects the same way (zone-relative,
//!   spares and empty space included), and so does [`Location::sector`]: slot 0 of a track is
//!   where its first LBN sits when nothing was slipped, *not* the sector after the index mark.
//! * **Mapping scheme** (`LBN-to-PBN mapping scheme`): 0 visits surfaces 0..n on every cylinder;
//!   1 visits them n..0 on odd cylinders counted from the zone's first cylinder ("first
//!   cylinder is normal"); 2 does so on odd absolute cylinder numbers. The surface order only
//!   changes which physical head a track is on; skews count track switches in visiting order.
//! * **Units and spares.** Each sparing scheme cuts a zone into *units* whose spare slots sit
//!   at the unit's end (or front): track (3), cylinder (2, 4, 5, 6), range of `range_size`
//!   cylinders (8; a zone's final partial range has no spares, as DiskSim's count has it), or
//!   the whole zone (1 with whole spare tracks, 9, 10; 7 has no spare slots at all). Scheme 1
//!   numbers its slips and defects in *tracks*; they are expanded to every slot of the track.
//! * **Slips.** In schemes 1, 2, 3, 5, 8 and 9 a slip stays inside its unit: the unit's LBNs
//!   fill its first (or, with front spares, last) non-slipped slots, so a slip pushes the later
//!   LBNs of the unit one slot along and uses one spare. A unit may not hold more slips than
//!   spares. In the "slip to end" schemes 4, 6, 7 and 10 the LBNs fill the zone's non-spare,
//!   non-slipped slots in order: each slip pushes every later LBN of the zone along and the
//!   zone exports one LBN fewer (DiskSim's block count subtracts the slips). DiskSim's scheme
//!   2 code carries an LBN pushed into the spare area over to the next cylinder (colliding
//!   with that cylinder's first LBN); headway keeps it in the spare area, which is what the
//!   spares are for and what DiskSim's inverse mapping assumes. With spares at the front of
//!   the cylinder (5, 6; DiskSim's two directions disagree there) the LBNs take the
//!   cylinder's *last* non-slipped slots, so a slip uses up a front spare. Scheme 0 has no
//!   spare space and allows no slips or remaps; scheme 7 requires `spares = 0` (DiskSim's
//!   count ignores them while its mapping would use them).
//! * **Empty space at zone front** is counted in *logical positions*, not slots: the zone's
//!   first LBN takes logical position `empty_space_front` (for scheme 3 that skips whole tracks
//!   of `spt - spares` positions, which is what makes the DEC RZ26 come out exact).
//! * **Remapped defects** `(bad, spare)`: the LBN whose home is slot `bad` lives in slot
//!   `spare`; `bad` holds nothing. Pairs with `bad == spare` are ignored (DiskSim does too).
//! * **Skew.** The first slot of a zone's track `t` (visiting order; cylinder `c` from the zone
//!   start, `h` its position within the cylinder) starts at
//!   `offset + (h + (surfaces - 1) * c) * track_skew + c * cylinder_skew` sectors past the
//!   index mark, modulo the track: every head switch adds a track skew, every cylinder switch
//!   a cylinder skew instead. Slot `s` starts `s` sectors later. As in DiskSim, in the
//!   per-cylinder schemes (2, 4, 5, 6) every slip on an earlier cylinder of the zone, and in
//!   the per-track scheme (3) every slip on an earlier track, turns the track one more sector
//!   (the formatter skews relative to where the previous LBN ended). DiskSim truncates skews
//!   given in sectors to whole sectors when it reads them; the DiskSim reader does that, the
//!   layout itself takes fractional skews as given.
//! * **Exported capacity.** When [`LayoutSpec::exported_sectors`] is set, LBNs from it on are
//!   not exported (see its doc).

mod closed_form;
mod pieces;

use super::num::floor;
use super::spec::{LayoutSpec, Sparing, ZoneSpec};
use crate::error::{HeadwayError, Result};
use closed_form::ZoneForm;
use pieces::PieceTable;

/// Where one logical block lives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Location {
    pub cylinder: u32,
    pub surface: u32,
    /// Slot on the track in mapping order, 0..spt (see the module doc: slot 0 is where the
    /// track's first LBN sits when nothing is slipped).
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
    /// One past the zone's last exported LBN.
    pub end_lbn: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Serpentine {
    None,
    ZoneRelative,
    Absolute,
}

/// Which earlier slips turn a track further (DiskSim's "slips push skew forward").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SkewSlips {
    None,
    EarlierCylinders,
    EarlierTracks,
}

/// One zone, resolved into the tables `locate` needs.
#[derive(Clone, Debug)]
struct ZoneMap {
    first_cyl: u32,
    spt: u32,
    first_lbn: u64,
    end_lbn: u64,
    /// Logical positions before the zone's first LBN.
    dead: u64,
    unit_slots: u64,
    /// LBN positions per full unit (`unit_slots` minus the spares).
    unit_lbns: u64,
    /// Spares per unit when they sit at the unit's front (else 0).
    front_spares: u64,
    full_units: u64,
    /// Slots after the last full unit; they have no spares.
    tail_slots: u64,
    slip_to_end: bool,
    /// Slipped slots, sorted.
    slips: Vec<u64>,
    /// For `slip_to_end`: each slip's index among the zone's non-spare slots.
    slip_pos: Vec<u64>,
    /// (bad slot, spare slot), sorted by bad slot.
    remap_from: Vec<(u64, u64)>,
    /// (spare slot, bad slot), sorted by spare slot.
    remap_to: Vec<(u64, u64)>,
    offset: f64,
    track_skew: f64,
    cyl_skew: f64,
    skew_slips: SkewSlips,
}

/// Count of `slips[j]` (sorted, all `>= base`) that precede the `n`-th free slot after `base`:
/// `slips[j]` has `slips[j] - base - j` free slots before it, which never decreases in `j`.
#[inline]
fn slips_before_free(slips: &[u64], base: u64, n: u64) -> u64 {
    prefix_len(slips.len(), |j| slips[j] - base - j as u64 <= n)
}

/// How many of the indices `0..len` satisfy `holds`, which holds on a prefix of them.
/// Branch-free halving: the hot path should not pay for mispredicted branches.
#[inline(always)]
fn prefix_len(len: usize, holds: impl Fn(usize) -> bool) -> u64 {
    let mut size = len;
    if size == 0 {
        return 0;
    }
    let mut lo = 0usize;
    while size > 1 {
        let half = size / 2;
        let mid = lo + half;
        lo = if holds(mid) { mid } else { lo };
        size -= half;
    }
    (lo + holds(lo) as usize) as u64
}

impl ZoneMap {
    fn total_slots(&self) -> u64 {
        self.full_units * self.unit_slots + self.tail_slots
    }

    /// Logical positions in the zone (empty space at the front included).
    fn total_positions(&self) -> u64 {
        let n = self.full_units * self.unit_lbns + self.tail_slots;
        if self.slip_to_end {
            n - self.slips.len() as u64
        } else {
            n
        }
    }

    /// The unit holding `slot` and the unit's first slot and length.
    #[inline]
    fn unit_of_slot(&self, slot: u64) -> (u64, u64, u64) {
        let full_end = self.full_units * self.unit_slots;
        if slot < full_end {
            let u = slot / self.unit_slots;
            (u, u * self.unit_slots, self.unit_slots)
        } else {
            (self.full_units, full_end, self.tail_slots)
        }
    }

    /// Slips inside `[base, base + len)`.
    #[inline]
    fn slips_in(&self, base: u64, len: u64) -> &[u64] {
        self.slips_in_at(base, len).1
    }

    /// [`ZoneMap::slips_in`], with the index of the first of them in `slips`.
    #[inline]
    fn slips_in_at(&self, base: u64, len: u64) -> (usize, &[u64]) {
        if base == 0 && len >= self.total_slots() {
            return (0, &self.slips);
        }
        let lo = self.slips.partition_point(|&s| s < base);
        let hi = lo + self.slips[lo..].partition_point(|&s| s < base + len);
        (lo, &self.slips[lo..hi])
    }

    /// Slot of the `n`-th non-spare slot of the zone.
    #[inline]
    fn nonspare_slot(&self, n: u64) -> u64 {
        let full_lbns = self.full_units * self.unit_lbns;
        if n < full_lbns {
            let u = n / self.unit_lbns;
            u * self.unit_slots + self.front_spares + n % self.unit_lbns
        } else {
            self.full_units * self.unit_slots + (n - full_lbns)
        }
    }

    /// Non-spare slots before `slot`.
    #[inline]
    fn nonspare_before(&self, slot: u64) -> u64 {
        let full_end = self.full_units * self.unit_slots;
        if slot < full_end {
            let r = slot % self.unit_slots;
            (slot / self.unit_slots) * self.unit_lbns
                + r.saturating_sub(self.front_spares).min(self.unit_lbns)
        } else {
            self.full_units * self.unit_lbns + (slot - full_end)
        }
    }

    /// Home slot of logical position `q`, and how many positions from `q` on stay in the same
    /// unit's data region (the run can never cross its end).
    #[inline]
    fn home(&self, q: u64) -> (u64, u64) {
        let (home, left, _) = self.home_next_slip(q);
        (home, left)
    }

    /// [`ZoneMap::home`], and the index in `slips` of the first slip after the home slot
    /// (the slips the home slot was counted past, so `locate` need not search for it).
    #[inline]
    fn home_next_slip(&self, q: u64) -> (u64, u64, usize) {
        let full_lbns = self.full_units * self.unit_lbns;
        if self.slip_to_end {
            let n = q + slips_before_free(&self.slip_pos, 0, q);
            let left = if n < full_lbns {
                self.unit_lbns - n % self.unit_lbns
            } else {
                full_lbns + self.tail_slots - n
            };
            let home = self.nonspare_slot(n);
            return (home, left, self.slips.partition_point(|&s| s <= home));
        }
        let (u, r, lbns, front) = if q < full_lbns {
            (
                q / self.unit_lbns,
                q % self.unit_lbns,
                self.unit_lbns,
                self.front_spares,
            )
        } else {
            (self.full_units, q - full_lbns, self.tail_slots, 0)
        };
        let base = u * self.unit_slots;
        if self.slips.is_empty() {
            return (base + front + r, lbns - r, 0);
        }
        let len = if u < self.full_units {
            self.unit_slots
        } else {
            self.tail_slots
        };
        let (lo, slips) = self.slips_in_at(base, len);
        // With front spares the LBNs take the unit's last non-slipped slots, so slips eat into
        // the front spares rather than pushing LBNs past the unit's end.
        let n = r + front.saturating_sub(slips.len() as u64);
        // The home slot is the `n`-th free one of its unit: the `k` slips counted lie before
        // it, the unit's others after it.
        let k = slips_before_free(slips, base, n);
        (base + n + k, lbns - r, lo + k as usize)
    }

    /// Logical positions whose home slot lies before `slot`.
    fn positions_before(&self, slot: u64) -> u64 {
        if self.slip_to_end {
            let p = self.nonspare_before(slot);
            return p - self.slip_pos.partition_point(|&s| s < p) as u64;
        }
        let (u, base, len) = self.unit_of_slot(slot);
        let slips = self.slips_in(base, len);
        let slipped_before = slips.partition_point(|&s| s < slot) as u64;
        let free_before = slot - base - slipped_before;
        let in_unit = if u < self.full_units {
            let skip = self.front_spares.saturating_sub(slips.len() as u64);
            free_before.saturating_sub(skip).min(self.unit_lbns)
        } else {
            free_before
        };
        u.min(self.full_units) * self.unit_lbns + in_unit
    }

    /// The logical position whose home is `slot`, if any (remaps ignored).
    fn position_at(&self, slot: u64) -> Option<u64> {
        if slot >= self.total_slots() || self.slips.binary_search(&slot).is_ok() {
            return None;
        }
        let q = self.positions_before(slot);
        (q < self.total_positions() && self.home(q).0 == slot).then_some(q)
    }

    /// Sectors the first slot of zone track `track` is turned past the index mark.
    #[inline]
    fn track_start_sectors(&self, track: u64, surfaces: u64) -> f64 {
        let cyl = track / surfaces;
        let head = track % surfaces;
        let switches = head + (surfaces - 1) * cyl;
        let mut s = self.offset + switches as f64 * self.track_skew + cyl as f64 * self.cyl_skew;
        let before = match self.skew_slips {
            SkewSlips::None => None,
            SkewSlips::EarlierCylinders => Some(cyl * surfaces * self.spt as u64),
            SkewSlips::EarlierTracks => Some(track * self.spt as u64),
        };
        if let Some(cutoff) = before {
            s += self.slips.partition_point(|&x| x < cutoff) as f64;
        }
        s
    }

    /// `(lbn, home slot)` of the first LBN whose home slot is at or after `slot`.
    fn first_lbn_from_slot(&self, slot: u64) -> Option<(u64, u64)> {
        let q = self.positions_before(slot).max(self.dead);
        let lbn = self.first_lbn + (q - self.dead);
        if lbn >= self.end_lbn {
            return None;
        }
        Some((lbn, self.home(q).0))
    }
}

/// The logical-to-physical mapping of one drive. Immutable after construction; `locate` is
/// the simulator's hot path (no allocation; a table of pieces, `pieces.rs`, and a closed form
/// per zone, `closed_form.rs`, with [`Layout::locate_general`] behind them).
#[derive(Clone, Debug)]
pub struct Layout {
    surfaces: u32,
    serpentine: Serpentine,
    zones: Vec<ZoneInfo>,
    maps: Vec<ZoneMap>,
    /// Each zone's closed form, by zone.
    forms: Vec<ZoneForm>,
    /// The LBN ranges `locate` finds the home slot of by a constant (`pieces.rs`).
    pieces: PieceTable,
    mapped: u64,
    capacity: u64,
    /// The zone holding the first LBN of each run of `2^zone_shift` LBNs: where the search
    /// for an LBN's zone starts, a step or two short of the answer instead of a binary search
    /// over every zone.
    zone_from: Vec<u32>,
    zone_shift: u32,
}

/// At most about this many entries in [`Layout::zone_from`].
const ZONE_BUCKETS: u64 = 1024;

/// Far beyond any real drive; bounds the slot tables a slipped track expands into.
const MAX_SECTORS_PER_TRACK: u32 = 1_000_000;

fn bad(key: String, msg: String) -> HeadwayError {
    HeadwayError::params(None, None, Some(key), msg)
}

impl Layout {
    pub fn new(spec: &LayoutSpec, surfaces: u32, cylinders: u32) -> Result<Self> {
        if surfaces == 0 {
            return Err(bad(
                "surfaces".into(),
                "a drive needs at least one surface".into(),
            ));
        }
        let serpentine = match spec.mapping_scheme {
            0 => Serpentine::None,
            1 => Serpentine::ZoneRelative,
            2 => Serpentine::Absolute,
            n => {
                return Err(bad(
                    "layout.mapping_scheme".into(),
                    format!("must be 0, 1 or 2 (DiskSim's LBN-to-PBN mapping schemes), got {n}"),
                ))
            }
        };
        if spec.sparing == Sparing::RangeEnd && spec.range_size == 0 {
            return Err(bad(
                "layout.range_size".into(),
                "range sparing needs a range of at least one cylinder".into(),
            ));
        }
        if spec.zones.is_empty() {
            return Err(bad(
                "layout.zones".into(),
                "a drive needs at least one zone".into(),
            ));
        }
        let mut maps = Vec::with_capacity(spec.zones.len());
        let mut next_cyl = 0u32;
        for (i, z) in spec.zones.iter().enumerate() {
            let key = |field: &str| format!("layout.zones[{i}].{field}");
            if z.first_cylinder < next_cyl && i > 0 {
                return Err(bad(
                    key("first_cylinder"),
                    format!(
                        "zones must be in cylinder order without overlap: zone starts at {} but \
                         the previous one ends at {}",
                        z.first_cylinder,
                        next_cyl - 1
                    ),
                ));
            }
            if z.first_cylinder > z.last_cylinder || z.last_cylinder >= cylinders {
                return Err(bad(
                    key("last_cylinder"),
                    format!(
                        "zone covers cylinders {}..={}, outside the drive's 0..{cylinders}",
                        z.first_cylinder, z.last_cylinder
                    ),
                ));
            }
            next_cyl = z.last_cylinder + 1;
            maps.push(zone_map(spec, z, surfaces, &key)?);
        }
        let mapped = maps
            .iter()
            .try_fold(0u64, |sum, m| sum.checked_add(m.total_positions() - m.dead))
            .ok_or_else(|| {
                bad(
                    "layout.zones".into(),
                    "more sectors than a 64-bit count".into(),
                )
            })?;
        let capacity = match spec.exported_sectors {
            Some(n) if n > mapped => {
                return Err(bad(
                    "layout.exported_sectors".into(),
                    format!("the drive exports {n} sectors but its zones map only {mapped}"),
                ))
            }
            Some(n) => n,
            None => mapped,
        };
        if capacity == 0 {
            return Err(bad(
                "layout.zones".into(),
                "the zones map no sectors".into(),
            ));
        }
        let mut zones = Vec::with_capacity(maps.len());
        let mut lbn = 0u64;
        for (m, z) in maps.iter_mut().zip(&spec.zones) {
            let n = m.total_positions() - m.dead;
            m.first_lbn = lbn.min(capacity);
            m.end_lbn = (lbn + n).min(capacity);
            lbn += n;
            zones.push(ZoneInfo {
                first_cylinder: z.first_cylinder,
                last_cylinder: z.last_cylinder,
                sectors_per_track: z.sectors_per_track,
                first_lbn: m.first_lbn,
                end_lbn: m.end_lbn,
            });
        }
        let mut zone_shift = 0;
        while capacity >> zone_shift > ZONE_BUCKETS {
            zone_shift += 1;
        }
        let zone_from = (0..=capacity >> zone_shift)
            .map(|b| zones.partition_point(|z| z.end_lbn <= b << zone_shift) as u32)
            .collect();
        let forms: Vec<ZoneForm> = maps.iter().map(|m| ZoneForm::new(m, serpentine)).collect();
        let pieces = PieceTable::new(
            &maps,
            &forms,
            surfaces,
            serpentine,
            capacity,
            pieces::MAX_PIECES,
        );
        let layout = Layout {
            surfaces,
            serpentine,
            zones,
            maps,
            forms,
            pieces,
            mapped,
            capacity,
            zone_from,
            zone_shift,
        };
        for (i, m) in layout.maps.iter().enumerate() {
            check_remaps(m, i)?;
        }
        Ok(layout)
    }

    /// LBNs the drive exports.
    pub fn capacity_sectors(&self) -> u64 {
        self.capacity
    }

    /// LBNs the zone table maps (DiskSim's own count); at least `capacity_sectors`.
    pub fn mapped_sectors(&self) -> u64 {
        self.mapped
    }

    pub(crate) fn surfaces(&self) -> u32 {
        self.surfaces
    }

    pub fn zones(&self) -> &[ZoneInfo] {
        &self.zones
    }

    /// Index into [`Layout::zones`] of the zone holding `lbn` (< capacity).
    #[inline]
    pub(crate) fn zone_index(&self, lbn: u64) -> usize {
        // Zones end in LBN order, so from the zone holding the start of `lbn`'s bucket the
        // first zone ending past `lbn` is a short walk ahead (`zones.len()` beyond the last).
        let b = ((lbn >> self.zone_shift) as usize).min(self.zone_from.len() - 1);
        let mut z = self.zone_from[b] as usize;
        while z < self.zones.len() && self.zones[z].end_lbn <= lbn {
            z += 1;
        }
        z
    }

    /// Zone holding `cylinder`, if any (cylinders between zones hold no LBNs).
    fn zone_of_cylinder(&self, cylinder: u32) -> Option<usize> {
        let i = self.zones.partition_point(|z| z.last_cylinder < cylinder);
        (i < self.zones.len() && self.zones[i].first_cylinder <= cylinder).then_some(i)
    }

    /// The physical head for the `h`-th surface visited on zone-relative cylinder `cyl_rel`
    /// (and the other way round: the permutation is its own inverse).
    #[inline]
    fn permute_surface(&self, m: &ZoneMap, cyl_rel: u64, h: u32) -> u32 {
        let flip = match self.serpentine {
            Serpentine::None => false,
            Serpentine::ZoneRelative => cyl_rel % 2 == 1,
            Serpentine::Absolute => (m.first_cyl as u64 + cyl_rel) % 2 == 1,
        };
        if flip {
            self.surfaces - 1 - h
        } else {
            h
        }
    }

    /// [`Layout::locate`] by the zone's general tables, whatever its spares and defects: what
    /// the closed form falls back to, and what it is checked against.
    #[inline(never)]
    pub(crate) fn locate_general(&self, lbn: u64) -> Location {
        debug_assert!(
            lbn < self.capacity,
            "lbn {lbn} beyond capacity {}",
            self.capacity
        );
        let lbn = lbn.min(self.capacity - 1);
        let m = &self.maps[self.zone_index(lbn)];
        let q = lbn - m.first_lbn + m.dead;
        let (home, unit_left, next_slip) = m.home_next_slip(q);
        let spt = m.spt as u64;
        let remapped = if m.remap_from.is_empty() {
            Err(0)
        } else {
            m.remap_from.binary_search_by_key(&home, |r| r.0)
        };
        let (slot, run) = match remapped {
            Ok(i) => (m.remap_from[i].1, 1),
            Err(_) => {
                let sector = home % spt;
                let mut run = (spt - sector).min(unit_left).min(m.end_lbn - lbn);
                debug_assert_eq!(next_slip, m.slips.partition_point(|&s| s <= home));
                if let Some(&s) = m.slips.get(next_slip) {
                    run = run.min(s - home);
                }
                if !m.remap_from.is_empty() {
                    let next_bad = m.remap_from.partition_point(|r| r.0 <= home);
                    if let Some(r) = m.remap_from.get(next_bad) {
                        run = run.min(r.0 - home);
                    }
                }
                (home, run)
            }
        };
        let track = slot / spt;
        let sector = slot % spt;
        let s = self.surfaces as u64;
        let cyl_rel = track / s;
        let start = m.track_start_sectors(track, s);
        // floor() rather than rem_euclid(): fmod is a slow library call on the hot path (and
        // so is f64::floor on x86-64's baseline, hence the inline one).
        let turns = (start + sector as f64) / spt as f64;
        let mut angle = turns - floor(turns);
        if angle >= 1.0 {
            angle = 0.0;
        }
        Location {
            cylinder: m.first_cyl + cyl_rel as u32,
            surface: self.permute_surface(m, cyl_rel, (track % s) as u32),
            sector: sector as u32,
            spt: m.spt,
            run_sectors: run.max(1) as u32,
            angle,
        }
    }

    pub fn cylinder_of(&self, lbn: u64) -> u32 {
        self.locate(lbn).cylinder
    }

    /// `(cylinder, surface)` of the track holding `lbn`.
    pub fn track_of(&self, lbn: u64) -> (u32, u32) {
        let l = self.locate(lbn);
        (l.cylinder, l.surface)
    }

    /// Zone-relative slot of `(cylinder, surface, sector)` and its zone, if the address exists.
    fn slot_at(&self, cylinder: u32, surface: u32, sector: u32) -> Option<(usize, u64)> {
        let zi = self.zone_of_cylinder(cylinder)?;
        let m = &self.maps[zi];
        if surface >= self.surfaces || sector >= m.spt {
            return None;
        }
        let cyl_rel = (cylinder - m.first_cyl) as u64;
        let h = self.permute_surface(m, cyl_rel, surface) as u64;
        let track = cyl_rel * self.surfaces as u64 + h;
        Some((zi, track * m.spt as u64 + sector as u64))
    }

    /// The LBN stored in a physical slot, or `None` for a spare, slipped, remapped-away,
    /// empty or unexported slot.
    pub fn lbn_at(&self, cylinder: u32, surface: u32, sector: u32) -> Option<u64> {
        let (zi, slot) = self.slot_at(cylinder, surface, sector)?;
        let m = &self.maps[zi];
        let home = match m.remap_to.binary_search_by_key(&slot, |r| r.0) {
            Ok(i) => m.remap_to[i].1,
            Err(_) if m.remap_from.binary_search_by_key(&slot, |r| r.0).is_ok() => return None,
            Err(_) => slot,
        };
        let q = m.position_at(home)?;
        let lbn = m.first_lbn + q.checked_sub(m.dead)?;
        (lbn < m.end_lbn).then_some(lbn)
    }

    /// The first LBN whose home slot is on `cylinder` (a remapped defect's LBN counts where its
    /// home is), or `None` if the cylinder holds no exported LBN.
    pub fn first_lbn_on_cylinder(&self, cylinder: u32) -> Option<u64> {
        let (zi, slot) = self.slot_at(cylinder, 0, 0)?;
        let m = &self.maps[zi];
        // Surface 0 need not be visited first; the cylinder's first slot in mapping order is.
        let cyl_len = self.surfaces as u64 * m.spt as u64;
        let first = slot - slot % cyl_len;
        let (lbn, home) = m.first_lbn_from_slot(first)?;
        (home < first + cyl_len).then_some(lbn)
    }

    /// The first LBN whose home slot is on the track `(cylinder, surface)`, if any.
    pub fn first_lbn_on_track(&self, cylinder: u32, surface: u32) -> Option<u64> {
        let (zi, slot) = self.slot_at(cylinder, surface, 0)?;
        let m = &self.maps[zi];
        let (lbn, home) = m.first_lbn_from_slot(slot)?;
        (home < slot + m.spt as u64).then_some(lbn)
    }
}

/// Resolve one zone's sparing units, slips and remaps.
fn zone_map(
    spec: &LayoutSpec,
    z: &ZoneSpec,
    surfaces: u32,
    key: &dyn Fn(&str) -> String,
) -> Result<ZoneMap> {
    if z.sectors_per_track == 0 {
        return Err(bad(key("sectors_per_track"), "must be at least 1".into()));
    }
    for (name, v) in [
        ("first_block_offset", z.first_block_offset),
        ("track_skew", z.track_skew),
        ("cylinder_skew", z.cylinder_skew),
    ] {
        if !v.is_finite() {
            return Err(bad(key(name), format!("must be a finite number, got {v}")));
        }
    }
    if z.sectors_per_track > MAX_SECTORS_PER_TRACK {
        return Err(bad(
            key("sectors_per_track"),
            format!(
                "{} sectors per track is implausible (at most {MAX_SECTORS_PER_TRACK})",
                z.sectors_per_track
            ),
        ));
    }
    let spt = z.sectors_per_track as u64;
    let cyls = (z.last_cylinder - z.first_cylinder + 1) as u64;
    let cyl_slots = surfaces as u64 * spt;
    let tracks = cyls * surfaces as u64;
    let total = cyls.checked_mul(cyl_slots).ok_or_else(|| {
        bad(
            key("sectors_per_track"),
            "the zone holds more sectors than a 64-bit count".into(),
        )
    })?;
    let spares = z.spares as u64;
    use Sparing::*;
    // (slots per unit, spare slots per unit, spares at front, full units, slips to zone end)
    let (unit, k, front, full, slip_to_end) = match spec.sparing {
        None => (total, 0, false, 1, false),
        ZoneEndTracks => (total, spares * spt, false, 1, false),
        CylinderEnd => (cyl_slots, spares, false, cyls, false),
        TrackEnd => (spt, spares, false, tracks, false),
        CylinderEndSlipToDiskEnd => (cyl_slots, spares, false, cyls, true),
        CylinderFront => (cyl_slots, spares, true, cyls, false),
        CylinderFrontSlipToDiskEnd => (cyl_slots, spares, true, cyls, true),
        DiskEnd => (total, 0, false, 1, true),
        RangeEnd => {
            // A range longer than the zone only has a spare-less tail.
            let rs = spec.range_size as u64;
            (rs.min(cyls) * cyl_slots, spares, false, cyls / rs, false)
        }
        ZoneEndSectors => (total, spares, false, 1, false),
        ZoneEndSectorsSlipToDiskEnd => (total, spares, false, 1, true),
    };
    if spec.sparing == DiskEnd && spares != 0 {
        return Err(bad(
            key("spares"),
            "sparing scheme 7 keeps its spares at the end of the disk, so a zone's spares must \
             be 0 (DiskSim's block count ignores them while its mapping uses them)"
                .into(),
        ));
    }
    if k >= unit && full > 0 {
        return Err(bad(
            key("spares"),
            format!("{spares} spares leave no data sectors in a sparing unit of {unit} sectors"),
        ));
    }
    let tail = total - full * unit;

    let per_track = spec.sparing == ZoneEndTracks;
    let limit = if per_track { tracks } else { total };
    let what = if per_track { "track" } else { "sector" };
    let mut slips = z.slips.clone();
    slips.sort_unstable();
    if let Some(w) = slips.windows(2).find(|w| w[0] == w[1]) {
        return Err(bad(
            key("slips"),
            format!("{what} {} is slipped twice", w[0]),
        ));
    }
    if let Some(&s) = slips.last().filter(|&&s| s >= limit) {
        return Err(bad(
            key("slips"),
            format!("slipped {what} {s} lies outside the zone's {limit} {what}s"),
        ));
    }
    if spec.sparing == None && (!slips.is_empty() || z.defects.iter().any(|d| d.0 != d.1)) {
        return Err(bad(
            key("slips"),
            "a drive without spare space cannot slip or remap defects".into(),
        ));
    }
    let mut remaps = Vec::new();
    for &(from, to) in &z.defects {
        if from == to {
            continue;
        }
        if from >= limit || to >= limit {
            return Err(bad(
                key("defects"),
                format!("defect ({from}, {to}) lies outside the zone's {limit} {what}s"),
            ));
        }
        remaps.push((from, to));
    }
    if per_track {
        if slips.len() + remaps.len() > spares as usize {
            return Err(bad(
                key("slips"),
                format!(
                    "{} slipped and {} remapped tracks outnumber the zone's {spares} spare tracks",
                    slips.len(),
                    remaps.len()
                ),
            ));
        }
        slips = slips
            .iter()
            .flat_map(|&t| (t * spt)..((t + 1) * spt))
            .collect();
        remaps = remaps
            .iter()
            .flat_map(|&(f, t)| (0..spt).map(move |s| (f * spt + s, t * spt + s)))
            .collect();
    }

    let mut m = ZoneMap {
        first_cyl: z.first_cylinder,
        spt: z.sectors_per_track,
        first_lbn: 0,
        end_lbn: 0,
        dead: z.empty_space_front as u64,
        unit_slots: unit,
        unit_lbns: unit - k.min(unit),
        front_spares: if front { k } else { 0 },
        full_units: full,
        tail_slots: tail,
        slip_to_end,
        slips,
        slip_pos: Vec::new(),
        remap_from: Vec::new(),
        remap_to: Vec::new(),
        offset: z.first_block_offset,
        track_skew: z.track_skew,
        cyl_skew: z.cylinder_skew,
        skew_slips: match spec.sparing {
            CylinderEnd | CylinderEndSlipToDiskEnd | CylinderFront | CylinderFrontSlipToDiskEnd => {
                SkewSlips::EarlierCylinders
            }
            TrackEnd => SkewSlips::EarlierTracks,
            _ => SkewSlips::None,
        },
    };
    if slip_to_end {
        let mut pos = Vec::with_capacity(m.slips.len());
        for &s in &m.slips {
            let p = m.nonspare_before(s);
            if m.nonspare_before(s + 1) == p {
                return Err(bad(
                    key("slips"),
                    format!("slipped sector {s} lies in spare space, which this scheme never maps"),
                ));
            }
            pos.push(p);
        }
        m.slip_pos = pos;
    } else {
        // Every unit must absorb its own slips.
        let mut i = 0;
        while i < m.slips.len() {
            let (u, base, len) = m.unit_of_slot(m.slips[i]);
            let n = m.slips_in(base, len).len();
            let room = if u < m.full_units { k } else { 0 };
            if n as u64 > room {
                return Err(bad(
                    key("slips"),
                    format!(
                        "{n} slipped sectors in the sparing unit starting at slot {base}, which \
                         has {room} spares"
                    ),
                ));
            }
            i += n;
        }
    }
    let positions = m.total_positions();
    if m.dead > positions {
        return Err(bad(
            key("empty_space_front"),
            format!(
                "{} empty positions exceed the zone's {positions} logical positions",
                m.dead
            ),
        ));
    }
    remaps.sort_unstable();
    m.remap_to = remaps.iter().map(|&(f, t)| (t, f)).collect();
    m.remap_to.sort_unstable();
    m.remap_from = remaps;
    Ok(m)
}

/// Every remapped defect must take an LBN out of a slot that held one and put it in a slot
/// that held none.
fn check_remaps(m: &ZoneMap, i: usize) -> Result<()> {
    let key = || format!("layout.zones[{i}].defects");
    if let Some(w) = m.remap_from.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(bad(key(), format!("slot {} is remapped twice", w[0].0)));
    }
    if let Some(w) = m.remap_to.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(bad(
            key(),
            format!("two defects are remapped to slot {}", w[0].0),
        ));
    }
    for &(from, to) in &m.remap_from {
        let home = m.position_at(from).filter(|&q| q >= m.dead);
        if home.is_none() {
            return Err(bad(
                key(),
                format!("defective slot {from} holds no LBN, so there is nothing to remap"),
            ));
        }
        if m.position_at(to).is_some() || m.slips.binary_search(&to).is_ok() {
            return Err(bad(
                key(),
                format!("slot {to} is not a free spare (it holds an LBN or is slipped)"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(first: u32, last: u32, spt: u32) -> ZoneSpec {
        ZoneSpec {
            first_cylinder: first,
            last_cylinder: last,
            sectors_per_track: spt,
            first_block_offset: 0.0,
            empty_space_front: 0,
            track_skew: 0.0,
            cylinder_skew: 0.0,
            spares: 0,
            slips: vec![],
            defects: vec![],
        }
    }

    fn layout(sparing: Sparing, zones: Vec<ZoneSpec>, surfaces: u32) -> Layout {
        let cyls = zones.last().unwrap().last_cylinder + 1;
        let spec = LayoutSpec {
            mapping_scheme: 0,
            sparing,
            range_size: 2,
            zones,
            exported_sectors: None,
        };
        Layout::new(&spec, surfaces, cyls).unwrap()
    }

    /// Every LBN round-trips and every slot holds at most one LBN.
    fn check_bijection(l: &Layout) {
        let mut seen = std::collections::HashSet::new();
        for lbn in 0..l.capacity_sectors() {
            let loc = l.locate(lbn);
            // The closed form is the general lookup, the angle to the bit.
            let general = l.locate_general(lbn);
            assert_eq!(loc, general, "lbn {lbn}");
            assert_eq!(loc.angle.to_bits(), general.angle.to_bits(), "lbn {lbn}");
            assert!(
                seen.insert((loc.cylinder, loc.surface, loc.sector)),
                "lbn {lbn} collides"
            );
            assert_eq!(
                l.lbn_at(loc.cylinder, loc.surface, loc.sector),
                Some(lbn),
                "{loc:?}"
            );
            // The run really is consecutive slots holding consecutive LBNs.
            for k in 1..loc.run_sectors {
                let next = l.locate(lbn + k as u64);
                assert_eq!(
                    (next.cylinder, next.surface, next.sector),
                    (loc.cylinder, loc.surface, loc.sector + k),
                    "run of lbn {lbn} breaks at +{k}"
                );
            }
            // And it is maximal: the next LBN is not in the next slot.
            let end = lbn + loc.run_sectors as u64;
            if end < l.capacity_sectors() {
                let next = l.locate(end);
                let same = (next.cylinder, next.surface) == (loc.cylinder, loc.surface)
                    && next.sector == loc.sector + loc.run_sectors;
                assert!(!same, "run of lbn {lbn} stops early at {end}");
            }
        }
    }

    #[test]
    fn the_zone_table_finds_the_zone_a_binary_search_does() {
        let by_search = |l: &Layout, lbn: u64| l.zones.partition_point(|z| z.end_lbn <= lbn);
        // Many zones, some small next to large ones, and a drive smaller than the table.
        let mut zones = Vec::new();
        let mut cyl = 0;
        for &(cyls, spt) in [(40, 50), (1, 7), (1, 9), (300, 40), (2, 3), (90, 30)]
            .iter()
            .cycle()
            .take(30)
        {
            zones.push(zone(cyl, cyl + cyls - 1, spt));
            cyl += cyls;
        }
        let big = layout(Sparing::None, zones, 3);
        let small = layout(Sparing::None, vec![zone(0, 1, 5), zone(2, 4, 3)], 1);
        for l in [&big, &small] {
            let cap = l.capacity_sectors();
            let mut lbns: Vec<u64> = (0..cap).step_by(97).collect();
            for z in &l.zones {
                for d in [0, 1] {
                    lbns.extend([z.first_lbn + d, z.end_lbn.saturating_sub(1 + d), z.end_lbn]);
                }
            }
            lbns.extend([cap - 1, cap, cap + 12345]);
            for lbn in lbns {
                assert_eq!(l.zone_index(lbn), by_search(l, lbn), "lbn {lbn} of {cap}");
            }
        }
    }

    #[test]
    fn cylinder_sparing_slip_uses_the_cylinders_spares() {
        // 2 surfaces x 10 sectors, 3 spares per cylinder: 17 LBNs per cylinder.
        let mut z = zone(0, 2, 10);
        z.spares = 3;
        z.slips = vec![4, 25];
        let l = layout(Sparing::CylinderEnd, vec![z], 2);
        assert_eq!(l.capacity_sectors(), 3 * 17);
        // LBN 4 skips slot 4 of cylinder 0.
        assert_eq!(l.locate(3).sector, 3);
        let loc = l.locate(4);
        assert_eq!((loc.cylinder, loc.surface, loc.sector), (0, 0, 5));
        assert_eq!(l.locate(0).run_sectors, 4);
        // Cylinder 1 starts at slot 20, unaffected by cylinder 0's slip.
        assert_eq!(l.first_lbn_on_cylinder(1), Some(17));
        assert_eq!(l.locate(17).sector, 0);
        assert_eq!(l.lbn_at(0, 0, 4), None);
        check_bijection(&l);
    }

    #[test]
    fn cylinder_sparing_pushes_skew_by_earlier_slips() {
        let mut z = zone(0, 2, 10);
        z.spares = 3;
        z.slips = vec![4];
        z.cylinder_skew = 2.0;
        z.track_skew = 1.0;
        let l = layout(Sparing::CylinderEnd, vec![z], 2);
        // Cylinder 1: one track switch, one cylinder switch, one earlier slip.
        let a = l.locate(17).angle;
        assert!((a - (1.0 + 2.0 + 1.0) / 10.0).abs() < 1e-12, "{a}");
        // Cylinder 0, surface 1: one track switch; the slip is on this cylinder, so it pushes
        // LBN 9 onto slot 0 of track 1 instead of turning the track.
        assert_eq!(l.first_lbn_on_track(0, 1), Some(9));
        let a = l.locate(9).angle;
        assert!((a - 0.1).abs() < 1e-12, "{a}");
    }

    #[test]
    fn track_sparing_slips_whole_tracks() {
        // Scheme 1: 2 spare tracks per zone; track 1 slipped.
        let mut z = zone(0, 1, 5);
        z.spares = 2;
        z.slips = vec![1];
        let l = layout(Sparing::ZoneEndTracks, vec![z], 3);
        assert_eq!(l.capacity_sectors(), (6 - 2) * 5);
        let loc = l.locate(5);
        assert_eq!((loc.cylinder, loc.surface, loc.sector), (0, 2, 0));
        assert_eq!(l.lbn_at(0, 1, 0), None);
        check_bijection(&l);
    }

    #[test]
    fn per_track_sparing_with_empty_space_counts_logical_positions() {
        // Scheme 3: 1 spare per 6-sector track; 7 empty positions skip a track and 2 more.
        let mut z = zone(0, 1, 6);
        z.spares = 1;
        z.empty_space_front = 7;
        let l = layout(Sparing::TrackEnd, vec![z], 2);
        assert_eq!(l.capacity_sectors(), 4 * 5 - 7);
        let loc = l.locate(0);
        assert_eq!((loc.cylinder, loc.surface, loc.sector), (0, 1, 2));
        check_bijection(&l);
    }

    #[test]
    fn range_sparing_tail_has_no_spares() {
        // Ranges of 2 cylinders, 5 cylinders: two full ranges and a spare-less tail.
        let mut z = zone(0, 4, 4);
        z.spares = 3;
        z.slips = vec![2, 17];
        let l = layout(Sparing::RangeEnd, vec![z], 2);
        assert_eq!(l.capacity_sectors(), 5 * 8 - 2 * 3);
        check_bijection(&l);
    }

    #[test]
    fn zone_sparing_slip_crosses_tracks() {
        let mut z = zone(0, 1, 4);
        z.spares = 2;
        z.slips = vec![1];
        let l = layout(Sparing::ZoneEndSectors, vec![z], 2);
        assert_eq!(l.capacity_sectors(), 16 - 2);
        // LBN 3 spills to slot 0 of track 1.
        let loc = l.locate(3);
        assert_eq!((loc.surface, loc.sector), (1, 0));
        assert_eq!(l.locate(0).run_sectors, 1);
        assert_eq!(l.locate(1).run_sectors, 2);
        check_bijection(&l);
    }

    #[test]
    fn slip_to_end_schemes_lose_one_lbn_per_slip() {
        for sparing in [
            Sparing::DiskEnd,
            Sparing::CylinderEndSlipToDiskEnd,
            Sparing::CylinderFrontSlipToDiskEnd,
            Sparing::ZoneEndSectorsSlipToDiskEnd,
        ] {
            let mut z = zone(0, 2, 5);
            z.spares = if sparing == Sparing::DiskEnd { 0 } else { 1 };
            // Slot 2 and 12 are data slots in every one of these schemes.
            z.slips = vec![2, 12];
            let l = layout(sparing, vec![z.clone()], 2);
            let unit_spares = match sparing {
                Sparing::DiskEnd => 0,
                Sparing::ZoneEndSectorsSlipToDiskEnd => 1,
                _ => 3,
            };
            assert_eq!(l.capacity_sectors(), 30 - unit_spares - 2, "{sparing:?}");
            check_bijection(&l);
        }
    }

    #[test]
    fn front_sparing_fills_the_end_of_each_cylinder() {
        let mut z = zone(0, 1, 4);
        z.spares = 2;
        z.slips = vec![5];
        let l = layout(Sparing::CylinderFront, vec![z], 2);
        assert_eq!(l.capacity_sectors(), 2 * 6);
        assert_eq!(l.locate(0).sector, 1);
        assert_eq!(l.locate(6).sector, 2);
        check_bijection(&l);
    }

    #[test]
    fn remapped_defect_moves_one_lbn_to_a_spare() {
        let mut z = zone(0, 1, 4);
        z.spares = 2;
        z.defects = vec![(5, 15), (3, 3)];
        let l = layout(Sparing::ZoneEndSectors, vec![z], 2);
        let loc = l.locate(5);
        assert_eq!(
            (loc.cylinder, loc.surface, loc.sector, loc.run_sectors),
            (1, 1, 3, 1)
        );
        assert_eq!(l.locate(4).run_sectors, 1);
        assert_eq!(l.lbn_at(0, 1, 1), None);
        check_bijection(&l);
    }

    #[test]
    fn serpentine_mapping_reverses_odd_cylinders() {
        let spec = LayoutSpec {
            mapping_scheme: 1,
            sparing: Sparing::None,
            range_size: 1,
            zones: vec![zone(0, 1, 3), zone(2, 4, 2)],
            exported_sectors: None,
        };
        let l = Layout::new(&spec, 3, 5).unwrap();
        assert_eq!(l.track_of(9), (1, 2));
        assert_eq!(l.track_of(18), (2, 0));
        assert_eq!(l.track_of(24), (3, 2));
        assert_eq!(l.first_lbn_on_cylinder(1), Some(9));
        check_bijection(&l);
        let spec = LayoutSpec {
            mapping_scheme: 2,
            ..spec
        };
        let l = Layout::new(&spec, 3, 5).unwrap();
        assert_eq!(l.track_of(24), (3, 2));
        assert_eq!(l.track_of(18), (2, 0));
        check_bijection(&l);
    }

    #[test]
    fn exported_sectors_truncate_the_tail() {
        let spec = LayoutSpec {
            mapping_scheme: 0,
            sparing: Sparing::None,
            range_size: 1,
            zones: vec![zone(0, 1, 10), zone(2, 3, 8)],
            exported_sectors: Some(25),
        };
        let l = Layout::new(&spec, 1, 4).unwrap();
        assert_eq!((l.capacity_sectors(), l.mapped_sectors()), (25, 36));
        assert_eq!(l.zones()[1].end_lbn, 25);
        assert_eq!(l.locate(24).run_sectors, 1);
        assert_eq!(l.lbn_at(3, 0, 0), None);
        check_bijection(&l);
        let too_many = LayoutSpec {
            exported_sectors: Some(37),
            ..spec
        };
        assert!(Layout::new(&too_many, 1, 4).is_err());
    }

    #[test]
    fn bad_layouts_are_errors_not_panics() {
        let base = LayoutSpec {
            mapping_scheme: 0,
            sparing: Sparing::CylinderEnd,
            range_size: 1,
            zones: vec![zone(0, 1, 4)],
            exported_sectors: None,
        };
        let with = |f: &dyn Fn(&mut LayoutSpec)| {
            let mut s = base.clone();
            f(&mut s);
            Layout::new(&s, 2, 2).unwrap_err().to_string()
        };
        assert!(with(&|s| s.zones[0].spares = 8).contains("no data sectors"));
        assert!(with(&|s| {
            s.zones[0].spares = 1;
            s.zones[0].slips = vec![1, 2];
        })
        .contains("spares"));
        assert!(with(&|s| s.zones[0].slips = vec![99]).contains("outside"));
        assert!(with(&|s| s.zones[0].last_cylinder = 5).contains("outside"));
        assert!(with(&|s| s.zones.push(zone(1, 1, 4))).contains("overlap"));
        assert!(with(&|s| s.mapping_scheme = 3).contains("mapping"));
        assert!(with(&|s| s.zones[0].empty_space_front = 99).contains("empty"));
        assert!(with(&|s| {
            s.zones[0].spares = 1;
            s.zones[0].defects = vec![(0, 1)];
        })
        .contains("free spare"));
        assert!(with(&|s| s.zones[0].sectors_per_track = 0).contains("at least 1"));
        assert!(with(&|s| s.zones[0].sectors_per_track = 2_000_000).contains("implausible"));
        let mut huge = base.clone();
        huge.zones[0].last_cylinder = 3_999_999_999;
        huge.zones[0].sectors_per_track = 1_000_000;
        let e = Layout::new(&huge, u32::MAX, 4_000_000_000).unwrap_err();
        assert!(e.to_string().contains("64-bit"), "{e}");
        assert!(with(&|s| {
            s.sparing = Sparing::DiskEnd;
            s.zones[0].spares = 1;
        })
        .contains("scheme 7"));
    }
}
