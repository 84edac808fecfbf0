//! DiskSim's validation traces: one request per line,
//!
//! ```text
//! R|W Hit|Miss blkno bcount access_us delay_us
//! W   Hit      4583176  4    663.00000  45422.00000
//! ```
//!
//! `blkno` and `bcount` count 512-byte sectors; `access_us` is the access time measured on
//! the real drive and `delay_us` the time from this request's completion to the next one's
//! issue. The reconstructed issue time of request k+1 is therefore issue(k) + access(k) +
//! delay(k) (request 0 at 0), and the measured access time is kept as the record's response
//! time, so that the validate and closed replay modes recover `delay_us` exactly as the think
//! time. The Hit/Miss column is not a reliable cache flag (some files also say `Doub` or
//! `Trip`) and is only checked to be a word.

use super::fields::{lossy, scaled_number, sectors_u32, uint, FieldResult};
use super::lines::{is_skippable, split};
use super::text::{LineParser, TextReader};
use super::TraceRecord;
use crate::request::Op;

const FIELDS: &str = "R|W Hit|Miss blkno bcount access_us delay_us";

pub type DisksimValidateReader<R> = TextReader<R, ValidateParser>;

#[derive(Default)]
pub struct ValidateParser {
    next_time_ns: u64,
}

impl<R: std::io::BufRead> DisksimValidateReader<R> {
    pub fn new(input: R, origin: Option<std::path::PathBuf>) -> Self {
        TextReader::with_parser(input, origin, ValidateParser::default())
    }
}

impl LineParser for ValidateParser {
    const WHAT: &'static str = "DiskSim validate";

    fn parse(&mut self, line: &[u8]) -> FieldResult<Option<TraceRecord>> {
        let Some(l) = parse_validate_line(line)? else {
            return Ok(None);
        };
        let time_ns = self.next_time_ns;
        self.next_time_ns = time_ns
            .checked_add(l.access_ns)
            .and_then(|t| t.checked_add(l.delay_ns))
            .ok_or("access_us + delay_us: the running time overflows")?;
        Ok(Some(TraceRecord {
            time_ns,
            device: 0,
            lbn: l.lbn,
            sectors: l.sectors,
            op: l.op,
            process: 0,
            response_ns: Some(l.access_ns),
            zone_op: None,
            high_priority: false,
        }))
    }
}

/// One line of a validate trace, its fields checked: the format's one grammar, which the
/// trace reader here and the validation runs (`crate::validate`) both read.
pub(crate) struct ValidateLine<'a> {
    pub(crate) op: Op,
    /// The Hit/Miss column, a word (`Hit`, `Miss`, `Doub`, `Trip`, ...).
    pub(crate) flag: &'a [u8],
    pub(crate) lbn: u64,
    pub(crate) sectors: u32,
    /// `access_us` as written, and in whole nanoseconds.
    pub(crate) access_us: &'a [u8],
    pub(crate) access_ns: u64,
    /// `delay_us` as written, and in whole nanoseconds.
    pub(crate) delay_us: &'a [u8],
    pub(crate) delay_ns: u64,
}

/// `line` (without its newline) read as a validate-trace record; `Ok(None)` for a blank or
/// comment line; the message names the field that is wrong.
pub(crate) fn parse_validate_line(line: &[u8]) -> FieldResult<Option<ValidateLine<'_>>> {
    if is_skippable(line) {
        return Ok(None);
    }
    let mut f: [&[u8]; 6] = [&[]; 6];
    let n = split(line, None, &mut f);
    if n != 6 {
        return Err(format!("expected 6 fields ({FIELDS}), found {n}"));
    }
    let op = match f[0] {
        b"R" | b"r" => Op::Read,
        b"W" | b"w" => Op::Write,
        other => return Err(format!("R|W: expected R or W, got `{}`", lossy(other))),
    };
    if !f[1].iter().all(u8::is_ascii_alphabetic) {
        return Err(format!(
            "Hit|Miss: expected a word such as Hit or Miss, got `{}`",
            lossy(f[1])
        ));
    }
    Ok(Some(ValidateLine {
        op,
        flag: f[1],
        lbn: uint(f[2], "blkno")?,
        sectors: sectors_u32(uint(f[3], "bcount")?, "bcount")?,
        access_us: f[4],
        access_ns: scaled_number(f[4], 3, "access_us")?,
        delay_us: f[5],
        delay_ns: scaled_number(f[5], 3, "delay_us")?,
    }))
}
