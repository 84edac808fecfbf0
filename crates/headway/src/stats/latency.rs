//! The run's response and service times, counted per HDR bucket during the run and handed
//! to `hdrhistogram` once at the end.
//!
//! Why not record into the `Histogram` directly: its general recording path (any bounds,
//! auto-resize, clamping, min and max kept per value) cost about 59 instructions a value, two
//! values a request, on a benchmark whose whole simulation is a few thousand a request. The
//! bounds here are fixed (1 ns to 2^52 ns, 3 significant digits), so a value's bucket is a
//! leading-zero count and two shifts. [`Latencies::histogram`] rebuilds the library's
//! histogram from the counts: the same counts in the same buckets, the same total, and a
//! largest and smallest value in the same buckets as the recorded ones, which is all that
//! every figure read from it (mean, deviation, quantiles, min, max) depends on. A unit test
//! holds the rebuilt histogram equal to one recorded value by value.

use hdrhistogram::Histogram;

/// Lowest and highest trackable values and significant digits of every run histogram.
pub(crate) const LOWEST: u64 = 1;
pub(crate) const HIGHEST: u64 = 1 << 52;
pub(crate) const SIGNIFICANT_DIGITS: u8 = 3;

/// The bucket layout `hdrhistogram` derives from the bounds above: the lowest value is 1, so
/// the unit magnitude is 0; 3 digits need 2 * 10^3 distinct values per bucket, rounded up to
/// 2^11.
const SUB_BUCKET_COUNT_MAGNITUDE: u32 = 11;
const SUB_BUCKET_HALF_COUNT_MAGNITUDE: u32 = SUB_BUCKET_COUNT_MAGNITUDE - 1;
const SUB_BUCKET_HALF_COUNT: u64 = 1 << SUB_BUCKET_HALF_COUNT_MAGNITUDE;
const SUB_BUCKET_MASK: u64 = (1 << SUB_BUCKET_COUNT_MAGNITUDE) - 1;
const LEADING_ZERO_COUNT_BASE: u32 = 64 - SUB_BUCKET_COUNT_MAGNITUDE;

/// An empty histogram with the run's bounds.
pub(crate) fn new_hist() -> Histogram<u64> {
    // 1 ns to about 52 simulated days at 3 significant digits (0.1% resolution). Fixed bounds
    // so recording never resizes; longer values saturate.
    Histogram::new_with_bounds(LOWEST, HIGHEST, SIGNIFICANT_DIGITS).expect("valid histogram bounds")
}

/// Counts per bucket of a run histogram (see the module's documentation).
#[derive(Clone)]
pub(crate) struct Latencies {
    counts: Vec<u64>,
    /// The bucket a value above the histogram's range is counted in (`hdrhistogram` clamps
    /// such values to its highest trackable value).
    saturated: usize,
}

#[inline]
fn index_for(value: u64) -> usize {
    let bucket = LEADING_ZERO_COUNT_BASE - (value | SUB_BUCKET_MASK).leading_zeros();
    let sub_bucket = value >> bucket;
    (((bucket as u64 + 1) << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + sub_bucket - SUB_BUCKET_HALF_COUNT)
        as usize
}

/// The lowest value of bucket `index` (the inverse of `index_for`).
fn value_for(index: usize) -> u64 {
    let index = index as u64;
    let bucket = (index >> SUB_BUCKET_HALF_COUNT_MAGNITUDE).saturating_sub(1);
    let sub_bucket = if index < 2 * SUB_BUCKET_HALF_COUNT {
        index
    } else {
        (index & (SUB_BUCKET_HALF_COUNT - 1)) + SUB_BUCKET_HALF_COUNT
    };
    sub_bucket << bucket
}

/// The highest value in `value`'s bucket: what a run histogram reports as the max when
/// `value` is the largest recorded.
pub(crate) fn highest_equivalent(value: u64) -> u64 {
    value_for(index_for(value.max(LOWEST)) + 1) - 1
}

impl Latencies {
    pub(crate) fn new() -> Self {
        let len = new_hist().distinct_values();
        Latencies {
            counts: vec![0; len],
            saturated: index_for(HIGHEST),
        }
    }

    /// Count one value (at least 1: the histograms record `max(1)` of every duration).
    #[inline]
    pub(crate) fn record(&mut self, value: u64) {
        let i = index_for(value);
        match self.counts.get_mut(i) {
            Some(c) => *c += 1,
            None => self.counts[self.saturated] += 1,
        }
    }

    /// Values counted so far.
    pub(crate) fn len(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The `hdrhistogram` histogram these counts make.
    pub(crate) fn histogram(&self) -> Histogram<u64> {
        let mut h = new_hist();
        for (i, &n) in self.counts.iter().enumerate() {
            if n > 0 {
                h.record_n(value_for(i), n)
                    .expect("a bucket's lowest value is in the histogram's range");
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Distribution;
    use rand::{Rng, SeedableRng};

    fn both(values: &[u64]) -> (Histogram<u64>, Histogram<u64>) {
        let mut direct = new_hist();
        let mut counted = Latencies::new();
        for &v in values {
            direct.saturating_record(v);
            counted.record(v);
        }
        assert_eq!(counted.len(), values.len() as u64);
        (direct, counted.histogram())
    }

    #[test]
    fn every_bucket_boundary_lands_where_hdrhistogram_puts_it() {
        let h = new_hist();
        for i in 0..h.distinct_values() {
            let v = value_for(i);
            assert_eq!(index_for(v), i, "value {v}");
            assert_eq!(h.lowest_equivalent(v), v, "index {i} starts a bucket");
            if v >= LOWEST {
                assert_eq!(highest_equivalent(v), h.highest_equivalent(v), "value {v}");
            }
            if v > 1 {
                assert_eq!(index_for(v - 1), i - 1, "value {}", v - 1);
            }
        }
    }

    #[test]
    fn rebuilt_histograms_equal_recorded_ones() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut values: Vec<u64> = (0..20_000)
            .map(|_| {
                let magnitude = rng.random_range(0..60u32);
                rng.random_range(1..=(1u64 << magnitude).max(2))
            })
            .collect();
        // Edges: the smallest, bucket edges, the top of the range and beyond it (clamped).
        values.extend([
            1,
            2,
            2047,
            2048,
            2049,
            4095,
            4096,
            HIGHEST - 1,
            HIGHEST,
            HIGHEST + 1,
        ]);
        values.extend([u64::MAX / 2, u64::MAX]);
        let (direct, rebuilt) = both(&values);
        assert!(direct == rebuilt);
        assert_eq!(
            Distribution::from_hist(&direct),
            Distribution::from_hist(&rebuilt)
        );
        assert_eq!(direct.min(), rebuilt.min());
        assert_eq!(direct.max(), rebuilt.max());
        assert_eq!(direct.len(), rebuilt.len());
    }

    #[test]
    fn response_times_of_a_drive_give_the_same_summary() {
        // Millisecond-scale durations, as a disk's, and one value alone.
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let values: Vec<u64> = (0..50_000)
            .map(|_| rng.random_range(100_000..40_000_000))
            .collect();
        for v in [&values[..], &values[..1]] {
            let (direct, rebuilt) = both(v);
            assert!(direct == rebuilt);
            assert_eq!(
                Distribution::from_hist(&direct),
                Distribution::from_hist(&rebuilt)
            );
        }
    }
}
