//! Experiment TOML: parsing and the checks made when a file is read.
//! The harness is `headway::fuzzing::experiment_toml` (replayed on stable by
//! crates/headway/tests/integration/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    headway::fuzzing::experiment_toml(data);
});
