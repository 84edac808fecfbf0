//! Power draw of a rotating drive in each state, and its spin-down policy.

use serde::{Deserialize, Serialize};

use crate::error::{HeadwayError, Result};

/// A drive's power states. Off unless a device is given one: a drive without a `PowerSpec`
/// behaves exactly as before.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerSpec {
    /// Draw while serving a command (seek, rotate, transfer), W.
    pub active_w: f64,
    /// Spinning, no command, W.
    pub idle_w: f64,
    /// Spun down, W.
    pub standby_w: f64,
    /// Time from standby to ready, ms.
    pub spinup_ms: f64,
    /// Energy of one spin-up, J (charged instead of a per-state draw during spin-up).
    pub spinup_j: f64,
    /// Spin down after this long without a command, ms; `None` never spins down.
    #[serde(default)]
    pub spindown_timeout_ms: Option<f64>,
}

impl PowerSpec {
    /// A circa-2006 2.5-inch 5400 RPM laptop drive, the stand-in for the flash-backed paper's
    /// Hitachi EK1000. Every number is a [TEAM CHOICE] stand-in (typical datasheet values of
    /// that class of drive, not measurements of an EK1000).
    pub(crate) fn laptop_2006() -> Self {
        PowerSpec {
            active_w: 2.0,
            idle_w: 0.85,
            standby_w: 0.2,
            spinup_ms: 3000.0,
            spinup_j: 13.5,
            spindown_timeout_ms: None,
        }
    }

    pub fn validate(&self) -> Result<()> {
        for (key, v) in [
            ("active_w", self.active_w),
            ("idle_w", self.idle_w),
            ("standby_w", self.standby_w),
            ("spinup_ms", self.spinup_ms),
            ("spinup_j", self.spinup_j),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(HeadwayError::config(
                    format!("power.{key}"),
                    format!("{v} is not a number >= 0"),
                ));
            }
        }
        if let Some(t) = self.spindown_timeout_ms {
            if !(t.is_finite() && t >= 0.0) {
                return Err(HeadwayError::config(
                    "power.spindown_timeout_ms",
                    format!("{t} is not a time >= 0"),
                ));
            }
        }
        Ok(())
    }
}
