//! DiskSim extracted seek curves (`.seek`).
//! The harness is `headway::fuzzing::disksim_seek` (replayed on stable by
//! crates/headway/tests/integration/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    headway::fuzzing::disksim_seek(data);
});
