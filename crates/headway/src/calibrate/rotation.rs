//! Rotation period: write the same sector over and over. Each write can only start when the
//! sector comes round again, so completions are whole rotations apart; their mean spacing is
//! the period (the paper's method).

use serde::Serialize;

use super::probe::Probe;
use crate::error::{HeadwayError, Result};

#[derive(Clone, Debug, Serialize)]
pub struct RotationMeasurement {
    pub period_ns: f64,
    /// Intervals measured.
    pub intervals: usize,
    /// Spread of the intervals, divided by the rotations each covered (ns).
    pub min_ns: f64,
    pub max_ns: f64,
}

/// Time `writes + 1` back-to-back writes of sector `lbn`.
pub(crate) fn measure_rotation(
    probe: &mut Probe,
    lbn: u64,
    writes: usize,
    jittery: bool,
) -> Result<RotationMeasurement> {
    if writes < 2 {
        return Err(HeadwayError::Invariant(
            "rotation measurement needs at least two intervals".into(),
        ));
    }
    let mut t = Vec::with_capacity(writes + 1);
    for _ in 0..=writes {
        t.push(probe.write(lbn)?);
    }
    let gaps: Vec<f64> = t.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
    // A command slower than a rotation makes some gaps two rotations: count rotations per
    // gap against the shortest gap, then divide the whole span by the total.
    let shortest = turn_reference(&gaps, jittery);
    if shortest <= 0.0 {
        return Err(HeadwayError::Invariant(
            "rotation measurement: two writes completed at the same instant".into(),
        ));
    }
    // Against the median a shortened gap may count no turn: the late one before it counted
    // the turn it took from it.
    let least_turns = if jittery { 0.0 } else { 1.0 };
    let turns: Vec<f64> = gaps
        .iter()
        .map(|g| (g / shortest).round().max(least_turns))
        .collect();
    let total: f64 = turns.iter().sum();
    if total < 1.0 {
        return Err(HeadwayError::Invariant(
            "rotation measurement: the writes' gaps add up to no whole turn".into(),
        ));
    }
    let period_ns = if jittery {
        fitted_period_ns(&t, shortest)
    } else {
        (t[writes] - t[0]) as f64 / total
    };
    let per: Vec<f64> = gaps
        .iter()
        .zip(&turns)
        .filter(|(_, k)| **k > 0.0)
        .map(|(g, k)| g / k)
        .collect();
    Ok(RotationMeasurement {
        period_ns,
        intervals: writes,
        min_ns: per.iter().copied().fold(f64::INFINITY, f64::min),
        max_ns: per.iter().copied().fold(0.0, f64::max),
    })
}

/// The period fitted to completion times heard with jitter, from `turn_ns` (the median gap)
/// as a first guess. Counting turns gap by gap lets rounding errors add up: a completion
/// heard most of a turn late makes one gap round up, and when the gaps around it do not
/// round down by as much, a turn is counted twice (0.1% of the period in 1,000 turns).
/// Instead every completion is numbered by its own time since the first, and the period is
/// the median slope between completions half the span apart; the span doubles from 16
/// completions, each fit numbering the next, so the guess is never many turns off. A late
/// completion numbered wrongly is one outlier among the slopes.
fn fitted_period_ns(t: &[u64], turn_ns: f64) -> f64 {
    let mut period = turn_ns;
    let mut span = 16usize;
    loop {
        let w = span.min(t.len());
        let turns: Vec<f64> = t[..w]
            .iter()
            .map(|&x| ((x - t[0]) as f64 / period).round())
            .collect();
        let half = w / 2;
        let mut slopes: Vec<f64> = (0..w - half)
            .filter(|&k| turns[k + half] > turns[k])
            .map(|k| (t[k + half] - t[k]) as f64 / (turns[k + half] - turns[k]))
            .collect();
        if !slopes.is_empty() {
            slopes.sort_by(f64::total_cmp);
            period = slopes[slopes.len() / 2];
        }
        if w == t.len() {
            return period;
        }
        span *= 2;
    }
}

/// The gap taken for one turn: the shortest, on a drive timed exactly (a command slower than
/// a rotation makes some gaps two); the median where round trips jitter, since a completion
/// heard late lengthens one gap and shortens the next, and most writes make the next turn.
fn turn_reference(gaps: &[f64], jittery: bool) -> f64 {
    if jittery {
        let mut sorted = gaps.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    } else {
        gaps.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_completions_do_not_change_the_turn_count_where_round_trips_jitter() {
        // Turns of 10 ms; the third completion heard 6 ms late, the fifth 3 ms late.
        let gaps = [10_000.0, 16_000.0, 4_000.0, 13_000.0, 7_000.0, 10_000.0];
        let r = turn_reference(&gaps, true);
        assert_eq!(r, 10_000.0);
        let turns: f64 = gaps.iter().map(|g| (g / r).round()).sum();
        assert_eq!(turns, 6.0);
        // Exact gaps (a simulated drive): the shortest, however few.
        assert_eq!(turn_reference(&[2.0, 1.0, 2.0, 2.0, 2.0], false), 1.0);
    }

    #[test]
    fn the_fitted_period_is_not_spoiled_by_a_turn_counted_twice() {
        // Turns of 1,000 ns, completions heard 0-40 ns late, and two in a row heard 600 and
        // 450 ns late: gaps of about 1.6, 0.85 and 0.55 turns, which rounding gap by gap
        // counts as 2 + 1 + 1 turns where 3 passed.
        let mut t: Vec<u64> = (0..400u64).map(|k| k * 1000 + (k * 7) % 41).collect();
        t[100] += 600;
        t[101] += 450;
        let p = fitted_period_ns(&t, 1000.0);
        assert!((p - 1000.0).abs() < 0.2, "{p}");
        // With a first guess 2% off it still numbers every turn.
        let p = fitted_period_ns(&t, 1020.0);
        assert!((p - 1000.0).abs() < 0.2, "{p}");
    }
}
