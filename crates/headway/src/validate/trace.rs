use std::io::BufRead;
use std::path::Path;

use crate::error::{HeadwayError, Result};
use crate::request::Op;
use crate::workload::trace::parse_validate_line;

/// One request of a DiskSim validate trace: `R|W FLAG blkno bcount access_us delay_us`, where
/// FLAG is `Hit` or `Miss` (reads), or for writes `Doub`/`Trip` (the drive disconnected twice
/// or three times during the write, as the bus analyser saw it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValidateRecord {
    pub op: Op,
    /// The trace's Hit/Miss column (documented as unreliable; kept for analysis only).
    pub marked_hit: bool,
    /// How many times the drive disconnected during a write, when the trace says (`Doub` 2,
    /// `Trip` 3); 0 otherwise. For analysis only.
    pub disconnects: u8,
    pub lbn: u64,
    pub sectors: u32,
    /// Access time measured on the real drive.
    pub measured_ms: f64,
    /// From this request's completion to the next request's issue.
    pub delay_ms: f64,
}

/// Read a whole validate trace (they are small: about 10,000 requests).
pub fn read_validate_trace(path: &Path) -> Result<Vec<ValidateRecord>> {
    let file = std::fs::File::open(path).map_err(|e| HeadwayError::io(path, e))?;
    parse_validate_trace(std::io::BufReader::new(file), Some(path))
}

pub(crate) fn parse_validate_trace(
    reader: impl BufRead,
    origin: Option<&Path>,
) -> Result<Vec<ValidateRecord>> {
    let mut out = Vec::new();
    let err = |line: usize, msg: String| {
        HeadwayError::trace(origin.map(Path::to_path_buf), Some(line), msg)
    };
    for (i, line) in reader.lines().enumerate() {
        let n = i + 1;
        let line = line.map_err(|e| err(n, format!("cannot read: {e}")))?;
        let Some(l) = parse_validate_line(line.as_bytes()).map_err(|m| err(n, m))? else {
            continue;
        };
        let (marked_hit, disconnects) = match l.flag {
            b"Hit" | b"hit" | b"H" => (true, 0),
            b"Miss" | b"miss" | b"M" => (false, 0),
            b"Doub" | b"doub" => (false, 2),
            b"Trip" | b"trip" => (false, 3),
            other => {
                return Err(err(
                    n,
                    format!(
                        "Hit|Miss: expected Hit, Miss, Doub or Trip, got `{}`",
                        String::from_utf8_lossy(other)
                    ),
                ))
            }
        };
        // Kept in floating point as written: the validation's figures are worked out in
        // milliseconds from these, not from the whole nanoseconds the grammar checked.
        let ms = |us: &[u8]| {
            std::str::from_utf8(us)
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
                .map_or(0.0, |v| v / 1000.0)
        };
        out.push(ValidateRecord {
            op: l.op,
            marked_hit,
            disconnects,
            lbn: l.lbn,
            sectors: l.sectors,
            measured_ms: ms(l.access_us),
            delay_ms: ms(l.delay_us),
        });
    }
    if out.is_empty() {
        return Err(err(0, "the trace holds no requests".into()));
    }
    Ok(out)
}
