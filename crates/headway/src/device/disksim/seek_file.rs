//! DiskSim's extracted seek curves (`.seek`): an optional `Seek distances measured: N` header,
//! then one `distance, time_ms[, stdev_ms]` line per measured distance.

use std::path::Path;

use crate::error::{HeadwayError, Result};

/// A seek curve holds at most one point per cylinder distance, and drives have fewer
/// cylinders than this (the DiskSim drives measure about 100 distances); a million-row table
/// is refused at the row past the bound, not stored.
pub const MAX_SEEK_POINTS: usize = 100_000;

/// `(distance in cylinders, seek time in ms)` points in increasing distance.
pub fn parse_seek(text: &str, file: &Path) -> Result<Vec<(u32, f64)>> {
    let err = |line: usize, msg: String| {
        HeadwayError::params(Some(file.to_path_buf()), Some(line), None, msg)
    };
    let mut declared: Option<(usize, usize)> = None;
    let mut points: Vec<(u32, f64)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("Seek distances measured:") {
            if declared.is_some() || !points.is_empty() {
                return Err(err(
                    line_no,
                    "the `Seek distances measured` header must come first, once".into(),
                ));
            }
            let n = rest.trim().parse::<usize>().map_err(|_| {
                err(
                    line_no,
                    format!(
                        "expected a count after `Seek distances measured:`, found `{}`",
                        rest.trim()
                    ),
                )
            })?;
            declared = Some((n, line_no));
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if !(2..=3).contains(&fields.len()) {
            return Err(err(
                line_no,
                format!("expected `distance, time_ms` (optionally `, stdev_ms`), found `{line}`"),
            ));
        }
        let distance = fields[0].parse::<u32>().map_err(|_| {
            err(
                line_no,
                format!(
                    "seek distance must be a whole number of cylinders, found `{}`",
                    fields[0]
                ),
            )
        })?;
        let time_ms = fields[1]
            .parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                err(
                    line_no,
                    format!(
                        "seek time must be a non-negative number of ms, found `{}`",
                        fields[1]
                    ),
                )
            })?;
        if let Some(&(prev, _)) = points.last() {
            if distance <= prev {
                return Err(err(
                    line_no,
                    format!("seek distances must increase; {distance} follows {prev}"),
                ));
            }
        }
        if points.len() == MAX_SEEK_POINTS {
            return Err(err(
                line_no,
                format!("more than {MAX_SEEK_POINTS} seek distances: not a seek curve"),
            ));
        }
        points.push((distance, time_ms));
    }
    if let Some((n, line)) = declared {
        if n != points.len() {
            return Err(err(
                line,
                format!(
                    "the header declares {n} distances but the file has {}",
                    points.len()
                ),
            ));
        }
    }
    if points.is_empty() {
        return Err(err(1, "the seek curve has no points".into()));
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_header_points_and_optional_stdev() {
        let p = parse_seek(
            "Seek distances measured: 3\n1,\t1.245\n2, 1.5, 0.01\n\n10,  2.0\n",
            Path::new("x.seek"),
        )
        .unwrap();
        assert_eq!(p, vec![(1, 1.245), (2, 1.5), (10, 2.0)]);
        assert_eq!(
            parse_seek("5, 1.0", Path::new("x.seek")).unwrap(),
            vec![(5, 1.0)]
        );
    }

    #[test]
    fn bad_seek_files_name_the_line() {
        let cases = [
            ("Seek distances measured: x\n", 1, "expected a count"),
            ("1, 1.0\n2 1.5\n", 2, "expected `distance, time_ms`"),
            ("1, 1.0\n-2, 1.5\n", 2, "whole number"),
            ("1, 1.0\n2, fast\n", 2, "non-negative"),
            ("1, 1.0\n2, -1\n", 2, "non-negative"),
            ("2, 1.0\n2, 1.5\n", 2, "must increase"),
            ("Seek distances measured: 3\n1, 1.0\n", 1, "declares 3"),
            ("\n# nothing\n", 1, "no points"),
            ("1, 1.0\nSeek distances measured: 1\n", 2, "must come first"),
        ];
        for (text, line, msg) in cases {
            let e = parse_seek(text, Path::new("x.seek")).unwrap_err();
            let HeadwayError::Params {
                file,
                line: l,
                msg: m,
                ..
            } = &e
            else {
                panic!("{e}")
            };
            assert_eq!(file.as_deref(), Some(Path::new("x.seek")));
            assert_eq!(*l, Some(line), "{text:?}: {e}");
            assert!(m.contains(msg), "{text:?}: {e}");
        }
    }
}
