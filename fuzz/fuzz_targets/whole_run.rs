//! Whole runs: a fuzzed experiment file and a fuzzed trace through the simulator. The input
//! is the experiment TOML, then `@@ trace` on a line of its own, then the trace. Runs are
//! kept small (the workload's request count, the trace's record limit and the simulated
//! time are capped) and to what a fuzzer can reach safely (catalog drives, the trace in the
//! scratch folder, the oracle predictor: calibration costs seconds a run). Asserted:
//! no panic, and conservation: a run that ends before its time limit has completed every
//! request that arrived, exactly once.
#![no_main]
use std::path::Path;

use libfuzzer_sys::fuzz_target;

use headway::config::{build_simulation, ExperimentConfig};
use headway::workload::WorkloadConfig;
use headway_fuzz::{scratch_dir, scratch_file, sections};

const MAX_REQUESTS: u64 = 200;
const MAX_TIME_S: f64 = 20.0;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let files = sections(&text);
    let trace = files
        .iter()
        .find(|(n, _)| n == "trace")
        .map(|(_, t)| t.as_str())
        .unwrap_or("");
    scratch_file("t.trace", trace.as_bytes());
    let origin = scratch_dir().join("exp.toml");
    let Ok(mut cfg) = ExperimentConfig::from_toml_str(&files[0].1, Some(&origin)) else {
        return;
    };
    if cfg.drive.name.contains('/') || cfg.drive.name.contains('.') {
        cfg.drive.name = "elite3".into();
    }
    cfg.host.predictor = "oracle".into();
    cfg.output.records = false;
    let max_time_s = cfg.output.max_time_s.unwrap_or(MAX_TIME_S).min(MAX_TIME_S);
    cfg.output.max_time_s = Some(max_time_s);
    match &mut cfg.workload {
        WorkloadConfig::Open(c) => c.requests = c.requests.min(MAX_REQUESTS),
        WorkloadConfig::Closed(c) => {
            c.requests = c.requests.min(MAX_REQUESTS);
            c.processes = c.processes.min(64);
        }
        WorkloadConfig::Bursty(c) => c.requests = c.requests.min(MAX_REQUESTS),
        WorkloadConfig::Trace(c) => {
            c.path = Path::new("t.trace").to_path_buf();
            c.limit = Some(c.limit.unwrap_or(MAX_REQUESTS).min(MAX_REQUESTS));
        }
    }
    let Ok(built) = build_simulation(&cfg, None) else {
        return;
    };
    let Ok(result) = built.simulation.run() else {
        return;
    };
    let s = &result.summary;
    let limit_ns = (max_time_s * 1e9) as u64;
    if result.end_ns < limit_ns {
        assert_eq!(
            s.requests + s.background_requests,
            s.arrived,
            "a run that ended on its own left requests unfinished or finished some twice: {s:?}"
        );
    } else {
        assert!(s.requests + s.background_requests <= s.arrived, "{s:?}");
    }
});
