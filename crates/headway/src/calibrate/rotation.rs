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
    let shortest = shortest_repeated(&gaps);
    if shortest <= 0.0 {
        return Err(HeadwayError::Invariant(
            "rotation measurement: two writes completed at the same instant".into(),
        ));
    }
    let turns: Vec<f64> = gaps
        .iter()
        .map(|g| (g / shortest).round().max(1.0))
        .collect();
    let total: f64 = turns.iter().sum();
    let period_ns = (t[writes] - t[0]) as f64 / total;
    let per: Vec<f64> = gaps.iter().zip(&turns).map(|(g, k)| g / k).collect();
    Ok(RotationMeasurement {
        period_ns,
        intervals: writes,
        min_ns: per.iter().copied().fold(f64::INFINITY, f64::min),
        max_ns: per.iter().copied().fold(0.0, f64::max),
    })
}

/// Gaps within this factor of each other are taken for the same number of turns.
const SAME_TURNS: f64 = 1.25;

/// The shortest gap that at least two others come close to. On a device reached through a
/// jittery round trip (FUSE and NBD) one completion heard late shortens the gap after it,
/// and a lone short gap taken for a turn would count every other gap as several; a drive
/// timed without jitter repeats its one-turn gap exactly, so there this is the shortest.
fn shortest_repeated(gaps: &[f64]) -> f64 {
    let mut sorted = gaps.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted
        .windows(3)
        .find(|w| w[2] <= w[0] * SAME_TURNS)
        .map_or_else(|| sorted.first().copied().unwrap_or(0.0), |w| w[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_short_gap_is_not_taken_for_a_turn() {
        // Turns of 10 ms heard with jitter, one gap shortened by a late completion before it.
        let gaps = [10_000.0, 4_300.0, 10_100.0, 9_900.0, 20_050.0, 10_000.0];
        assert_eq!(shortest_repeated(&gaps), 9_900.0);
        // Exact gaps (a simulated drive): the shortest, however few.
        assert_eq!(shortest_repeated(&[2.0, 1.0, 1.0, 1.0, 2.0]), 1.0);
        assert_eq!(shortest_repeated(&[2.0, 1.0]), 1.0);
    }
}
