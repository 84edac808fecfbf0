//! The validation traces that ship with headway (DiskSim 4.0's, embedded with its copyright
//! notice from `catalog/validation/`), so validation works from a fresh install.

use std::path::Path;

use super::trace::{parse_validate_trace, ValidateRecord};
use crate::error::{HeadwayError, Result};

/// One shipped trace: its name, the catalog drive it was measured on, and DiskSim 4.0's own
/// demerit on it (`None`: DiskSim aborts on this drive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuiltinTrace {
    pub name: &'static str,
    pub drive: &'static str,
    pub disksim_demerit_ms: Option<f64>,
    file: &'static str,
    text: &'static str,
}

macro_rules! trace {
    ($name:literal, $drive:literal, $demerit:expr, $file:literal) => {
        BuiltinTrace {
            name: $name,
            drive: $drive,
            disksim_demerit_ms: $demerit,
            file: $file,
            text: include_str!(concat!("../../catalog/validation/", $file)),
        }
    };
}

/// Every shipped trace, by name (the drive's catalog name).
// 0.318 ms is DiskSim's measured demerit on the Cheetah, not an approximation of 1/pi.
#[allow(clippy::approx_constant)]
pub static BUILTIN_TRACES: &[BuiltinTrace] = &[
    trace!("atlas10k", "atlas10k", Some(0.268), "atlas10k.trace"),
    trace!("cheetah4lp", "cheetah4lp", Some(0.318), "cheetah4LP.trace"),
    trace!("hp_c2247a", "hp_c2247a", Some(0.090), "hp_c2247a.trace"),
    trace!("dec_rz26", "dec_rz26", Some(0.341), "dec_rz26.trace"),
    trace!("st41601n", "st41601n", None, "st41601n.trace"),
];

/// DiskSim 4.0's demerit (ms) on its validation trace of each catalog drive, as DiskSim
/// computed it (`runvalid` on the oracle build for the five shipped traces; DiskSim's
/// published figures for the six whose traces are not shipped). `None`: not a catalog drive
/// DiskSim validated, or DiskSim aborts on it (st41601n).
pub fn disksim_demerit_ms(drive: &str) -> Option<f64> {
    let d = match drive.to_lowercase().as_str() {
        "atlas10k" => 0.267525,
        "atlas_iii" => 0.378078,
        "barracuda" => 0.347863,
        "cheetah4lp" => 0.318228,
        "cheetah9lp" => 0.107098,
        "dec_rz26" => 0.340575,
        "hp_c2247a" => 0.089932,
        "hp_c2490a" => 0.253831,
        "hp_c3323a" => 0.305712,
        "ibm18es" => 0.136072,
        _ => return None,
    };
    Some(d)
}

/// Names of the shipped validation traces.
pub fn builtin_trace_names() -> Vec<String> {
    BUILTIN_TRACES.iter().map(|t| t.name.to_string()).collect()
}

fn find(name: &str) -> Result<&'static BuiltinTrace> {
    let wanted = name.to_lowercase();
    BUILTIN_TRACES
        .iter()
        .find(|t| t.name == wanted)
        .ok_or_else(|| HeadwayError::Unknown {
            kind: "validation trace",
            name: name.into(),
            known: builtin_trace_names(),
        })
}

/// The records of the shipped trace `name` (case does not matter).
pub fn builtin_trace(name: &str) -> Result<Vec<ValidateRecord>> {
    let t = find(name)?;
    let origin = Path::new("catalog/validation").join(t.file);
    parse_validate_trace(t.text.as_bytes(), Some(&origin))
}

impl BuiltinTrace {
    /// The shipped trace called `name`.
    pub fn get(name: &str) -> Result<&'static BuiltinTrace> {
        find(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_trace_parses_and_names_a_catalog_drive() {
        for t in BUILTIN_TRACES {
            let recs = builtin_trace(t.name).unwrap();
            assert!(recs.len() > 7000, "{}", t.name);
            crate::device::catalog::lookup(t.drive).unwrap();
        }
    }

    #[test]
    fn disksims_demerit_is_known_for_every_drive_it_validated() {
        for t in BUILTIN_TRACES {
            let exact = disksim_demerit_ms(t.drive);
            match t.disksim_demerit_ms {
                Some(d) => assert!((exact.unwrap() - d).abs() < 0.0005, "{}", t.name),
                None => assert_eq!(exact, None, "{}", t.name),
            }
        }
        assert_eq!(disksim_demerit_ms("HP_C2490A"), Some(0.253831));
        assert_eq!(disksim_demerit_ms("elite3"), None);
    }

    #[test]
    fn unknown_trace_lists_the_known_ones() {
        let e = builtin_trace("nope").unwrap_err().to_string();
        assert!(e.contains("dec_rz26") && e.contains("atlas10k"), "{e}");
    }
}
