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
//! skipped. Five fields are required: a line with fewer is more likely a different format
//! than a record to guess at. headway reads one optional sixth field, a zone command for a
//! zoned drive (`reset`, `open`, `close`, `finish` or `append`; docs/smr.md): the record is
//! then that command on the zone holding `blkno` (a write of `bcount` sectors at the zone's
//! write pointer for `append`). DiskSim itself does not read it.

use std::io::BufRead;
use std::path::PathBuf;

use super::disksim_fast::{fast_record, record, strict_run};
use super::fields::{hex, lossy, scaled_number, uint, FieldResult};
use super::lines::{is_skippable, split};
use super::text::{LineParser, TextReader};
use super::{TraceReader, TraceRecord};
use crate::error::Result;
use crate::request::Op;
use crate::request_marks::ZoneOp;

const FIELDS: &str = "time_ms devno blkno bcount flags";

/// Streams records from DiskSim ASCII text, never holding more than one line: the usual
/// record by the fast path ([`super::disksim_fast`]) in place in the input's buffer, every
/// other line by the grammar ([`parse_line`]) through the reader the text formats share.
pub struct DisksimAsciiReader<R> {
    text: TextReader<R, DisksimAsciiLine>,
}

impl<R: BufRead> DisksimAsciiReader<R> {
    /// `origin` names the file in error messages.
    pub fn new(input: R, origin: Option<PathBuf>) -> Self {
        DisksimAsciiReader {
            text: TextReader::with_parser(input, origin, DisksimAsciiLine),
        }
    }
}

impl<R: BufRead> TraceReader for DisksimAsciiReader<R> {
    // Small and always inlined: the common record is parsed in place by `fast_record`, and
    // everything else goes to the out-of-line general path, so the replay loop stays tight
    // however many places use the reader.
    #[inline(always)]
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        let lines = self.text.lines_mut();
        if let Ok(buf) = lines.buffer() {
            if let Some((rec, used)) = fast_record(buf) {
                lines.take_lines(used, 1);
                return Ok(Some(rec));
            }
        }
        self.next_record_general()
    }

    fn line(&self) -> usize {
        self.text.line()
    }

    fn can_continue(&self) -> bool {
        self.text.can_continue()
    }

    /// The records [`fast_record`] takes, one after the other from one fill of the input's
    /// buffer: what `next_record` does for each, less the buffer's check and the call.
    #[inline]
    fn next_run(&mut self, room: usize, push: &mut impl FnMut(TraceRecord, usize)) -> usize {
        let lines = self.text.lines_mut();
        let line = lines.line();
        let Ok(buf) = lines.buffer() else {
            return 0;
        };
        let (mut at, mut n) = (0, 0);
        loop {
            // The usual lines by the strict path while the buffer holds a window ahead (all
            // but its last few lines); the first other one by `fast_record`, then again.
            let (to, took) = strict_run(buf, at, room - n, line + n, push);
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
            push(rec, line + n);
        }
        lines.take_lines(at, n);
        n
    }
}

impl<R: BufRead> DisksimAsciiReader<R> {
    #[inline(never)]
    fn next_record_general(&mut self) -> Result<Option<TraceRecord>> {
        self.text.next_record()
    }
}

/// The DiskSim ASCII line grammar, for the reader the text formats share.
pub(super) struct DisksimAsciiLine;

impl LineParser for DisksimAsciiLine {
    const WHAT: &'static str = "DiskSim ASCII";

    #[inline]
    fn parse(&mut self, line: &[u8]) -> FieldResult<Option<TraceRecord>> {
        parse_line(line)
    }
}

/// One line, without its newline: the format's one grammar. `Ok(None)` for blank and
/// comment lines. The error message (built only on failure) says which field was wrong and
/// how.
pub(super) fn parse_line(line: &[u8]) -> FieldResult<Option<TraceRecord>> {
    if is_skippable(line) {
        return Ok(None);
    }
    let mut f: [&[u8]; 6] = [&[]; 6];
    let n = split(line, None, &mut f);
    if n != 5 && n != 6 {
        return Err(format!(
            "expected 5 fields ({FIELDS}) and an optional zone command, found {n}"
        ));
    }
    // Milliseconds, exact to the nanosecond when written as a plain decimal (rounding at
    // the seventh digit of fraction); anything else C's `%lf` accepts through `f64`.
    let time_ns = scaled_number(f[0], 6, "time_ms")?;
    let device = uint(f[1], "devno")?;
    if device > u16::MAX as u64 {
        return Err(format!(
            "devno: {device} is out of range (at most {})",
            u16::MAX
        ));
    }
    let lbn = uint(f[2], "blkno")?;
    let sectors = uint(f[3], "bcount")?;
    if sectors == 0 {
        return Err("bcount: a request must be at least 1 sector, got 0".into());
    }
    if sectors > u32::MAX as u64 {
        return Err(format!("bcount: {sectors} sectors is too large"));
    }
    let flags = hex(f[4]).ok_or_else(|| {
        format!(
            "flags: expected a hexadecimal number (bit 0 set = read), got `{}`",
            lossy(f[4])
        )
    })?;
    let mut rec = record(time_ns, device as u16, lbn, sectors as u32, flags);
    if n == 6 {
        rec.zone_op = Some(zone_op(f[5], rec.op)?);
    }
    Ok(Some(rec))
}

/// The sixth field: a zone command, which travels as a write.
fn zone_op(field: &[u8], op: Op) -> FieldResult<ZoneOp> {
    let name = lossy(field);
    let z = ZoneOp::from_name(&name).ok_or_else(|| {
        format!("zone command: expected reset, open, close, finish or append, got `{name}`")
    })?;
    if op.is_read() {
        return Err(format!(
            "zone command: `{name}` is a write (flags bit 0 clear), but the flags say read"
        ));
    }
    Ok(z)
}

#[cfg(test)]
mod tests {
    use super::super::fields::decimal_scaled;
    use super::super::lines::MAX_LINE_BYTES;
    use super::*;
    use crate::request::Op;

    /// The time field's two readings: exact decimals, and everything `%lf` takes.
    fn decimal_ms_to_ns(f: &[u8]) -> Option<u64> {
        decimal_scaled(f, 6)
    }

    fn parse_time_ns(f: &[u8]) -> FieldResult<u64> {
        scaled_number(f, 6, "time_ms")
    }

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

    /// DiskSim's flag bits mark a request time-critical (0x2) or time-limited (0x4), and its
    /// reader marks a synchronous request (0x80) time-critical and an asynchronous read
    /// (0x100) time-limited: each is a high-priority request, on both paths.
    #[test]
    fn time_critical_and_time_limited_flags_mark_high_priority() {
        for (flags, high) in [
            ("0", false),
            ("1", false),
            ("2", true),
            ("3", true),
            ("4", true),
            ("5", true),
            ("8", false),
            ("80", true),
            ("81", true),
            ("100", false),
            ("101", true),
            ("180", false),
        ] {
            let line = format!("1.5 0 1000 8 {flags}");
            assert_eq!(rec(&line).high_priority, high, "grammar, flags {flags}");
            let fast = super::super::disksim_fast::fast_record(format!("{line}\n").as_bytes())
                .expect("a plain record");
            assert_eq!(fast.0.high_priority, high, "fast path, flags {flags}");
        }
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
                response_ns: None,
                zone_op: None,
                high_priority: false,
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
    fn a_sixth_field_is_a_zone_command() {
        assert_eq!(rec("0 0 260400 1 0 reset").zone_op, Some(ZoneOp::Reset));
        assert_eq!(rec("0 0 260400 8 0 append").zone_op, Some(ZoneOp::Append));
        assert_eq!(rec("0 0 260400 8 0").zone_op, None);
        let bad = parse_line(b"0 0 260400 1 0 trim").unwrap_err();
        assert!(
            bad.starts_with("zone command") && bad.contains("`trim`"),
            "{bad}"
        );
        let read = parse_line(b"0 0 260400 1 1 reset").unwrap_err();
        assert!(read.contains("the flags say read"), "{read}");
        let seven = parse_line(b"0 0 1 1 0 reset x").unwrap_err();
        assert!(seven.contains("found 7"), "{seven}");
    }

    #[test]
    fn bad_fields_say_what_is_wrong() {
        let err = |l: &str| parse_line(l.as_bytes()).unwrap_err();
        assert!(err("1 2 3 4").contains("found 4"));
        // A sixth field must be a zone command; a seventh is never allowed.
        assert!(err("1 2 3 4 5 6").starts_with("zone command"));
        assert!(err("1 2 3 4 5 6 7").contains("found 7"));
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

    /// Records taken in runs (`next_run`, as the prefetching thread takes them) and one at a
    /// time (`next_record`) are the same records, lines and errors, wherever the input's
    /// buffer cuts the text and however long the runs may be.
    mod runs {
        use super::super::*;
        use super::MAX_LINE_BYTES;
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
