//! The decayed thinktime histogram of one process (the anticipatory paper's §3.3): buckets
//! of a fixed width from 0 to a range, plus one overflow bucket meaning "too long to wait
//! for". Every new sample first multiplies all counts by the decay, so old behaviour fades.
//! The anticipation core keeps one per process; the adaptive adversary reader keeps a copy
//! of its own, which is why it sits here below both.

use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct ThinkHistogram {
    bucket_ns: SimTime,
    /// The last entry is the overflow bucket.
    counts: Vec<f64>,
    decay: f64,
    /// Samples ever recorded (not decayed): the cold-start rule counts these.
    pub samples: u64,
}

impl ThinkHistogram {
    pub fn new(range_ns: SimTime, bucket_ns: SimTime, decay: f64) -> Self {
        let buckets = (range_ns / bucket_ns.max(1)).max(1) as usize;
        ThinkHistogram {
            bucket_ns: bucket_ns.max(1),
            counts: vec![0.0; buckets + 1],
            decay,
            samples: 0,
        }
    }

    pub(crate) fn record(&mut self, think_ns: SimTime) {
        for c in &mut self.counts {
            *c *= self.decay;
        }
        let overflow = self.counts.len() - 1;
        let i = ((think_ns / self.bucket_ns) as usize).min(overflow);
        self.counts[i] += 1.0;
        self.samples += 1;
    }

    /// The `q` point of the decayed distribution, as the upper edge of its bucket (a
    /// [TEAM CHOICE]: never shorter than the true percentile); `None` when it falls in the
    /// overflow bucket or nothing was recorded.
    pub(crate) fn percentile_ns(&self, q: f64) -> Option<SimTime> {
        let total: f64 = self.counts.iter().sum();
        if total <= 0.0 {
            return None;
        }
        let want = q * total;
        let mut acc = 0.0;
        let overflow = self.counts.len() - 1;
        for (i, c) in self.counts.iter().enumerate() {
            acc += c;
            // A tolerance so that, e.g., exactly 95 of 100 lands in its own bucket.
            if acc >= want * (1.0 - 1e-12) {
                return (i < overflow).then(|| (i as SimTime + 1) * self.bucket_ns);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_bucket_upper_edges_and_overflow_means_never() {
        let mut h = ThinkHistogram::new(10_000_000, 100_000, 1.0);
        for _ in 0..50 {
            h.record(150_000);
        }
        for _ in 0..45 {
            h.record(420_000);
        }
        for _ in 0..5 {
            h.record(900_000);
        }
        assert_eq!(h.percentile_ns(0.5), Some(200_000));
        assert_eq!(h.percentile_ns(0.95), Some(500_000));
        assert_eq!(h.percentile_ns(0.99), Some(1_000_000));
        let mut long = ThinkHistogram::new(10_000_000, 100_000, 0.9);
        for _ in 0..10 {
            long.record(50_000_000);
        }
        assert_eq!(long.percentile_ns(0.5), None);
        assert_eq!(ThinkHistogram::new(1, 1, 0.9).percentile_ns(0.5), None);
    }

    #[test]
    fn decay_lets_new_behaviour_take_over() {
        let mut h = ThinkHistogram::new(10_000_000, 100_000, 0.8);
        for _ in 0..50 {
            h.record(9_000_000);
        }
        for _ in 0..15 {
            h.record(10_000);
        }
        // 0.8^15 ≈ 0.035 of the old mass survives: the new thinktime dominates the median
        // and the 95th point alike.
        assert_eq!(h.percentile_ns(0.5), Some(100_000));
        assert_eq!(h.percentile_ns(0.95), Some(100_000));
    }
}
