//! The reference benchmark (as `headway bench`): random 4 KiB reads, uniform over the
//! drive, exponential inter-arrivals, replayed through FCFS and SPTF. Reports simulated
//! requests per second of wall time (criterion's "elements/s").
//!
//! `cargo bench -p headway --bench replay`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use headway::config::{build_simulation, ExperimentConfig};

const REQUESTS: u64 = 200_000;

fn config(drive: &str, sched: &str, interarrival_ms: f64) -> ExperimentConfig {
    ExperimentConfig::from_toml_str(
        &format!("seed = 1\n[drive]\nname = \"{drive}\"\n[host]\nscheduler = \"{sched}\"\n[workload]\nrequests = {REQUESTS}\ninterarrival_ms = {interarrival_ms}\nsize_sectors = 8\nread_fraction = 1.0\n"),
        None,
    )
    .expect("benchmark config")
}

fn replay(c: &mut Criterion) {
    let mut g = c.benchmark_group("replay");
    g.sample_size(10);
    g.throughput(Throughput::Elements(REQUESTS));
    for (name, drive, sched, ia) in [
        ("fcfs_moderate", "atlas10k", "fcfs", 12.0),
        ("sptf_moderate", "atlas10k", "sptf", 12.0),
        ("sptf_heavy", "atlas10k", "sptf", 5.5),
    ] {
        let cfg = config(drive, sched, ia);
        g.bench_function(name, |b| {
            b.iter_batched(
                || build_simulation(&cfg, None).unwrap().simulation,
                |sim| sim.run().unwrap(),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
