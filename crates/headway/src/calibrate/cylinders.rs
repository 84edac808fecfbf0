//! Which track boundaries are cylinder switches, and how many cylinders each crosses, where
//! GeoExtraction's lateness alone cannot say.
//!
//! Lateness is the skew the formatter left for the move, so it separates a head switch from a
//! cylinder switch only while the two skews differ and nothing else turns the track. A head
//! switch over a slipped track costs two track skews, about what a cylinder skew costs; a
//! zone change has a skew of its own. So every boundary that lateness does not call a plain
//! head switch is timed: one head switch and one cylinder switch are measured (MinOffset, to
//! a nanosecond), and the boundary's move is asked whether it is quicker than halfway
//! between. A head switch moves no arm, so on a drive where it is clearly quicker than a
//! seek this decides; where the two take as long, lateness's guess stands.
//!
//! Whole cylinders of spares (a drive that keeps its spare tracks at the end of each zone)
//! and cylinders between zones hold no LBN, so GeoExtraction never sees them: the next
//! cylinder simply lies further in. Where a zone begins, and wherever a cylinder switch is
//! not the usual one of its neighbourhood, the seek across is timed and matched against
//! seeks of known distance among the cylinders before (the seek time grows with the
//! distance); a seek longer than one cylinder means empty cylinders lie between.

use rand_pcg::Pcg64Mcg;

use super::geometry::GeoScan;
use super::min_offset::{lbn_on, lbn_on_track, measure_lag_between, within_lag_of, LagSetup};
use super::phases;
use super::probe::Probe;
use super::zones::{build_table, check_track_lengths, Crossing, Kind, ZoneTable};
use super::ExtractOptions;
use crate::error::{HeadwayError, Result};
use crate::request::Op;

/// Lags closer than this are the same lag: the bisection's own resolution and the spread of
/// a lag's measurements on an ideal drive.
const TOLERANCE_NS: f64 = 1000.0;

/// Distances either side of where the seek time crosses the one measured that are all tried.
const WINDOW: u32 = 8;

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

/// Draw random LBNs on cylinders `from` and `to`, both on the same track (a pure seek: a
/// head switch on top could cost more than the seek on some drives).
fn cylinder_pair(
    table: &ZoneTable,
    from: u32,
    to: u32,
) -> impl FnMut(&mut Pcg64Mcg) -> Result<(u64, u64)> + '_ {
    use rand::Rng;
    move |rng| {
        let n = table.tracks_on(from).min(table.tracks_on(to));
        let h = rng.random_range(0..n.max(1));
        let a = lbn_on(table, from, h, rng);
        let b = lbn_on(table, to, h, rng);
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
    setup: &LagSetup<'_>,
    rng: &mut Pcg64Mcg,
    pairs: &mut dyn FnMut(&mut Pcg64Mcg) -> Result<(u64, u64)>,
) -> Result<f64> {
    let mut best = f64::INFINITY;
    for _ in 0..2 {
        let l = measure_lag_between(probe, setup, Op::Write, Op::Write, rng, pairs)?;
        best = best.min(l);
    }
    Ok(best)
}

/// Boundaries timed to learn how long a head switch and a cylinder switch take when
/// lateness names no sure example of both (a drive whose every boundary loses the same
/// rotation, as one with no skews does).
const SAMPLES: usize = 16;

/// The lags of one head switch and one cylinder switch, and whether every boundary must be
/// timed (lateness told the two apart nowhere). None when timing cannot tell them apart.
fn switch_lags(
    probe: &mut Probe,
    setup: &LagSetup<'_>,
    table: &ZoneTable,
    kinds: &[Kind],
    inferred: &[bool],
    rng: &mut Pcg64Mcg,
) -> Result<Option<(f64, f64, bool)>> {
    let sure = |k: Kind| kinds.iter().position(|&x| x == k);
    let (head, cyl, all) = match (sure(Kind::HeadSwitch), sure(Kind::CylinderSwitch)) {
        (Some(h), Some(c)) if !inferred[h] => (
            lag(probe, setup, rng, &mut track_pair(table, h, h + 1))?,
            lag(probe, setup, rng, &mut track_pair(table, c, c + 1))?,
            false,
        ),
        _ => {
            // Boundaries spread over the disk, marked and inferred alike (an inferred one is
            // a head switch); the quickest move is a head switch and the slowest a cylinder
            // switch, if the two differ at all.
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for kind in [false, true] {
                let some: Vec<usize> = (0..kinds.len()).filter(|&i| inferred[i] == kind).collect();
                let n = SAMPLES.min(some.len());
                for k in 0..n {
                    let i = some[k * some.len() / n];
                    let l = lag(probe, setup, rng, &mut track_pair(table, i, i + 1))?;
                    (lo, hi) = (lo.min(l), hi.max(l));
                }
            }
            if lo > hi {
                return Ok(None);
            }
            (lo, hi, true)
        }
    };
    Ok((cyl - head > 2.0 * TOLERANCE_NS).then_some((head, cyl, all)))
}

/// Decide every boundary's crossing. `table` must be built from `scan` (any crossings) with
/// its track phases measured; the result is the final table, phases kept.
pub(crate) fn resolve(
    probe: &mut Probe,
    scan: &GeoScan,
    kinds: &[Kind],
    table: &ZoneTable,
    period_ns: f64,
    opts: &ExtractOptions,
    rng: &mut Pcg64Mcg,
) -> Result<ZoneTable> {
    // Boundary i starts track i + 1.
    let mut crossings: Vec<Crossing> = kinds.iter().map(|k| k.guess()).collect();
    let inferred: Vec<bool> = scan.boundaries.iter().map(|b| b.inferred).collect();
    // One head switch and one cylinder switch lateness is sure of, timed; every boundary
    // lateness calls a cylinder switch, or is unsure of, is then asked which of the two its
    // move is quicker than halfway. A head switch over a slipped track can be as late as a
    // cylinder switch (two track skews of 9 sectors against a cylinder skew of 19 on the
    // HP C2247A's inner zone), so no lateness is trusted to mean a seek. Where lateness
    // found no sure pair, every boundary is timed. Inferred boundaries left no mark because
    // their head switch takes no time: they stay head switches.
    // Write after write only, so no completion offset between reads and writes.
    let setup = LagSetup {
        table,
        period_ns,
        offsets_ns: [0.0; 2],
        resolution_ns: opts.lag_resolution_ns(),
        jittery: opts.jittery(),
    };
    let switches = switch_lags(probe, &setup, table, kinds, &inferred, rng)?;
    if let Some((head, cyl, all)) = switches {
        let mid = (head + cyl) / 2.0;
        for (i, k) in kinds.iter().enumerate() {
            if inferred[i] || *k == Kind::ZoneChange || (*k == Kind::HeadSwitch && !all) {
                continue;
            }
            let mut pairs = track_pair(table, i, i + 1);
            // Two of three fresh pairs decide: the drive's own activity can delay one.
            let mut quick = 0;
            for _ in 0..3 {
                let ww = (Op::Write, Op::Write);
                quick += within_lag_of(probe, &setup, &mut pairs, rng, ww, mid)? as u32;
                if quick == 2 {
                    break;
                }
            }
            crossings[i] = (quick < 2).then_some(1);
        }
    }
    let phases: Vec<f64> = table.tracks.iter().map(|t| t.phase).collect();
    let cap = table.capacity_sectors;
    let mut t = build_table(scan, &crossings, period_ns, cap, Some(&phases))?;
    if let Some((head, cyl, _)) = switches {
        let overfull_setup = LagSetup { table: &t, ..setup };
        let mid = (head + cyl) / 2.0;
        if split_overfull_cylinders(
            probe,
            &overfull_setup,
            &t,
            &inferred,
            mid,
            &mut crossings,
            rng,
        )? {
            t = build_table(scan, &crossings, period_ns, cap, Some(&phases))?;
        }
    }
    // Where empty cylinders may lie: wherever the sectors per track change, and wherever a
    // cylinder switch was not the usual one of its neighbourhood (a zone boundary between
    // zones formatted alike, whose skews owe nothing to each other). Earlier places are
    // settled first, so the references (cylinders before) are never across an unseen gap.
    // On a drive whose seeks vary by more than the difference between seeks a cylinder
    // apart, a seek across a possible gap is no evidence of one: each count there is a guess,
    // and one wrong guess moves every cylinder after it. There only the places where the
    // sectors per track change are timed (a zone's spare cylinders), and a cylinder switch
    // that is merely irregular is taken to cross nothing.
    let noise_ns = seek_spread(probe, &LagSetup { table: &t, ..setup }, &t, rng)?;
    let noisy = noise_ns > 2.0 * TOLERANCE_NS;
    let mut inferred_gaps = vec![];
    let zone_starts: Vec<u32> = t.zones.iter().skip(1).map(|z| z.first_cylinder).collect();
    let mut sites: Vec<usize> = (0..kinds.len())
        .filter(|&i| crossings[i].is_some())
        .filter(|&i| {
            (!noisy && matches!(kinds[i], Kind::Unsure(_)))
                || kinds[i] == Kind::ZoneChange
                || zone_starts.contains(&t.tracks[i + 1].cylinder)
        })
        .collect();
    sites.dedup();
    for b in sites {
        let start = t.tracks[b + 1].cylinder;
        let setup = LagSetup { table: &t, ..setup };
        let Some((d, guessed)) = count_gap(probe, &setup, &t, start, noise_ns, rng)? else {
            continue;
        };
        if guessed {
            inferred_gaps.push(b);
        }
        if d != 1 {
            crossings[b] = Some(d);
            t = build_table(scan, &crossings, period_ns, cap, Some(&phases))?;
        }
    }
    // The cylinders after the inferred gaps, in the final numbering.
    let shifted: Vec<u32> = inferred_gaps
        .iter()
        .map(|&b| t.tracks[b + 1].cylinder)
        .collect();
    t.inferred_gaps = shifted;
    check_track_lengths(&t)?;
    Ok(t)
}

/// Find the cylinder switches hidden inside cylinders that hold more tracks than their
/// zone's cylinders usually do; returns whether any was found.
///
/// A cylinder never holds more tracks than the drive has surfaces (slipped and spare tracks
/// only ever leave it fewer), so one holding more than its zone's commonest count has a
/// cylinder switch taken for a head switch: a boundary whose lateness looked like a head
/// switch's, or whose timing a round trip's delays misled. Each boundary inside it is timed
/// in full (two bisections, the quicker kept), and the slowest, as many as the extra tracks
/// need, become cylinder switches where they are slower than `mid_ns` (halfway between a
/// head switch's lag and a cylinder switch's). A cylinder overfilled by a false boundary
/// (a track cut in two) has none so slow and is left as it is.
fn split_overfull_cylinders(
    probe: &mut Probe,
    setup: &LagSetup<'_>,
    t: &ZoneTable,
    inferred: &[bool],
    mid_ns: f64,
    crossings: &mut [Crossing],
    rng: &mut Pcg64Mcg,
) -> Result<bool> {
    let mut split = false;
    for c in 0..t.cylinders() {
        let n = t.tracks_on(c);
        let Some(first) = t.track_index(c, 0) else {
            continue;
        };
        let usual = t.zones[t.zone_of(t.tracks[first].first_lbn)].tracks_per_cylinder;
        if usual == 0 || n <= usual {
            continue;
        }
        // Boundary i starts track i + 1: those starting the cylinder's later tracks.
        let mut timed = vec![];
        let inner = first..first + n as usize - 1;
        let untimed = inner.filter(|&i| !inferred[i]);
        for i in untimed.collect::<Vec<_>>() {
            let l = lag(probe, setup, rng, &mut track_pair(t, i, i + 1))?;
            timed.push((l, i));
        }
        timed.sort_by(|a, b| b.0.total_cmp(&a.0));
        let extra = n.div_ceil(usual) as usize - 1;
        for &(l, i) in timed.iter().take(extra) {
            if l > mid_ns {
                crossings[i] = Some(1);
                split = true;
            }
        }
    }
    Ok(split)
}

/// Repeated measurements of one seek, to learn whether the drive's seeks vary.
const NOISE_SAMPLES: usize = 7;

/// How far apart measurements of the same seek lie: the one-cylinder seek between the first
/// two cylinders that hold LBNs, measured `NOISE_SAMPLES` times, largest less least. About
/// the lag measurement's own resolution on a drive whose seeks repeat; most of the jitter
/// on one whose seeks do not.
fn seek_spread(
    probe: &mut Probe,
    setup: &LagSetup<'_>,
    t: &ZoneTable,
    rng: &mut Pcg64Mcg,
) -> Result<f64> {
    let Some(c) = t
        .tracks
        .iter()
        .map(|tr| tr.cylinder)
        .find(|&c| t.tracks_on(c + 1) > 0)
    else {
        return Ok(0.0);
    };
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for _ in 0..NOISE_SAMPLES {
        let l = lag(probe, setup, rng, &mut cylinder_pair(t, c, c + 1))?;
        (lo, hi) = (lo.min(l), hi.max(l));
    }
    Ok(hi - lo)
}

/// Measurements of the one-cylinder seek that count_gap takes the median of.
const MEDIAN_OF: usize = 5;

/// How many cylinders the move into cylinder `start` crosses (1: none empty between), and
/// whether the count was inferred rather than matched. None when there are too few
/// cylinders before it to compare with.
///
/// The seek into it is timed and matched against seeks of known distance among the
/// cylinders before it (the seek time grows with the distance). When even the longest of
/// those is quicker, the count is extrapolated from the two longest: an inference, and
/// reported as one.
fn count_gap(
    probe: &mut Probe,
    setup: &LagSetup<'_>,
    t: &ZoneTable,
    start: u32,
    noise_ns: f64,
    rng: &mut Pcg64Mcg,
) -> Result<Option<(u32, bool)>> {
    // The last cylinder before `start` that holds LBNs, and the unbroken run of such
    // cylinders ending there: references never cross a gap.
    let Some(last) = (0..start).rev().find(|&c| t.tracks_on(c) > 0) else {
        return Ok(None);
    };
    let first = (0..=last)
        .rev()
        .take_while(|&c| t.tracks_on(c) > 0)
        .last()
        .unwrap_or(last);
    let room = last - first;
    if room < 2 {
        return Ok(None);
    }
    let reference = |d: u32, probe: &mut Probe, rng: &mut Pcg64Mcg| {
        lag(probe, setup, rng, &mut cylinder_pair(t, last - d, last))
    };
    let here = lag(probe, setup, rng, &mut cylinder_pair(t, last, start))?;
    // Distances can only be told apart as finely as the lags repeat: a drive whose seeks
    // vary (jitter) blurs them, so the tolerance is widened to twice the spread of five
    // measurements of the same seek above their median (jitter only ever delays a seek; one
    // measurement that came out short says nothing about the noise).
    let mut ones = [0.0; MEDIAN_OF];
    for o in &mut ones {
        *o = reference(1, probe, rng)?;
    }
    ones.sort_by(f64::total_cmp);
    let one = ones[MEDIAN_OF / 2];
    let mut tol = TOLERANCE_NS.max(2.0 * (ones[MEDIAN_OF - 1] - one));
    if setup.jittery {
        // Through a jittery round trip a lag is only as sure as the two tracks' phases,
        // each agreed to within a fraction of a sector: a seek across that is longer than
        // the one-cylinder seek by less is no evidence of a gap.
        tol = tol.max(
            phases::AGREE_SECTORS * setup.period_ns
                / t.locate(t.tracks[t.track_index(start, 0).unwrap_or(0)].first_lbn)
                    .spt as f64,
        );
    }
    let two = reference(2, probe, rng)?;
    // Nearer the seek over one cylinder than over two, or within the noise of it: nothing
    // empty between.
    // On a drive whose seeks vary by more than `2 * TOLERANCE_NS`, a seek is only taken to
    // cross empty cylinders when it is longer than the one-cylinder seek by half as much
    // again as the whole spread of that seek's repeats: gaps of a few cylinders (a few
    // microseconds more of seek) are then not seen and are taken as none.
    let beyond_noise = noise_ns <= 2.0 * TOLERANCE_NS || here - one > 1.5 * noise_ns;
    if !beyond_noise
        || (here - one).abs() <= (here - two).abs()
        || (tol > TOLERANCE_NS && here <= one + tol)
    {
        return Ok(Some((1, false)));
    }
    // The seek grows with distance, broadly: double until a reference is as long, and
    // bisect. Not strictly (the HP C2247A's seek over 7 cylinders is quicker than over 6,
    // over 11 quicker than over 10), so the best match is then sought among all shorter
    // distances when they are few, or in a window around the crossing.
    let (mut lo, mut lo_lag) = (1u32, one);
    let mut hi = (two >= here - tol).then_some(2u32);
    if hi.is_none() {
        (lo, lo_lag) = (2, two);
    }
    while hi.is_none() && here > lo_lag {
        let d = (lo * 2).min(room);
        let l = reference(d, probe, rng)?;
        if l >= here - tol {
            hi = Some(d);
            break;
        }
        if d == room {
            break;
        }
        (lo, lo_lag) = (d, l);
    }
    let Some(mut hi) = hi else {
        // Longer than any seek among the cylinders before: extend the seek curve through its
        // two longest known points.
        let below = reference(lo / 2, probe, rng)?;
        let slope = (lo_lag - below) / (lo - lo / 2).max(1) as f64;
        let d = if slope > 0.0 {
            lo as f64 + (here - lo_lag) / slope
        } else {
            lo as f64
        };
        return Ok(Some((d.round().max(1.0) as u32, true)));
    };
    while hi - lo > WINDOW {
        let mid = (lo + hi) / 2;
        if reference(mid, probe, rng)? >= here - tol {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let first_d = if hi <= 4 * WINDOW {
        1
    } else {
        lo.saturating_sub(WINDOW).max(1)
    };
    let mut refs = vec![];
    for d in first_d..=(hi + WINDOW).min(room) {
        refs.push((d, reference(d, probe, rng)?));
    }
    let least = refs
        .iter()
        .map(|r| (r.1 - here).abs())
        .fold(f64::INFINITY, f64::min);
    let mut candidates: Vec<u32> = refs
        .iter()
        .filter(|r| (r.1 - here).abs() <= least + tol)
        .map(|r| r.0)
        .collect();
    // Equal seek times at two distances (the C2247A's over 6 and 8 cylinders): seeks into
    // the zone from further back tell them apart, each k cylinders further.
    let mut k = 1;
    while candidates.len() > 1 && k <= WINDOW && last >= first + k {
        let from = last - k;
        let there = lag(probe, setup, rng, &mut cylinder_pair(t, from, start))?;
        let mut errs = vec![];
        for &d in &candidates {
            if d + k <= room {
                errs.push((d, (reference(d + k, probe, rng)? - there).abs()));
            }
        }
        let least = errs.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
        candidates = errs
            .iter()
            .filter(|e| e.1 <= least + tol)
            .map(|e| e.0)
            .collect();
        k += 1;
    }
    // Still tied: the shortest distance, which adds no cylinder the timing cannot see.
    Ok(candidates.first().map(|&d| (d, false)))
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::calibrate::{device_for, extract_with, ExtractOptions};
    use crate::device::catalog;
    use crate::device::imperfect::Imperfections;
    use crate::link::Link;

    const TWO_ZONE: &str = include_str!("../../../../tests/data/twozone_drive.toml");

    /// The crossings a finished table holds: boundary i starts track i + 1.
    fn crossings_of(t: &ZoneTable) -> Vec<Crossing> {
        t.tracks
            .windows(2)
            .map(|w| (w[1].cylinder != w[0].cylinder).then_some(w[1].cylinder - w[0].cylinder))
            .collect()
    }

    #[test]
    fn a_cylinder_switch_taken_for_a_head_switch_is_found_in_the_cylinder_it_overfills() {
        let spec = catalog::parse_toml_spec(TWO_ZONE, "twozone").unwrap();
        let device = || device_for(&spec, &Imperfections::default()).unwrap();
        let got = extract_with(
            Probe::new(device(), Link::default()),
            "twozone",
            ExtractOptions::default(),
        )
        .unwrap();
        let truth = crossings_of(&got.table);
        let phases: Vec<f64> = got.table.tracks.iter().map(|t| t.phase).collect();
        let cap = got.table.capacity_sectors;
        let inferred: Vec<bool> = got.scan.boundaries.iter().map(|b| b.inferred).collect();
        // The switches into cylinders 5 (12 sectors a track) and 30 (10) missed: cylinders 4
        // and 29 then hold 8 tracks where their zones' hold 4.
        let mut crossings = truth.clone();
        for c in [5, 30] {
            let i = got.table.track_index(c, 0).unwrap() - 1;
            crossings[i] = None;
        }
        let t = build_table(&got.scan, &crossings, got.period_ns, cap, Some(&phases)).unwrap();
        assert_eq!((t.tracks_on(4), t.tracks_on(28)), (8, 8));
        let setup = LagSetup {
            table: &t,
            period_ns: got.period_ns,
            offsets_ns: [0.0; 2],
            resolution_ns: 1.0,
            jittery: false,
        };
        let mut probe = Probe::new(device(), Link::default());
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        // A threshold above every seek (a drive whose cylinder switches cannot be told from
        // its head switches): nothing is split.
        let mut unchanged = crossings.clone();
        let (slower_than_any, mid) = (50.0e6, 2.0e6);
        let split = split_overfull_cylinders(
            &mut probe,
            &setup,
            &t,
            &inferred,
            slower_than_any,
            &mut unchanged,
            &mut rng,
        );
        assert!(!split.unwrap());
        assert_eq!(unchanged, crossings);
        // Halfway between the drive's head switch (no time) and its one-cylinder seek (4 ms).
        let split = split_overfull_cylinders(
            &mut probe,
            &setup,
            &t,
            &inferred,
            mid,
            &mut crossings,
            &mut rng,
        );
        assert!(split.unwrap());
        assert_eq!(crossings, truth);
        // A table with no overfull cylinder is left alone, and nothing is timed.
        let t = build_table(&got.scan, &truth, got.period_ns, cap, Some(&phases)).unwrap();
        let mut same = truth.clone();
        let before = probe.commands;
        let setup = LagSetup { table: &t, ..setup };
        let split =
            split_overfull_cylinders(&mut probe, &setup, &t, &inferred, mid, &mut same, &mut rng);
        assert!(!split.unwrap());
        assert_eq!((same, probe.commands), (truth, before));
    }
}
