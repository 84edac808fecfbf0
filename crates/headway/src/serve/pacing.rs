//! Wall clock <-> simulated time. Simulated time starts at zero when the first request
//! arrives (as a trace's time starts at its first record, so that a replay of the recorded
//! arrivals runs the same timeline) and runs `speed` times as fast as the wall clock
//! (`--speed 10`: a simulated second passes in a tenth of a wall second).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::error::{HeadwayError, Result};

/// The pacing, once the first request has started the clock.
pub(crate) struct Clock {
    speed: f64,
    pacing: OnceLock<Pacing>,
}

impl Clock {
    pub(crate) fn new(speed: f64) -> Result<Clock> {
        Pacing::new(Instant::now(), speed)?;
        Ok(Clock {
            speed,
            pacing: OnceLock::new(),
        })
    }

    pub(crate) fn get(&self) -> Option<&Pacing> {
        self.pacing.get()
    }

    /// The pacing, the clock starting at `now` if it has not yet.
    pub(crate) fn start(&self, now: Instant) -> &Pacing {
        self.pacing.get_or_init(|| Pacing {
            start: now,
            speed: self.speed,
        })
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Pacing {
    start: Instant,
    speed: f64,
}

impl Pacing {
    pub(crate) fn new(start: Instant, speed: f64) -> Result<Pacing> {
        if !(speed.is_finite() && speed > 0.0) {
            return Err(HeadwayError::config(
                "speed",
                format!("must be a positive number, got {speed}"),
            ));
        }
        Ok(Pacing { start, speed })
    }

    /// The simulated time the wall clock shows at `wall`.
    pub(crate) fn sim_ns_at(&self, wall: Instant) -> u64 {
        let wall_ns = wall.saturating_duration_since(self.start).as_nanos() as f64;
        (wall_ns * self.speed) as u64
    }

    /// The wall-clock instant simulated time `sim_ns` is reached (never before it).
    pub(crate) fn wall_at(&self, sim_ns: u64) -> Instant {
        self.start + Duration::from_nanos((sim_ns as f64 / self.speed).ceil() as u64)
    }
}

/// The pacing error of every reply the model timed: the wall-clock time it was sent minus
/// the wall-clock time of the model's completion.
pub(crate) struct PacingError {
    late_ns: Histogram<u64>,
}

impl PacingError {
    pub(crate) fn new() -> PacingError {
        PacingError {
            // 1 ns to an hour, 3 significant figures; later still counts as an hour.
            late_ns: Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
                .expect("valid histogram bounds"),
        }
    }

    pub(crate) fn record(&mut self, sent: Instant, due: Instant) {
        let late_ns = sent.saturating_duration_since(due).as_nanos() as u64;
        self.late_ns.saturating_record(late_ns);
    }

    /// Adds `other`'s replies to these.
    pub(crate) fn merge(&mut self, other: &PacingError) {
        // Both have the same bounds, so adding cannot fail.
        let _ = self.late_ns.add(&other.late_ns);
    }

    pub(crate) fn count(&self) -> u64 {
        self.late_ns.len()
    }

    /// `(p50, p99, max)` in milliseconds, or `None` before the first timed reply.
    pub(crate) fn percentiles_ms(&self) -> Option<(f64, f64, f64)> {
        if self.late_ns.is_empty() {
            return None;
        }
        let ms = |ns: u64| ns as f64 / 1e6;
        Some((
            ms(self.late_ns.value_at_quantile(0.5)),
            ms(self.late_ns.value_at_quantile(0.99)),
            ms(self.late_ns.max()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simulated_instant_maps_to_a_wall_instant_that_shows_it_again() {
        let start = Instant::now();
        let p = Pacing::new(start, 10.0).unwrap();
        for sim_ns in [0u64, 1, 9, 10, 12_345_678, 3_600_000_000_000] {
            let wall = p.wall_at(sim_ns);
            assert!(p.sim_ns_at(wall) >= sim_ns, "{sim_ns}");
            assert!(p.sim_ns_at(wall) <= sim_ns + 10, "{sim_ns}");
        }
        assert_eq!(p.wall_at(10_000_000) - start, Duration::from_millis(1));
        assert!(Pacing::new(start, 0.0).is_err());
        assert!(Pacing::new(start, f64::NAN).is_err());
    }

    #[test]
    fn the_error_percentiles_are_in_milliseconds() {
        let mut e = PacingError::new();
        assert!(e.percentiles_ms().is_none());
        let due = Instant::now();
        for us in 1..=100u64 {
            e.record(due + Duration::from_micros(us), due);
        }
        e.record(due, due + Duration::from_millis(1));
        let (p50, p99, max) = e.percentiles_ms().unwrap();
        assert!((p50 - 0.050).abs() < 0.001, "{p50}");
        assert!((p99 - 0.099).abs() < 0.001, "{p99}");
        assert!((max - 0.100).abs() < 0.001, "{max}");
        assert_eq!(e.count(), 101);
    }
}
