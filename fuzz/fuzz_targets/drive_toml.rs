//! A drive in headway's own TOML form, then the drive model built from it (where hostile
//! numbers would turn into allocations).
#![no_main]
use libfuzzer_sys::fuzz_target;

use headway::device::catalog::parse_toml_spec;
use headway::device::hdd::HddDevice;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(spec) = parse_toml_spec(&text, "drive.toml") {
        let _ = HddDevice::new(&spec, 4);
    }
});
