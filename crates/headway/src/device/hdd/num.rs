//! Floating-point steps of the hot path without library calls: on x86-64's baseline
//! instruction set `f64::floor` and `f64::ceil` are calls into libm. These give the same
//! bits for every |x| < 2^63, which holds for everything they are used on here (sector counts,
//! fractions of a revolution, nanoseconds below 292 years).

use crate::time::SimTime;

/// `x as SimTime` for a time or duration `-1 < x < 2^63` (truncated, as `as` does; the
/// callers clamp at zero first): through `i64`, which x86-64 converts in one instruction,
/// where the saturating conversion to `u64` takes a dozen.
#[inline(always)]
pub fn ns_of(x: f64) -> SimTime {
    debug_assert!(
        x > -1.0 && x < 9.2e18,
        "ns_of({x}) is outside the fast path's range"
    );
    x as i64 as SimTime
}

/// `x as f64` for a time or duration below 2^63 ns: from `i64`, one instruction where `u64`
/// takes several.
#[inline(always)]
pub fn f64_of(x: SimTime) -> f64 {
    debug_assert!(x < 1 << 63, "f64_of({x}) is outside the fast path's range");
    x as i64 as f64
}

/// `x.max(y)` for an `x` that is not NaN (times and durations here are finite): the same
/// bits, `x` on a tie as `f64::max` gives it, one `maxsd` without the NaN test and blend
/// that `f64::max` adds to the latency of a chain of maxima.
#[inline(always)]
pub fn max_not_nan(x: f64, y: f64) -> f64 {
    debug_assert!(!x.is_nan(), "max_not_nan of a NaN");
    if y > x {
        y
    } else {
        x
    }
}

/// `(x + 0.5) as SimTime`: a non-negative duration to the nearest nanosecond (cheaper than
/// `f64::round`; rounding noise below zero gives 0), converted through `i64`, which takes
/// fewer instructions than a conversion to `u64`.
#[inline]
pub fn round_ns(x: f64) -> SimTime {
    debug_assert!(x < 9.2e18, "round_ns({x}) is outside the fast path's range");
    ((x + 0.5) as i64).max(0) as SimTime
}

/// `x.floor()`: truncate through `i64` (exact below 2^63) and step down for a negative
/// fraction, keeping the sign of a zero.
#[inline]
pub fn floor(x: f64) -> f64 {
    debug_assert!(
        x.abs() < 9.2e18,
        "floor({x}) is outside the fast path's range"
    );
    let t = x as i64 as f64;
    (if t > x { t - 1.0 } else { t }).copysign(x)
}

/// `1.5 * 2^52`: added to a double in `0 <= x < 2^51` and taken away again, it leaves `x`
/// rounded to the nearest integer, exactly (the sum lies where the doubles are the integers).
const ROUND: f64 = 6_755_399_441_055_744.0;

/// `2^51`: below it (and from `-0.0` up), [`ROUND`]'s rounding is exact.
const SMALL: f64 = 2_251_799_813_685_248.0;

/// `(x as i64).max(0) as f64`, bit for bit, for every `x`: for `0 <= x < 2^51` (the spindle's
/// whole turns at any instant of a simulation) by two additions and a step down where they
/// rounded up, without the conversion to an integer and back, whose trip through the integer
/// registers and Rust's saturation tests sit on the plan's and the read-ahead's float chains.
/// `-0.0` gives `+0.0` there, as the conversion does.
#[inline(always)]
pub fn whole_nonneg(x: f64) -> f64 {
    if x >= 0.0 && x < SMALL {
        let r = (x + ROUND) - ROUND;
        // A select of 1 or 0 and a subtraction, not a branch: the rounding goes up about
        // half the time, unpredictably.
        r - if r > x { 1.0 } else { 0.0 }
    } else {
        (x as i64).max(0) as f64
    }
}

/// `(x as i64 + 1) as f64`, bit for bit, for every `x` whose truncation is below `i64::MAX`:
/// for `0 <= x < 2^51` by [`whole_nonneg`]'s two additions, the added one taken with the
/// second (the rounded sum less `ROUND - 1` is the nearest integer plus one, exactly: both
/// are integers below 2^53), then the step down.
#[inline(always)]
pub fn trunc_plus_one(x: f64) -> f64 {
    if x >= 0.0 && x < SMALL {
        let a = x + ROUND;
        let r = a - ROUND;
        (a - (ROUND - 1.0)) - if r > x { 1.0 } else { 0.0 }
    } else {
        (x as i64 + 1) as f64
    }
}

/// `x.ceil()`, likewise.
#[inline]
pub fn ceil(x: f64) -> f64 {
    debug_assert!(
        x.abs() < 9.2e18,
        "ceil({x}) is outside the fast path's range"
    );
    let t = x as i64 as f64;
    (if t < x { t + 1.0 } else { t }).copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_and_ceil_match_the_library_bit_for_bit() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.5,
            -1.5,
            2.0 - 1e-15,
            -(2.0 - 1e-15),
            4503599627370495.5,
            -4503599627370495.5,
            4503599627370496.0,
            9007199254740993.0,
            -9007199254740993.0,
            9.1e18,
            -9.1e18,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ];
        // Fractions and multiples of the values a layout and a spindle produce.
        for i in 0..2000 {
            let v = i as f64 * 0.37 - 300.0;
            xs.extend([v, v / 7.0, v * 1e6 + 0.25, 1.0 - v * 1e-17, v * 1e12 + 0.5]);
        }
        for x in xs {
            assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "floor({x:e})");
            assert_eq!(ceil(x).to_bits(), x.ceil().to_bits(), "ceil({x:e})");
        }
    }

    /// The values the plan's and the read-ahead's chains take (turns, sectors past a pass's
    /// start), the rounding's ties and edges, `-0.0`, and the fallback's range beyond 2^51.
    fn near_integers() -> Vec<f64> {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            -1.5,
            1.0,
            1.5,
            2.5,
            2.0 - 1e-16,
            1.0 - f64::EPSILON / 2.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            SMALL,
            SMALL - 0.5,
            SMALL - 1.0,
            SMALL + 1.0,
            4503599627370495.5,
            4503599627370496.0,
            -4503599627370495.5,
            9.1e18,
            -9.1e18,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for i in 0..4000 {
            let v = i as f64 * 0.37;
            let k = i as f64;
            xs.extend([
                v,
                -v,
                v / 7.0,
                v * 1e6 + 0.25,
                v * 1e12 + 0.5,
                k,
                k + 0.5,
                k - 0.5,
                k - f64::EPSILON * k,
                k + f64::EPSILON * k,
                k * 2f64.powi(38) + 0.5,
                k * 2f64.powi(40) - 0.25,
            ]);
        }
        xs
    }

    #[test]
    fn whole_nonneg_is_the_saturating_conversion_bit_for_bit() {
        for x in near_integers() {
            let want = (x as i64).max(0) as f64;
            assert_eq!(
                whole_nonneg(x).to_bits(),
                want.to_bits(),
                "whole_nonneg({x:e})"
            );
        }
    }

    #[test]
    fn trunc_plus_one_is_the_conversion_plus_one_bit_for_bit() {
        for x in near_integers().into_iter().filter(|x| !(*x >= 9.2e18)) {
            let want = (x as i64 + 1) as f64;
            assert_eq!(
                trunc_plus_one(x).to_bits(),
                want.to_bits(),
                "trunc_plus_one({x:e})"
            );
        }
    }

    #[test]
    fn max_not_nan_is_f64_max_bit_for_bit() {
        let xs = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            3.5e15,
        ];
        for x in xs {
            for y in xs.iter().copied().chain([f64::NAN]) {
                assert_eq!(
                    max_not_nan(x, y).to_bits(),
                    x.max(y).to_bits(),
                    "max_not_nan({x:e}, {y:e})"
                );
            }
        }
    }

    #[test]
    fn round_ns_rounds_half_up_and_clamps_noise_to_zero() {
        for (x, want) in [
            (0.0, 0),
            (0.49, 0),
            (0.5, 1),
            (2.5, 3),
            (-0.3, 0),
            (-7.0, 0),
        ] {
            assert_eq!(round_ns(x), want, "{x}");
        }
    }
}
