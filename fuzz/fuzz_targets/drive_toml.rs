//! A drive in headway's TOML form, then the drive model built from it.
//! The harness is `headway::fuzzing::drive_toml` (replayed on stable by
//! crates/headway/tests/integration/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    headway::fuzzing::drive_toml(data);
});
