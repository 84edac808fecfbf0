//! MinOffset (the paper's Figure 5) and the lags it measures.
//!
//! The paper's MinOffset writes sector s on one track, then sector s + m on another, for
//! every m, and keeps the m with the least overhead: S_offset, the sectors the platter turns
//! between the first write's end and the head being ready on the second track. That is a
//! lag (command processing, seek or head switch, settling, the completion latency) plus the
//! skew between the two tracks. `phases.rs` measures the skews; what is left is the lag,
//! which depends only on the move (same track, head switch, seek distance) and on the two
//! commands' directions, not on the zone, so one curve serves every zone pair.
//!
//! Each lag is measured to a nanosecond rather than a sector: after the first write, the
//! second is issued a delay w later; the latest w that still reaches the target on the same
//! turn (found by bisection) leaves no rotational wait, so the lag is the observed time less
//! w and the one-sector transfer. `paper_min_offset` runs the paper's sector-resolution
//! form, used to check the per-zone linear fit the paper stored.

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::fit::{least_squares, Pieces};
use super::phases::frac;
use super::probe::Probe;
use super::zones::ZoneTable;
use crate::error::Result;
use crate::request::Op;

/// Lags by move and by [previous op][this op], in nanoseconds, in the host's frame (from
/// issuing a command to the moment its first sector's start passes under the head, plus the
/// completion latency that every observed time carries).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Lags {
    pub same_track_ns: [[f64; 2]; 2],
    pub head_switch_ns: [[f64; 2]; 2],
    /// Seek lag (write after write) against cylinder distance, fitted piecewise-linearly.
    pub seek_ww: Pieces,
    /// The measured samples behind `seek_ww`: (distance, ns).
    pub seek_samples: Vec<(f64, f64)>,
    /// Other directions' seek lags relative to write-after-write.
    pub seek_offset_ns: [[f64; 2]; 2],
    /// How much later the host hears of a command's end than of a write's ending at the same
    /// instant, by direction (`[Op::Write]` is 0): reads carry a completion overhead writes
    /// may not. The reference point's timestamp carries it, and so does every lag.
    pub completion_offset_ns: [f64; 2],
    /// The completion tail against the command's size (`super::tail`).
    #[serde(default)]
    pub tails: super::tail::Tails,
}

impl Lags {
    /// Seek lag for `d >= 1` cylinders.
    #[inline]
    pub(crate) fn seek_ns(&self, d: u32, prev: Op, op: Op) -> f64 {
        self.seek_ww.eval(d as f64) + self.seek_offset_ns[prev as usize][op as usize]
    }
}

const OPS: [Op; 2] = [Op::Read, Op::Write];

/// Seed of the completion tails' sample places.
const TAIL_STREAM: u128 = 0x7A11_5EED;

/// A kind of head movement between two commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    SameTrack,
    HeadSwitch,
    Seek(u32),
}

/// A fresh random (source, target) pair for a move. Every probe of a lag uses new sectors,
/// so that no access can be served from the drive's buffer (a read of a sector read a
/// moment ago would not move the head at all).
fn pair(table: &ZoneTable, m: Move, rng: &mut Pcg64Mcg) -> Option<(u64, u64)> {
    let cyls = table.cylinders();
    let room = if let Move::Seek(d) = m { d } else { 0 };
    let c = rng.random_range(0..cyls.checked_sub(room)?);
    let tracks_on = |c: u32| Some(table.tracks_on(c)).filter(|&n| n > 0);
    let h = rng.random_range(0..tracks_on(c)?);
    let a = lbn_on(table, c, h, rng)?;
    let b = match m {
        Move::SameTrack => lbn_on(table, c, h, rng)?,
        Move::HeadSwitch => lbn_on(table, c, (h + 1) % tracks_on(c)?, rng)?,
        Move::Seek(d) => {
            let hb = rng.random_range(0..tracks_on(c + d)?);
            lbn_on(table, c + d, hb, rng)?
        }
    };
    (a != b && (m != Move::HeadSwitch || tracks_on(c)? > 1)).then_some((a, b))
}

/// A fresh pair, or an error when the zone table offers none for this move.
fn fresh_pair(table: &ZoneTable, m: Move, rng: &mut Pcg64Mcg) -> Result<(u64, u64)> {
    for _ in 0..10_000 {
        if let Some(p) = pair(table, m, rng) {
            return Ok(p);
        }
    }
    Err(crate::error::HeadwayError::Invariant(format!(
        "MinOffset: the extracted geometry has no pair of sectors for a {m:?} move"
    )))
}

/// Nanoseconds of slack given to a probe's target, so that rounding cannot turn an exact
/// arrival into a miss.
const MARGIN_NS: f64 = 5.0;

/// What timing a move needs besides the move itself: the geometry, the revolution, and how
/// much later a read completes than a write (by [`Op`], for the second command of a pair).
#[derive(Clone, Copy)]
pub(crate) struct LagSetup<'a> {
    pub(crate) table: &'a ZoneTable,
    pub(crate) period_ns: f64,
    pub(crate) offsets_ns: [f64; 2],
    /// Where bisection stops ([`super::ExtractOptions::lag_resolution_ns`]).
    pub(crate) resolution_ns: f64,
    /// The round trip jitters: a probe whose completion is not heard where its sector ends
    /// (modulo a turn) is void and made again with fresh sectors ([`heard_on_time`]).
    pub(crate) jittery: bool,
}

/// How far (in sectors of the target's track) a completion may be heard from where its
/// sector ends, modulo a turn, before the probe is taken to have been heard late. The
/// track phases it is checked against agree to 0.3 sector under jitter.
const HEARD_TOLERANCE_SECTORS: f64 = 0.5;

/// Probes in a row that may be heard late before calibration gives up on the round trip.
const HEARING_RETRIES: usize = 40;

/// Was the pair (first command `prev` on `la` heard ending at `t0`, second `op` on `lb` heard
/// at `done`) heard where the platter puts it? The drive ends a command only as a sector
/// ends, so the time between the two hearings is the angle between the two sectors' ends
/// plus whole turns. A hearing delayed by the round trip breaks that, and such a delay is
/// not a move's time: a first completion heard late by more than half a turn (less the lag
/// being tested) makes a slow move look quick, because the second command is then issued in
/// time for the next turn.
fn heard_on_time(
    setup: &LagSetup<'_>,
    (la, lb): (&super::zones::Loc, &super::zones::Loc),
    (prev, op): (Op, Op),
    t0: u64,
    done: u64,
) -> bool {
    let table = setup.table;
    let end_a = table.angle(la) + 1.0 / la.spt as f64;
    let end_b = table.angle(lb) + 1.0 / lb.spt as f64;
    let offset_ns = setup.offsets_ns[op as usize] - setup.offsets_ns[prev as usize];
    let turns = (done as f64 - t0 as f64 - offset_ns) / setup.period_ns - (end_b - end_a);
    let off = frac(turns + 0.5) - 0.5;
    off.abs() <= HEARD_TOLERANCE_SECTORS / lb.spt as f64
}

fn round_trip_too_jittery() -> crate::error::HeadwayError {
    crate::error::HeadwayError::Invariant(format!(
        "calibration: {HEARING_RETRIES} probes in a row were heard off the platter's angle by \
         more than {HEARD_TOLERANCE_SECTORS} sector: the round trip jitters too much to time"
    ))
}

/// The bisection's finest step: a lag to a nanosecond, on a drive timed without jitter.
pub const FINEST_LAG_RESOLUTION_NS: f64 = 1.0;

/// Is the lag of move `m` (previous command `prev`, this one `op`) at most `lag_ns`? Issue
/// the second command of a fresh pair at the moment that would bring its target under the
/// head with no wait if the lag were `lag_ns`; it makes the same turn if and only if the lag
/// is no longer. The target's angle comes from the measured track phases. None when the
/// round trip jitters and the pair was heard late ([`heard_on_time`]): it says nothing.
fn within_lag(
    probe: &mut Probe,
    setup: &LagSetup<'_>,
    (a, b): (u64, u64),
    prev: Op,
    op: Op,
    lag_ns: f64,
) -> Result<Option<bool>> {
    let LagSetup {
        table,
        period_ns,
        offsets_ns: offsets,
        ..
    } = *setup;
    let t0 = probe.access(prev, a, 1)?;
    let (la, lb) = (table.locate(a), table.locate(b));
    let angle = |l: &super::zones::Loc| table.angle(l);
    let a0 = angle(&la) + 1.0 / la.spt as f64;
    let shift = lag_ns + offsets[prev as usize] - offsets[op as usize] + MARGIN_NS;
    let w = frac(angle(&lb) - a0 - shift / period_ns) * period_ns;
    probe.wait_until(t0 + w.round() as u64);
    let issued = probe.now() as f64;
    let done = probe.access(op, b, 1)?;
    if setup.jittery && !heard_on_time(setup, (&la, &lb), (prev, op), t0, done) {
        return Ok(None);
    }
    let hit_at = issued + lag_ns + MARGIN_NS + period_ns / lb.spt as f64;
    Ok(Some((done as f64) < hit_at + period_ns / 2.0))
}

/// [`within_lag`] on pairs `pairs` draws, a fresh one for each probe heard late.
pub(crate) fn within_lag_of(
    probe: &mut Probe,
    setup: &LagSetup<'_>,
    pairs: &mut Pairs<'_>,
    rng: &mut Pcg64Mcg,
    (prev, op): (Op, Op),
    lag_ns: f64,
) -> Result<bool> {
    for _ in 0..HEARING_RETRIES {
        let pair = pairs(rng)?;
        if let Some(quick) = within_lag(probe, setup, pair, prev, op, lag_ns)? {
            return Ok(quick);
        }
    }
    Err(round_trip_too_jittery())
}

/// The lag of move `m` from `prev` to `op`, to a nanosecond. One plain pair bounds it to a
/// rotation (the observed time is the lag plus a rotational wait of less than a turn); a
/// bisection with [`within_lag`] closes in.
pub(crate) fn measure_lag(
    probe: &mut Probe,
    setup: &LagSetup<'_>,
    m: Move,
    prev: Op,
    op: Op,
    rng: &mut Pcg64Mcg,
) -> Result<f64> {
    let table = setup.table;
    measure_lag_between(probe, setup, prev, op, rng, &mut |rng| {
        fresh_pair(table, m, rng)
    })
}

/// Fresh (source, target) pairs of a move, drawn anew for every probe.
pub type Pairs<'a> = dyn FnMut(&mut Pcg64Mcg) -> Result<(u64, u64)> + 'a;

/// [`measure_lag`] for the move between the pairs `pairs` draws.
pub(crate) fn measure_lag_between(
    probe: &mut Probe,
    setup: &LagSetup<'_>,
    prev: Op,
    op: Op,
    rng: &mut Pcg64Mcg,
    pairs: &mut Pairs<'_>,
) -> Result<f64> {
    let LagSetup {
        table,
        period_ns,
        resolution_ns,
        ..
    } = *setup;
    // One plain pair bounds the lag to a turn below it; under jitter it must be heard on
    // time, or the bound could lie a late hearing above the lag's turn.
    let mut upper = None;
    for _ in 0..HEARING_RETRIES {
        let (a, b) = pairs(rng)?;
        let t0 = probe.access(prev, a, 1)?;
        let lb = table.locate(b);
        let done = probe.access(op, b, 1)?;
        if setup.jittery && !heard_on_time(setup, (&table.locate(a), &lb), (prev, op), t0, done) {
            continue;
        }
        upper = Some((done - t0) as f64 - period_ns / lb.spt as f64);
        break;
    }
    let upper = upper.ok_or_else(round_trip_too_jittery)?;
    let (mut lo, mut hi) = ((upper - period_ns).max(-1.0), upper);
    while hi - lo > resolution_ns.max(FINEST_LAG_RESOLUTION_NS) {
        let mid = (lo + hi) / 2.0;
        // Two of three fresh pairs decide: one delayed by the drive's own activity cannot.
        let mut yes = 0;
        for k in 0..3 {
            yes += within_lag_of(probe, setup, pairs, rng, (prev, op), mid)? as u32;
            if yes == 2 || yes + (2 - k) < 2 {
                break;
            }
        }
        if yes >= 2 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A random LBN at a random slot of track `track` of cylinder `cyl` (not past its end).
pub(crate) fn lbn_on(table: &ZoneTable, cyl: u32, track: u32, rng: &mut Pcg64Mcg) -> Option<u64> {
    lbn_on_track(table, table.track_index(cyl, track)?, rng)
}

/// A random LBN of the track with index `index` in [`ZoneTable::tracks`].
pub(crate) fn lbn_on_track(table: &ZoneTable, index: usize, rng: &mut Pcg64Mcg) -> Option<u64> {
    let first = table.tracks.get(index)?.first_lbn;
    let left = table.locate(first).left_on_track as u64;
    Some(first + rng.random_range(0..left.max(1)))
}

/// Distances at which the seek lag is sampled: every distance to 32, then growing by a
/// quarter each step, and the longest.
fn seek_distances(cylinders: u32) -> Vec<u32> {
    let max = cylinders.saturating_sub(1);
    let mut d: Vec<u32> = (1..=32.min(max)).collect();
    let mut x = 32.0f64;
    while (x as u32) < max {
        x *= 1.25;
        d.push((x as u32).min(max));
    }
    d.dedup();
    d
}

/// Measure every lag the calibrated predictor uses.
pub(crate) fn measure_lags(
    probe: &mut Probe,
    table: &ZoneTable,
    period_ns: f64,
    opts: &super::ExtractOptions,
    rng: &mut Pcg64Mcg,
) -> Result<Lags> {
    let jittery = opts.jittery();
    let cyls = table.cylinders();
    let mut lags = Lags::default();
    let random_cyl = |rng: &mut Pcg64Mcg, room: u32| rng.random_range(0..cyls - room);
    const PLACES: usize = 4;
    // Completion latency of reads against writes: write one sector, read another of the same
    // track; the angle between them is known, so the rest of the gap is the difference.
    // A jittery round trip spoils a pair in a few hundred: enough places that the median
    // stands however two or three of them come out.
    let offset_places = if jittery { 4 * PLACES } else { PLACES };
    let mut offs = vec![];
    for _ in 0..offset_places {
        let c = random_cyl(rng, 0);
        let (Some(a), Some(b)) = (lbn_on(table, c, 0, rng), lbn_on(table, c, 0, rng)) else {
            continue;
        };
        let (la, lb) = (table.locate(a), table.locate(b));
        let tw = probe.access(Op::Write, a, 1)?;
        let tr = probe.access(Op::Read, b, 1)?;
        let turns =
            (tr - tw) as f64 / period_ns - (lb.slot as f64 - la.slot as f64) / la.spt as f64;
        offs.push((frac(turns + 0.5) - 0.5) * period_ns);
    }
    if !offs.is_empty() {
        lags.completion_offset_ns[Op::Read as usize] = median(offs);
    }
    let setup = LagSetup {
        table,
        period_ns,
        offsets_ns: lags.completion_offset_ns,
        resolution_ns: opts.lag_resolution_ns(),
        jittery,
    };
    let has_switch = (0..cyls).any(|c| table.tracks_on(c) > 1);
    for prev in OPS {
        for op in OPS {
            let lag = |probe: &mut Probe, m: Move, rng: &mut Pcg64Mcg| -> Result<f64> {
                let v: Vec<f64> = (0..PLACES)
                    .map(|_| measure_lag(probe, &setup, m, prev, op, rng))
                    .collect::<Result<_>>()?;
                Ok(mean(&v))
            };
            let same = lag(probe, Move::SameTrack, rng)?;
            lags.same_track_ns[prev as usize][op as usize] = same;
            lags.head_switch_ns[prev as usize][op as usize] = if has_switch {
                lag(probe, Move::HeadSwitch, rng)?
            } else {
                same
            };
        }
    }
    let seek_once = |probe: &mut Probe, rng: &mut Pcg64Mcg, d: u32, prev: Op, op: Op| {
        measure_lag(probe, &setup, Move::Seek(d), prev, op, rng)
    };
    if cyls > 1 {
        for d in seek_distances(cyls) {
            let v: Vec<f64> = (0..2)
                .map(|_| seek_once(probe, rng, d, Op::Write, Op::Write))
                .collect::<Result<_>>()?;
            lags.seek_samples.push((d as f64, mean(&v)));
        }
        // Fit to a fifth of the smallest sector time: far below what rotational position
        // needs, with tens of pieces rather than hundreds of samples.
        let tol = period_ns / 2000.0;
        lags.seek_ww = Pieces::fit(&lags.seek_samples, tol);
        for prev in OPS {
            for op in OPS {
                if (prev, op) == (Op::Write, Op::Write) {
                    continue;
                }
                let mut diffs = vec![];
                for d in [1u32, 10, 100, 1000] {
                    if d >= cyls {
                        continue;
                    }
                    diffs.push(seek_once(probe, rng, d, prev, op)? - lags.seek_ww.eval(d as f64));
                }
                lags.seek_offset_ns[prev as usize][op as usize] = median(diffs);
            }
        }
    } else {
        lags.seek_ww = Pieces {
            pieces: vec![(1.0, 0.0, 0.0)],
        };
    }
    // Its own stream: the tails' sample places leave the later steps' places as they were.
    let mut tail_rng = Pcg64Mcg::new(TAIL_STREAM);
    lags.tails =
        super::tail::measure_tails(probe, table, period_ns, &lags.same_track_ns, &mut tail_rng)?;
    Ok(lags)
}

/// One zone's paper-form MinOffset results: S_offset (sectors, unwrapped) against cylinder
/// distance from the zone's first cylinder, the least-squares line through them, and how
/// far the samples stray from it.
#[derive(Clone, Debug, Serialize)]
pub struct ZoneOffsetFit {
    pub zone: usize,
    pub samples: Vec<(f64, f64)>,
    pub start_sectors: f64,
    pub slope_sectors_per_cylinder: f64,
    pub rms_sectors: f64,
    pub max_sectors: f64,
    /// Largest difference between a sample and what the lag curve and phases predict.
    pub model_max_error_sectors: f64,
}

/// The paper's MinOffset on one pair of tracks (track 0 of two cylinders): the m with the
/// least overhead for the second write, as S_offset relative to the head's position after
/// the first write (its end: slot s + 1).
fn min_offset_pair(probe: &mut Probe, table: &ZoneTable, c1: u32, c2: u32) -> Result<u32> {
    // Slots count from each track's first LBN, the frame its phase is measured in.
    let (sa, sb) = (0u32, 0u32);
    let (Some(a0), Some(b0)) = (table.track_start(c1, 0), table.track_start(c2, 0)) else {
        return Err(crate::error::HeadwayError::Invariant(format!(
            "MinOffset: cylinder {c1} or {c2} holds no LBN"
        )));
    };
    let spt = table.locate(a0).spt;
    let left_b = table.locate(b0).left_on_track;
    let s1 = 0u32;
    let mut best = (u64::MAX, 0u32);
    for m in 0..spt {
        // Sector s1 + m of track c2 (slots before the track's first LBN are skipped).
        let slot = (sa + s1 + m) % spt;
        if slot < sb || slot - sb >= left_b {
            continue;
        }
        let b = b0 + (slot - sb) as u64;
        let t0 = probe.write(a0 + s1 as u64)?;
        let e = probe.write(b)? - t0;
        if e < best.0 {
            best = (e, m);
        }
    }
    // The first write ends at slot s1 + 1: that is the start point S_0.
    Ok((best.1 + spt - 1) % spt)
}

/// Run the paper's MinOffset within each zone at up to `per_zone` distances, fit one
/// (start, slope) line per zone, and compare each sample with the lag-and-phase model.
pub(crate) fn paper_min_offset(
    probe: &mut Probe,
    table: &ZoneTable,
    lags: &Lags,
    period_ns: f64,
    per_zone: usize,
) -> Result<Vec<ZoneOffsetFit>> {
    let mut out = vec![];
    for (zi, z) in table.zones.iter().enumerate() {
        let width = z.last_cylinder - z.first_cylinder;
        if width == 0 {
            continue;
        }
        let spt = z.sectors_per_track as f64;
        let mut ds: Vec<u32> = seek_distances(width + 1)
            .into_iter()
            .filter(|&d| d <= width)
            .collect();
        if ds.len() > per_zone {
            let step = ds.len() as f64 / per_zone as f64;
            ds = (0..per_zone)
                .map(|i| ds[(i as f64 * step) as usize])
                .collect();
        }
        let c1 = z.first_cylinder;
        let step = super::phases::cylinder_step(table, zi);
        let mut samples = vec![];
        let mut model_err: f64 = 0.0;
        for d in ds {
            let (Some(p1), Some(p2)) = (table.track_phase(c1, 0), table.track_phase(c1 + d, 0))
            else {
                // Whole cylinders of spares: nothing to write there.
                continue;
            };
            let raw = min_offset_pair(probe, table, c1, c1 + d)? as f64;
            // The model's arrival point, in sectors past the start point, without wrapping:
            // the skew grows by the cylinder step per cylinder, the lag with the seek.
            let lag = lags.seek_ns(d, Op::Write, Op::Write);
            let wrapped_skew = p2 - p1;
            let line_skew = d as f64 * step;
            let skew = line_skew + (frac(wrapped_skew - line_skew + 0.5) - 0.5);
            let predicted = (lag / period_ns - skew) * spt;
            // S_offset is only seen modulo a track: unwrap it next to the model.
            let v = raw + ((predicted - raw) / spt).round() * spt;
            samples.push((d as f64, v));
            model_err = model_err.max((v - predicted).abs());
        }
        let (a, b, rms, max) = least_squares(&samples);
        out.push(ZoneOffsetFit {
            zone: zi,
            samples,
            start_sectors: a,
            slope_sectors_per_cylinder: b,
            rms_sectors: rms,
            max_sectors: max,
            model_max_error_sectors: model_err,
        });
    }
    Ok(out)
}
