//! Which track boundaries are cylinder switches, and how many cylinders each crosses, where
//! GeoExtraction's lateness alone cannot say.
//!
//! Lateness is the skew the formatter left for the move, so it separates a head switch from a
//! cylinder switch only while the two skews differ and nothing else turns the track. A head
//! switch over a slipped track costs two track skews, about what a cylinder skew costs; a
//! zone change has a skew of its own. For those boundaries the move itself is timed: its lag
//! (MinOffset, to a nanosecond) is set beside the lags of a head switch and of a cylinder
//! switch nearby. A head switch moves no arm, so it is clearly quicker than a seek.
//!
//! Whole cylinders of spares (a drive that keeps its spare tracks at the end of each zone)
//! hold no LBN, so GeoExtraction never sees them: the next zone simply starts further in.
//! Where a zone begins, the seek into it is timed and matched against seeks of known
//! distance inside the zone before (the seek time grows with the distance); a seek longer
//! than one cylinder means empty cylinders lie between.

use rand_pcg::Pcg64Mcg;

use super::geometry::GeoScan;
use super::min_offset::{lbn_on, lbn_on_track, measure_lag_between};
use super::probe::Probe;
use super::zones::{build_table, Crossing, Kind, ZoneTable};
use crate::error::{HeadwayError, Result};
use crate::request::Op;

/// Boundaries searched on either side for a sure head switch or cylinder switch to compare
/// with.
const SEARCH: usize = 400;

/// Draw random LBNs on tracks `from` and `to` (indices into the table's tracks).
fn track_pair(
    table: &ZoneTable,
    from: usize,
    to: usize,
) -> impl FnMut(&mut Pcg64Mcg) -> Result<(u64, u64)> + '_ {
    move |rng| {
        let a = lbn_on_track(table, from, rng);
        let b = lbn_on_track(table, to, rng);
        a.zip(b).ok_or_else(|| {
            HeadwayError::Invariant(format!("calibration: no track {from} or {to} to time"))
        })
    }
}

/// Draw random LBNs on any track of cylinders `from` and `to`.
fn cylinder_pair(
    table: &ZoneTable,
    from: u32,
    to: u32,
) -> impl FnMut(&mut Pcg64Mcg) -> Result<(u64, u64)> + '_ {
    use rand::Rng;
    move |rng| {
        let pick = |c: u32, rng: &mut Pcg64Mcg| {
            let n = table.tracks_on(c);
            (n > 0).then(|| lbn_on(table, c, rng.random_range(0..n), rng))?
        };
        let a = pick(from, rng);
        let b = pick(to, rng);
        a.zip(b).ok_or_else(|| {
            HeadwayError::Invariant(format!(
                "calibration: cylinder {from} or {to} holds no LBN to time"
            ))
        })
    }
}

/// The least of two measurements of a lag: a drive's own delays (a jittery seek) only ever
/// lengthen one.
fn lag(
    probe: &mut Probe,
    table: &ZoneTable,
    period_ns: f64,
    rng: &mut Pcg64Mcg,
    pairs: &mut dyn FnMut(&mut Pcg64Mcg) -> Result<(u64, u64)>,
) -> Result<f64> {
    let mut best = f64::INFINITY;
    for _ in 0..2 {
        let l = measure_lag_between(
            probe,
            table,
            period_ns,
            &[0.0; 2],
            Op::Write,
            Op::Write,
            rng,
            pairs,
        )?;
        best = best.min(l);
    }
    Ok(best)
}

/// The nearest boundary of kind `k` to boundary `i`.
fn nearest(kinds: &[Kind], i: usize, k: Kind) -> Option<usize> {
    (1..=SEARCH).find_map(|d| {
        [i.checked_sub(d), Some(i + d)]
            .into_iter()
            .flatten()
            .find(|&j| kinds.get(j) == Some(&k))
    })
}

/// Decide every boundary's crossing. `table` must be built from `scan` (any crossings) with
/// its track phases measured; the result is the final table, phases kept.
pub fn resolve(
    probe: &mut Probe,
    scan: &GeoScan,
    kinds: &[Kind],
    table: &ZoneTable,
    period_ns: f64,
    rng: &mut Pcg64Mcg,
) -> Result<ZoneTable> {
    // Boundary i starts track i + 1.
    let mut crossings: Vec<Crossing> = kinds
        .iter()
        .map(|k| match k {
            Kind::HeadSwitch | Kind::Unsure(false) => None,
            Kind::CylinderSwitch | Kind::Unsure(true) => Some(1),
        })
        .collect();
    for (i, k) in kinds.iter().enumerate() {
        let Kind::Unsure(guess) = *k else { continue };
        let (Some(h), Some(c)) = (
            nearest(kinds, i, Kind::HeadSwitch),
            nearest(kinds, i, Kind::CylinderSwitch),
        ) else {
            // Nothing sure nearby to compare with (one track per cylinder, say): lateness's
            // guess stands.
            let _ = guess;
            continue;
        };
        let here = lag(
            probe,
            table,
            period_ns,
            rng,
            &mut track_pair(table, i, i + 1),
        )?;
        let head = lag(
            probe,
            table,
            period_ns,
            rng,
            &mut track_pair(table, h, h + 1),
        )?;
        let cyl = lag(
            probe,
            table,
            period_ns,
            rng,
            &mut track_pair(table, c, c + 1),
        )?;
        crossings[i] = if (here - head).abs() <= (here - cyl).abs() {
            None
        } else {
            Some(1)
        };
    }
    let phases: Vec<f64> = table.tracks.iter().map(|t| t.phase).collect();
    let cap = table.capacity_sectors;
    let mut t = build_table(scan, &crossings, period_ns, cap, Some(&phases))?;
    // Seeks into each zone. Earlier zones are settled first, so the references (inside the
    // zone before) are never themselves across an unseen gap.
    for zi in 1..t.zones.len() {
        let prev = &t.zones[zi - 1];
        let start = t.zones[zi].first_cylinder;
        // The last cylinder of the zone before that holds LBNs, and its first LBN track.
        let Some(last) = (prev.first_cylinder..start)
            .rev()
            .find(|&c| t.tracks_on(c) > 0)
        else {
            continue;
        };
        let room = last - prev.first_cylinder;
        if room < 2 {
            continue;
        }
        let here = lag(
            probe,
            &t,
            period_ns,
            rng,
            &mut cylinder_pair(&t, last, start),
        )?;
        let reference = |d: u32, probe: &mut Probe, rng: &mut Pcg64Mcg| {
            lag(
                probe,
                &t,
                period_ns,
                rng,
                &mut cylinder_pair(&t, last - d, last),
            )
        };
        let one = reference(1, probe, rng)?;
        let two = reference(2, probe, rng)?;
        if two <= one || here < (one + two) / 2.0 {
            continue;
        }
        // The seek grows with distance: double until a reference is as long, then bisect.
        let (mut lo, mut lo_lag) = (2u32, two);
        let mut hi = None;
        while here > lo_lag {
            let d = (lo * 2).min(room);
            let l = reference(d, probe, rng)?;
            if l >= here {
                hi = Some((d, l));
                break;
            }
            if d == room {
                break;
            }
            (lo, lo_lag) = (d, l);
        }
        let Some((mut hi, mut hi_lag)) = hi else {
            return Err(HeadwayError::Invariant(format!(
                "calibration: the seek into the zone at cylinder {start} takes longer than any \
                 seek of up to {room} cylinders inside the zone before, so the empty cylinders \
                 between cannot be counted"
            )));
        };
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            let l = reference(mid, probe, rng)?;
            if l >= here {
                (hi, hi_lag) = (mid, l);
            } else {
                (lo, lo_lag) = (mid, l);
            }
        }
        let d = if here - lo_lag <= hi_lag - here {
            lo
        } else {
            hi
        };
        let b = t.cylinder_tracks[start as usize] as usize - 1;
        crossings[b] = Some(d);
        t = build_table(scan, &crossings, period_ns, cap, Some(&phases))?;
    }
    Ok(t)
}
