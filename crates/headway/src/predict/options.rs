//! `[host.predictor_options]`: how the host's software model of the drive is built and how
//! wrong it is allowed to be. Only the `calibrated` and `lbn-curve` predictors read these;
//! the oracle is exact by definition.

use serde::{Deserialize, Serialize};

use crate::calibrate::stability::HeadModelErrors;
use crate::error::{HeadwayError, Result};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PredictorOptions {
    /// The CMPS safety margin (sectors): a target the head is predicted to reach fewer than
    /// this many sectors early is priced as a near miss (almost a full rotation). The paper
    /// used 5.
    pub cmps_sectors: f64,
    /// Added to the calibrated delta (sectors): a wrong delta. Negative values make the
    /// predictor expect the head earlier than it arrives.
    pub delta_error_sectors: f64,
    /// Relative error of the predictor's rotation period, in parts per million (a
    /// mis-measured RotateTime: the prediction drifts by this fraction of the time since the
    /// last reference point).
    pub period_error_ppm: f64,
    /// Added to every extracted seek-and-overhead lag (milliseconds): a systematically
    /// wrong seek model.
    pub lag_error_ms: f64,
    /// Segments of the per-zone MinOffset fit the predictor uses. The paper found one
    /// (slope, start) pair per zone enough on its drive; 0 chooses adaptively (split until
    /// the fit is within a quarter sector).
    pub offset_segments: u32,
}

impl Default for PredictorOptions {
    fn default() -> Self {
        PredictorOptions {
            cmps_sectors: 5.0,
            delta_error_sectors: 0.0,
            period_error_ppm: 0.0,
            lag_error_ms: 0.0,
            offset_segments: 0,
        }
    }
}

impl PredictorOptions {
    pub(crate) fn validate(&self) -> Result<()> {
        let key = |k: &str| format!("host.predictor_options.{k}");
        if !(self.cmps_sectors.is_finite() && self.cmps_sectors >= 0.0) {
            return Err(HeadwayError::config(
                key("cmps_sectors"),
                format!(
                    "must be a non-negative number of sectors, got {}",
                    self.cmps_sectors
                ),
            ));
        }
        for (k, v) in [
            ("delta_error_sectors", self.delta_error_sectors),
            ("lag_error_ms", self.lag_error_ms),
        ] {
            if !v.is_finite() {
                return Err(HeadwayError::config(
                    key(k),
                    format!("must be finite, got {v}"),
                ));
            }
        }
        if !(self.period_error_ppm.is_finite() && self.period_error_ppm.abs() < 1e5) {
            return Err(HeadwayError::config(
                key("period_error_ppm"),
                format!(
                    "must be between -100000 and 100000 ppm, got {}",
                    self.period_error_ppm
                ),
            ));
        }
        Ok(())
    }
}

impl From<&PredictorOptions> for HeadModelErrors {
    fn from(o: &PredictorOptions) -> Self {
        HeadModelErrors {
            period_error_ppm: o.period_error_ppm,
            delta_error_sectors: o.delta_error_sectors,
        }
    }
}
