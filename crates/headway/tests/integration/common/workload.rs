//! Helpers of the workload tests: workload tables from TOML, open-loop runs without an engine.

use headway::config::ExperimentConfig;
use headway::engine::RngStreams;
use headway::workload::{Arrivals, Workload, WorkloadConfig};
use headway::Request;

/// The `[workload]` table of an experiment file.
pub fn workload(toml_body: &str) -> WorkloadConfig {
    experiment(&format!("[workload]\n{toml_body}")).workload
}

pub fn experiment(toml: &str) -> ExperimentConfig {
    ExperimentConfig::from_toml_str(toml, None).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Drive an open-loop workload to its end without an engine: every request it schedules
/// "arrives" at once, in order.
pub fn run_open(w: &mut dyn Workload) -> Vec<Request> {
    try_run_open(w).unwrap_or_else(|e| panic!("{e}"))
}

pub fn try_run_open(w: &mut dyn Workload) -> headway::Result<Vec<Request>> {
    let mut arrivals = Arrivals::default();
    w.start(&mut arrivals)?;
    let mut out = Vec::new();
    loop {
        let batch: Vec<Request> = arrivals.drain().collect();
        if batch.is_empty() {
            return Ok(out);
        }
        for r in batch {
            w.on_arrival(&r, &mut arrivals)?;
            out.push(r);
        }
    }
}

/// Build `cfg` for a drive of `capacity` sectors with `seed`, and run it open-loop.
pub fn requests(cfg: &WorkloadConfig, capacity: u64, seed: u64) -> Vec<Request> {
    let mut w = cfg.build(capacity, &RngStreams::new(seed), None).unwrap();
    run_open(&mut *w)
}

pub fn mean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (s, n) = xs
        .into_iter()
        .fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    s / n as f64
}
