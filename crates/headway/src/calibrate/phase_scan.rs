//! GeoExtraction for a round trip that jitters: the same interleaved writes as
//! [`geometry::scan`](super::geometry::scan), read as angles rather than as gaps.
//!
//! A one-sector write completes when its sector has passed under the head, so the time it
//! is heard, modulo the rotation period, is the sector's angle on the platter plus the
//! round trip's delay in reporting it. That delay is never negative, and it touches only
//! the write it delays, whereas a gap between two completions takes the delays of both:
//! one completion heard 3 ms late makes one gap long and the next short, and a gap-based
//! scan reads the pair as two track boundaries. The angles are also blind to a lost
//! rotation (a command that reached the drive too late for its sector).
//!
//! From the angles: consecutive LBNs on one track are one sector time apart; the first LBN
//! of a track is later by the switch's skew (and the spares before it), a slipped sector by
//! one slot. Every LBN whose step from the one before is not one sector time is heard again
//! until three hearings agree, the earliest of them taken (a delay only ever adds), so a
//! completion heard late is corrected and a real boundary confirmed. The local sector time
//! is the median step over a window of LBNs (tracks hold many more on-track steps than
//! boundaries), and each track's own sector time, which sets its zone's sectors per track,
//! is the median slope between LBNs half a track apart.
//!
//! Angles taken a long time apart drift apart by the period's error: the scan runs in chunks
//! of [`PHASE_CHUNK`] LBNs and fits the drift within each ([`Frame`]).

use super::geometry::{GeoScan, Jump, BOUNDARY_SECTORS};
use super::probe::Probe;
use crate::error::{HeadwayError, Result};

/// LBNs per chunk: the time between the writes of neighbouring LBNs is about one pass over
/// the chunk (its LBNs' sector times), and a period measured to 10 ppm drifts by 0.02
/// sector over it.
const PHASE_CHUNK: u64 = 2048;

/// LBNs on either side whose steps set an LBN's local sector time.
const WINDOW: usize = 12;

/// A step this far (in sector times) from one sector time is heard again.
const SUSPECT_SECTORS: f64 = 0.4;

/// Two hearings of an LBN agree within this fraction of a sector time.
const AGREE_SECTORS: f64 = 0.3;

/// Hearings of an LBN that must agree. Two late hearings that happen to agree are rare,
/// but over the hundreds of LBNs a scan hears again, on a loaded machine, not rare enough.
const AGREEING: usize = 3;

/// Hearings of one LBN at most: past this the scan keeps the closest pair it has.
const MAX_HEARINGS: usize = 10;

/// `x` reduced to `[0, p)`.
#[inline]
fn wrap(x: f64, p: f64) -> f64 {
    x.rem_euclid(p)
}

/// Run GeoExtraction over `start..end` with stride `md`, reading completions as angles of a
/// platter turning once every `period_ns`.
pub(crate) fn scan_by_phase(
    probe: &mut Probe,
    start: u64,
    end: u64,
    md: u32,
    period_ns: f64,
) -> Result<GeoScan> {
    let md64 = md as u64;
    if md == 0 || end <= start || end > probe.capacity_sectors() || !(period_ns > 0.0) {
        return Err(HeadwayError::Invariant(format!(
            "GeoExtraction by phase over {start}..{end} with stride {md} and period \
             {period_ns} ns on a drive of {} sectors",
            probe.capacity_sectors()
        )));
    }
    let mut out = GeoScan {
        min_distance: md,
        start_lbn: start,
        end_lbn: end,
        per_track_sector_times: true,
        ..Default::default()
    };
    let first_cmd = probe.commands;
    let mut a = start;
    while a < end {
        let b = (a + PHASE_CHUNK).min(end);
        // The LBN before the chunk, heard again so that its angle is in the chunk's frame.
        let before_t = if a > start {
            Some(probe.write(a - 1)?)
        } else {
            None
        };
        let mut heard = vec![0u64; (b - a) as usize];
        for i in 0..md64.min(b - a) {
            let mut dest = a + i;
            while dest < b {
                heard[(dest - a) as usize] = probe.write(dest)?;
                dest += md64;
            }
        }
        let frame = Frame::fit(&heard, before_t, period_ns);
        let before = before_t.map(|t| frame.angle(t));
        let mut angle: Vec<f64> = heard.iter().map(|&t| frame.angle(t)).collect();
        // Hear suspicious LBNs again until every step is either one sector time or
        // confirmed; a corrected LBN can expose its neighbour, so repeat while any changes.
        let mut heard_again = vec![false; angle.len()];
        loop {
            let steps = steps(&angle, before, period_ns);
            let local = local_sector_ns(&steps);
            let mut changed = false;
            for x in 0..angle.len() {
                let (Some(d), Some(s)) = (steps[x], local[x]) else {
                    continue;
                };
                if lateness_sectors(d, s, period_ns).abs() < SUSPECT_SECTORS {
                    continue;
                }
                for y in [x.checked_sub(1), Some(x)].into_iter().flatten() {
                    if !heard_again[y] {
                        heard_again[y] = true;
                        let lbn = a + y as u64;
                        let agreed = hear_again(probe, &frame, lbn, angle[y], s)?;
                        changed |= agreed != angle[y];
                        angle[y] = agreed;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        find_events(&angle, before, a, period_ns, &mut out);
        a = b;
    }
    out.writes = probe.commands - first_cmd;
    Ok(out)
}

/// The step from each LBN's angle to the next one's, in `[0, period)`; the first LBN's
/// step is from `before`, when there is one.
fn steps(angle: &[f64], before: Option<f64>, p: f64) -> Vec<Option<f64>> {
    (0..angle.len())
        .map(|x| {
            let prev = if x == 0 { before } else { Some(angle[x - 1]) };
            prev.map(|q| wrap(angle[x] - q, p))
        })
        .collect()
}

/// The median step over [`WINDOW`] LBNs either side.
fn local_sector_ns(steps: &[Option<f64>]) -> Vec<Option<f64>> {
    let mut buf = Vec::with_capacity(2 * WINDOW + 1);
    (0..steps.len())
        .map(|x| {
            buf.clear();
            let lo = x.saturating_sub(WINDOW);
            let hi = (x + WINDOW + 1).min(steps.len());
            buf.extend(steps[lo..hi].iter().flatten());
            if buf.is_empty() {
                return None;
            }
            buf.sort_by(f64::total_cmp);
            Some(buf[buf.len() / 2])
        })
        .collect()
}

/// How late a step of `d` is against one sector time `s`, in sector times: from −0.5 (a
/// step a little short of a sector) to just under the sectors in a turn less a half.
#[inline]
fn lateness_sectors(d: f64, s: f64, p: f64) -> f64 {
    let mut late = wrap(d - s, p);
    if late > p - 0.5 * s {
        late -= p;
    }
    late / s
}

/// Turns completion times into angles, correcting the period's error.
///
/// The rotation period is measured to some parts per million, and neighbouring LBNs are
/// written a pass apart (one pass later, or `md - 1` passes earlier where the passes wrap),
/// so their angles drift apart by the error times the time between them: a few tenths of
/// a sector over a small drive's passes at 30 ppm. Steps between LBNs heard later and
/// between LBNs heard earlier must both be one sector on a track, so the difference of
/// their medians over the difference of their typical time apart is the drift per
/// nanosecond, and angles are taken on a clock slowed by it.
struct Frame {
    origin_ns: f64,
    /// Angle error per nanosecond of the uncorrected clock.
    drift: f64,
    period_ns: f64,
}

impl Frame {
    fn fit(heard: &[u64], before: Option<u64>, period_ns: f64) -> Frame {
        let origin_ns = before.or(heard.first().copied()).unwrap_or(0) as f64;
        let mut later: Vec<(f64, f64)> = vec![];
        let mut earlier: Vec<(f64, f64)> = vec![];
        for x in 1..heard.len() {
            let dt = heard[x] as f64 - heard[x - 1] as f64;
            let step = wrap(dt, period_ns);
            if dt > 0.0 {
                later.push((dt, step));
            } else {
                earlier.push((dt, step));
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let drift = if later.len() >= FIT_STEPS && earlier.len() >= FIT_STEPS {
            let (dt_l, step_l) = (
                median(&mut later.iter().map(|p| p.0).collect()),
                median(&mut later.iter().map(|p| p.1).collect()),
            );
            let (dt_e, step_e) = (
                median(&mut earlier.iter().map(|p| p.0).collect()),
                median(&mut earlier.iter().map(|p| p.1).collect()),
            );
            // Circularly: a drift of more than half a turn between the two is not told
            // from one the other way round.
            let mut diff = wrap(step_l - step_e, period_ns);
            if diff > period_ns / 2.0 {
                diff -= period_ns;
            }
            diff / (dt_l - dt_e)
        } else {
            0.0
        };
        Frame {
            origin_ns,
            drift,
            period_ns,
        }
    }

    #[inline]
    fn angle(&self, t: u64) -> f64 {
        let since = t as f64 - self.origin_ns;
        wrap(since - self.drift * since, self.period_ns)
    }
}

/// Steps on each side (heard later, heard earlier) below which the drift is not fitted.
const FIT_STEPS: usize = 16;

/// Hear `lbn` again (one write, wherever the head is) until [`AGREEING`] of its angles,
/// `first` among them, agree within [`AGREE_SECTORS`] of `sector_ns`; the earliest of them,
/// since a delay in hearing only ever makes an angle later. Where none do within
/// [`MAX_HEARINGS`], the earlier of the closest pair.
fn hear_again(
    probe: &mut Probe,
    frame: &Frame,
    lbn: u64,
    first: f64,
    sector_ns: f64,
) -> Result<f64> {
    let p = frame.period_ns;
    // The signed circular distance from `from` to `to`, in (−p/2, p/2].
    let signed = |from: f64, to: f64| {
        let d = wrap(to - from, p);
        if d > p / 2.0 {
            d - p
        } else {
            d
        }
    };
    let tolerance = AGREE_SECTORS * sector_ns;
    let mut heard = vec![first];
    let mut best: Option<(f64, f64)> = None;
    while heard.len() < MAX_HEARINGS {
        let new = frame.angle(probe.write(lbn)?);
        for &h in &heard {
            let diff = signed(h, new);
            let earlier = if diff >= 0.0 { h } else { new };
            if best.is_none_or(|(dist, _)| diff.abs() < dist) {
                best = Some((diff.abs(), earlier));
            }
        }
        heard.push(new);
        // A group within the tolerance lies wholly on one side of its newest member.
        for side in [1.0, -1.0] {
            let group: Vec<f64> = heard
                .iter()
                .map(|&h| signed(new, h))
                .filter(|d| (0.0..=tolerance).contains(&(d * side)))
                .collect();
            if group.len() >= AGREEING {
                let earliest = group.iter().copied().fold(f64::INFINITY, f64::min);
                return Ok(wrap(new + earliest, p));
            }
        }
    }
    Ok(best.map_or(first, |(_, angle)| angle))
}

/// Boundaries (lateness of 1.5 sectors or more) and slipped sectors (0.5 to 1.5) from the
/// chunk's angles, with each one's local sector time: a boundary takes the quicker of the
/// tracks either side of it, as [`geometry::scan`](super::geometry::scan)'s do.
fn find_events(angle: &[f64], before: Option<f64>, base: u64, p: f64, out: &mut GeoScan) {
    let steps = steps(angle, before, p);
    let local = local_sector_ns(&steps);
    let mut events: Vec<(usize, f64, f64)> = vec![];
    for x in 0..angle.len() {
        let (Some(d), Some(s)) = (steps[x], local[x]) else {
            continue;
        };
        let late = lateness_sectors(d, s, p);
        if late >= 0.5 {
            events.push((x, late, s));
        }
    }
    // Tracks' own sector times: the segments between boundaries (gaps inside a track
    // add their slots to the slope's span).
    let bounds: Vec<usize> = events
        .iter()
        .filter(|e| e.1 >= BOUNDARY_SECTORS)
        .map(|e| e.0)
        .collect();
    let gap_slots = |from: usize, to: usize| -> f64 {
        events
            .iter()
            .filter(|e| e.1 < BOUNDARY_SECTORS && e.0 > from && e.0 <= to)
            .map(|e| e.1.round().max(1.0))
            .sum()
    };
    let mut seg_start = 0usize;
    let mut track_ns: Vec<Option<f64>> = Vec::with_capacity(bounds.len() + 1);
    for &end in bounds.iter().chain(std::iter::once(&angle.len())) {
        track_ns.push(track_sector_ns(angle, seg_start, end, p, &gap_slots));
        seg_start = end;
    }
    let mut k = 0usize;
    for &(x, late, s) in &events {
        let sector_ns = if late >= BOUNDARY_SECTORS {
            let quicker = match (track_ns[k], track_ns[k + 1]) {
                (Some(u), Some(v)) => u.min(v),
                (Some(u), None) | (None, Some(u)) => u,
                (None, None) => s,
            };
            k += 1;
            quicker
        } else {
            track_ns[k].unwrap_or(s)
        };
        out.record(Jump {
            lbn: base + x as u64,
            sectors: late,
            sector_ns,
            inferred: false,
        });
    }
}

/// The sector time of the track holding chunk LBNs `lo..hi`: the median slope between LBNs
/// half the track apart (`None` for a track of fewer than three LBNs).
fn track_sector_ns(
    angle: &[f64],
    lo: usize,
    hi: usize,
    p: f64,
    gap_slots: &dyn Fn(usize, usize) -> f64,
) -> Option<f64> {
    let n = hi.saturating_sub(lo);
    if n < 3 {
        return None;
    }
    let h = n / 2;
    let mut slopes: Vec<f64> = (lo..hi - h)
        .map(|x| wrap(angle[x + h] - angle[x], p) / (h as f64 + gap_slots(x, x + h)))
        .collect();
    slopes.sort_by(f64::total_cmp);
    Some(slopes[slopes.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_is_centred_on_one_sector() {
        let (s, p) = (100.0, 1200.0);
        assert!((lateness_sectors(100.0, s, p)).abs() < 1e-9);
        assert!((lateness_sectors(90.0, s, p) + 0.1).abs() < 1e-9);
        assert!((lateness_sectors(300.0, s, p) - 2.0).abs() < 1e-9);
        // A step just short of a whole turn is a lateness of most of a turn, not negative.
        assert!((lateness_sectors(1100.0, s, p) - 10.0).abs() < 1e-9);
        // A step of nothing (the LBN before heard late) is as late as a turn less a sector:
        // far from one sector either way, so it is heard again.
        assert!((lateness_sectors(0.0, s, p) - 11.0).abs() < 1e-9);
        assert!((lateness_sectors(60.0, s, p) + 0.4).abs() < 1e-9);
    }

    #[test]
    fn a_track_s_sector_time_is_its_median_slope_over_half_a_track() {
        let p = 1200.0;
        // 12 LBNs 100 ns apart, wrapping past the period, one heard 40 ns late.
        let mut angle: Vec<f64> = (0..12).map(|i| wrap(700.0 + 100.0 * i as f64, p)).collect();
        angle[3] += 40.0;
        let none = |_: usize, _: usize| 0.0;
        let s = track_sector_ns(&angle, 0, 12, p, &none).unwrap();
        assert!((s - 100.0).abs() < 1e-9, "{s}");
        assert_eq!(track_sector_ns(&angle, 0, 2, p, &none), None);
    }
}
