//! Floating-point steps of the hot path without library calls: on x86-64's baseline
//! instruction set `f64::floor` and `f64::ceil` are calls into libm. These give the same
//! bits for every |x| < 2^63, which holds for everything they are used on here (sector counts,
//! fractions of a revolution, nanoseconds below 292 years).

use crate::time::SimTime;

/// `x as SimTime` for a time or duration `-1 < x < 2^63` (truncated, as `as` does; the
/// callers clamp at zero first): through `i64`, which x86-64 converts in one instruction,
/// where the saturating conversion to `u64` takes a dozen.
#[inline(always)]
pub(crate) fn ns_of(x: f64) -> SimTime {
    debug_assert!(
        x > -1.0 && x < 9.2e18,
        "ns_of({x}) is outside the fast path's range"
    );
    x as i64 as SimTime
}

/// `x as f64` for a time or duration below 2^63 ns: from `i64`, one instruction where `u64`
/// takes several.
#[inline(always)]
pub(crate) fn f64_of(x: SimTime) -> f64 {
    debug_assert!(x < 1 << 63, "f64_of({x}) is outside the fast path's range");
    x as i64 as f64
}

/// `x.max(y)` for an `x` that is not NaN (times and durations here are finite): the same
/// bits, `x` on a tie as `f64::max` gives it, one `maxsd` without the NaN test and blend
/// that `f64::max` adds to the latency of a chain of maxima.
#[inline(always)]
pub(crate) fn max_not_nan(x: f64, y: f64) -> f64 {
    debug_assert!(!x.is_nan(), "max_not_nan of a NaN");
    if y > x {
        y
    } else {
        x
    }
}

/// `if d < 0.0 { d + 1.0 } else { d }` (a difference of two angles wrapped into a turn), bit
/// for bit: the subtraction of 0.0 leaves every value as it is (-0.0 included) and that of
/// -1.0 is the addition of 1.0, so the choice is the comparison's mask on the constant (an
/// `and`) where the conditional addition was a blend of both results.
#[inline(always)]
pub(crate) fn plus_turn_if_negative(d: f64) -> f64 {
    d - if d < 0.0 { -1.0 } else { 0.0 }
}

/// `(x + 0.5) as SimTime`: a non-negative duration to the nearest nanosecond (cheaper than
/// `f64::round`; rounding noise below zero gives 0), converted through `i64`, which takes
/// fewer instructions than a conversion to `u64`.
#[inline]
pub(crate) fn round_ns(x: f64) -> SimTime {
    debug_assert!(x < 9.2e18, "round_ns({x}) is outside the fast path's range");
    ((x + 0.5) as i64).max(0) as SimTime
}

/// `x.floor()`: truncate through `i64` (exact below 2^63) and step down for a negative
/// fraction, keeping the sign of a zero.
#[inline]
pub(crate) fn floor(x: f64) -> f64 {
    debug_assert!(
        x.abs() < 9.2e18,
        "floor({x}) is outside the fast path's range"
    );
    let t = x as i64 as f64;
    (if t > x { t - 1.0 } else { t }).copysign(x)
}

/// `x.ceil()`, likewise.
#[inline]
pub(crate) fn ceil(x: f64) -> f64 {
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
    fn plus_turn_if_negative_is_the_conditional_addition_bit_for_bit() {
        let tiny = f64::from_bits(1);
        let mut xs = vec![
            0.0,
            -0.0,
            tiny,
            -tiny,
            -1e-17,
            -f64::EPSILON,
            -0.5,
            -1.0 + f64::EPSILON,
            -1.0,
            0.5,
            1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        xs.extend((1..2000).map(|k| (k as f64 / 1000.0 - 1.0) * 0.999_999_7));
        for d in xs {
            let want = if d < 0.0 { d + 1.0 } else { d };
            assert_eq!(plus_turn_if_negative(d).to_bits(), want.to_bits(), "{d:e}");
        }
        assert!(plus_turn_if_negative(f64::NAN).is_nan());
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
