//! Simulated time: integer nanoseconds everywhere inside the engine. Events, requests,
//! completions and statistics carry [`SimTime`], so comparisons of times are exact and a run
//! is deterministic.
//!
//! Floating point is used where a model computes in continuous quantities, and each model
//! rounds where its result becomes a time:
//! - milliseconds read from parameter files, traces and configurations go through
//!   `ms_to_ns` (to the nearest nanosecond, negative to zero);
//! - the drive model works out a command's media plan in `f64` nanoseconds and fractions of a
//!   revolution, and rounds its times with its own helpers in `device/hdd/num.rs` (`round_ns`
//!   to the nearest nanosecond; `ns_of`, a truncation its callers use after adding 0.5, or to
//!   round down on purpose): those conversions are on the hot path, and going through `i64`
//!   takes one instruction where the saturating conversion to `u64` takes a dozen;
//! - predictors and a few schedulers round their own estimates and settings where they
//!   compute them (`predict/calibrated.rs`, `sched/timeslice.rs`, `sched/anticipatory/`).

/// A point in simulated time, or a duration, in nanoseconds.
pub type SimTime = u64;

/// "Never": used for absent deadlines and unarmed timers.
pub const NEVER: SimTime = u64::MAX;

pub(crate) const NS_PER_US: u64 = 1_000;
pub(crate) const NS_PER_MS: u64 = 1_000_000;
pub(crate) const NS_PER_S: u64 = 1_000_000_000;

/// Milliseconds (as written in parameter files and traces) to nanoseconds, rounded to nearest.
#[inline]
pub(crate) fn ms_to_ns(ms: f64) -> SimTime {
    if ms <= 0.0 {
        0
    } else {
        (ms * NS_PER_MS as f64).round() as SimTime
    }
}
