//! What the anticipation core learns about each process (paper §3.3): its thinktime
//! distribution, how far (in LBNs) its next request usually is from its last one, and which
//! way it usually goes (for the C-SCAN clause). Learned from arrivals and completions only,
//! never from a proposal.

use crate::stats::ThinkHistogram;
use crate::time::SimTime;

/// Settings shared by every process's statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StatsConfig {
    pub range_ns: SimTime,
    pub bucket_ns: SimTime,
    /// Histogram decay per sample, in (0, 1].
    pub decay: f64,
    /// Weight of a new sample in the decayed seek distance and direction, in (0, 1].
    pub seek_weight: f64,
}

#[derive(Clone, Debug)]
pub struct ProcessStats {
    pub think: ThinkHistogram,
    /// Completion time of the process's last read (the start of its thinktime).
    pub last_completion_ns: Option<SimTime>,
    /// One past the last sector of its last read.
    pub last_end_lbn: Option<u64>,
    /// Decayed mean LBN distance between consecutive requests.
    pub expected_distance: f64,
    /// Decayed fraction of its requests that went forward (to higher LBNs).
    pub forward_fraction: f64,
    /// Reads of this process held by the scheduler, not yet dispatched.
    pub queued: u32,
    /// Reads of this process at the device.
    pub in_service: u32,
    /// The Linux anticipatory scheduler's per-process means (7/8 decay per sample):
    /// thinktime and LBN seek distance.
    pub linux_mean_think_ns: f64,
    pub linux_mean_seek: f64,
    pub linux_think_samples: u64,
    /// Distance samples so far (the first one is taken whole, not decayed towards 0).
    distance_samples: u64,
    /// The timeout armed at the process's last decision point, until its next read arrives.
    pub armed_deadline_ns: Option<SimTime>,
    /// Decayed fraction of its decision points whose timeout would have expired before its
    /// next read arrived (the adversary mitigation of spec §7), measured whether or not the
    /// core actually waited, so a process that was cut off can earn anticipation back.
    pub expiry_rate: f64,
}

impl ProcessStats {
    pub fn new(cfg: &StatsConfig) -> Self {
        ProcessStats {
            think: ThinkHistogram::new(cfg.range_ns, cfg.bucket_ns, cfg.decay),
            last_completion_ns: None,
            last_end_lbn: None,
            expected_distance: 0.0,
            armed_deadline_ns: None,
            expiry_rate: 0.0,
            forward_fraction: 0.5,
            queued: 0,
            in_service: 0,
            distance_samples: 0,
            linux_mean_think_ns: 0.0,
            linux_mean_seek: 0.0,
            linux_think_samples: 0,
        }
    }

    /// A read of this process arrived at `now`: its thinktime is the time since the
    /// previous read completed, or 0 if the process already had one outstanding (it is
    /// then not synchronous, paper §2). A later chunk of one large read (`chunk`) is part of
    /// the sample its first chunk made: no thinktime or seek sample.
    pub(crate) fn on_arrival(&mut self, now: SimTime, lbn: u64, chunk: bool, cfg: &StatsConfig) {
        if let Some(deadline) = self.armed_deadline_ns.take() {
            let expired = if now > deadline { 1.0 } else { 0.0 };
            self.expiry_rate += EXPIRY_WEIGHT * (expired - self.expiry_rate);
        }
        if chunk {
            self.queued += 1;
            return;
        }
        let think = if self.queued + self.in_service > 0 {
            Some(0)
        } else {
            self.last_completion_ns.map(|done| now.saturating_sub(done))
        };
        if let Some(t) = think {
            self.think.record(t);
            self.linux_mean_think_ns =
                linux_decay(self.linux_mean_think_ns, t as f64, self.linux_think_samples);
            self.linux_think_samples += 1;
        }
        if let Some(prev) = self.last_end_lbn {
            let d = lbn.abs_diff(prev) as f64;
            let fwd = if lbn >= prev { 1.0 } else { 0.0 };
            let w = if self.distance_samples == 0 {
                1.0
            } else {
                cfg.seek_weight
            };
            self.expected_distance += w * (d - self.expected_distance);
            self.forward_fraction += w * (fwd - self.forward_fraction);
            self.linux_mean_seek = linux_decay(self.linux_mean_seek, d, self.distance_samples);
            self.distance_samples += 1;
        }
        self.queued += 1;
    }

    pub(crate) fn on_dispatch(&mut self) {
        self.queued = self.queued.saturating_sub(1);
        self.in_service += 1;
    }

    pub(crate) fn on_completion(&mut self, now: SimTime, end_lbn: u64) {
        self.in_service = self.in_service.saturating_sub(1);
        self.last_completion_ns = Some(now);
        self.last_end_lbn = Some(end_lbn);
    }

    /// Where the process's next read is expected: its last end moved by the expected
    /// distance in its more likely direction.
    pub(crate) fn expected_next_lbn(&self, capacity: u64) -> Option<u64> {
        let from = self.last_end_lbn?;
        let d = self.expected_distance.round() as u64;
        Some(if self.forward_fraction >= 0.5 {
            from.saturating_add(d).min(capacity.saturating_sub(1))
        } else {
            from.saturating_sub(d)
        })
    }
}

/// Weight of one decision point's outcome in the expiry rate [TEAM CHOICE: as-iosched's
/// 1/8].
pub const EXPIRY_WEIGHT: f64 = 0.125;

/// as-iosched's running means: each sample weighs 1/8 against 7/8 of the history (the first
/// sample is taken whole).
fn linux_decay(mean: f64, sample: f64, samples_before: u64) -> f64 {
    if samples_before == 0 {
        sample
    } else {
        mean * 7.0 / 8.0 + sample / 8.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> StatsConfig {
        StatsConfig {
            range_ns: 10_000_000,
            bucket_ns: 100_000,
            decay: 0.9,
            seek_weight: 0.25,
        }
    }

    #[test]
    fn thinktime_is_measured_from_the_last_completion_and_is_zero_when_already_queued() {
        let c = cfg();
        let mut p = ProcessStats::new(&c);
        p.on_arrival(0, 1000, false, &c);
        assert_eq!(p.think.samples, 0, "a first request has no thinktime");
        p.on_dispatch();
        p.on_completion(5_000_000, 1008);
        p.on_arrival(5_250_000, 1008, false, &c);
        assert_eq!(p.think.percentile_ns(0.5), Some(300_000));
        // A second read while the first is queued: asynchronous, thinktime 0.
        p.on_arrival(5_260_000, 1016, false, &c);
        assert_eq!(p.think.samples, 2);
        assert_eq!(p.think.percentile_ns(0.1), Some(100_000));
        assert_eq!(p.expected_next_lbn(1 << 20), Some(1008 + 2));
    }

    #[test]
    fn later_chunks_of_one_large_read_are_not_samples() {
        let c = cfg();
        let mut p = ProcessStats::new(&c);
        p.on_arrival(0, 0, false, &c);
        p.on_dispatch();
        p.on_completion(1_000_000, 128);
        // Three more chunks of the same read, each right after the previous one.
        for k in 1..4u64 {
            p.on_arrival(1_000_000 * k, 128 * k, true, &c);
            p.on_dispatch();
            p.on_completion(1_000_000 * k + 500_000, 128 * (k + 1));
        }
        assert_eq!(p.think.samples, 0);
        assert_eq!(p.queued + p.in_service, 0);
        // The next read, 2 ms after the last chunk: one sample, of 2 ms.
        p.on_arrival(5_500_000, 90_000, false, &c);
        assert_eq!(p.think.samples, 1);
        assert_eq!(p.think.percentile_ns(0.5), Some(2_100_000));
        // Without the flag, the chunks would have taught thinktime 0.5 ms three times.
        let mut q = ProcessStats::new(&c);
        q.on_arrival(0, 0, false, &c);
        q.on_dispatch();
        q.on_completion(1_000_000, 128);
        q.on_arrival(1_500_000, 128, false, &c);
        assert_eq!(q.think.samples, 1);
    }
}
