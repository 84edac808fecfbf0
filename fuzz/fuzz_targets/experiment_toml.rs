//! Experiment TOML: parsing and the checks made when a file is read.
#![no_main]
use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = headway::config::ExperimentConfig::from_toml_str(&text, Some(Path::new("exp.toml")));
});
