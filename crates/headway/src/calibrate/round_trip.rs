//! How much the command round trip jitters, measured before calibrating a device whose
//! jitter the user did not give: the same sector written back to back (read, on a device
//! calibrated read-only), so that every command ends a whole number of turns after the one
//! before, and the spread of the gaps about those whole turns is the round trip's.

use super::probe::Probe;
use crate::error::{HeadwayError, Result};

/// Gaps timed.
pub(crate) const GAPS: usize = 200;

/// The spread (10th to 90th percentile) of `GAPS` gaps between back-to-back writes of
/// `lbn`, each less the whole turns it took: each gap is rounded to a multiple of the median
/// gap (most commands make the next turn), so a command that took two turns counts as
/// none of the spread. 0 on a drive timed exactly.
pub(crate) fn measure_spread_ns(probe: &mut Probe, lbn: u64) -> Result<f64> {
    let mut t = Vec::with_capacity(GAPS + 1);
    for _ in 0..=GAPS {
        t.push(probe.write(lbn)?);
    }
    let gaps: Vec<f64> = t.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
    Ok(spread_about_turns(&gaps))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The 10th-to-90th-percentile spread of `gaps` about whole multiples of their median.
fn spread_about_turns(gaps: &[f64]) -> f64 {
    let mut sorted = gaps.to_vec();
    sorted.sort_by(f64::total_cmp);
    let turn = percentile(&sorted, 0.5);
    if !(turn > 0.0) {
        return 0.0;
    }
    let mut residual: Vec<f64> = gaps
        .iter()
        .map(|g| g - (g / turn).round().max(1.0) * turn)
        .collect();
    residual.sort_by(f64::total_cmp);
    percentile(&residual, 0.9) - percentile(&residual, 0.1)
}

/// The jitter calibration assumes for a round trip whose gaps spread by `spread_ns`: the
/// spread itself, or none on a device timed to better than a nanosecond (a simulated
/// drive), where calibration keeps its exact methods.
pub(crate) fn jitter_from_spread(spread_ns: f64) -> Result<f64> {
    if !spread_ns.is_finite() || spread_ns < 0.0 {
        return Err(HeadwayError::Invariant(format!(
            "round-trip spread of {spread_ns} ns"
        )));
    }
    Ok(if spread_ns < 1.0 { 0.0 } else { spread_ns })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_extra_turns_are_not_jitter() {
        // Turns of 1,000 ns; one command took two turns, two gaps are 30 ns off either way.
        let mut gaps = vec![1_000.0; 20];
        gaps[3] = 2_000.0;
        gaps[7] = 1_030.0;
        gaps[8] = 970.0;
        assert_eq!(spread_about_turns(&gaps), 0.0);
        // Four gaps 30 ns long and four 30 ns short (a fifth of the gaps each way): the
        // 10th-to-90th spread spans both.
        let mut gaps = vec![1_000.0; 20];
        for i in 0..4 {
            gaps[i] += 30.0;
            gaps[10 + i] -= 30.0;
        }
        assert_eq!(spread_about_turns(&gaps), 60.0);
        assert_eq!(jitter_from_spread(0.4).unwrap(), 0.0);
        assert_eq!(jitter_from_spread(60.0).unwrap(), 60.0);
    }
}
