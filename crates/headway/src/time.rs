//! Simulated time: integer nanoseconds everywhere inside the engine.
//!
//! Floating point appears only at the edges (parameter files in milliseconds, rotation
//! angles), and is converted with [`ms_to_ns`] / [`ns_to_ms`] so rounding happens in one place.

/// A point in simulated time, or a duration, in nanoseconds.
pub type SimTime = u64;

/// "Never": used for absent deadlines and unarmed timers.
pub const NEVER: SimTime = u64::MAX;

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// Milliseconds (as written in parameter files and traces) to nanoseconds, rounded to nearest.
#[inline]
pub fn ms_to_ns(ms: f64) -> SimTime {
    if ms <= 0.0 {
        0
    } else {
        (ms * NS_PER_MS as f64).round() as SimTime
    }
}

/// Nanoseconds to milliseconds, for reporting.
#[inline]
pub fn ns_to_ms(ns: SimTime) -> f64 {
    ns as f64 / NS_PER_MS as f64
}
