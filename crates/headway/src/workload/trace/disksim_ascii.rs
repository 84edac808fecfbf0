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
#[inline(always)]
fn fast_record(buf: &[u8]) -> Option<(TraceRecord, usize)> {
    let mut p = Scan { s: buf, i: 0 };
    p.skip_blanks();
    let time_ns = p.time_ns()?;
    let device = p.field_uint()?;
    let lbn = p.field_uint()?;
    let sectors = p.field_uint()?;
    let flags = p.field_hex()?;
    p.skip_blanks();
    if p.s.get(p.i) != Some(&b'\n')
        || device > u16::MAX as u64
        || sectors == 0
        || sectors > u32::MAX as u64
    {
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
        p.i + 1,
    ))
}

/// Whitespace inside a line, as C's `isspace` has it, less the newline that ends the line.
#[inline(always)]
fn is_blank(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b) && b != b'\n'
}

struct Scan<'a> {
    s: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    #[inline(always)]
    fn skip_blanks(&mut self) {
        while self.i < self.s.len() && is_blank(self.s[self.i]) {
            self.i += 1;
        }
    }

    /// Decimal digits from the cursor, at most 19 (so no overflow check is needed), and how
    /// many there were.
    #[inline(always)]
    fn digits(&mut self) -> Option<(u64, usize)> {
        let start = self.i;
        let mut v = 0u64;
        while let Some(&b) = self.s.get(self.i) {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            if self.i - start == 19 {
                return None;
            }
            v = v * 10 + d as u64;
            self.i += 1;
        }
        Some((v, self.i - start))
    }

    /// The field has ended: a blank follows (a field is never last on a line here).
    #[inline(always)]
    fn ended(&self) -> Option<()> {
        self.s
            .get(self.i)
            .copied()
            .filter(|&b| is_blank(b))
            .map(drop)
    }

    #[inline(always)]
    fn time_ns(&mut self) -> Option<SimTime> {
        let (ms, n_int) = self.digits()?;
        let mut sub_ns = 0;
        let mut n_frac = 0;
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            let start = self.i;
            let (f, n) = self.digits()?;
            if n > 6 {
                return None;
            }
            sub_ns = f * 10u64.pow(6 - n as u32);
            n_frac = self.i - start;
        }
        if n_int + n_frac == 0 {
            return None;
        }
        self.ended()?;
        ms.checked_mul(1_000_000)?.checked_add(sub_ns)
    }

    #[inline(always)]
    fn field_uint(&mut self) -> Option<u64> {
        self.skip_blanks();
        let (v, n) = self.digits()?;
        if n == 0 {
            return None;
        }
        self.ended()
            .or_else(|| (self.s.get(self.i) == Some(&b'\n')).then_some(()))?;
        Some(v)
    }

    #[inline(always)]
    fn field_hex(&mut self) -> Option<u64> {
        self.skip_blanks();
        let start = self.i;
        let mut v = 0u64;
        while let Some(d) = self.s.get(self.i).and_then(|&b| (b as char).to_digit(16)) {
            v = (v << 4) | d as u64;
            self.i += 1;
        }
        // `0x` prefixes and more than 16 digits are left to the general parser.
        let n = self.i - start;
        (n > 0 && n <= 16).then_some(v)
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

    #[test]
    fn binary_garbage_is_an_error_not_a_memory_hog() {
        let junk = vec![b'x'; MAX_LINE_BYTES * 3];
        let mut r = DisksimAsciiReader::new(&junk[..], None);
        let e = r.next_record().unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("longer than"), "{e}");
    }
}
