//! The Stability experiment (the paper's Figure 3): write somewhere, wait i × unit_interval,
//! ask the head-position formula where the head is, write there, and see whether that write
//! cost less than half a rotation. How long a prediction stays right without a new
//! reference point is how often an idle host must refresh it (14.4 s on the paper's drive).

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use super::delta::predicted_lbn;
use super::probe::Probe;
use super::ExtractedDrive;
use crate::error::Result;
use crate::time::SimTime;

/// How wrong the host's head model is made on purpose: the errors the experiment adds to
/// the extracted period and delta (the predictor options' `period_error_ppm` and
/// `delta_error_sectors` convert into this).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HeadModelErrors {
    /// Relative error of the rotation period, in parts per million.
    pub period_error_ppm: f64,
    /// Added to the extracted delta (sectors).
    pub delta_error_sectors: f64,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct StabilityPoint {
    pub wait_ms: f64,
    /// Trials at this wait whose predicted write cost less than half a rotation.
    pub correct: usize,
    pub trials: usize,
    /// Mean overhead of the predicted writes.
    pub mean_overhead_ms: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stability {
    pub unit_interval_ms: f64,
    pub points: Vec<StabilityPoint>,
    /// The longest wait before the first wait with a wrong prediction (all waits tried if
    /// none failed).
    pub stable_ms: f64,
    /// Whether some wait failed (else `stable_ms` only bounds the duration from below).
    pub failed: bool,
    /// The longest wait at which some prediction was still right: beyond it, every
    /// prediction fails (the paper's "duration of correct prediction": a drive that moves its
    /// heads periodically spoils every prediction older than its period).
    pub last_correct_ms: f64,
}

/// Run `measurements` waits of i × `unit_interval_ns`, `trials` writes each, with the head
/// model of `drive` with the period and delta errors of `errors` (the predictor options, as
/// the host's predictor would be built from them).
pub fn stability(
    probe: &mut Probe,
    drive: &ExtractedDrive,
    errors: impl Into<HeadModelErrors>,
    unit_interval_ns: SimTime,
    measurements: usize,
    trials: usize,
    rng: &mut Pcg64Mcg,
) -> Result<Stability> {
    let errors: HeadModelErrors = errors.into();
    let period = drive.period_ns * (1.0 + errors.period_error_ppm * 1e-6);
    let delta = drive.delta_sectors + errors.delta_error_sectors;
    let cap = drive.table.capacity_sectors;
    let mut points = vec![];
    let mut stable_ms = 0.0;
    let mut failed = false;
    let mut last_correct_ms = 0.0;
    for i in 0..measurements {
        let wait = i as SimTime * unit_interval_ns;
        let (mut correct, mut done, mut overhead) = (0, 0, 0u64);
        while done < trials {
            let lbn = rng.random_range(0..cap);
            let t0 = probe.write(lbn)?;
            probe.wait_until(t0 + wait);
            let t1 = probe.now();
            let Some(target) = predicted_lbn(&drive.table, lbn, t0, t1, period, delta) else {
                continue;
            };
            let end = probe.write(target)?;
            done += 1;
            overhead += end - t1;
            if ((end - t1) as f64) < drive.period_ns / 2.0 {
                correct += 1;
            }
        }
        let wait_ms = wait as f64 / 1e6;
        points.push(StabilityPoint {
            wait_ms,
            correct,
            trials,
            mean_overhead_ms: overhead as f64 / trials as f64 / 1e6,
        });
        if correct > 0 {
            last_correct_ms = wait_ms;
        }
        if !failed {
            if correct == trials {
                stable_ms = wait_ms;
            } else {
                failed = true;
            }
        }
    }
    Ok(Stability {
        unit_interval_ms: unit_interval_ns as f64 / 1e6,
        points,
        stable_ms,
        failed,
        last_correct_ms,
    })
}
