//! The gap between the host's belief and the drive: for every command dispatched to an idle
//! device, the predictor's service-time estimate against what the host then observed.
//!
//! The paper's criterion for a misprediction is an access predicted to hit its sector that
//! in fact cost an extra rotation. Here: observed − predicted > half a (true) rotation.
//! The opposite error (predicted a near-miss that in fact hit: the CMPS rule's deliberate
//! pessimism) is counted separately as an overestimate.

use serde::Serialize;

/// Histogram bins per rotation, and the range covered (in rotations) on each side of zero.
const BINS_PER_ROTATION: usize = 8;
const LOW_ROTATIONS: usize = 2;
const HIGH_ROTATIONS: usize = 3;

#[derive(Clone, Debug)]
pub(crate) struct PredictionStats {
    rotation_ns: f64,
    n: u64,
    under: u64,
    over: u64,
    sum_err_ns: i128,
    sum_abs_err_ns: u128,
    /// Signed error in eighths of a rotation from −2 to +3 rotations; outliers in the ends.
    bins: Vec<u64>,
}

impl PredictionStats {
    pub(crate) fn new(rotation_ns: f64) -> Self {
        PredictionStats {
            rotation_ns,
            n: 0,
            under: 0,
            over: 0,
            sum_err_ns: 0,
            sum_abs_err_ns: 0,
            bins: vec![0; (LOW_ROTATIONS + HIGH_ROTATIONS) * BINS_PER_ROTATION],
        }
    }

    #[inline]
    pub(crate) fn record(&mut self, predicted_ns: u64, observed_ns: u64) {
        let err = observed_ns as i64 - predicted_ns as i64;
        self.n += 1;
        self.sum_err_ns += err as i128;
        self.sum_abs_err_ns += err.unsigned_abs() as u128;
        let half = self.rotation_ns / 2.0;
        if err as f64 > half {
            self.under += 1;
        } else if (err as f64) < -half {
            self.over += 1;
        }
        if self.rotation_ns > 0.0 {
            let pos =
                (err as f64 / self.rotation_ns + LOW_ROTATIONS as f64) * BINS_PER_ROTATION as f64;
            let i = (pos.max(0.0) as usize).min(self.bins.len() - 1);
            self.bins[i] += 1;
        }
    }

    pub(crate) fn summary(&self) -> PredictionSummary {
        let n = self.n.max(1) as f64;
        let bin_ms = self.rotation_ns / BINS_PER_ROTATION as f64 / 1e6;
        PredictionSummary {
            commands: self.n,
            mispredicted_fraction: self.under as f64 / n,
            overestimated_fraction: self.over as f64 / n,
            mean_error_ms: self.sum_err_ns as f64 / n / 1e6,
            mean_abs_error_ms: self.sum_abs_err_ns as f64 / n / 1e6,
            rotation_ms: self.rotation_ns / 1e6,
            error_histogram: self
                .bins
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| ErrorBin {
                    from_ms: (i as f64 - (LOW_ROTATIONS * BINS_PER_ROTATION) as f64) * bin_ms,
                    to_ms: (i as f64 + 1.0 - (LOW_ROTATIONS * BINS_PER_ROTATION) as f64) * bin_ms,
                    count: c,
                })
                .collect(),
        }
    }
}

/// One bin of the signed error (observed − predicted). The first and last bins also hold
/// everything beyond them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ErrorBin {
    pub from_ms: f64,
    pub to_ms: f64,
    pub count: u64,
}

/// How well the host predicted service times.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PredictionSummary {
    /// Commands with a prediction (dispatched to an idle device).
    pub commands: u64,
    /// Observed more than half a rotation longer than predicted: the paper's misprediction.
    pub mispredicted_fraction: f64,
    /// Observed more than half a rotation shorter than predicted.
    pub overestimated_fraction: f64,
    /// Mean of observed − predicted.
    pub mean_error_ms: f64,
    pub mean_abs_error_ms: f64,
    /// The drive's rotation period the thresholds are relative to.
    pub rotation_ms: f64,
    /// Non-empty bins of the signed error, an eighth of a rotation wide, from −2 to +3
    /// rotations.
    pub error_histogram: Vec<ErrorBin>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extra_rotation_is_a_misprediction_and_lands_one_rotation_up() {
        let mut p = PredictionStats::new(8_000_000.0);
        p.record(2_000_000, 2_100_000); // close
        p.record(2_000_000, 10_050_000); // missed the sector: one more rotation
        p.record(9_000_000, 2_000_000); // pessimistic near-miss that hit
        let s = p.summary();
        assert_eq!(s.commands, 3);
        assert!((s.mispredicted_fraction - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.overestimated_fraction - 1.0 / 3.0).abs() < 1e-12);
        let bin_of = |ms: f64| {
            s.error_histogram
                .iter()
                .find(|b| b.from_ms <= ms && ms < b.to_ms)
                .map(|b| b.count)
        };
        assert_eq!(bin_of(8.05), Some(1));
        assert_eq!(bin_of(0.1), Some(1));
        assert_eq!(bin_of(-7.0), Some(1));
    }
}
