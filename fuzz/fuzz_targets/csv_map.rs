//! CSV column maps, then a CSV trace read with the map.
//! The harness is `headway::fuzzing::csv_map` (replayed on stable by
//! crates/headway/tests/integration/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    headway::fuzzing::csv_map(data);
});
