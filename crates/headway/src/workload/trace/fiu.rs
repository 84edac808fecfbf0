//! The FIU traces (SNIA IOTTA "FIU IODedup": homes, web-vm, mail):
//!
//! ```text
//! ts_ns pid process lba size_blocks R|W major minor md5
//! 89966527394820 4892 syslogd 904265560 8 W 6 0 531e779ad2ba07b7bbb2b4a9d2ef5f40
//! ```
//!
//! `ts_ns` is in nanoseconds, `lba` and `size_blocks` count 512-byte blocks, the device is
//! `major * 256 + minor`, and the pid and process name are kept. A process name containing
//! blanks is allowed: the last six fields are fixed, the rest between pid and lba is the name.

use super::fields::{lossy, sectors_u32, uint, FieldResult};
use super::lines::{is_skippable, split};
use super::names::ProcessNames;
use super::text::{LineParser, TextReader};
use super::TraceRecord;
use crate::request::Op;

const FIELDS: &str = "ts_ns pid process lba size_blocks R|W major minor md5";
const MAX_FIELDS: usize = 32;

pub type FiuReader<R> = TextReader<R, FiuParser>;

#[derive(Default)]
pub struct FiuParser {
    names: ProcessNames,
}

impl<R: std::io::BufRead> FiuReader<R> {
    pub fn new(input: R, origin: Option<std::path::PathBuf>) -> Self {
        TextReader::with_parser(input, origin, FiuParser::default())
    }
}

/// `major * 256 + minor` as a device number.
pub(crate) fn device_of(major: u64, minor: u64) -> FieldResult<u16> {
    if major > 255 || minor > 255 {
        return Err(format!(
            "device {major}:{minor} does not fit a 16-bit device number (major and minor at most 255)"
        ));
    }
    Ok((major * 256 + minor) as u16)
}

impl LineParser for FiuParser {
    const WHAT: &'static str = "FIU";

    fn parse(&mut self, line: &[u8]) -> FieldResult<Option<TraceRecord>> {
        if is_skippable(line) {
            return Ok(None);
        }
        let mut f: [&[u8]; MAX_FIELDS] = [&[]; MAX_FIELDS];
        let n = split(line, None, &mut f);
        if !(9..=MAX_FIELDS).contains(&n) {
            return Err(format!("expected 9 fields ({FIELDS}), found {n}"));
        }
        let time_ns = uint(f[0], "ts_ns")?;
        let pid = uint(f[1], "pid")?;
        let pid = u32::try_from(pid).map_err(|_| format!("pid: {pid} is out of range"))?;
        let tail = &f[n - 6..n];
        let lba = uint(tail[0], "lba")?;
        let sectors = sectors_u32(uint(tail[1], "size_blocks")?, "size_blocks")?;
        let op = match tail[2] {
            b"R" | b"r" => Op::Read,
            b"W" | b"w" => Op::Write,
            other => return Err(format!("R|W: expected R or W, got `{}`", lossy(other))),
        };
        let device = device_of(uint(tail[3], "major")?, uint(tail[4], "minor")?)?;
        // The name runs from the third field to the last field before `lba`, blanks and all.
        let base = line.as_ptr() as usize;
        let start = f[2].as_ptr() as usize - base;
        let end = f[n - 7].as_ptr() as usize - base + f[n - 7].len();
        self.names.note(pid, &line[start..end]);
        Ok(Some(TraceRecord {
            time_ns,
            device,
            lbn: lba,
            sectors,
            op,
            process: pid,
            response_ns: None,
            zone_op: None,
            high_priority: false,
        }))
    }

    fn process_name(&self, pid: u32) -> Option<&str> {
        self.names.get(pid)
    }
}
