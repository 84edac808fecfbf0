use std::io::BufRead;
use std::path::Path;

use crate::error::{HeadwayError, Result};
use crate::request::Op;

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
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = t.split_ascii_whitespace().collect();
        if f.len() != 6 {
            return Err(err(
                n,
                format!(
                    "expected 6 fields `R|W Hit|Miss blkno bcount access_us delay_us`, found {}",
                    f.len()
                ),
            ));
        }
        let op = match f[0] {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            other => return Err(err(n, format!("field 1 must be R or W, found `{other}`"))),
        };
        let (marked_hit, disconnects) = match f[1] {
            "Hit" | "hit" | "H" => (true, 0),
            "Miss" | "miss" | "M" => (false, 0),
            "Doub" | "doub" => (false, 2),
            "Trip" | "trip" => (false, 3),
            other => {
                return Err(err(
                    n,
                    format!("field 2 must be Hit, Miss, Doub or Trip, found `{other}`"),
                ))
            }
        };
        let num = |k: usize, name: &str| -> Result<f64> {
            f[k].parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    err(
                        n,
                        format!(
                            "field {} ({name}) must be a non-negative number, found `{}`",
                            k + 1,
                            f[k]
                        ),
                    )
                })
        };
        let lbn = f[2].parse::<u64>().map_err(|_| {
            err(
                n,
                format!("field 3 (blkno) must be a sector number, found `{}`", f[2]),
            )
        })?;
        let sectors = f[3].parse::<u32>().ok().filter(|&s| s > 0).ok_or_else(|| {
            err(
                n,
                format!(
                    "field 4 (bcount) must be a positive sector count, found `{}`",
                    f[3]
                ),
            )
        })?;
        out.push(ValidateRecord {
            op,
            marked_hit,
            disconnects,
            lbn,
            sectors,
            measured_ms: num(4, "access_us")? / 1000.0,
            delay_ms: num(5, "delay_us")? / 1000.0,
        });
    }
    if out.is_empty() {
        return Err(err(0, "the trace holds no requests".into()));
    }
    Ok(out)
}
