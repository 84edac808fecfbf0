//! What the whole-run benchmarks share.

use criterion::{measurement::WallTime, BatchSize, BenchmarkGroup};
use headway::config::{build_simulation, ExperimentConfig};

/// Time whole runs of `cfg` as `name`, each built afresh outside the timing.
pub fn bench_runs(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, cfg: &ExperimentConfig) {
    g.bench_function(name, |b| {
        b.iter_batched(
            || build_simulation(cfg, None).unwrap().simulation,
            |sim| sim.run().unwrap(),
            BatchSize::LargeInput,
        )
    });
}
