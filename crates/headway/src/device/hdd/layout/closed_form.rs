//! The LBN lookup by a per-zone closed form: [`Layout::locate`]'s path in the zones the
//! piece table (`pieces.rs`) leaves to it, and where the pieces come from.
//!
//! Inside a zone whose LBNs fill the slots in order, an LBN's slot is its logical position
//! plus the spares and slips before it, and the track, cylinder and sector follow by integer
//! division. Each zone is classified once, when the layout is built, into the shape that
//! says how to count those:
//!
//! * [`Shape::Whole`]: one sparing unit spans the zone with its spares at the end (sparing
//!   schemes 0, 1, 7, 9, 10, and any scheme whose zone is one unit): the slot is the position
//!   plus the slips before it, found among the zone's few slips by a branch-free halving.
//! * [`Shape::Units`]: the zone is cut into units (track, cylinder or range sparing): the
//!   unit by one division, and its slot by the unit's spares; units holding slips are marked
//!   in a bit set and go to the general path.
//! * [`Shape::General`]: anything else (remapped defects in the zone, slips that turn later
//!   tracks' skews, slips that push the rest of the zone along in a zone of several units).
//!
//! Every shape computes the general lookup's result bit for bit: the same integers, and the
//! angle from the same float operations in the same order, on the same values (the integers
//! converted from 32 bits, which x86-64 does in one instruction where 64 unsigned bits take
//! several). A zone of more than 2^32 slots takes the general path.
//! `tests` checks it against [`Layout::locate_general`] for every LBN of several catalog
//! drives and for random layouts with every sparing scheme, slips and remapped defects.

use super::super::num::floor;
use super::{Layout, Location, Serpentine, SkewSlips, ZoneMap};

/// How one zone's LBNs find their slots; see the module doc.
#[derive(Clone, Debug)]
enum Shape {
    Whole {
        /// LBN positions in the zone's one unit.
        unit_lbns: u64,
        /// `u64::MAX` when slips push the rest of the zone along (the unit's run is then
        /// counted from the slot), 0 when they stay in their unit (counted from the position).
        slip_to_end: u64,
        /// `slips[j] - j` for each slip `j`: position `q`'s slot is `q` plus the number of
        /// these at or below `q`, and the next slip after it is `thresholds[k] - q` slots on.
        thresholds: Vec<u64>,
    },
    Units {
        unit_lbns: u64,
        unit_slots: u64,
        front_spares: u64,
        /// Positions in the full units; the spare-less tail follows.
        full_lbns: u64,
        tail_base: u64,
        tail_slots: u64,
        /// One bit per unit holding a slip (empty when the zone has none).
        slipped: Vec<u64>,
    },
    General,
}

/// One zone's constants for the closed form, kept apart from the general tables so that a
/// lookup touches one small record.
#[derive(Clone, Debug)]
pub(super) struct ZoneForm {
    /// `first_lbn - dead` (wrapping): an LBN's logical position is `lbn - q_base`.
    pub(super) q_base: u64,
    pub(super) end_lbn: u64,
    pub(super) spt: u64,
    pub(super) spt_f: f64,
    pub(super) offset: f64,
    pub(super) track_skew: f64,
    pub(super) cyl_skew: f64,
    pub(super) first_cyl: u32,
    /// 1 when the surfaces are visited in reverse on odd cylinders, else 0; `flip_from` is
    /// the parity of the cylinder the count starts from (the zone's first, or 0).
    pub(super) flip_mask: u32,
    pub(super) flip_from: u32,
    shape: Shape,
}

impl ZoneForm {
    pub(super) fn new(m: &ZoneMap, serpentine: Serpentine) -> ZoneForm {
        let general = !m.remap_from.is_empty()
            || (!m.slips.is_empty() && m.skew_slips != SkewSlips::None)
            || m.total_slots() > u32::MAX as u64;
        let whole = m.full_units == 1 && m.tail_slots == 0 && m.front_spares == 0;
        let shape = if general {
            Shape::General
        } else if whole {
            // In a one-unit zone `slip_pos` equals `slips` (no spares before a data slot),
            // and both schemes count a slip past position `q` the same way.
            let thresholds = m
                .slips
                .iter()
                .enumerate()
                .map(|(j, &s)| s - j as u64)
                .collect();
            Shape::Whole {
                unit_lbns: m.unit_lbns,
                slip_to_end: if m.slip_to_end { u64::MAX } else { 0 },
                thresholds,
            }
        } else if m.slip_to_end && !m.slips.is_empty() {
            Shape::General
        } else {
            let mut slipped = Vec::new();
            if !m.slips.is_empty() {
                slipped = vec![0u64; (m.full_units as usize).div_ceil(64) + 1];
                for &s in &m.slips {
                    let (u, _, _) = m.unit_of_slot(s);
                    slipped[(u / 64) as usize] |= 1 << (u % 64);
                }
            }
            Shape::Units {
                unit_lbns: m.unit_lbns,
                unit_slots: m.unit_slots,
                front_spares: m.front_spares,
                full_lbns: m.full_units * m.unit_lbns,
                tail_base: m.full_units * m.unit_slots,
                tail_slots: m.tail_slots,
                slipped,
            }
        };
        let (flip_mask, flip_from) = match serpentine {
            Serpentine::None => (0, 0),
            Serpentine::ZoneRelative => (1, 0),
            Serpentine::Absolute => (1, m.first_cyl % 2),
        };
        ZoneForm {
            q_base: m.first_lbn.wrapping_sub(m.dead),
            end_lbn: m.end_lbn,
            spt: m.spt as u64,
            spt_f: m.spt as f64,
            offset: m.offset,
            track_skew: m.track_skew,
            cyl_skew: m.cyl_skew,
            first_cyl: m.first_cyl,
            flip_mask,
            flip_from,
            shape,
        }
    }

    /// The zone's pieces, for [`super::pieces`]: `(end_lbn, base)` for each LBN range over
    /// which the home slot is `lbn - base` (wrapping) and the LBNs stay consecutive up to
    /// `end_lbn` (before the track's end is counted), in LBN order, empty ranges left out;
    /// `None` unless the zone is one unit ([`Shape::Whole`]), whose pieces break at its
    /// slips alone. `first_lbn..end_lbn` is the zone's exported range and `dead` its empty
    /// positions.
    pub(super) fn pieces(
        &self,
        first_lbn: u64,
        end_lbn: u64,
        dead: u64,
    ) -> Option<Vec<(u64, u64)>> {
        let Shape::Whole {
            unit_lbns,
            slip_to_end,
            thresholds,
        } = &self.shape
        else {
            return None;
        };
        let n = thresholds.len() as u64;
        let mut out = Vec::new();
        let mut from = first_lbn;
        for k in 0..=n {
            // `slot`'s bound on the run for a position counting `k` slips: the next threshold,
            // or the unit's end.
            let q_end = match thresholds.get(k as usize) {
                Some(&t) => t.min(unit_lbns - (k & slip_to_end)),
                None => unit_lbns - (k & slip_to_end),
            };
            let to = (first_lbn + q_end.saturating_sub(dead)).min(end_lbn);
            if to > from {
                out.push((to, self.q_base.wrapping_sub(k)));
                from = to;
            }
        }
        debug_assert_eq!(from, end_lbn, "the pieces cover the zone");
        Some(out)
    }

    /// Home slot of position `q` and how many slots from it the LBNs stay consecutive
    /// (before the track's end is counted), or `None` for the general path.
    #[inline(always)]
    fn slot(&self, q: u64) -> Option<(u64, u64)> {
        match &self.shape {
            Shape::Whole {
                unit_lbns,
                slip_to_end,
                thresholds,
            } => {
                let k = count_at_or_below(thresholds, q);
                let home = q + k;
                let mut run = unit_lbns - q - (k & slip_to_end);
                if let Some(&t) = thresholds.get(k as usize) {
                    run = run.min(t - q);
                }
                Some((home, run))
            }
            Shape::Units {
                unit_lbns,
                unit_slots,
                front_spares,
                full_lbns,
                tail_base,
                tail_slots,
                slipped,
            } => {
                if q < *full_lbns {
                    let u = q / unit_lbns;
                    let r = q - u * unit_lbns;
                    if !slipped.is_empty() && (slipped[(u / 64) as usize] >> (u % 64)) & 1 == 1 {
                        return None;
                    }
                    Some((u * unit_slots + front_spares + r, unit_lbns - r))
                } else {
                    let r = q - full_lbns;
                    Some((tail_base + r, tail_slots - r))
                }
            }
            Shape::General => None,
        }
    }
}

/// The angle of slot `sector` of a zone's track `switches` head switches and `cyl` cylinder
/// switches from the zone's first, where `zone` is the zone's offset, track skew, cylinder
/// skew and sectors per track: `ZoneMap::track_start_sectors` and `locate_general`'s angle,
/// operation for operation (the integers converted from 32 bits), for the closed form and the
/// pieces alike.
#[inline(always)]
pub(super) fn angle_of(switches: u32, cyl: u32, sector: u32, zone: [f64; 4]) -> f64 {
    angle_by(switches, cyl, sector, zone, turn_angle)
}

/// [`angle_of`] with `angle` taking the turns to the angle, which must give [`turn_angle`]'s
/// bits for every turn count the zone's slots come to (the pieces' shorter one where those
/// are small and not negative, `pieces::fract_small`).
#[inline(always)]
pub(super) fn angle_by(
    switches: u32,
    cyl: u32,
    sector: u32,
    zone: [f64; 4],
    angle: impl Fn(f64) -> f64,
) -> f64 {
    let [offset, track_skew, cyl_skew, spt_f] = zone;
    let start = offset + switches as f64 * track_skew + cyl as f64 * cyl_skew;
    angle((start + sector as f64) / spt_f)
}

/// The fraction of a turn past the index `turns` comes to, as `locate_general` takes it.
#[inline(always)]
pub(super) fn turn_angle(turns: f64) -> f64 {
    let angle = turns - floor(turns);
    if angle >= 1.0 {
        0.0
    } else {
        angle
    }
}

/// How many of `sorted` are at or below `q`.
#[inline(always)]
fn count_at_or_below(sorted: &[u64], q: u64) -> u64 {
    super::prefix_len(sorted.len(), |j| sorted[j] <= q)
}

impl Layout {
    /// [`Layout::locate`] in zone `zi` (which holds `lbn`, below the capacity) by the zone's
    /// closed form, or [`Layout::locate_general`] where it has none: the path of the zones
    /// the piece table leaves to their closed form.
    #[inline(never)]
    pub(super) fn locate_in_zone(&self, lbn: u64, zi: usize) -> Location {
        let f = &self.forms[zi];
        let q = lbn.wrapping_sub(f.q_base);
        let Some((home, unit_run)) = f.slot(q) else {
            return self.locate_general(lbn);
        };
        // In 32 bits (the zone's slots fit, `ZoneForm::new`): a 64-bit division costs more,
        // even where the compiler tests for small operands first.
        let spt = f.spt as u32;
        let track = home as u32 / spt;
        let sector = home as u32 % spt;
        let run = ((spt - sector) as u64).min(unit_run).min(f.end_lbn - lbn);
        let s = self.surfaces;
        let cyl = track / s;
        let head = track % s;
        let angle = angle_of(
            head + (s - 1) * cyl,
            cyl,
            sector,
            [f.offset, f.track_skew, f.cyl_skew, f.spt_f],
        );
        let flip = (cyl + f.flip_from) & f.flip_mask == 1;
        let surface = if flip { s - 1 - head } else { head };
        let loc = Location {
            cylinder: f.first_cyl + cyl,
            surface,
            sector,
            spt,
            run_sectors: run.max(1) as u32,
            angle,
        };
        debug_assert!(
            {
                let g = self.locate_general(lbn);
                loc == g && loc.angle.to_bits() == g.angle.to_bits()
            },
            "closed form of lbn {lbn} (zone {zi}): {loc:?}, general {:?}",
            self.locate_general(lbn)
        );
        loc
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::spec::{LayoutSpec, Sparing, ZoneSpec};
    use super::super::pieces::{self, PieceTable};
    use super::*;

    /// The catalog's largest piece table (cheetah9lp's 489 pieces and its buckets: 33,484
    /// bytes) with some room for new drives.
    const LARGEST_TABLE_BYTES: usize = 40 << 10;
    use proptest::prelude::*;

    fn catalog(name: &str) -> Layout {
        let spec = crate::device::catalog::lookup(name).unwrap();
        Layout::new(&spec.layout, spec.surfaces, spec.cylinders).unwrap()
    }

    /// `locate` (by its piece), the zone's closed form and `locate_general` agree on `lbn`,
    /// the angle to the bit.
    fn same(l: &Layout, lbn: u64) -> std::result::Result<(), String> {
        let a = l.locate(lbn);
        let c = l.locate_in_zone(lbn, l.zone_index(lbn));
        let b = l.locate_general(lbn);
        let bits = |x: &Location| x.angle.to_bits();
        if a == b && c == b && bits(&a) == bits(&b) && bits(&c) == bits(&b) {
            Ok(())
        } else {
            Err(format!(
                "lbn {lbn}: piece {a:?}, closed form {c:?}, general {b:?}"
            ))
        }
    }

    /// `l` with its piece table rebuilt to hold at most `max_pieces` pieces of split zones,
    /// so that the zones past the bound take their closed form.
    fn bounded(l: &Layout, max_pieces: usize) -> Layout {
        let mut l = l.clone();
        l.pieces = PieceTable::new(
            &l.maps,
            &l.forms,
            l.surfaces,
            l.serpentine,
            l.capacity,
            max_pieces,
        );
        l
    }

    fn shapes(l: &Layout) -> [usize; 3] {
        let mut n = [0; 3];
        for f in &l.forms {
            n[match f.shape {
                Shape::Whole { .. } => 0,
                Shape::Units { .. } => 1,
                Shape::General => 2,
            }] += 1;
        }
        n
    }

    /// Every LBN of catalog drives with each kind of sparing: one unit per zone with slips
    /// (atlas10k, serpentine by zone; cheetah9lp; hp_c2247a with whole slipped tracks;
    /// atlas_iii's slips pushed along the zone), ranges with slips in some (cheetah4lp),
    /// tracks (dec_rz26, empty space at the front), cylinders whose slips turn later skews
    /// (st41601n: its zones with slips take the general path).
    #[test]
    fn the_closed_form_matches_the_general_lookup_for_every_lbn_of_catalog_drives() {
        // Zones by shape, and the piece table: pieces, those left to their zone's closed
        // form.
        let drives = [
            ("atlas10k", [24, 0, 0], (77, 0)),
            ("cheetah9lp", [11, 0, 0], (489, 0)),
            ("hp_c2247a", [8, 0, 0], (41, 0)),
            ("atlas_iii", [9, 0, 0], (60, 0)),
            ("cheetah4lp", [0, 7, 0], (7, 7)),
            ("dec_rz26", [0, 1, 0], (1, 1)),
            ("st41601n", [0, 7, 7], (14, 14)),
        ];
        for (name, expect, pieces) in drives {
            let l = catalog(name);
            assert_eq!(shapes(&l), expect, "{name}'s zones by shape");
            assert_eq!(
                (l.pieces.size().0, l.pieces.in_zone()),
                pieces,
                "{name}'s pieces"
            );
            // The same lookups with the table bounded below the drive's pieces: the zones
            // past the bound take their closed form (checked at random LBNs below).
            let half = bounded(&l, l.pieces.size().0 / 2);
            assert!(half.pieces.in_zone() > pieces.1 || expect[0] == 0, "{name}");
            // Every LBN, in steps of a run: the general path's run says how far the next
            // LBNs are consecutive, so the LBNs inside it are checked against it directly
            // (one general lookup a run keeps the debug build's test to seconds).
            let mut lbn = 0;
            while lbn < l.capacity_sectors() {
                let g = l.locate_general(lbn);
                for k in 0..g.run_sectors {
                    let a = l.locate(lbn + k as u64);
                    let mut want = g;
                    want.sector += k;
                    want.run_sectors -= k;
                    want.angle = a.angle;
                    assert_eq!(a, want, "{name} lbn {}", lbn + k as u64);
                }
                // The angle bit for bit at the run's first LBN (inside it the general path
                // computes it afresh, checked at random places below).
                same(&l, lbn).unwrap();
                same(&half, lbn).unwrap();
                lbn += g.run_sectors as u64;
            }
        }
    }

    /// The piece table of every catalog drive stays within its bound, and what it costs.
    #[test]
    fn the_piece_tables_of_the_catalog_are_bounded() {
        let mut largest = (0, 0, String::new());
        for name in crate::device::catalog::names() {
            let l = catalog(&name);
            let (n, bytes) = l.pieces.size();
            println!(
                "{name}: {n} pieces, {} in zone, {bytes} bytes",
                l.pieces.in_zone()
            );
            assert!(
                n <= pieces::MAX_PIECES + l.zones.len(),
                "{name}: {n} pieces"
            );
            assert_eq!(
                l.pieces.in_zone() > 0,
                shapes(&l)[0] < l.zones.len(),
                "{name}"
            );
            if bytes > largest.1 {
                largest = (n, bytes, name);
            }
        }
        println!("largest piece table: {largest:?}");
        assert!(largest.1 <= LARGEST_TABLE_BYTES, "{largest:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Random LBNs of every catalog drive, the angle to the bit.
        #[test]
        fn random_lbns_of_catalog_drives_match(pick in any::<u64>(), frac in 0.0..1.0f64) {
            let names = crate::device::catalog::names();
            let l = catalog(&names[(pick % names.len() as u64) as usize]);
            let lbn = ((l.capacity_sectors() as f64 * frac) as u64).min(l.capacity_sectors() - 1);
            prop_assert_eq!(same(&l, lbn), Ok(()));
        }

        /// Every LBN of random small layouts of every sparing scheme and mapping scheme,
        /// with slips, remapped defects, empty space and skews (layouts the builder rejects
        /// are skipped).
        #[test]
        fn every_lbn_of_random_layouts_matches(
            scheme in 0i64..=10,
            mapping in 0u32..3,
            surfaces in 1u32..4,
            range_size in 1u32..4,
            zones in prop::collection::vec(
                (1u32..5, 1u32..12, 0u32..4, 0u32..6, 0.0..20.0f64, 0.0..4.0f64, 0.0..4.0f64,
                 prop::collection::vec(0.0..1.0f64, 0..4),
                 prop::collection::vec((0.0..1.0f64, 0.0..1.0f64), 0..2)),
                1..4),
            gap in 0u32..2,
            exported in prop::option::of(0.5..1.0f64),
        ) {
            let mut specs = Vec::new();
            let mut cyl = 0;
            let sparing = Sparing::from_disksim(scheme).unwrap();
            for (cyls, spt, spares, empty, offset, ts, cs, slips, defects) in zones {
                // Slips and defects anywhere in the zone (numbered in tracks for scheme 1).
                let n = (cyls * surfaces) as u64
                    * if sparing == Sparing::ZoneEndTracks { 1 } else { spt as u64 };
                let at = |f: f64| ((n as f64 * f) as u64).min(n - 1);
                specs.push(ZoneSpec {
                    first_cylinder: cyl,
                    last_cylinder: cyl + cyls - 1,
                    sectors_per_track: spt,
                    first_block_offset: offset,
                    empty_space_front: empty,
                    track_skew: ts,
                    cylinder_skew: cs,
                    spares,
                    slips: slips.into_iter().map(at).collect(),
                    defects: defects.into_iter().map(|(a, b)| (at(a), at(b))).collect(),
                });
                cyl += cyls + gap;
            }
            let mut spec = LayoutSpec {
                mapping_scheme: mapping,
                sparing,
                range_size,
                zones: specs,
                exported_sectors: None,
            };
            // Defects the builder rejects (too many for their unit, a remap onto a slot that
            // holds an LBN) are dropped, the remaps first, so that most cases still test some.
            let mut built = Layout::new(&spec, surfaces, cyl);
            if built.is_err() {
                spec.zones.iter_mut().for_each(|z| z.defects.clear());
                built = Layout::new(&spec, surfaces, cyl);
            }
            if built.is_err() {
                spec.zones.iter_mut().for_each(|z| z.slips.clear());
                built = Layout::new(&spec, surfaces, cyl);
            }
            let Ok(l) = built else {
                return Ok(());
            };
            if let Some(f) = exported {
                spec.exported_sectors = Some(((l.capacity_sectors() as f64 * f) as u64).max(1));
            }
            let l = Layout::new(&spec, surfaces, cyl).unwrap();
            // And with the table bounded to one piece of a split zone: the rest take their
            // closed form.
            let one = bounded(&l, 1);
            for lbn in 0..l.capacity_sectors() {
                prop_assert_eq!(same(&l, lbn), Ok(()));
                prop_assert_eq!(same(&one, lbn), Ok(()));
            }
        }
    }
}
