//! The MSR Cambridge block traces as SNIA's IOTTA repository publishes them:
//!
//! ```text
//! Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//! 128166372003061629,hm,1,Read,3487887360,4096,8906
//! ```
//!
//! `Timestamp` and `ResponseTime` count Windows ticks (100 ns; timestamps from 1601),
//! `Offset` and `Size` are bytes (widened to whole 512-byte sectors when unaligned), `Type`
//! is `Read` or `Write`. `DiskNumber` becomes the device; the host name is not used (each
//! published file holds one host). The measured response time is kept for closed replay.
//! A header line starting with `Timestamp` is skipped.

use super::fields::{byte_extent, lossy, sectors_u32, uint, FieldResult};
use super::lines::{is_skippable, split};
use super::text::{LineParser, TextReader};
use super::TraceRecord;
use crate::request::Op;

const FIELDS: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";

pub type MsrReader<R> = TextReader<R, MsrParser>;

#[derive(Default)]
pub struct MsrParser;

impl<R: std::io::BufRead> MsrReader<R> {
    pub fn new(input: R, origin: Option<std::path::PathBuf>) -> Self {
        TextReader::with_parser(input, origin, MsrParser)
    }
}

fn ticks_to_ns(ticks: u64, name: &str) -> FieldResult<u64> {
    ticks
        .checked_mul(100)
        .ok_or_else(|| format!("{name}: {ticks} ticks is out of range"))
}

impl LineParser for MsrParser {
    const WHAT: &'static str = "MSR Cambridge";

    fn parse(&mut self, line: &[u8]) -> FieldResult<Option<TraceRecord>> {
        if is_skippable(line) {
            return Ok(None);
        }
        let mut f: [&[u8]; 7] = [&[]; 7];
        let n = split(line, Some(b','), &mut f);
        if n != 7 {
            return Err(format!(
                "expected 7 comma-separated fields ({FIELDS}), found {n}"
            ));
        }
        if f[0].eq_ignore_ascii_case(b"timestamp") {
            return Ok(None);
        }
        let time_ns = ticks_to_ns(uint(f[0], "Timestamp")?, "Timestamp")?;
        let device = uint(f[2], "DiskNumber")?;
        let device = u16::try_from(device).map_err(|_| {
            format!(
                "DiskNumber: {device} is out of range (at most {})",
                u16::MAX
            )
        })?;
        let op = if f[3].eq_ignore_ascii_case(b"read") {
            Op::Read
        } else if f[3].eq_ignore_ascii_case(b"write") {
            Op::Write
        } else {
            return Err(format!(
                "Type: expected Read or Write, got `{}`",
                lossy(f[3])
            ));
        };
        let offset = uint(f[4], "Offset")?;
        let bytes = uint(f[5], "Size")?;
        let response_ns = ticks_to_ns(uint(f[6], "ResponseTime")?, "ResponseTime")?;
        let (lbn, sectors) = byte_extent(offset, bytes).ok_or("Offset + Size overflows")?;
        Ok(Some(TraceRecord {
            time_ns,
            device,
            lbn,
            sectors: sectors_u32(sectors, "Size")?,
            op,
            process: 0,
            response_ns: Some(response_ns),
            zone_op: None,
            high_priority: false,
        }))
    }
}
