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
    let period_ns = (t[writes] - t[0]) as f64 / total;
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
}
