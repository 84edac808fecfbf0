//! Track boundaries that leave no mark on GeoExtraction's timing, and marks that are not
//! track boundaries.
//!
//! A boundary shows as lateness because the head must switch and the formatter skewed the
//! next track to give it time. A drive that switches heads in no time with no track skew
//! (the Elite 3 as the Cello paper describes it) writes across a head switch as if it were
//! on one track, so the scan sees one run of LBNs longer than a track can hold. A track
//! cannot hold more LBNs than it has sectors, and the sector time measured on either side
//! says how many it has, so such a run is cut into whole tracks: each of the local sectors
//! per track, less the slipped sectors the scan found inside it, the last one taking what
//! is left (spare slots sit at the end of their unit). The cuts are kept as boundaries
//! marked `inferred`, so that the report can say how many there are; their phases are then
//! measured like any other track's.

use super::geometry::{GeoScan, Jump};

/// Slipped sectors next to each other are late together: two or more make a rise of two
/// sectors or more, which GeoExtraction takes for a track boundary. A real boundary has a
/// track on either side; a false one cuts a track in two, and the two pieces together hold
/// no more LBNs than one track has sectors. Such boundaries become slipped sectors again.
/// Returns how many.
pub(crate) fn merge_slip_runs(scan: &mut GeoScan, period_ns: f64) -> usize {
    let b = std::mem::take(&mut scan.boundaries);
    let mut kept: Vec<Jump> = Vec::with_capacity(b.len());
    let mut slips = vec![];
    for (k, j) in b.iter().enumerate() {
        let before = kept.last().map_or(scan.start_lbn, |p| p.lbn);
        let after = b.get(k + 1).map_or(scan.end_lbn, |n| n.lbn);
        let spt = (period_ns / j.sector_ns).round() as u64;
        if !j.inferred && after - before <= spt {
            slips.push(*j);
        } else {
            kept.push(*j);
        }
    }
    scan.boundaries = kept;
    let n = slips.len();
    if n > 0 {
        scan.gaps.extend(slips);
        scan.gaps.sort_by_key(|g| g.lbn);
    }
    n
}

/// Median of the sector times of the boundaries around run `k` (the run ends at boundary
/// `k` and starts at boundary `k - 1`).
fn local_sector_ns(b: &[Jump], k: usize) -> f64 {
    let lo = k.saturating_sub(2);
    let hi = (k + 2).min(b.len());
    let mut s: Vec<f64> = b[lo..hi].iter().map(|j| j.sector_ns).collect();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

/// Cut every run of LBNs longer than its local track into whole tracks. Returns the number
/// of boundaries inferred.
pub(crate) fn split_long_runs(scan: &mut GeoScan, period_ns: f64) -> usize {
    let b = &scan.boundaries;
    if b.is_empty() {
        return 0;
    }
    let mut out: Vec<Jump> = Vec::with_capacity(b.len());
    let mut inferred = 0;
    for k in 0..=b.len() {
        let start = if k == 0 { scan.start_lbn } else { b[k - 1].lbn };
        let end = b.get(k).map_or(scan.end_lbn, |j| j.lbn);
        let sector_ns = local_sector_ns(b, k);
        let spt = (period_ns / sector_ns).round().max(1.0) as u64;
        let mut cursor = start;
        while end - cursor > spt {
            // Slipped sectors inside the track take slots without holding LBNs.
            let lo = scan.gaps.partition_point(|g| g.lbn <= cursor);
            let slipped: u64 = scan.gaps[lo..]
                .iter()
                .take_while(|g| g.lbn < cursor + spt)
                .map(|g| g.sectors.round().max(1.0) as u64)
                .sum();
            let cut = cursor + spt.saturating_sub(slipped).max(1);
            if cut >= end {
                break;
            }
            out.push(Jump {
                lbn: cut,
                sectors: 0.0,
                sector_ns,
                inferred: true,
            });
            inferred += 1;
            cursor = cut;
        }
        if let Some(j) = b.get(k) {
            out.push(*j);
        }
    }
    scan.boundaries = out;
    inferred
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jump(lbn: u64) -> Jump {
        Jump {
            lbn,
            sectors: 30.0,
            sector_ns: 100.0,
            inferred: false,
        }
    }

    /// Cylinders of three 10-sector tracks whose head switches left no mark: each cylinder
    /// switch is seen, the two head switches inside are inferred.
    #[test]
    fn a_run_of_whole_tracks_is_cut_at_every_track() {
        let mut scan = GeoScan {
            min_distance: 3,
            start_lbn: 0,
            end_lbn: 90,
            boundaries: vec![jump(30), jump(60)],
            ..Default::default()
        };
        assert_eq!(split_long_runs(&mut scan, 1000.0), 6);
        let lbns: Vec<u64> = scan.boundaries.iter().map(|j| j.lbn).collect();
        assert_eq!(lbns, [10, 20, 30, 40, 50, 60, 70, 80]);
        assert_eq!(scan.boundaries.iter().filter(|j| j.inferred).count(), 6);
    }

    /// Three slipped sectors in a row inside a track are one rise of three sectors; the
    /// pieces either side hold less than a track, so it is a gap, not a boundary.
    #[test]
    fn a_run_of_slips_is_no_boundary() {
        let mut scan = GeoScan {
            min_distance: 3,
            start_lbn: 0,
            end_lbn: 27,
            boundaries: vec![jump(10), jump(13), jump(17)],
            ..Default::default()
        };
        assert_eq!(merge_slip_runs(&mut scan, 1000.0), 1);
        let lbns: Vec<u64> = scan.boundaries.iter().map(|j| j.lbn).collect();
        assert_eq!(lbns, [10, 17]);
        assert_eq!(scan.gaps.len(), 1);
        assert_eq!(scan.gaps[0].lbn, 13);
    }

    /// A slipped sector shortens the track it is on; a run no longer than a track is left.
    #[test]
    fn slipped_sectors_shorten_the_inferred_track() {
        let mut scan = GeoScan {
            min_distance: 3,
            start_lbn: 0,
            end_lbn: 29,
            boundaries: vec![jump(19)],
            gaps: vec![Jump {
                sectors: 1.0,
                ..jump(4)
            }],
            ..Default::default()
        };
        assert_eq!(split_long_runs(&mut scan, 1000.0), 1);
        let lbns: Vec<u64> = scan.boundaries.iter().map(|j| j.lbn).collect();
        assert_eq!(lbns, [9, 19]);
    }
}
