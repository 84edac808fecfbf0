//! The read tail the freeblock wrapper plans free reads with: the time from a read's media
//! end until the command queued behind it can begin, as a line `fixed + per_sector × n`
//! above the reads seen.
//!
//! Two sources. A predictor with a queue model ([`QueueModel::tail_ns`]) has learned the
//! tail from the device's reported phases. A predictor without one (the calibrated
//! predictor: timing only) does not, and the wrapper measures the tail itself, as a host
//! can: a read began when the command ahead of it completed (or when it was sent to an
//! idle drive); the predictor's service time from there is its predicted media end; its
//! completion came the tail after that. The calibrated predictor places a read's
//! completion at its media end (it subtracts the tail calibration measured by size), so
//! the sample depends on the read's own size only, whatever read came before it; the
//! wrapper fits `f + k × n` to the samples (the rest, a revolution late where the predictor
//! missed a rotation, are trimmed off).
//!
//! [`QueueModel::tail_ns`]: crate::predict::QueueModel::tail_ns

use std::collections::{BTreeMap, VecDeque};

use crate::order::freeblock::planner::Tail;

/// Measured samples kept (the most recent).
const SAMPLES: usize = 512;
/// Measured samples inside the band needed before the line is used.
const MIN_SAMPLES: usize = 16;
/// Refit after this many new samples.
const REFIT_EVERY: u64 = 8;

/// The tail line over the reads seen.
/// [TEAM CHOICE] The predictor's tail scales the last read's; the drive's bus moves about
/// 82 µs per sector plus a few µs that vary with how the transfer meets the media, and a
/// free read planned on a tail too short costs B a whole rotation, so the planner uses an
/// upper line: the largest tail per sector among reads of four sectors or more, plus the
/// largest amount any read exceeded that. No free read is planned before eight reads have
/// completed (fewer under-estimate large reads).
///
/// A measured tail also carries the predictor's errors: a read whose rotational wait was
/// mispredicted by a revolution is a revolution off. The measured line is a least-squares
/// fit trimmed to the samples within a quarter revolution of it (refitted until it stays),
/// raised by the 95th percentile of their residuals, so such samples (a minority while the
/// predictor is usable at all) do not move it.
#[derive(Clone, Debug, Default)]
pub(super) struct TailFit {
    /// The tail of each read size the line is fitted over.
    by_size: BTreeMap<u32, f64>,
    /// Measured samples (sectors, tail ns), most recent last.
    samples: VecDeque<(u32, f64)>,
    /// The measured fit: tail `fixed + per_sector × n`, its margin included.
    measured_fit: Option<Tail>,
    /// The same line without the margin: its centre.
    measured_centre: Option<Tail>,
    reads: u64,
    tail: Option<Tail>,
    measured: bool,
}

impl TailFit {
    /// A tail the predictor learned (its [`QueueModel::tail_ns`] just after it observed the
    /// read's completion): the line rises to it.
    ///
    /// [`QueueModel::tail_ns`]: crate::predict::QueueModel::tail_ns
    pub(super) fn add(&mut self, sectors: f64, tail_ns: f64) {
        let n = sectors as u32;
        let e = self.by_size.entry(n).or_insert(0.0);
        if tail_ns <= *e && self.tail.is_some() {
            self.reads += 1;
            return;
        }
        *e = e.max(tail_ns);
        self.reads += 1;
        self.refit();
    }

    /// A tail the host measured (completion less the predicted media end) of a read of
    /// `sectors`, over a period of `period_ns`.
    pub(super) fn add_measured(&mut self, sectors: u32, tail_ns: f64, period_ns: f64) {
        self.measured = true;
        self.reads += 1;
        if self.samples.len() == SAMPLES {
            self.samples.pop_front();
        }
        self.samples.push_back((sectors, tail_ns));
        if self.samples.len() >= MIN_SAMPLES && !self.reads.is_multiple_of(REFIT_EVERY) {
            return;
        }
        let fit = fit_trimmed(&self.samples, period_ns / 4.0);
        self.measured_fit = fit.map(|f| f.0);
        self.measured_centre = fit.map(|f| f.1);
    }

    /// The measured line's centre (measured fits only).
    pub(super) fn measured_centre(&self) -> Option<Tail> {
        self.measured_centre.filter(|_| self.measured_fit.is_some())
    }

    fn refit(&mut self) {
        let per_sector_ns = self
            .by_size
            .iter()
            .filter(|(&n, _)| n >= 4)
            .map(|(&n, &t)| t / n as f64)
            .fold(0.0, f64::max);
        let fixed_ns = self
            .by_size
            .iter()
            .map(|(&n, &t)| t - per_sector_ns * n as f64)
            .fold(0.0, f64::max);
        self.tail = Some(Tail {
            fixed_ns,
            per_sector_ns,
        });
    }

    /// Enough reads seen to plan on. With the device's own tail (`exact`) the line is not
    /// the tail itself and may be flat (a drive whose queued command's overhead hides its
    /// whole bus transfer has a queued tail of zero), so only the warm-up's read count is
    /// asked; a measured line may be flat for the same reason.
    pub(super) fn known(&self, exact: bool) -> bool {
        if exact {
            self.reads >= 8
        } else {
            self.tail().is_some()
        }
    }

    pub(super) fn tail(&self) -> Option<Tail> {
        if self.measured {
            return self.measured_fit;
        }
        self.tail
            .filter(|t| self.reads >= 8 && t.per_sector_ns > 0.0)
    }
}

/// The line `tail = f + k × n` through `samples`, least squares trimmed
/// to those within `band_ns` of it (starting from a median-slope line, which the samples a
/// revolution off do not pull), as the tail `f + margin + k × n` (`k` not below 0) and its
/// centre `f + k × n`.
fn fit_trimmed(samples: &VecDeque<(u32, f64)>, band_ns: f64) -> Option<(Tail, Tail)> {
    let x = |s: &(u32, f64)| s.0 as f64;
    let mut line = theil_sen(samples, x);
    for _ in 0..8 {
        let inside =
            |s: &(u32, f64)| line.is_none_or(|(f, k)| (s.1 - (f + k * x(s))).abs() <= band_ns);
        let (mut n, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for s in samples.iter().filter(|s| inside(s)) {
            let (xi, yi) = (x(s), s.1);
            n += 1.0;
            sx += xi;
            sy += yi;
            sxx += xi * xi;
            sxy += xi * yi;
        }
        let det = n * sxx - sx * sx;
        if n < MIN_SAMPLES as f64 || det.abs() < 1e-9 {
            return None;
        }
        let k = (n * sxy - sx * sy) / det;
        let next = ((sy - k * sx) / n, k);
        let settled =
            line.is_some_and(|(f, k)| (f - next.0).abs() < 1.0 && (k - next.1).abs() < 0.01);
        line = Some(next);
        if settled {
            break;
        }
    }
    let (f, k) = line?;
    let mut residuals: Vec<f64> = samples
        .iter()
        .map(|s| s.1 - (f + k * x(s)))
        .filter(|r| r.abs() <= band_ns)
        .collect();
    if residuals.len() < MIN_SAMPLES {
        return None;
    }
    residuals.sort_by(f64::total_cmp);
    let margin = residuals[residuals.len() * 95 / 100].max(0.0);
    let k = k.max(0.0);
    Some((
        Tail {
            fixed_ns: f + margin,
            per_sector_ns: k,
        },
        Tail {
            fixed_ns: f,
            per_sector_ns: k,
        },
    ))
}

/// The median slope between consecutive samples at least four sectors apart, through the
/// median intercept.
fn theil_sen(samples: &VecDeque<(u32, f64)>, x: impl Fn(&(u32, f64)) -> f64) -> Option<(f64, f64)> {
    let mut slopes: Vec<f64> = samples
        .iter()
        .zip(samples.iter().skip(1))
        .filter(|(a, b)| (x(a) - x(b)).abs() >= 4.0)
        .map(|(a, b)| (a.1 - b.1) / (x(a) - x(b)))
        .collect();
    if slopes.len() < MIN_SAMPLES {
        return None;
    }
    slopes.sort_by(f64::total_cmp);
    let k = slopes[slopes.len() / 2];
    let mut intercepts: Vec<f64> = samples.iter().map(|s| s.1 - k * x(s)).collect();
    intercepts.sort_by(f64::total_cmp);
    Some((intercepts[intercepts.len() / 2], k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples on `20 + 80 × n` µs with a few µs of spread, a quarter of them a revolution
    /// (6 ms) late, as where the calibrated predictor missed a rotation.
    #[test]
    fn the_measured_line_ignores_samples_a_revolution_off() {
        let mut fit = TailFit::default();
        let sizes = [8u32, 16, 1, 24, 8, 3, 40, 12, 8, 1, 64, 16];
        for i in 0..400usize {
            let n = sizes[i % sizes.len()];
            let jitter = (i % 7) as f64 * 1_000.0;
            let late = if i % 4 == 0 { 6_000_000.0 } else { 0.0 };
            let t = 20_000.0 + 80_000.0 * n as f64 + jitter + late;
            fit.add_measured(n, t, 6_000_000.0);
        }
        let line = fit.tail().unwrap();
        let centre = fit.measured_centre().unwrap();
        assert!(
            (centre.per_sector_ns - 80_000.0).abs() < 500.0,
            "{centre:?}"
        );
        assert!((centre.fixed_ns - 23_000.0).abs() < 5_000.0, "{centre:?}");
        assert!(line.fixed_ns >= centre.fixed_ns && line.fixed_ns < centre.fixed_ns + 7_000.0);
        assert_eq!(line.per_sector_ns, centre.per_sector_ns);
        assert!(fit.known(false));
    }

    #[test]
    fn the_predictors_own_tail_may_be_flat_when_it_is_the_devices() {
        let mut fit = TailFit::default();
        for _ in 0..8 {
            fit.add(8.0, 0.0);
        }
        assert!(fit.known(true));
        assert!(!fit.known(false));
    }
}
