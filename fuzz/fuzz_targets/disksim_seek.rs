//! DiskSim extracted seek curves (`.seek`).
#![no_main]
use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = headway::device::disksim::parse_seek(&text, Path::new("x.seek"));
});
