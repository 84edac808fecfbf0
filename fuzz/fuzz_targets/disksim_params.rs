//! DiskSim `.parv` / `.diskspecs` (and the `.model` and `.seek` files they source), then the
//! drive model built from the result. The input packs several files (`fuzz/src/lib.rs`,
//! `sections`); the first byte picks whether the top file is read as a run configuration or
//! a disk specification.
#![no_main]
use std::io;
use std::path::Path;

use libfuzzer_sys::fuzz_target;

use headway::device::disksim::{parse_diskspecs, parse_parv};
use headway::device::hdd::HddDevice;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let files = headway_fuzz::sections(&text);
    let resolver = |p: &Path| -> io::Result<String> {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such section"))
    };
    let top = &files[0].1;
    let spec = if pick % 2 == 0 {
        parse_parv(top, Path::new("dir/top.parv"), &resolver)
    } else {
        parse_diskspecs(top, Path::new("dir/top.diskspecs"), &resolver)
    };
    if let Ok(spec) = spec {
        let _ = HddDevice::new(&spec, 4);
    }
});
