//! The fast path in front of the DiskSim ASCII grammar ([`super::disksim_ascii`]): the
//! usual record, parsed in place in the input's buffer. It only ever answers with a record
//! or declines; every line it declines (comments, blank lines, exponents, errors, a line cut
//! by the buffer's end) goes to the grammar, which alone reports errors. Wherever it answers
//! it gives the grammar's record, which the tests below check.
//!
//! Two tiers, one behind the other: [`strict_run`] takes runs of the most usual lines
//! (`D{1,8}(.D{1,6})? D{1,8} D{1,8} D{1,8} D`) from a fixed window with no bound checks, and
//! [`fast_record`] takes any record of plain decimal numbers (and hexadecimal flags), its
//! numbers read eight bytes at a time ([`Word`]).

use super::TraceRecord;
use crate::request::Op;
use crate::time::SimTime;

/// DiskSim's request flags (`disksim_reqflags.h`).
const READ: u64 = 0x1;
const TIME_CRITICAL: u64 = 0x2;
const TIME_LIMITED: u64 = 0x4;
const SYNCHRONOUS: u64 = 0x80;
const ASYNCHRONOUS: u64 = 0x100;

/// Whether a request with DiskSim `flags` is time-critical or time-limited, as DiskSim's
/// ASCII trace reader marks it: by those bits, or an asynchronous read (time-limited) or a
/// synchronous request that is not asynchronous (time-critical).
#[inline(always)]
pub(super) fn high_priority(flags: u64) -> bool {
    let marked = if flags & ASYNCHRONOUS != 0 {
        flags & READ != 0
    } else {
        flags & SYNCHRONOUS != 0
    };
    flags & (TIME_CRITICAL | TIME_LIMITED) != 0 || marked
}

/// The record of a DiskSim ASCII line with `flags`, whichever path read it.
#[inline(always)]
pub(super) fn record(
    time_ns: SimTime,
    device: u16,
    lbn: u64,
    sectors: u32,
    flags: u64,
) -> TraceRecord {
    TraceRecord {
        time_ns,
        device,
        lbn,
        sectors,
        op: if flags & READ != 0 {
            Op::Read
        } else {
            Op::Write
        },
        process: 0,
        response_ns: None,
        zone_op: None,
        high_priority: high_priority(flags),
    }
}

/// The common case, fast: a well-formed record of plain decimal numbers whose line ends with
/// a newline inside `buf`, parsed in one pass over the bytes. Returns the record and the
/// bytes it used (newline included), or `None` for anything else (comments, blank lines,
/// exponents, errors, a line cut by the end of the buffer), which the grammar
/// ([`super::disksim_ascii`]) then reads with full checks and messages. The two must agree wherever this one answers.
///
/// Each number is read eight bytes at a time ([`Word`]): its digits found and converted
/// in a few word-wide operations rather than a loop and two tests per byte.
#[inline(always)]
pub(super) fn fast_record(buf: &[u8]) -> Option<(TraceRecord, usize)> {
    let mut i = skip_blanks(buf, 0);
    let (time_ns, at) = time_ns(buf, i)?;
    i = field_end(buf, at)?;
    let (device, at) = uint(buf, i)?;
    i = field_end(buf, at)?;
    let (lbn, at) = uint(buf, i)?;
    i = field_end(buf, at)?;
    let (sectors, at) = uint(buf, i)?;
    i = field_end(buf, at)?;
    let (flags, mut i) = hex_digits(buf, i)?;
    if buf.get(i) != Some(&b'\n') {
        i = skip_blanks(buf, i);
        if buf.get(i) != Some(&b'\n') {
            return None;
        }
    }
    if device > u16::MAX as u64 || sectors == 0 || sectors > u32::MAX as u64 {
        return None;
    }
    let rec = record(time_ns, device as u16, lbn, sectors as u32, flags);
    Some((rec, i + 1))
}

/// Bytes of the buffer [`strict_record`] needs from a line's start: more than its longest
/// line (45 bytes) and its last word's end (42), so that none of its loads is checked.
const STRICT_WINDOW: usize = 64;

/// Up to `room` records by [`strict_record`] from `buf[at..]`, pushed with their lines
/// (`line` the one before the first): where the run stopped and how many it took. A
/// function of its own, so that its loop keeps the words' constants in registers rather
/// than sharing them with `fast_record`'s code around it.
#[inline(never)]
pub(super) fn strict_run(
    buf: &[u8],
    mut at: usize,
    room: usize,
    line: usize,
    push: &mut impl FnMut(TraceRecord, usize),
) -> (usize, usize) {
    let mut n = 0;
    while n < room {
        let Some(w) = buf
            .get(at..)
            .and_then(|rest| rest.first_chunk::<STRICT_WINDOW>())
        else {
            break;
        };
        let Some((rec, used)) = strict_record(w) else {
            break;
        };
        at += used;
        n += 1;
        push(rec, line + n);
    }
    (at, n)
}

/// The usual line, fastest: `D{1,8}(.D{1,6})? D{1,8} D{1,8} D{1,8} D\n` (`D` a decimal
/// digit, one space between fields, no blank before the first or after the last). The
/// record and the bytes used (newline included) as [`fast_record`] gives them, or `None`
/// for any other line, which `fast_record` then reads: the two agree wherever this one
/// answers, and this one answers only on lines `fast_record` takes.
///
/// Every field has at most eight digits, so it is one word whose digits end inside it or at
/// its end, and the field's end is one byte test: a ninth digit is not the blank or point
/// expected there. A field starts at most nine bytes after the last one started, so no word
/// read here reaches past byte 42 of the window and no byte past 44; the window of
/// [`STRICT_WINDOW`] bytes is then no bound to check, only a fixed array. No number can
/// overflow: eight digits of milliseconds are below 10^14 ns, eight digits of sectors
/// below `u32::MAX`.
#[inline(always)]
fn strict_record(w: &[u8; STRICT_WINDOW]) -> Option<(TraceRecord, usize)> {
    // The time's whole milliseconds.
    let x = strict_word(w, 0);
    let n = x.digits();
    if n == 0 {
        return None;
    }
    let ms = x.value_of(n);
    let mut p = n;
    let mut sub_ns = 0;
    if w[p] == b'.' {
        let f = strict_word(w, p + 1);
        let k = f.digits();
        if k.wrapping_sub(1) >= 6 {
            return None; // `7.` or seven digits and more: `fast_record`'s, to round
        }
        // The digits past the k-th made zeros, as `time_ns` does: six digits are then the
        // fraction in whole nanoseconds.
        sub_ns = Word(f.0 & !(u64::MAX << (8 * k))).value_of(6);
        p += 1 + k;
    }
    if w[p] != b' ' {
        return None;
    }
    let (device, p) = strict_small(w, p + 1)?;
    let (lbn, p) = strict_uint(w, p)?;
    let (sectors, p) = strict_small(w, p)?;
    // One decimal digit of flags (its hexadecimal value is the digit's), then the newline.
    let flags = pair(w, p) ^ u16::from_le_bytes([b'0', b'\n']);
    if flags > 9 {
        return None;
    }
    if device > u16::MAX as u64 || sectors == 0 {
        return None;
    }
    let time_ns = ms * 1_000_000 + sub_ns;
    let rec = record(
        time_ns,
        device as u16,
        lbn,
        sectors as u32,
        u64::from(flags),
    );
    Some((rec, p + 2))
}

/// The word of the window at `p` (at most 42 in [`strict_record`]).
#[inline(always)]
fn strict_word(w: &[u8; STRICT_WINDOW], p: usize) -> Word {
    let b: [u8; 8] = w[p..p + 8].try_into().unwrap();
    Word(u64::from_le_bytes(b) ^ 0x3030_3030_3030_3030)
}

/// The two bytes of the window at `p`, the first lowest.
#[inline(always)]
fn pair(w: &[u8; STRICT_WINDOW], p: usize) -> u16 {
    u16::from_le_bytes([w[p], w[p + 1]])
}

/// [`strict_uint`] for a field that is often one digit (a device, a small count).
#[inline(always)]
fn strict_small(w: &[u8; STRICT_WINDOW], p: usize) -> Option<(u64, usize)> {
    // One digit and the space in one test: the pair less `0 `'s bytes is below 10 only if
    // the first byte is a digit (then its value) and the second the space.
    let one = pair(w, p) ^ u16::from_le_bytes([b'0', b' ']);
    if one < 10 {
        return Some((one as u64, p + 2));
    }
    strict_uint(w, p)
}

/// One to eight digits at `p` and then one space: the value and where the next field starts.
#[inline(always)]
fn strict_uint(w: &[u8; STRICT_WINDOW], p: usize) -> Option<(u64, usize)> {
    let x = strict_word(w, p);
    let n = x.digits();
    if n == 0 || w[p + n] != b' ' {
        return None;
    }
    Some((x.value_of(n), p + n + 1))
}

/// Whitespace inside a line, as C's `isspace` has it, less the newline that ends the line:
/// space, tab, vertical tab, form feed and carriage return.
#[inline(always)]
fn is_blank_in_line(b: u8) -> bool {
    const BLANKS: u64 = 1 << b' ' | 1 << b'\t' | 1 << 0x0b | 1 << 0x0c | 1 << b'\r';
    b < 64 && BLANKS >> b & 1 == 1
}

#[inline(always)]
fn skip_blanks(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(|&b| is_blank_in_line(b)) {
        i += 1;
    }
    i
}

/// A field ended at `i` (a blank follows it: a field is never last on a line here): where
/// the next one starts, or a blank of a longer run of them, which the next field's parser
/// skips (one space between fields is the usual case, and only it is tested here).
#[inline(always)]
fn field_end(s: &[u8], i: usize) -> Option<usize> {
    s.get(i)
        .is_some_and(|&b| is_blank_in_line(b))
        .then_some(i + 1)
}

/// Eight bytes of the input as one little-endian word (the first byte lowest), digits
/// turned into their values (`b ^ b'0'`). Bytes past the end of the input read as zero,
/// which is no digit, blank or newline, so a number is never read past the end.
#[derive(Clone, Copy)]
struct Word(u64);

impl Word {
    #[inline(always)]
    fn at(s: &[u8], i: usize) -> Word {
        let w = match s.get(i..i + 8) {
            Some(b) => u64::from_le_bytes(b.try_into().unwrap()),
            None => {
                let mut w = [0u8; 8];
                let rest = s.get(i..).unwrap_or(&[]);
                w[..rest.len()].copy_from_slice(rest);
                u64::from_le_bytes(w)
            }
        };
        Word(w ^ 0x3030_3030_3030_3030)
    }

    /// How many of the bytes, from the first, are decimal digits (0 to 8). A digit's byte
    /// is 0 to 9 here; adding 0x76 sets the top bit of any byte from 10 to 0x7f, and the
    /// bytes from 0x80 up have it already. A carry out of a byte only reaches later bytes,
    /// so the first byte flagged is the first that is not a digit.
    #[inline(always)]
    fn digits(self) -> usize {
        let x = self.0;
        let not_digit = (x.wrapping_add(0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080;
        (not_digit.trailing_zeros() / 8) as usize
    }

    /// The value of the first `n` bytes (0 to 8), all digits, as a decimal number: the
    /// digits moved to the top of the word (zeros, leading, fill its bottom), then paired,
    /// paired again and again, each step one multiply.
    #[inline(always)]
    fn value(self, n: usize) -> u64 {
        debug_assert!(n <= 8);
        // No digits: a shift by 64, out of range, is zero.
        let x = self.0.checked_shl(64 - 8 * n as u32).unwrap_or(0);
        let x = ((x & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(10 << 8 | 1)) >> 8;
        let x = ((x & 0x00ff_00ff_00ff_00ff).wrapping_mul(100 << 16 | 1)) >> 16;
        ((x & 0x0000_ffff_0000_ffff).wrapping_mul(10_000 << 32 | 1)) >> 32
    }
}

impl Word {
    /// [`Word::value`] of one to eight digits, without its test for none, for a word whose
    /// first `n` bytes are digits' values (0 to 9). Once the bytes past them are shifted
    /// out, every byte is one of those or a zero, so the first step needs no mask: a byte's
    /// ten times its neighbour plus itself is at most 99, which carries into no other byte.
    #[inline(always)]
    fn value_of(self, n: usize) -> u64 {
        debug_assert!((1..=8).contains(&n));
        let x = self.0 << (64 - 8 * n as u32);
        debug_assert!(x.to_le_bytes().iter().all(|&b| b <= 9));
        let x = x.wrapping_mul(10 << 8 | 1) >> 8;
        let x = ((x & 0x00ff_00ff_00ff_00ff).wrapping_mul(100 << 16 | 1)) >> 16;
        ((x & 0x0000_ffff_0000_ffff).wrapping_mul(10_000 << 32 | 1)) >> 32
    }
}

const POW10: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The run of decimal digits at `i`: its value and where it ends. At most 19 digits (so no
/// overflow check is needed); a longer run is `None`.
#[inline(always)]
fn digit_run(s: &[u8], i: usize) -> Option<(u64, usize)> {
    let w = Word::at(s, i);
    match w.digits() {
        0 => Some((0, i)),
        // One digit (a device, a small count) is its own value, without the multiplies.
        1 => Some((w.0 & 0x0f, i + 1)),
        8 if s.get(i + 8).is_some_and(u8::is_ascii_digit) => long_digits(s, i, w.value(8)),
        n => Some((w.value(n), i + n)),
    }
}

/// Runs of nine digits or more (large block numbers, nanosecond times).
#[inline(never)]
fn long_digits(s: &[u8], i: usize, first8: u64) -> Option<(u64, usize)> {
    let mut v = first8;
    let mut n = 8;
    loop {
        let w = Word::at(s, i + n);
        let k = w.digits().min(19 - n);
        v = v * POW10[k] + w.value(k);
        n += k;
        if k < 8 || n == 19 {
            // A 20th digit is too many.
            let more = s.get(i + n).is_some_and(u8::is_ascii_digit);
            return (!more).then_some((v, i + n));
        }
    }
}

/// A non-empty run of decimal digits, after any blanks.
#[inline(always)]
fn uint(s: &[u8], i: usize) -> Option<(u64, usize)> {
    let (v, end) = digit_run(s, i)?;
    if end > i {
        Some((v, end))
    } else {
        uint_after_blanks(s, i)
    }
}

#[inline(never)]
fn uint_after_blanks(s: &[u8], i: usize) -> Option<(u64, usize)> {
    let start = skip_blanks(s, i);
    let (v, end) = digit_run(s, start)?;
    (start > i && end > start).then_some((v, end))
}

/// `digits[.digits]` milliseconds, at most six digits after the point (whole
/// nanoseconds; more are left to the general parser, which rounds), as nanoseconds.
#[inline(always)]
fn time_ns(s: &[u8], i: usize) -> Option<(SimTime, usize)> {
    let (ms, mut end) = digit_run(s, i)?;
    let mut sub_ns = 0;
    if s.get(end) == Some(&b'.') {
        let w = Word::at(s, end + 1);
        let n = w.digits();
        if n > 6 {
            return None;
        }
        // The digits past the n-th made zeros (a zero byte is the digit 0 here): six digits
        // are then the fraction in whole nanoseconds, with no table and no test for n = 0.
        sub_ns = Word(w.0 & !(u64::MAX << (8 * n))).value(6);
        end += 1 + n;
        if end == i + 1 {
            return None; // a lone `.`
        }
    } else if end == i {
        return None;
    }
    Some((ms.checked_mul(1_000_000)?.checked_add(sub_ns)?, end))
}

/// One to sixteen hexadecimal digits, after any blanks (`0x` prefixes and longer runs are
/// left to the general parser).
#[inline(always)]
fn hex_digits(s: &[u8], i: usize) -> Option<(u64, usize)> {
    // The usual flags, one decimal digit and then the line's end or a blank, in two tests
    // rather than the loop's three ranges a byte.
    let d = s.get(i).map_or(u8::MAX, |b| b.wrapping_sub(b'0'));
    if d <= 9
        && s.get(i + 1)
            .is_some_and(|&b| b == b'\n' || is_blank_in_line(b))
    {
        return Some((d as u64, i + 1));
    }
    let (v, end) = hex_run(s, i);
    if end > i {
        (end - i <= 16).then_some((v, end))
    } else {
        let start = skip_blanks(s, i);
        let (v, end) = hex_run(s, start);
        (start > i && end > start && end - start <= 16).then_some((v, end))
    }
}

#[inline(always)]
fn hex_run(s: &[u8], mut i: usize) -> (u64, usize) {
    let mut v = 0u64;
    while let Some(d) = s.get(i).and_then(|&b| hex_value(b)) {
        v = (v << 4) | d as u64;
        i += 1;
    }
    (v, i)
}

#[inline(always)]
fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::disksim_ascii::parse_line;
    use super::*;

    /// The word-at-a-time fast path at its edges: digit runs around the 8-byte word and the
    /// 19-digit limit, records ending right at the end of the input (words padded with
    /// zeros), several blanks between fields.
    #[test]
    fn fast_path_edges_agree_with_the_general_parser() {
        let mut lines = Vec::new();
        for n in [1, 7, 8, 9, 15, 16, 17, 18, 19, 20, 21] {
            let run = "9".repeat(n);
            let ones = "1".repeat(n);
            lines.push(format!("0 0 {run} 8 1"));
            lines.push(format!("{ones} 0 8 8 1"));
            lines.push(format!("{ones}.5 0 8 8 1"));
            lines.push(format!("1.{} 0 8 8 1", "5".repeat(n.min(9))));
            lines.push(format!("0 0 8 {ones} 1"));
            lines.push(format!("0 0 8 8 {}", "f".repeat(n)));
        }
        lines.extend(
            [
                "0 0 8 8 1",
                "  0.5 \t 1  16\t\t8 \t 0  ",
                "5. 0 8 8 1",
                ".5 0 8 8 1",
                ". 0 8 8 1",
                "0 65535 8 8 1",
                "0 65536 8 8 1",
                "0 0 8 4294967295 1",
                "0 0 8 4294967296 1",
                "0 0 8 0 1",
                "0 0 8 8 0x1",
                "0 0 8 8",
                "0 0 8 8 1 2",
                "18446744073709.551615 0 8 8 1",
                "18446744073709.551616 0 8 8 1",
            ]
            .map(String::from),
        );
        for l in &lines {
            // At the very end of the input, and followed by more.
            for text in [format!("{l}\n"), format!("{l}\n0 0 0 8 1\n")] {
                if let Some((rec, used)) = fast_record(text.as_bytes()) {
                    assert_eq!(used, l.len() + 1, "{l:?}");
                    assert_eq!(parse_line(l.as_bytes()), Ok(Some(rec)), "{l:?}");
                }
            }
        }
        // And the ordinary ones are the fast path's to take.
        for l in [
            "0 0 8 8 1",
            "1.5 0 99999999 8 1",
            "1.123456 0 1234567890123456789 8 f",
        ] {
            assert!(fast_record(format!("{l}\n").as_bytes()).is_some(), "{l:?}");
        }
        assert_eq!(
            fast_record(b"12345678.5 0 123456789 16 1\n").unwrap().0.lbn,
            123_456_789
        );
    }

    /// The strict path at its edges: wherever it answers, `fast_record` and `parse_line`
    /// give the same record and length, and it does answer on the usual lines.
    mod strict_path {
        use super::super::super::disksim_ascii::parse_line;
        use super::super::super::fields::lossy;
        use super::super::*;
        use crate::request::Op;
        use proptest::prelude::*;

        /// `text` (a line and what follows it) through both paths, the strict one on the
        /// window at its start: the strict path's answer, checked against the others.
        fn check(text: &[u8]) -> Option<(TraceRecord, usize)> {
            let w = text.first_chunk::<STRICT_WINDOW>()?;
            let got = strict_record(w);
            if let Some((rec, used)) = got {
                assert_eq!(text[used - 1], b'\n', "{:?}", lossy(text));
                assert_eq!(fast_record(text), got, "{:?}", lossy(text));
                assert_eq!(
                    parse_line(&text[..used - 1]),
                    Ok(Some(rec)),
                    "{:?}",
                    lossy(text)
                );
            }
            got
        }

        /// The line, then enough of the next to fill the window (or exactly the window).
        fn padded(line: &str) -> Vec<u8> {
            let mut t = format!("{line}\n").into_bytes();
            while t.len() < STRICT_WINDOW {
                t.extend_from_slice(b"9 0 8 8 1\n");
            }
            t
        }

        #[test]
        fn edges() {
            let take = |l: &str| check(&padded(l)).map(|(r, _)| r);
            // Taken: the usual lines, up to eight digits a field and six of fraction.
            for l in [
                "0.221 5 16294790 16 1",
                "12.5 0 8 8 0",
                "1234.567890 0 8 8 1",
                "12345678.123456 65535 99999999 99999999 9",
                "7 0 0 1 2",
                "0.000001 0 0 1 3",
                "00000000.000000 00000000 00000000 00000001 0",
            ] {
                assert!(take(l).is_some(), "{l:?}");
            }
            assert_eq!(take("0.221 5 16294790 16 1").unwrap().time_ns, 221_000);
            assert_eq!(take("12.5 0 8 8 0").unwrap().time_ns, 12_500_000);
            assert_eq!(take("1234.567890 0 8 8 1").unwrap().time_ns, 1_234_567_890);
            assert_eq!(take("7 0 0 1 2").unwrap().op, Op::Write);
            assert_eq!(take("7 0 0 1 3").unwrap().op, Op::Read);
            // Left to `fast_record` (or beyond): nine digits, a seventh of fraction (it
            // rounds), blanks other than one space, CRLF, the flags' hex and longer
            // flags, an empty fraction or integer part, out of range, not five fields.
            for l in [
                "0.221 5 162947904 16 1",
                "123456789 0 8 8 1",
                "123456789.5 0 8 8 1",
                "1.2345675 0 8 8 1",
                "1.1234567 0 8 8 1",
                "1 123456789 8 8 1",
                "1 0 8 123456789 1",
                " 1 0 8 8 1",
                "1  0 8 8 1",
                "1\t0 8 8 1",
                "1 0\t8 8 1",
                "1 0 8 8\t1",
                "1 0 8 8 1\r",
                "1 0 8 8 1 ",
                "1 0 8 8 a",
                "1 0 8 8 10",
                "1 0 8 8 0x1",
                "7. 0 8 8 1",
                ".5 0 8 8 1",
                "1 65536 8 8 1",
                "1 0 8 0 1",
                "1 0 8 8",
                "1 0 8 8 1 2",
                "# 1 0 8 8 1",
                "",
                "1e3 0 8 8 1",
                "+1 0 8 8 1",
                "1 -0 8 8 1",
            ] {
                assert!(take(l).is_none(), "{l:?}");
            }
            // Exactly a window's bytes left: the longest line, the rest a line cut short.
            let longest = "12345678.123456 65535 99999999 99999999 9\n";
            let mut t = longest.as_bytes().to_vec();
            t.extend_from_slice(&b"1 0 8 8 1\n".repeat(3)[..STRICT_WINDOW - longest.len()]);
            assert_eq!(t.len(), STRICT_WINDOW);
            assert_eq!(check(&t).unwrap().1, longest.len());
            let mut t = b"1.5 0 8 8 1\n".to_vec();
            t.resize(STRICT_WINDOW, b'x');
            assert_eq!(check(&t).unwrap().1, 12);
            // Fewer than a window's bytes: not this path's.
            assert!(check(&t[..STRICT_WINDOW - 1]).is_none());
        }

        fn field(max: usize) -> impl Strategy<Value = String> {
            prop_oneof![
                8 => proptest::string::string_regex(&format!("[0-9]{{1,{max}}}")).unwrap(),
                1 => "[0-9]{9,12}",
                1 => "[0-9a-fA-F+-]{1,3}",
            ]
        }

        fn sep() -> impl Strategy<Value = &'static str> {
            prop_oneof![20 => Just(" "), 1 => Just("\t"), 1 => Just("  "), 1 => Just(" \t")]
        }

        /// Well-formed records mostly in the strict grammar, and near misses of it.
        fn line() -> impl Strategy<Value = String> {
            (
                prop_oneof![20 => Just(""), 1 => Just(" ")],
                field(8),
                prop_oneof![
                    8 => "\\.[0-9]{1,6}",
                    2 => Just(String::new()),
                    1 => "\\.[0-9]{0,9}",
                ],
                (sep(), field(8), sep(), field(8), sep(), field(8), sep()),
                prop_oneof![20 => "[0-9]", 1 => "[0-9a-fA-F]{1,3}"],
                prop_oneof![20 => Just(""), 1 => Just("\r"), 1 => Just(" "), 1 => Just(" 5")],
            )
                .prop_map(
                    |(lead, ms, frac, (s1, dev, s2, lbn, s3, n, s4), flags, end)| {
                        format!("{lead}{ms}{frac}{s1}{dev}{s2}{lbn}{s3}{n}{s4}{flags}{end}")
                    },
                )
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(8192))]

            /// Wherever the strict path answers, it answers as `fast_record` and
            /// `parse_line` do (`check`), with the line followed by more text, by padding to
            /// exactly the window, or cut by the window's end.
            #[test]
            fn agrees_with_the_other_paths(
                l in line(), next in line(), pad in 0usize..8, cut in 0usize..48
            ) {
                let mut t = format!("{l}\n{next}\n").into_bytes();
                check(&t);
                t.resize(STRICT_WINDOW + pad, b'0');
                check(&t);
                // The line cut anywhere, the rest of the window blanks or digits.
                for fill in [b' ', b'1'] {
                    let mut t = l.clone().into_bytes();
                    t.truncate(cut);
                    t.resize(STRICT_WINDOW, fill);
                    prop_assert!(check(&t).is_none());
                }
            }

            /// And it takes every line of its grammar.
            #[test]
            fn takes_the_usual_lines(
                ms in 0u64..100_000_000, frac in "(\\.[0-9]{1,6})?", dev in 0u16..,
                lbn in 0u64..100_000_000, n in 1u32..100_000_000, flags in 0u8..10
            ) {
                let l = format!("{ms}{frac} {dev} {lbn} {n} {flags}");
                let (_, used) = check(&padded(&l)).expect("strict path declined");
                prop_assert_eq!(used, l.len() + 1);
            }
        }
    }

    mod fast_path {
        use super::super::super::disksim_ascii::parse_line;
        use super::super::*;
        use proptest::prelude::*;

        fn token() -> impl Strategy<Value = String> {
            prop_oneof![
                "[0-9]{1,22}",
                "[0-9]{0,5}\\.[0-9]{0,9}",
                "-[0-9]{1,4}",
                "\\+[0-9]{1,3}",
                "0[xX][0-9a-fA-F]{0,3}",
                "[0-9a-fA-F]{1,18}",
                "[0-9]\\.?[0-9]{0,3}[eE]-?[0-9]",
                "#[0-9]?",
                "[a-z.]{1,3}",
            ]
        }

        /// Mostly five mostly-numeric fields, so that both parsers often accept the line
        /// and the comparison is not only between two refusals.
        fn line() -> impl Strategy<Value = String> {
            let field = prop_oneof![4 => "[0-9]{1,3}(\\.[0-9]{1,7})?", 1 => token()];
            let count = prop_oneof![6 => Just(5usize), 1 => 0usize..8];
            let blanks = "[ \t\r\x0B\x0C]{1,2}";
            (
                "[ \t\r\x0B\x0C]{0,2}",
                count.prop_flat_map(move |n| prop::collection::vec((field.clone(), blanks), n)),
            )
                .prop_map(|(lead, parts)| {
                    let mut s = lead;
                    for (t, sep) in parts {
                        s.push_str(&t);
                        s.push_str(&sep);
                    }
                    s
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4096))]

            /// Wherever the fast path answers, it answers as the general parser does, and
            /// it takes exactly one line.
            #[test]
            fn agrees_with_the_general_parser(l in line()) {
                let text = format!("{l}\n");
                if let Some((rec, used)) = fast_record(text.as_bytes()) {
                    prop_assert_eq!(used, text.len());
                    prop_assert_eq!(parse_line(l.as_bytes()), Ok(Some(rec)));
                }
            }

            /// And it answers for every ordinary record, so the speed is not an accident.
            #[test]
            fn takes_every_plain_record(
                ms in 0u64..10_000_000_000, frac in "[0-9]{0,6}", dev in 0u16..,
                lbn in 0u64..u64::MAX / 2, n in 1u32.., flags in 0u8..16, tail in "[ \t\r]{0,2}"
            ) {
                let dot = if frac.is_empty() { String::new() } else { format!(".{frac}") };
                let text = format!("{ms}{dot} {dev}\t{lbn}  {n} {flags:x}{tail}\nNEXT");
                let (rec, used) = fast_record(text.as_bytes()).expect("fast path declined");
                prop_assert_eq!(&text[used..], "NEXT");
                prop_assert_eq!(Some(rec), parse_line(&text.as_bytes()[..used - 1]).unwrap());
            }
        }
    }
}
