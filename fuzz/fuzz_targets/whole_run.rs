//! Whole runs: a fuzzed experiment and trace through the simulator, conservation asserted.
//! The harness is `headway::fuzzing::whole_run` (replayed on stable by
//! crates/headway/tests/integration/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    headway::fuzzing::whole_run(data);
});
