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
        let lbn = uint(f[2], "blkno")?;
        let sectors = sectors_u32(uint(f[3], "bcount")?, "bcount")?;
        let access_ns = scaled_number(f[4], 3, "access_us")?;
        let delay_ns = scaled_number(f[5], 3, "delay_us")?;
        let time_ns = self.next_time_ns;
        self.next_time_ns = time_ns
            .checked_add(access_ns)
            .and_then(|t| t.checked_add(delay_ns))
            .ok_or("access_us + delay_us: the running time overflows")?;
        Ok(Some(TraceRecord {
            time_ns,
            device: 0,
            lbn,
            sectors,
            op,
            process: 0,
            response_ns: Some(access_ns),
        }))
    }
}
