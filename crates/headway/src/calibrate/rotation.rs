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
    let shortest = gaps.iter().copied().fold(f64::INFINITY, f64::min);
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
