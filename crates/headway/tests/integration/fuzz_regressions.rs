//! The fuzz harnesses (`headway::fuzzing`) on stable Rust: every seed in `fuzz/seeds/TARGET/`
//! and every input that once crashed a target, kept in `fuzz/regressions/TARGET/` (each named
//! after what it found; docs/reliability.md lists them). A crash found by `scripts/fuzz.sh`
//! becomes a regression by copying its input there; this test then fails until it is fixed.

use crate::common;

use std::path::{Path, PathBuf};

use headway::fuzzing;

type Harness = fn(&[u8]) -> bool;

const TARGETS: &[(&str, Harness)] = &[
    ("experiment_toml", fuzzing::experiment_toml),
    ("drive_toml", fuzzing::drive_toml),
    ("disksim_params", fuzzing::disksim_params),
    ("disksim_seek", fuzzing::disksim_seek),
    ("trace", fuzzing::trace),
    ("csv_map", fuzzing::csv_map),
    ("whole_run", fuzzing::whole_run),
    ("nbd_request", fuzzing::nbd_request),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = fuzz_dir().join(kind).join(target);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// Every input of `kind` through its harness; returns the inputs each harness refused.
fn replay(kind: &str) -> Vec<String> {
    let mut refused = Vec::new();
    for (target, harness) in TARGETS {
        for path in inputs(kind, target) {
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| harness(&data));
            match outcome {
                Ok(true) => {}
                Ok(false) => refused.push(format!("{target}/{}", path.display())),
                Err(_) => panic!("{target}: {} panicked", path.display()),
            }
        }
    }
    refused
}

/// The seeds are valid inputs that reach past the parsers (a whole-run seed runs and
/// completes requests, so conservation is checked, not skipped by an early error).
#[test]
fn every_seed_is_accepted_by_its_harness() {
    for (target, _) in TARGETS {
        assert!(!inputs("seeds", target).is_empty(), "no seeds for {target}");
    }
    let refused = replay("seeds");
    fuzzing::clean_scratch();
    assert!(refused.is_empty(), "seeds refused: {refused:#?}");
}

#[test]
fn every_input_that_once_crashed_a_target_is_answered() {
    replay("regressions");
    fuzzing::clean_scratch();
}

/// Found by the `trace` target: a blkparse event line that stops right after its RWBS field
/// made the error message slice the line from a pointer that was not in it (an overflow
/// panic; in a release build, a slice out of bounds).
#[test]
fn a_blkparse_event_line_that_stops_at_rwbs() {
    use headway::workload::trace::{open_reader, TraceFormat};
    let dir = common::scratch("rwbs");
    let path = dir.join("t.blk");
    std::fs::write(
        &path,
        "  8,0 3 1 0.000000000 697 Q W\n  8,0 3 2 0.1 697 Q W 8 + 8 [a]\n",
    )
    .unwrap();
    let mut r = open_reader(&path, TraceFormat::Blkparse).unwrap();
    let e = r.next_record().unwrap_err().to_string();
    assert!(
        e.contains("t.blk:1: ") && e.contains("should read `sector + sectors`, got ``"),
        "{e}"
    );
    assert!(r.can_continue());
    assert_eq!(r.next_record().unwrap().unwrap().lbn, 8);
    std::fs::remove_dir_all(&dir).unwrap();
}
