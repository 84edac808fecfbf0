//! The read tail the freeblock wrapper plans free reads with: the time from a read's media
//! end until the command queued behind it can begin, as a line `fixed + per_sector × n`
//! above the reads seen.
//!
//! Two sources. A predictor with a queue model ([`QueueModel::tail_ns`]) has learned the
//! tail from the device's reported phases. A predictor without one (the calibrated
//! predictor: timing only) does not, and the wrapper measures the tail itself, as a host
//! can: a read began when the command ahead of it completed (or when it was sent to an
//! idle drive); the predictor's service time from there is its predicted media end; its
//! completion came the tail after that.
//!
//! [`QueueModel::tail_ns`]: crate::predict::QueueModel::tail_ns

use std::collections::{BTreeMap, VecDeque};

use crate::order::freeblock::planner::Tail;

/// Measured tails kept per read size (the most recent).
const SAMPLES_PER_SIZE: usize = 32;
/// Measured sizes need this many samples before they shape the line.
const MIN_SAMPLES: usize = 8;

/// The tail line over the reads seen.
/// [TEAM CHOICE] The predictor's tail scales the last read's; the drive's bus moves about
/// 82 µs per sector plus a few µs that vary with how the transfer meets the media, and a
/// free read planned on a tail too short costs B a whole rotation, so the planner uses an
/// upper line: the largest tail per sector among reads of four sectors or more, plus the
/// largest amount any read exceeded that. No free read is planned before eight reads have
/// completed (fewer under-estimate large reads).
///
/// A measured tail also carries the predictor's errors: a read whose rotational wait was
/// mispredicted by a revolution is a revolution off. For each size the line takes the
/// largest sample within a quarter revolution of the size's median, so such samples (a
/// minority while the predictor is usable at all) do not move it.
#[derive(Clone, Debug, Default)]
pub(super) struct TailFit {
    /// The tail of each read size the line is fitted over.
    by_size: BTreeMap<u32, f64>,
    /// Measured tails per size, most recent last (measured fits only).
    samples: BTreeMap<u32, VecDeque<f64>>,
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

    /// A tail the host measured (completion less the predicted media end) over a period of
    /// `period_ns`.
    pub(super) fn add_measured(&mut self, sectors: u32, tail_ns: f64, period_ns: f64) {
        self.measured = true;
        self.reads += 1;
        let v = self.samples.entry(sectors).or_default();
        if v.len() == SAMPLES_PER_SIZE {
            v.pop_front();
        }
        v.push_back(tail_ns);
        if v.len() < MIN_SAMPLES {
            return;
        }
        let mut sorted: Vec<f64> = v.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        let band = period_ns / 4.0;
        let top = sorted
            .iter()
            .copied()
            .filter(|t| (t - median).abs() <= band)
            .fold(f64::NEG_INFINITY, f64::max);
        self.by_size.insert(sectors, top.max(0.0));
        self.refit();
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
        let has_slope = |t: &Tail| {
            t.per_sector_ns > 0.0 || (self.measured && self.by_size.keys().any(|&n| n >= 4))
        };
        self.tail.filter(|t| self.reads >= 8 && has_slope(t))
    }
}
