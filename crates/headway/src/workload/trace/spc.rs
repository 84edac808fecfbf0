//! The SPC trace format of the UMass Trace Repository (OLTP "Financial", "WebSearch"):
//!
//! ```text
//! ASU,LBA,Size,Opcode,Timestamp[,optional fields]
//! 0,303567,3584,w,0.000000
//! ```
//!
//! `ASU` (the application storage unit) becomes the device, `LBA` counts 512-byte blocks,
//! `Size` is in bytes (a size that is not a multiple of 512 is widened to whole sectors),
//! `Opcode` is `r` or `w` in either case, and `Timestamp` is in seconds. Fields after the
//! fifth are allowed by the SPC specification and ignored. A first line starting with `ASU`
//! is taken as a header.

use super::fields::{byte_extent, lossy, scaled_number, sectors_u32, uint, FieldResult};
use super::lines::{is_skippable, split};
use super::text::{LineParser, TextReader};
use super::TraceRecord;
use crate::request::Op;

const FIELDS: &str = "ASU,LBA,Size,Opcode,Timestamp";

pub type SpcReader<R> = TextReader<R, SpcParser>;

#[derive(Default)]
pub struct SpcParser;

impl<R: std::io::BufRead> SpcReader<R> {
    pub fn new(input: R, origin: Option<std::path::PathBuf>) -> Self {
        TextReader::with_parser(input, origin, SpcParser)
    }
}

impl LineParser for SpcParser {
    const WHAT: &'static str = "SPC";

    fn parse(&mut self, line: &[u8]) -> FieldResult<Option<TraceRecord>> {
        if is_skippable(line) {
            return Ok(None);
        }
        let mut f: [&[u8]; 5] = [&[]; 5];
        let n = split(line, Some(b','), &mut f);
        if n < 5 {
            return Err(format!(
                "expected at least 5 comma-separated fields ({FIELDS}), found {n}"
            ));
        }
        if f[0].eq_ignore_ascii_case(b"asu") {
            return Ok(None);
        }
        let device = uint(f[0], "ASU")?;
        let device = u16::try_from(device)
            .map_err(|_| format!("ASU: {device} is out of range (at most {})", u16::MAX))?;
        let lba = uint(f[1], "LBA")?;
        let bytes = uint(f[2], "Size")?;
        let op = match f[3] {
            b"r" | b"R" => Op::Read,
            b"w" | b"W" => Op::Write,
            other => return Err(format!("Opcode: expected r or w, got `{}`", lossy(other))),
        };
        let time_ns = scaled_number(f[4], 9, "Timestamp")?;
        let offset = lba
            .checked_mul(512)
            .ok_or_else(|| format!("LBA: {lba} is too large"))?;
        let (lbn, sectors) = byte_extent(offset, bytes).ok_or("LBA + Size overflows")?;
        Ok(Some(TraceRecord {
            time_ns,
            device,
            lbn,
            sectors: sectors_u32(sectors, "Size")?,
            op,
            process: 0,
            response_ns: None,
            zone_op: None,
            high_priority: false,
        }))
    }
}
