//! DiskSim 4.0's ASCII trace format: one request per line,
//!
//! ```text
//! time_ms devno blkno bcount flags
//! 0.221   5     162947904 16 1
//! ```
//!
//! `time_ms` is the arrival time in (fractional) milliseconds, `blkno` the first 512-byte
//! sector, `bcount` the length in sectors, and `flags` a hexadecimal word (DiskSim reads it
//! with `%x`) whose bit 0 is set for a read. Blank lines and lines starting with `#` are
//! skipped. Exactly five fields are required: a line with more or fewer is more likely a
//! different format than a record to guess at.

use std::io::BufRead;
use std::path::PathBuf;

use super::{TraceReader, TraceRecord};
use crate::error::{HeadwayError, Result};
use crate::request::Op;
use crate::time::{ms_to_ns, SimTime};

/// Longer than any sane record; a file with longer lines is not this format (and reading it
/// line by line must not pull a whole binary file into memory).
const MAX_LINE_BYTES: usize = 64 * 1024;

const FIELDS: &str = "time_ms devno blkno bcount flags";

/// Streams records from DiskSim ASCII text, never holding more than one line.
pub struct DisksimAsciiReader<R> {
    input: R,
    /// Holds a line only when it straddles two fills of the input buffer; otherwise lines
    /// are parsed in place.
    spill: Vec<u8>,
    line: usize,
    origin: Option<PathBuf>,
    /// Set by an error after which the input cannot be resynchronised.
    broken: bool,
}

impl<R: BufRead> DisksimAsciiReader<R> {
    /// `origin` names the file in error messages.
    pub fn new(input: R, origin: Option<PathBuf>) -> Self {
        DisksimAsciiReader {
            input,
            spill: Vec::new(),
            line: 0,
            origin,
            broken: false,
        }
    }

    fn error(&self, line: usize, msg: String) -> HeadwayError {
        HeadwayError::trace(self.origin.clone(), Some(line), msg)
    }

    /// Parse the next line, whole in `input`'s buffer or gathered in `spill`, with the
    /// general parser. `Ok(None)` at the end of the input; `Ok(Some(None))` for a blank or
    /// comment line.
    fn next_line(&mut self) -> Result<Option<Option<TraceRecord>>> {
        self.spill.clear();
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.broken = true;
                    return Err(self.error(self.line + 1, format!("cannot read the trace: {e}")));
                }
            };
            if buf.is_empty() {
                // End of input: a last line without a newline still counts.
                if self.spill.is_empty() {
                    return Ok(None);
                }
                self.line += 1;
                let parsed = parse_line(&self.spill);
                return parsed.map(Some).map_err(|m| self.error(self.line, m));
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) if self.spill.is_empty() => {
                    let parsed = parse_line(&buf[..i]);
                    self.input.consume(i + 1);
                    self.line += 1;
                    return parsed.map(Some).map_err(|m| self.error(self.line, m));
                }
                Some(i) => {
                    self.spill.extend_from_slice(&buf[..i]);
                    self.input.consume(i + 1);
                    self.line += 1;
                    let parsed = parse_line(&self.spill);
                    return parsed.map(Some).map_err(|m| self.error(self.line, m));
                }
                None => {
                    let n = buf.len();
                    self.spill.extend_from_slice(buf);
                    self.input.consume(n);
                    if self.spill.len() > MAX_LINE_BYTES {
                        self.broken = true;
                        return Err(self.error(
                            self.line + 1,
                            format!(
                                "line longer than {MAX_LINE_BYTES} bytes: not a DiskSim ASCII trace \
                                 ({FIELDS})"
                            ),
                        ));
                    }
                }
            }
        }
    }
}

impl<R: BufRead> TraceReader for DisksimAsciiReader<R> {
    // Small and always inlined: the common record is parsed in place by `fast_record`, and
    // everything else goes to the out-of-line general path, so the replay loop stays tight
    // however many places use the reader.
    #[inline(always)]
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        if let Ok(buf) = self.input.fill_buf() {
            if let Some((rec, used)) = fast_record(buf) {
                self.input.consume(used);
                self.line += 1;
                return Ok(Some(rec));
            }
        }
        self.next_record_general()
    }

    fn line(&self) -> usize {
        self.line
    }

    fn can_continue(&self) -> bool {
        !self.broken
    }

    /// The records [`fast_record`] takes, one after the other from one fill of the input's
    /// buffer: what `next_record` does for each, less the buffer's check and the call.
    #[inline]
    fn next_run(&mut self, room: usize, push: &mut impl FnMut(TraceRecord, usize)) -> usize {
        let Ok(buf) = self.input.fill_buf() else {
            return 0;
        };
        let (mut at, mut n) = (0, 0);
        loop {
            // The usual lines by the strict path while the buffer holds a window ahead (all
            // but its last few lines); the first other one by `fast_record`, then again.
            let (to, took) = strict_run(buf, at, room - n, self.line + n, push);
            at = to;
            n += took;
            if n == room {
                break;
            }
            let Some((rec, used)) = fast_record(&buf[at..]) else {
                break;
            };
            at += used;
            n += 1;
            push(rec, self.line + n);
        }
        self.input.consume(at);
        self.line += n;
        n
    }
}

impl<R: BufRead> DisksimAsciiReader<R> {
    #[inline(never)]
    fn next_record_general(&mut self) -> Result<Option<TraceRecord>> {
        if self.broken {
            return Ok(None);
        }
        loop {
            match self.next_line()? {
                None => return Ok(None),
                Some(Some(rec)) => return Ok(Some(rec)),
                Some(None) => {}
            }
        }
    }
}

/// The common case, fast: a well-formed record of plain decimal numbers whose line ends with
/// a newline inside `buf`, parsed in one pass over the bytes. Returns the record and the
/// bytes it used (newline included), or `None` for anything else (comments, blank lines,
/// exponents, errors, a line cut by the end of the buffer), which [`parse_line`] then handles
/// with full checks and messages. The two must agree wherever this one answers.
///
/// Each number is read eight bytes at a time ([`Word`]): its digits found and converted
/// in a few word-wide operations rather than a loop and two tests per byte.
#[inline(always)]
fn fast_record(buf: &[u8]) -> Option<(TraceRecord, usize)> {
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
    Some((
        TraceRecord {
            time_ns,
            device: device as u16,
            lbn,
            sectors: sectors as u32,
            op: if flags & 1 == 1 { Op::Read } else { Op::Write },
            process: 0,
            response_ns: None,
        },
        i + 1,
    ))
}

/// Bytes of the buffer [`strict_record`] needs from a line's start: more than its longest
/// line (45 bytes) and its last word's end (42), so that none of its loads is checked.
const STRICT_WINDOW: usize = 64;

/// Up to `room` records by [`strict_record`] from `buf[at..]`, pushed with their lines
/// (`line` the one before the first): where the run stopped and how many it took. A
/// function of its own, so that its loop keeps the words' constants in registers rather
/// than sharing them with `fast_record`'s code around it.
#[inline(never)]
fn strict_run(
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
    Some((
        TraceRecord {
            time_ns: ms * 1_000_000 + sub_ns,
            device: device as u16,
            lbn,
            sectors: sectors as u32,
            op: if flags & 1 == 1 { Op::Read } else { Op::Write },
            process: 0,
            response_ns: None,
        },
        p + 2,
    ))
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
fn is_blank(b: u8) -> bool {
    const BLANKS: u64 = 1 << b' ' | 1 << b'\t' | 1 << 0x0b | 1 << 0x0c | 1 << b'\r';
    b < 64 && BLANKS >> b & 1 == 1
}

#[inline(always)]
fn skip_blanks(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(|&b| is_blank(b)) {
        i += 1;
    }
    i
}

/// A field ended at `i` (a blank follows it: a field is never last on a line here): where
/// the next one starts, or a blank of a longer run of them, which the next field's parser
/// skips (one space between fields is the usual case, and only it is tested here).
#[inline(always)]
fn field_end(s: &[u8], i: usize) -> Option<usize> {
    s.get(i).is_some_and(|&b| is_blank(b)).then_some(i + 1)
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
    if d <= 9 && s.get(i + 1).is_some_and(|&b| b == b'\n' || is_blank(b)) {
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

/// One line, without its newline. `Ok(None)` for blank and comment lines. The error message
/// (built only on failure) says which field was wrong and how.
#[inline]
fn parse_line(line: &[u8]) -> std::result::Result<Option<TraceRecord>, String> {
    let mut fields: [&[u8]; 5] = [&[]; 5];
    let mut n = 0;
    let mut i = 0;
    while i < line.len() {
        while i < line.len() && is_blank(line[i]) {
            i += 1;
        }
        if i == line.len() {
            break;
        }
        if n == 0 && line[i] == b'#' {
            return Ok(None);
        }
        let start = i;
        while i < line.len() && !is_blank(line[i]) {
            i += 1;
        }
        if n < fields.len() {
            fields[n] = &line[start..i];
        }
        n += 1;
    }
    if n == 0 {
        return Ok(None);
    }
    if n != fields.len() {
        return Err(format!("expected 5 fields ({FIELDS}), found {n}"));
    }
    let time_ns = parse_time_ns(fields[0])?;
    let device = unsigned(fields[1], "devno")?;
    if device > u16::MAX as u64 {
        return Err(format!(
            "devno: {device} is out of range (at most {})",
            u16::MAX
        ));
    }
    let lbn = unsigned(fields[2], "blkno")?;
    let sectors = unsigned(fields[3], "bcount")?;
    if sectors == 0 {
        return Err("bcount: a request must be at least 1 sector, got 0".into());
    }
    if sectors > u32::MAX as u64 {
        return Err(format!("bcount: {sectors} sectors is too large"));
    }
    let flags = hex(fields[4]).ok_or_else(|| {
        format!(
            "flags: expected a hexadecimal number (bit 0 set = read), got `{}`",
            lossy(fields[4])
        )
    })?;
    Ok(Some(TraceRecord {
        time_ns,
        device: device as u16,
        lbn,
        sectors: sectors as u32,
        op: if flags & 1 == 1 { Op::Read } else { Op::Write },
        process: 0,
        response_ns: None,
    }))
}

fn lossy(f: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(f)
}

enum Digits {
    Value(u64),
    Overflow,
    Invalid,
}

/// A run of decimal digits (the empty run is 0).
#[inline]
fn digits(f: &[u8]) -> Digits {
    let mut v: u64 = 0;
    let mut overflow = false;
    for &b in f {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Digits::Invalid;
        }
        match v.checked_mul(10).and_then(|x| x.checked_add(d as u64)) {
            Some(x) => v = x,
            None => overflow = true,
        }
    }
    if overflow {
        Digits::Overflow
    } else {
        Digits::Value(v)
    }
}

/// A non-negative decimal integer (an optional `+` allowed, as C's `%d` does).
#[inline]
fn unsigned(f: &[u8], name: &str) -> std::result::Result<u64, String> {
    let body = f.strip_prefix(b"+").unwrap_or(f);
    if !body.is_empty() {
        match digits(body) {
            Digits::Value(v) => return Ok(v),
            Digits::Overflow => return Err(format!("{name}: `{}` is too large", lossy(f))),
            Digits::Invalid => {}
        }
    }
    if let Some(rest) = f.strip_prefix(b"-") {
        if !rest.is_empty() && !matches!(digits(rest), Digits::Invalid) {
            return Err(format!("{name}: must not be negative, got `{}`", lossy(f)));
        }
    }
    Err(format!(
        "{name}: expected a non-negative integer, got `{}`",
        lossy(f)
    ))
}

/// Hexadecimal, with or without `0x`, as C's `%x` reads it.
#[inline]
fn hex(f: &[u8]) -> Option<u64> {
    let body = f
        .strip_prefix(b"0x")
        .or_else(|| f.strip_prefix(b"0X"))
        .unwrap_or(f);
    if body.is_empty() || body.len() > 16 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in body {
        let d = (b as char).to_digit(16)?;
        v = (v << 4) | d as u64;
    }
    Some(v)
}

/// Milliseconds to nanoseconds. Plain decimals (the common case) are converted exactly in
/// integer arithmetic, rounding at the nanosecond; anything else (exponents, signs) goes
/// through `f64` so that every number C's `%lf` accepts is accepted here too.
#[inline]
fn parse_time_ns(f: &[u8]) -> std::result::Result<SimTime, String> {
    if let Some(ns) = decimal_ms_to_ns(f) {
        return Ok(ns);
    }
    let v: f64 = std::str::from_utf8(f)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| {
            format!(
                "time_ms: expected a number of milliseconds, got `{}`",
                lossy(f)
            )
        })?;
    if v < 0.0 {
        return Err(format!("time_ms: must not be negative, got `{}`", lossy(f)));
    }
    // Compared in f64: u64::MAX as f64 rounds up to 2^64, so `>=` excludes exactly the
    // values whose conversion would saturate (and NaN fails `is_finite`).
    if !v.is_finite() || v * 1e6 >= u64::MAX as f64 {
        return Err(format!("time_ms: `{}` is out of range", lossy(f)));
    }
    Ok(ms_to_ns(v))
}

/// `digits[.digits]` milliseconds to nanoseconds, or `None` if the text is anything else or
/// overflows.
#[inline]
fn decimal_ms_to_ns(f: &[u8]) -> Option<SimTime> {
    let (int, frac) = match f.iter().position(|&b| b == b'.') {
        Some(p) => (&f[..p], &f[p + 1..]),
        None => (f, &[][..]),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let Digits::Value(ms) = digits(int) else {
        return None;
    };
    // Six fraction digits are whole nanoseconds; the seventh decides the rounding.
    let (exact, rest) = frac.split_at(frac.len().min(6));
    let Digits::Value(mut sub_ns) = digits(exact) else {
        return None;
    };
    sub_ns *= 10u64.pow(6 - exact.len() as u32);
    if !matches!(digits(rest), Digits::Value(_) | Digits::Overflow) {
        return None;
    }
    let round_up = rest.first().is_some_and(|&d| d >= b'5') as u64;
    ms.checked_mul(1_000_000)?.checked_add(sub_ns + round_up)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(line: &str) -> TraceRecord {
        parse_line(line.as_bytes()).unwrap().unwrap()
    }

    #[test]
    fn times_convert_exactly() {
        assert_eq!(decimal_ms_to_ns(b"0"), Some(0));
        assert_eq!(decimal_ms_to_ns(b"143067.135"), Some(143_067_135_000));
        assert_eq!(decimal_ms_to_ns(b".5"), Some(500_000));
        assert_eq!(decimal_ms_to_ns(b"7."), Some(7_000_000));
        assert_eq!(decimal_ms_to_ns(b"0.0000004"), Some(0));
        assert_eq!(decimal_ms_to_ns(b"0.0000005"), Some(1));
        assert_eq!(
            decimal_ms_to_ns(b"1.2345678999999999999999"),
            Some(1_234_568)
        );
        assert_eq!(decimal_ms_to_ns(b"."), None);
        assert_eq!(decimal_ms_to_ns(b"1e3"), None);
        assert_eq!(parse_time_ns(b"1e3"), Ok(1_000_000_000));
        assert_eq!(parse_time_ns(b"+2.5"), Ok(2_500_000));
        assert!(parse_time_ns(b"-1").unwrap_err().contains("negative"));
        assert!(parse_time_ns(b"nan").is_err());
        assert!(parse_time_ns(b"inf").is_err());
        assert!(parse_time_ns(b"1e300")
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_time_ns(b"99999999999999999999").is_err());
    }

    #[test]
    fn fields_and_flags() {
        let r = rec("  2.516\t5 176275232 640 1\r");
        assert_eq!(
            r,
            TraceRecord {
                time_ns: 2_516_000,
                device: 5,
                lbn: 176_275_232,
                sectors: 640,
                op: Op::Read,
                process: 0,
                response_ns: None
            }
        );
        assert_eq!(rec("0 0 0 8 0").op, Op::Write);
        assert_eq!(rec("0 0 0 8 0x11").op, Op::Read);
        // Hexadecimal, as DiskSim reads it: 0x10 has bit 0 clear.
        assert_eq!(rec("0 0 0 8 10").op, Op::Write);
        assert_eq!(rec("0 0 0 8 ff").op, Op::Read);
        assert_eq!(parse_line(b""), Ok(None));
        assert_eq!(parse_line(b"   \t"), Ok(None));
        assert_eq!(parse_line(b"# 1 2 3"), Ok(None));
        assert_eq!(parse_line(b"   # indented comment"), Ok(None));
    }

    #[test]
    fn bad_fields_say_what_is_wrong() {
        let err = |l: &str| parse_line(l.as_bytes()).unwrap_err();
        assert!(err("1 2 3 4").contains("found 4"));
        assert!(err("1 2 3 4 5 6").contains("found 6"));
        assert!(err("x 0 0 8 1").starts_with("time_ms"));
        assert!(err("0 -1 0 8 1").contains("devno: must not be negative"));
        assert!(err("0 70000 0 8 1").contains("devno: 70000 is out of range"));
        assert!(err("0 0 -8 8 1").contains("blkno: must not be negative"));
        assert!(err("0 0 1.5 8 1").contains("blkno: expected a non-negative integer"));
        assert!(err("0 0 0 -8 1").contains("bcount: must not be negative"));
        assert!(err("0 0 0 0 1").contains("bcount: a request must be at least 1 sector"));
        assert!(err("0 0 0 99999999999 1").contains("too large"));
        assert!(err("0 0 99999999999999999999999 8 1").contains("blkno"));
        assert!(err("0 0 0 8 r").starts_with("flags"));
        assert!(err("0 0 0 8 0x").starts_with("flags"));
    }

    #[test]
    fn lines_split_across_buffer_fills_and_a_missing_final_newline() {
        // A 7-byte buffer makes almost every line straddle two fills.
        let text = "0.5 0 8 8 1\n\n# c\n1.25 1 16 16 0\n2 0 24 8 1";
        let input = std::io::BufReader::with_capacity(7, text.as_bytes());
        let mut r = DisksimAsciiReader::new(input, None);
        let mut got = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            got.push((rec.time_ns, rec.lbn, r.line()));
        }
        assert_eq!(
            got,
            vec![(500_000, 8, 1), (1_250_000, 16, 4), (2_000_000, 24, 5)]
        );
    }

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
        use super::super::*;
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

    /// Records taken in runs (`next_run`, as the prefetching thread takes them) and one at a
    /// time (`next_record`) are the same records, lines and errors, wherever the input's
    /// buffer cuts the text and however long the runs may be.
    mod runs {
        use super::super::*;
        use proptest::prelude::*;

        type Seen = Vec<(std::result::Result<TraceRecord, String>, usize, bool)>;

        fn reader(text: &[u8], cap: usize) -> DisksimAsciiReader<std::io::BufReader<&[u8]>> {
            DisksimAsciiReader::new(std::io::BufReader::with_capacity(cap, text), None)
        }

        /// One `next_record`, noted; `false` at the end or after an error that ends reading.
        fn step(r: &mut impl TraceReader, out: &mut Seen) -> bool {
            match r.next_record() {
                Ok(Some(rec)) => out.push((Ok(rec), r.line(), true)),
                Ok(None) => return false,
                Err(e) => {
                    out.push((Err(e.to_string()), r.line(), r.can_continue()));
                    return r.can_continue();
                }
            }
            true
        }

        fn one_at_a_time(text: &[u8], cap: usize) -> Seen {
            let mut r = reader(text, cap);
            let mut out = Vec::new();
            while step(&mut r, &mut out) {}
            out
        }

        fn in_runs(text: &[u8], cap: usize, room: usize) -> Seen {
            let mut r = reader(text, cap);
            let mut out: Seen = Vec::new();
            loop {
                let before = out.len();
                let took = r.next_run(room, &mut |rec, line| out.push((Ok(rec), line, true)));
                assert!(took <= room);
                assert_eq!(out.len() - before, took);
                if took > 0 {
                    assert_eq!(r.line(), out.last().unwrap().1, "the line after a run");
                }
                if !step(&mut r, &mut out) {
                    return out;
                }
            }
        }

        fn field() -> impl Strategy<Value = String> {
            prop_oneof![
                6 => "[0-9]{1,9}",
                3 => "[0-9]{1,9}\\.[0-9]{0,8}",
                1 => "[0-9]{9,21}",
                1 => "0[xX][0-9a-fA-F]{0,3}",
                1 => "[0-9a-fA-F]{1,17}",
                1 => "[+-][0-9]{1,3}",
                1 => "[0-9]\\.?[0-9]{0,3}[eE]-?[0-9]",
                1 => "[a-z.#]{1,3}",
            ]
        }

        fn line() -> impl Strategy<Value = String> {
            let count = prop_oneof![12 => Just(5usize), 1 => 0usize..8];
            let record = (
                "[ \t]{0,2}",
                count
                    .prop_flat_map(|n| prop::collection::vec((field(), "[ \t\r\x0B\x0C]{1,2}"), n)),
                prop_oneof![8 => "", 1 => "\r", 1 => "[ \t]{1,2}"],
            )
                .prop_map(|(lead, parts, end)| {
                    let mut s = lead;
                    for (i, (t, sep)) in parts.iter().enumerate() {
                        s.push_str(t);
                        if i + 1 < parts.len() {
                            s.push_str(sep);
                        }
                    }
                    s.push_str(&end);
                    s
                });
            // Mostly ordinary records, so that runs of them are common.
            let plain = (
                0u64..10_000_000,
                "(\\.[0-9]{1,6})?",
                0u16..3,
                0u64..1 << 40,
                1u32..300,
                0u8..4,
            )
                .prop_map(|(ms, frac, dev, lbn, n, flags)| {
                    format!("{ms}{frac} {dev} {lbn} {n} {flags:x}")
                });
            prop_oneof![
                20 => plain,
                10 => record,
                1 => "#[ -~]{0,12}",
                1 => "[ \t]{0,3}",
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(1024))]

            #[test]
            fn runs_are_the_records_one_at_a_time(
                lines in prop::collection::vec(line(), 0..60),
                last_newline in any::<bool>(),
                cap in prop_oneof![1usize..48, 48usize..160, Just(4096usize)],
                room in prop_oneof![1usize..4, Just(8192usize)],
            ) {
                let mut text = lines.join("\n");
                if last_newline && !text.is_empty() {
                    text.push('\n');
                }
                let want = one_at_a_time(text.as_bytes(), cap);
                prop_assert_eq!(in_runs(text.as_bytes(), cap, room), want);
            }
        }

        #[test]
        fn runs_stop_where_reading_cannot_go_on() {
            let mut text = b"1 0 8 8 1\n2 0 16 8 0\n".to_vec();
            text.extend(vec![b'x'; MAX_LINE_BYTES * 3]);
            text.extend(b"\n3 0 24 8 1\n");
            for cap in [16, 4096] {
                let want = one_at_a_time(&text, cap);
                assert_eq!(want.len(), 3);
                assert!(!want[2].2, "the long line ends reading");
                assert_eq!(in_runs(&text, cap, 8192), want);
            }
            // A buffer that holds the whole long line reads it as a line with one field.
            let want = one_at_a_time(&text, 1 << 20);
            assert_eq!(want.len(), 4);
            assert_eq!(in_runs(&text, 1 << 20, 8192), want);
        }
    }

    #[test]
    fn binary_garbage_is_an_error_not_a_memory_hog() {
        let junk = vec![b'x'; MAX_LINE_BYTES * 3];
        let mut r = DisksimAsciiReader::new(&junk[..], None);
        let e = r.next_record().unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("longer than"), "{e}");
    }
}
