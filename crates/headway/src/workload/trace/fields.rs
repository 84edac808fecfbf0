//! Field parsers shared by the text readers. Each returns a message naming the field on
//! failure; the reader adds the file and line. Plain decimals are converted exactly in integer
//! arithmetic; exponents and other forms C's `%lf` accepts go through `f64`.

use std::borrow::Cow;

pub(crate) type FieldResult<T> = std::result::Result<T, String>;

pub(crate) fn lossy(f: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(f)
}

/// Digits only, no sign; `None` if empty, not digits, or over `u64`.
#[inline]
pub(crate) fn digits(f: &[u8]) -> Option<u64> {
    // No bound on the length: leading zeros are digits as any other (C's `strtoul` reads
    // them), and an overflow is caught digit by digit.
    if f.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &b in f {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// A non-negative decimal integer (an optional `+` allowed).
#[inline]
pub(crate) fn uint(f: &[u8], name: &str) -> FieldResult<u64> {
    if let Some(v) = digits(f.strip_prefix(b"+").unwrap_or(f)) {
        return Ok(v);
    }
    Err(uint_error(f, name))
}

#[cold]
fn uint_error(f: &[u8], name: &str) -> String {
    if f.is_empty() {
        return format!("{name}: missing (empty field)");
    }
    let body = f.strip_prefix(b"-");
    if body.is_some_and(|b| b.iter().all(u8::is_ascii_digit) && !b.is_empty()) {
        return format!("{name}: must not be negative, got `{}`", lossy(f));
    }
    if f.iter().all(u8::is_ascii_digit) {
        return format!("{name}: `{}` is too large", lossy(f));
    }
    format!(
        "{name}: expected a non-negative integer, got `{}`",
        lossy(f)
    )
}

/// Hexadecimal, with or without `0x`, as C's `%x` reads it.
#[inline]
pub(crate) fn hex(f: &[u8]) -> Option<u64> {
    let body = f
        .strip_prefix(b"0x")
        .or_else(|| f.strip_prefix(b"0X"))
        .unwrap_or(f);
    if body.is_empty() || body.len() > 16 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in body {
        v = (v << 4) | (b as char).to_digit(16)? as u64;
    }
    Some(v)
}

/// `digits[.digits]` scaled by 10^`pow10` to an integer, rounding half up at the first
/// dropped digit; `None` for anything else or on overflow.
#[inline]
pub(crate) fn decimal_scaled(f: &[u8], pow10: u32) -> Option<u64> {
    let (int, frac) = match memchr::memchr(b'.', f) {
        Some(p) => (&f[..p], &f[p + 1..]),
        None => (f, &[][..]),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let whole = if int.is_empty() { 0 } else { digits(int)? };
    let keep = frac.len().min(pow10 as usize);
    let (exact, rest) = frac.split_at(keep);
    let mut sub = if exact.is_empty() { 0 } else { digits(exact)? };
    sub *= 10u64.pow(pow10 - keep as u32);
    if !rest.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let round_up = rest.first().is_some_and(|&d| d >= b'5') as u64;
    whole
        .checked_mul(10u64.pow(pow10))?
        .checked_add(sub + round_up)
}

/// A non-negative number of units, each 10^`pow10` of the result's unit (e.g. seconds to
/// nanoseconds is 9), converted exactly when written as a plain decimal.
pub(crate) fn scaled_number(f: &[u8], pow10: u32, name: &str) -> FieldResult<u64> {
    let body = f.strip_prefix(b"+").unwrap_or(f);
    if let Some(v) = decimal_scaled(body, pow10) {
        return Ok(v);
    }
    let v: f64 = std::str::from_utf8(f)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| {
            if f.is_empty() {
                format!("{name}: missing (empty field)")
            } else {
                format!("{name}: expected a number, got `{}`", lossy(f))
            }
        })?;
    if v < 0.0 {
        return Err(format!("{name}: must not be negative, got `{}`", lossy(f)));
    }
    let scaled = v * 10f64.powi(pow10 as i32);
    // `>=`: u64::MAX as f64 rounds up to 2^64, so this excludes exactly the values whose
    // conversion would saturate (and NaN fails `is_finite`).
    if !scaled.is_finite() || scaled >= u64::MAX as f64 {
        return Err(format!("{name}: `{}` is out of range", lossy(f)));
    }
    Ok(scaled.round() as u64)
}

/// Bytes to the 512-byte sectors covering `[offset, offset + bytes)`: the first sector and
/// how many. A byte range that is not sector-aligned is widened to whole sectors.
#[inline]
pub(crate) fn byte_extent(offset: u64, bytes: u64) -> Option<(u64, u64)> {
    let end = offset.checked_add(bytes)?;
    let first = offset / 512;
    if bytes == 0 {
        return Some((first, 0));
    }
    let last = end.div_ceil(512);
    Some((first, last - first))
}

/// A sector count that fits a request.
#[inline]
pub(crate) fn sectors_u32(n: u64, name: &str) -> FieldResult<u32> {
    if n == 0 {
        return Err(format!("{name}: zero-length request"));
    }
    u32::try_from(n).map_err(|_| format!("{name}: {n} sectors is too large for one request"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_decimals_are_exact() {
        assert_eq!(decimal_scaled(b"0.000000001", 9), Some(1));
        assert_eq!(decimal_scaled(b"12.5", 9), Some(12_500_000_000));
        assert_eq!(decimal_scaled(b"1.0000000005", 9), Some(1_000_000_001));
        assert_eq!(decimal_scaled(b".25", 3), Some(250));
        assert_eq!(decimal_scaled(b"7.", 0), Some(7));
        assert_eq!(decimal_scaled(b"7.5", 0), Some(8));
        assert_eq!(decimal_scaled(b".", 3), None);
        assert_eq!(decimal_scaled(b"1e3", 3), None);
        assert_eq!(scaled_number(b"1e3", 3, "t"), Ok(1_000_000));
        assert!(scaled_number(b"-1", 3, "t")
            .unwrap_err()
            .contains("negative"));
        assert!(scaled_number(b"", 3, "t").unwrap_err().contains("missing"));
        assert!(scaled_number(b"1e300", 3, "t")
            .unwrap_err()
            .contains("out of range"));
    }

    #[test]
    fn integers_say_what_is_wrong() {
        assert_eq!(uint(b"+12", "x"), Ok(12));
        assert!(uint(b"-3", "x").unwrap_err().contains("negative"));
        assert!(uint(b"99999999999999999999999", "x")
            .unwrap_err()
            .contains("too large"));
        assert!(uint(b"1.5", "x")
            .unwrap_err()
            .contains("non-negative integer"));
        assert_eq!(hex(b"0x1F"), Some(31));
        assert_eq!(hex(b"0x"), None);
    }

    #[test]
    fn byte_ranges_widen_to_sectors() {
        assert_eq!(byte_extent(0, 4096), Some((0, 8)));
        assert_eq!(byte_extent(512, 1), Some((1, 1)));
        assert_eq!(byte_extent(256, 512), Some((0, 2)));
        assert_eq!(byte_extent(1000, 0), Some((1, 0)));
        assert_eq!(byte_extent(1000, 100), Some((1, 2)));
        assert_eq!(byte_extent(u64::MAX, 1), None);
    }
}
