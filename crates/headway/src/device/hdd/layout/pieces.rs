//! The LBN lookup by a table of pieces: [`Layout::locate`]'s hot path.
//!
//! A *piece* is a range of LBNs over which the home slot is the LBN less a constant: a zone
//! that is one sparing unit (the closed form's [`Shape::Whole`](super::closed_form), every
//! zone of the benchmark's Atlas 10K) breaks into one piece per run of LBNs between its
//! slips. All the pieces of a layout sit in one array in LBN order, found from a bucket of
//! `2^shift` LBNs as the zone is (`Layout::zone_index`): one short walk replaces the zone's
//! walk, the shape's dispatch and the slip count, and the piece carries the zone's constants
//! the rest of the lookup needs, in one cache line. A zone of another shape, or beyond the
//! table's bound, is one piece that sends its LBNs to the zone's closed form
//! ([`Layout::locate_in_zone`]), as before the table.
//!
//! The lookup's time is its dependent chain's latency more than its instructions, so the
//! piece takes the track and the cylinder each straight from the home slot, side by side, by
//! one multiplication by a precomputed reciprocal ([`quotient`]; the processor's divisions,
//! one after the other or side by side, measured slower on some machines and no faster on
//! others), and the angle's fraction of a turn by two additions ([`fract_small`]) where the
//! zone's turns allow it; zones that do not are left to their closed form
//! (docs/performance.md, "Rules for the hot path").
//!
//! Every lookup computes the general lookup's result bit for bit (the same integers, the
//! angle from the same float operations on the same values); `locate` checks itself against
//! [`Layout::locate_general`] by a debug assertion, and `closed_form::tests` checks all three
//! paths against each other.

#[cfg(doc)]
use super::closed_form::turn_angle;
use super::closed_form::{angle_by, ZoneForm};
use super::{Layout, Location, Serpentine, ZoneMap};

/// Pieces the table holds at most, besides one per zone left to its closed form: 256 KiB of
/// pieces and at most 32 KiB of buckets (plus 72 bytes a zone). A zone whose pieces would pass it is left to its closed form (the catalog's
/// largest table is far below: `tests`).
pub(super) const MAX_PIECES: usize = 4096;

/// The bucket size is the least power of two that leaves at most this many buckets (as
/// [`super::ZONE_BUCKETS`]) or two per piece, whichever is more: between half that and that,
/// so that the walk from a bucket's first piece is seldom more than a step.
const MIN_BUCKETS: u64 = 1024;

/// One piece: the LBNs from the previous piece's `end_lbn` to its own.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct Piece {
    end_lbn: u64,
    /// The home slot is `lbn - base` (wrapping); in a piece left to its zone's closed form,
    /// the zone's index.
    base: u64,
    /// [`reciprocal`] of sectors per track, or 0 in a piece left to its zone's closed form.
    track_mul: u64,
    /// [`reciprocal`] of a cylinder's slots (`spt * surfaces`): the cylinder from the home
    /// slot by a quotient of its own, beside the track's rather than after it
    /// (`(home / spt) / s == home / (spt * s)`).
    cyl_mul: u64,
    spt: u32,
    first_cyl: u32,
    offset: f64,
    track_skew: f64,
    cyl_skew: f64,
}

impl Piece {
    /// `None` where sectors per track or a cylinder's slots have no [`reciprocal`] (one
    /// sector a track on one surface, or more than 2^32 slots a cylinder: such a zone is left
    /// to its closed form).
    fn new(end_lbn: u64, base: u64, f: &ZoneForm, surfaces: u32) -> Option<Piece> {
        Some(Piece {
            track_mul: reciprocal(f.spt)?,
            cyl_mul: reciprocal(f.spt * surfaces as u64)?,
            ..Piece::in_zone(end_lbn, base, f)
        })
    }

    /// A piece left to zone `base`'s closed form (and the fields [`Piece::new`] shares).
    fn in_zone(end_lbn: u64, base: u64, f: &ZoneForm) -> Piece {
        Piece {
            end_lbn,
            base,
            track_mul: 0,
            cyl_mul: 0,
            spt: f.spt as u32,
            first_cyl: f.first_cyl,
            offset: f.offset,
            track_skew: f.track_skew,
            cyl_skew: f.cyl_skew,
        }
    }
}

/// `ceil(2^64 / d)` for a divisor `2 <= d < 2^32`, which [`quotient`] turns into `n / d`
/// for every 32-bit `n` (Lemire, Kaser and Kurz, "Faster remainder by direct computation",
/// 2019, theorem 1: exact where the 64 bits of the fraction are at least the numerator's 32
/// plus the divisor's); `None` for 0, 1 (whose reciprocal needs 65 bits) and larger `d`.
fn reciprocal(d: u64) -> Option<u64> {
    (2..1 << 32).contains(&d).then(|| u64::MAX / d + 1)
}

/// `n / d` for `m = reciprocal(d)`: the high half of one 64-by-64-bit multiplication, a few
/// cycles where the processor's 32-bit division takes a dozen or more.
#[inline(always)]
fn quotient(n: u32, m: u64) -> u32 {
    ((n as u128 * m as u128) >> 64) as u32
}

/// [`turn_angle`](super::closed_form::turn_angle)`(x)`, bit for bit, for `0 <= x < 2^51` (not `-0.0`): `x` rounded to an
/// integer by adding and taking away `1.5 * 2^52` (where the doubles are the integers), a
/// step down where that rounded up, and `x` less that floor, which is exact and below 1 for
/// such an `x` (Sterbenz's lemma above 1), so that neither the sign of a zero nor the
/// general path's `angle >= 1.0` step is needed. Two additions and a select where
/// `num::floor`'s conversions to and from `i64` (saturating, as Rust's `as` is), its copied
/// sign and the test against 1 take longer on the lookup's dependent chain.
#[inline(always)]
pub(super) fn fract_small(x: f64) -> f64 {
    const ROUND: f64 = 6_755_399_441_055_744.0;
    let r = (x + ROUND) - ROUND;
    // `r - 1.0` or `r - 0.0` (which is `r`, to the bit): the comparison's mask on the
    // constant, not a blend of both results.
    x - (r - if r > x { 1.0 } else { 0.0 })
}

/// Whether every turn count a lookup in zone `m` (of `f`, `surfaces` surfaces) can come to
/// is within [`fract_small`]'s range. The turns `(start + sector) / spt` are not negative
/// where the offset and skews are not (and not `-0.0`: the sector, converted, is at least
/// `+0.0`, and `-0.0 + 0.0` is `+0.0`), and at most their numerator, which is at most the
/// zone's offset, its tracks' skews and its cylinders' skews and a track's sectors put
/// together: below 2^50, which leaves room for the rounding of the few operations between
/// them and 2^51. `false` for an offset or skew that is not a number.
fn turns_are_small(m: &ZoneMap, f: &ZoneForm, surfaces: u32) -> bool {
    let tracks = (m.total_slots() / f.spt) as f64;
    let cylinders = (m.total_slots() / f.spt / surfaces as u64 + 1) as f64;
    let bound = f.offset + tracks * f.track_skew + cylinders * f.cyl_skew + f.spt as f64;
    f.offset >= 0.0 && f.track_skew >= 0.0 && f.cyl_skew >= 0.0 && bound < (1u64 << 50) as f64
}

/// The pieces of a layout and the bucket table that finds them.
#[derive(Clone, Debug)]
pub(super) struct PieceTable {
    pieces: Vec<Piece>,
    /// The piece holding the first LBN of each run of `2^shift` LBNs.
    from: Vec<u32>,
    shift: u32,
    /// The serpentine flip, as `ZoneForm`'s but one for the layout: a piece's surfaces are
    /// visited in reverse where `(cyl + (first_cyl & flip_abs)) & flip_mask == 1`.
    flip_mask: u32,
    flip_abs: u32,
}

impl PieceTable {
    /// The table of zones `maps` (with their closed forms `forms`) of a layout of `surfaces`
    /// surfaces, holding at most `max_pieces` pieces of split zones.
    pub(super) fn new(
        maps: &[ZoneMap],
        forms: &[ZoneForm],
        surfaces: u32,
        serpentine: Serpentine,
        capacity: u64,
        max_pieces: usize,
    ) -> PieceTable {
        let mut pieces = Vec::new();
        let mut split = 0;
        for (zi, (m, f)) in maps.iter().zip(forms).enumerate() {
            if m.end_lbn <= m.first_lbn {
                continue;
            }
            let split_zone = f
                .pieces(m.first_lbn, m.end_lbn, m.dead)
                .filter(|list| split + list.len() <= max_pieces && turns_are_small(m, f, surfaces))
                .and_then(|list| {
                    list.into_iter()
                        .map(|(end, base)| Piece::new(end, base, f, surfaces))
                        .collect::<Option<Vec<_>>>()
                });
            match split_zone {
                Some(list) => {
                    split += list.len();
                    pieces.extend(list);
                }
                None => pieces.push(Piece::in_zone(m.end_lbn, zi as u64, f)),
            }
        }
        let buckets = MIN_BUCKETS.max(2 * pieces.len() as u64);
        let mut shift = 0;
        while capacity >> shift > buckets {
            shift += 1;
        }
        let from = (0..=capacity >> shift)
            .map(|b| pieces.partition_point(|p| p.end_lbn <= b << shift) as u32)
            .collect();
        let (flip_mask, flip_abs) = match serpentine {
            Serpentine::None => (0, 0),
            Serpentine::ZoneRelative => (1, 0),
            Serpentine::Absolute => (1, 1),
        };
        PieceTable {
            pieces,
            from,
            shift,
            flip_mask,
            flip_abs,
        }
    }

    /// Pieces in the table and the bytes it takes (pieces and buckets).
    #[cfg(test)]
    pub(super) fn size(&self) -> (usize, usize) {
        (
            self.pieces.len(),
            self.pieces.len() * std::mem::size_of::<Piece>()
                + self.from.len() * std::mem::size_of::<u32>(),
        )
    }

    /// Pieces left to their zone's closed form.
    #[cfg(test)]
    pub(super) fn in_zone(&self) -> usize {
        self.pieces.iter().filter(|p| p.track_mul == 0).count()
    }
}

impl Layout {
    /// Physical location of `lbn`, which must be below the capacity (larger values are
    /// clamped to the last LBN rather than panicking): its piece, or the zone's closed form
    /// (and [`Layout::locate_general`] behind it) where the zone has no pieces.
    #[inline]
    pub fn locate(&self, lbn: u64) -> Location {
        debug_assert!(
            lbn < self.capacity,
            "lbn {lbn} beyond capacity {}",
            self.capacity
        );
        let lbn = lbn.min(self.capacity - 1);
        let t = &self.pieces;
        // Pieces end in LBN order and the last ends at the capacity, so the walk stops inside
        // the table.
        let mut i = t.from[(lbn >> t.shift) as usize] as usize;
        while t.pieces[i].end_lbn <= lbn {
            i += 1;
        }
        let p = &t.pieces[i];
        if p.track_mul == 0 {
            return self.locate_in_zone(lbn, p.base as usize);
        }
        // In 32 bits: a split zone's slots fit (`ZoneForm::new`).
        let home = lbn.wrapping_sub(p.base) as u32;
        let spt = p.spt;
        let track = quotient(home, p.track_mul);
        let cyl = quotient(home, p.cyl_mul);
        let sector = home - track * spt;
        let s = self.surfaces;
        let head = track - cyl * s;
        let run = ((spt - sector) as u64).min(p.end_lbn - lbn);
        // `head + (s - 1) * cyl`, the head switches, is `track - cyl`.
        let angle = angle_by(
            track - cyl,
            cyl,
            sector,
            [p.offset, p.track_skew, p.cyl_skew, spt as f64],
            fract_small,
        );
        let flip = (cyl + (p.first_cyl & t.flip_abs)) & t.flip_mask == 1;
        let surface = if flip { s - 1 - head } else { head };
        let loc = Location {
            cylinder: p.first_cyl + cyl,
            surface,
            sector,
            spt,
            run_sectors: run as u32,
            angle,
        };
        debug_assert!(
            {
                let g = self.locate_general(lbn);
                loc == g && loc.angle.to_bits() == g.angle.to_bits()
            },
            "piece {i} of lbn {lbn}: {loc:?}, general {:?}",
            self.locate_general(lbn)
        );
        loc
    }
}

#[cfg(test)]
mod tests {
    use super::super::closed_form::turn_angle;
    use super::*;
    use proptest::prelude::*;

    /// `quotient` against the processor's division, and the remainder `locate` takes from it.
    fn exact(n: u32, d: u32) -> std::result::Result<(), TestCaseError> {
        let q = quotient(n, reciprocal(d as u64).unwrap());
        prop_assert_eq!((q, n - q * d), (n / d, n % d), "{} / {}", n, d);
        Ok(())
    }

    /// The divisors at the theorem's edges and those of the catalog's pieces (sectors per
    /// track and a cylinder's slots), each with the numerators on both sides of its last
    /// multiples below 2^32, where the reciprocal's rounding error is largest, and of its
    /// first.
    #[test]
    fn the_quotient_is_exact_at_the_edges_and_for_the_catalogs_divisors() {
        let mut divisors = vec![2, 3, 5, 7, 641, 6700417, 1 << 31, (1 << 31) + 1, u32::MAX];
        for name in crate::device::catalog::names() {
            let spec = crate::device::catalog::lookup(&name).unwrap();
            for z in &spec.layout.zones {
                divisors.push(z.sectors_per_track);
                divisors.push(z.sectors_per_track * spec.surfaces);
            }
        }
        divisors.retain(|&d| d >= 2);
        divisors.sort_unstable();
        divisors.dedup();
        assert!(divisors.len() > 20, "{divisors:?}");
        for d in divisors {
            let top = u32::MAX / d * d;
            for m in [0, d, d.saturating_mul(2), top - d, top] {
                for n in [
                    m.wrapping_sub(1),
                    m,
                    m.wrapping_add(1),
                    m.wrapping_add(d - 1),
                ] {
                    exact(n, d).unwrap();
                }
            }
            exact(u32::MAX, d).unwrap();
        }
        assert_eq!(reciprocal(0), None);
        assert_eq!(reciprocal(1), None);
        assert_eq!(reciprocal(1 << 32), None);
        assert_eq!(reciprocal(2), Some(1 << 63));
    }

    fn same_bits(a: f64, b: f64) -> std::result::Result<(), TestCaseError> {
        prop_assert_eq!(a.to_bits(), b.to_bits(), "{} against {}", a, b);
        Ok(())
    }

    /// `fract_small` against the general path's `turn_angle` at zero, halves (where the
    /// rounding it starts from ties), integers and their neighbours, and its range's end.
    #[test]
    fn fract_small_matches_the_general_angle_at_the_edges() {
        let big = (1u64 << 51) as f64;
        let mut xs = vec![
            0.0,
            0.5,
            1.5,
            2.5,
            1.0 - f64::EPSILON / 2.0,
            1.0 + f64::EPSILON,
            f64::MIN_POSITIVE,
            f64::MIN_POSITIVE / 4.0,
            1e-300,
            big - 0.5,
            big - 1.0,
            big / 2.0 + 0.5,
            4_503_599_627_370_495.5,
        ];
        for k in 0..1000 {
            let k = k as f64;
            xs.extend([k, k + 0.5, k + 0.25, k + 0.75, (k + 0.5).next_up()]);
            xs.extend([k.next_up(), (k + 1.0).next_down(), (k + 0.5).next_down()]);
        }
        for x in xs {
            same_bits(fract_small(x), turn_angle(x)).unwrap();
        }
    }

    /// A zone whose turns could pass `fract_small`'s range (a track skew of 10^15 sectors),
    /// or be negative (a negative cylinder skew), is left to its closed form, which locates
    /// every LBN as the general path does.
    #[test]
    fn a_zone_of_huge_skews_is_left_to_its_closed_form() {
        use super::super::super::spec::{LayoutSpec, Sparing, ZoneSpec};
        let zone = |first, last, track_skew, cylinder_skew| ZoneSpec {
            first_cylinder: first,
            last_cylinder: last,
            sectors_per_track: 7,
            first_block_offset: 3.0,
            empty_space_front: 0,
            track_skew,
            cylinder_skew,
            spares: 0,
            slips: vec![],
            defects: vec![],
        };
        let spec = LayoutSpec {
            mapping_scheme: 1,
            sparing: Sparing::from_disksim(0).unwrap(),
            range_size: 1,
            zones: vec![
                zone(0, 3, 1.5, 2.5),
                zone(4, 7, 1e15, 2.5),
                zone(8, 9, 1.5, -4.0),
            ],
            exported_sectors: None,
        };
        let l = Layout::new(&spec, 3, 10).unwrap();
        assert_eq!((l.pieces.size().0, l.pieces.in_zone()), (3, 2));
        for lbn in 0..l.capacity_sectors() {
            let (a, g) = (l.locate(lbn), l.locate_general(lbn));
            assert_eq!(a, g, "lbn {lbn}");
            same_bits(a.angle, g.angle).unwrap();
        }
    }

    /// Every 32-bit numerator for each divisor of the benchmark's drive, the quotient and
    /// remainder counted up alongside the numerator (no division in the loop).
    #[test]
    #[ignore = "exhaustive, 2^32 numerators for each of atlas10k's 26 divisors: about 3 minutes in a release build"]
    fn the_quotient_is_exact_for_every_numerator_of_atlas10ks_divisors() {
        let spec = crate::device::catalog::lookup("atlas10k").unwrap();
        let mut divisors: Vec<u32> = spec
            .layout
            .zones
            .iter()
            .map(|z| z.sectors_per_track)
            .collect();
        divisors.extend(divisors.clone().iter().map(|d| d * spec.surfaces));
        divisors.sort_unstable();
        divisors.dedup();
        for d in divisors {
            let m = reciprocal(d as u64).unwrap();
            let (mut q, mut r, mut n) = (0u32, 0u32, 0u32);
            loop {
                let got = quotient(n, m);
                assert_eq!(
                    (got, n.wrapping_sub(got.wrapping_mul(d))),
                    (q, r),
                    "{n} / {d}"
                );
                if n == u32::MAX {
                    break;
                }
                n += 1;
                r += 1;
                if r == d {
                    (q, r) = (q + 1, 0);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100_000))]

        /// Any double within `fract_small`'s range, and numbers of a few turns with any
        /// fraction.
        #[test]
        fn fract_small_matches_the_general_angle(
            x in 0.0..2.2e15f64,
            k in 0u32..1000,
            frac in 0.0..1.0f64,
        ) {
            same_bits(fract_small(x), turn_angle(x))?;
            let y = k as f64 + frac;
            same_bits(fract_small(y), turn_angle(y))?;
        }

        /// Every 32-bit numerator and divisor the reciprocal is made for.
        #[test]
        fn the_quotient_is_exact_for_any_32_bit_numerator_and_divisor(
            n in any::<u32>(),
            d in 2u32..,
        ) {
            exact(n, d)?;
        }

        /// Small divisors (sectors per track, a cylinder's slots) with any numerator.
        #[test]
        fn the_quotient_is_exact_for_small_divisors(n in any::<u32>(), d in 2u32..100_000) {
            exact(n, d)?;
        }
    }
}
