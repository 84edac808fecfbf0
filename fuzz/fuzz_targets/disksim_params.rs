//! DiskSim `.parv` / `.diskspecs` with the files they source, then the drive model.
//! The harness is `headway::fuzzing::disksim_params` (replayed on stable by
//! crates/headway/tests/integration/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    headway::fuzzing::disksim_params(data);
});
