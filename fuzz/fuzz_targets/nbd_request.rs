//! The NBD server's handshake and request parser on arbitrary client bytes.
//! The harness is `headway::fuzzing::nbd_request` (replayed on stable by
//! crates/headway/tests/integration/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    headway::fuzzing::nbd_request(data);
});
