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
//! ([`Layout::locate_in_zone`]), as before the table. The divisions by sectors per track and
//! by surfaces stay the processor's 32-bit ones: multiplications by precomputed reciprocals
//! took fewer cycles on paper and more CPU time measured (docs/performance.md, "Sixth
//! sitting: the LBN lookup's pieces").
//!
//! Every lookup computes the general lookup's result bit for bit (the same integers, the
//! angle from the same float operations on the same values); `locate` checks itself against
//! [`Layout::locate_general`] by a debug assertion, and `closed_form::tests` checks all three
//! paths against each other.

use super::closed_form::{angle_of, ZoneForm};
use super::{Layout, Location, ZoneMap};

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
    spt: u32,
    first_cyl: u32,
    /// Slots a cylinder (`spt * surfaces`): the cylinder from the home slot by a division
    /// of its own, beside the track's rather than after it.
    cyl_slots: u32,
    flip_mask: u8,
    flip_from: u8,
    in_zone: bool,
    spt_f: f64,
    offset: f64,
    track_skew: f64,
    cyl_skew: f64,
}

impl Piece {
    /// `None` where a cylinder's slots do not fit in 32 bits (a zone whose slots do not
    /// either, left to its closed form).
    fn new(end_lbn: u64, base: u64, f: &ZoneForm, surfaces: u32) -> Option<Piece> {
        Some(Piece {
            end_lbn,
            base,
            spt: f.spt as u32,
            cyl_slots: u32::try_from(f.spt * surfaces as u64).ok()?,
            spt_f: f.spt_f,
            first_cyl: f.first_cyl,
            flip_mask: f.flip_mask as u8,
            flip_from: f.flip_from as u8,
            in_zone: false,
            offset: f.offset,
            track_skew: f.track_skew,
            cyl_skew: f.cyl_skew,
        })
    }

    fn in_zone(end_lbn: u64, zone: usize, f: &ZoneForm) -> Piece {
        Piece {
            end_lbn,
            base: zone as u64,
            spt: f.spt as u32,
            first_cyl: f.first_cyl,
            cyl_slots: 0,
            flip_mask: f.flip_mask as u8,
            flip_from: f.flip_from as u8,
            in_zone: true,
            spt_f: f.spt_f,
            offset: f.offset,
            track_skew: f.track_skew,
            cyl_skew: f.cyl_skew,
        }
    }
}

/// The pieces of a layout and the bucket table that finds them.
#[derive(Clone, Debug)]
pub(super) struct PieceTable {
    pieces: Vec<Piece>,
    /// The piece holding the first LBN of each run of `2^shift` LBNs.
    from: Vec<u32>,
    shift: u32,
}

impl PieceTable {
    /// The table of zones `maps` (with their closed forms `forms`) of a layout of `surfaces`
    /// surfaces, holding at most `max_pieces` pieces of split zones.
    pub(super) fn new(
        maps: &[ZoneMap],
        forms: &[ZoneForm],
        surfaces: u32,
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
                .filter(|list| split + list.len() <= max_pieces)
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
                None => pieces.push(Piece::in_zone(m.end_lbn, zi, f)),
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
        PieceTable {
            pieces,
            from,
            shift,
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
        self.pieces.iter().filter(|p| p.in_zone).count()
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
        if p.in_zone {
            return self.locate_in_zone(lbn, p.base as usize);
        }
        // In 32 bits: a split zone's slots fit (`ZoneForm::new`).
        let home = lbn.wrapping_sub(p.base) as u32;
        let spt = p.spt;
        // The cylinder by its own division rather than the track's quotient's: the two
        // divisions run side by side (`(home / spt) / s == home / (spt * s)`).
        let track = home / spt;
        let cyl = home / p.cyl_slots;
        let sector = home - track * spt;
        let s = self.surfaces;
        let head = track - cyl * s;
        let run = ((spt - sector) as u64).min(p.end_lbn - lbn);
        // `head + (s - 1) * cyl`, the head switches, is `track - cyl`.
        let angle = angle_of(
            track - cyl,
            cyl,
            sector,
            [p.offset, p.track_skew, p.cyl_skew, p.spt_f],
        );
        let flip = (cyl + p.flip_from as u32) & p.flip_mask as u32 == 1;
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
