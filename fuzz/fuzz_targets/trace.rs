//! Every trace format, content detection and the compressed containers.
//! The harness is `headway::fuzzing::trace` (replayed on stable by
//! crates/headway/tests/integration/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    headway::fuzzing::trace(data);
});
