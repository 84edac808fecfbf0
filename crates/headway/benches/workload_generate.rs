//! Requests per second the synthetic workloads generate, driven as the engine drives an open
//! workload (one pending arrival at a time), without the rest of the simulator.
//!
//! `cargo bench -p headway --bench workload_generate`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use headway::config::ExperimentConfig;
use headway::engine::RngStreams;
use headway::workload::Arrivals;

const REQUESTS: u64 = 1_000_000;
const ATLAS10K_SECTORS: u64 = 17_938_986;

fn drive(body: &str) -> u64 {
    let cfg = ExperimentConfig::from_toml_str(&format!("[workload]\n{body}"), None).unwrap();
    let mut w = cfg
        .workload
        .build(ATLAS10K_SECTORS, &RngStreams::new(1), None)
        .unwrap();
    let mut arrivals = Arrivals::default();
    w.start(&mut arrivals).unwrap();
    let mut sectors = 0;
    loop {
        let Some(req) = arrivals.drain().next() else {
            return sectors;
        };
        sectors += req.sectors as u64;
        w.on_arrival(&req, &mut arrivals).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("open");
    g.sample_size(10);
    g.throughput(Throughput::Elements(REQUESTS));
    for (name, body) in [
        ("poisson_uniform_4k", ""),
        (
            "poisson_mixed",
            "read_fraction = 0.6\nsize = { kind = \"exponential\", mean_sectors = 16 }\nlocality = { kind = \"hot\", regions = [{ start_fraction = 0.2, size_fraction = 0.1, access_fraction = 0.7 }] }",
        ),
        ("fixed_sequential", "arrival = \"fixed\"\nlocality = { kind = \"sequential\", run_length = 32 }"),
    ] {
        let body = format!("requests = {REQUESTS}\n{body}");
        g.bench_function(name, |b| b.iter(|| drive(&body)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
