//! A disk array's member operations against the same operations as plain requests: a 4+1
//! RAID 5 of Atlas 10K drives under random 4 KiB writes (four member operations each, one
//! write every 12 ms), and the five drives each given an open stream of half reads, half
//! writes at the pace its member operations arrive. Both report member operations (plain
//! requests) per second of wall time (criterion's "elements/s"); docs/arrays.md, "Speed".
//!
//! `cargo bench -p headway --bench array_run`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use headway::config::ExperimentConfig;

mod common;

/// Logical requests of the RAID 5 run; it makes four times as many member operations.
const REQUESTS: u64 = 20_000;
const MEMBER_OPS: u64 = 4 * REQUESTS;
const INTERARRIVAL_MS: f64 = 12.0;

fn drives() -> String {
    (0..5)
        .map(|i| format!("[[devices]]\nname = \"d{i}\"\ndrive = \"atlas10k\"\n\n"))
        .collect()
}

fn workload(device: &str, requests: u64, interarrival_ms: f64, read_fraction: f64) -> String {
    format!(
        "[[workloads]]\ndevice = \"{device}\"\nkind = \"open\"\nrequests = {requests}\n\
         interarrival_ms = {interarrival_ms:?}\nsize_sectors = 8\nalign_sectors = 8\n\
         read_fraction = {read_fraction:?}\n"
    )
}

fn raid5() -> String {
    drives()
        + "[[arrays]]\nname = \"vol\"\nlevel = \"raid5\"\n\
           members = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\"]\n\n"
        + &workload("vol", REQUESTS, INTERARRIVAL_MS, 0.0)
}

fn five_drives() -> String {
    let mut toml = drives();
    for i in 0..5 {
        toml += &workload(
            &format!("d{i}"),
            MEMBER_OPS / 5,
            INTERARRIVAL_MS * 5.0 / 4.0,
            0.5,
        );
    }
    toml
}

fn array_run(c: &mut Criterion) {
    let mut g = c.benchmark_group("array_run");
    g.sample_size(10);
    g.throughput(Throughput::Elements(MEMBER_OPS));
    for (name, toml) in [
        ("raid5_4p1_writes", raid5()),
        ("five_drives_plain", five_drives()),
    ] {
        let cfg = ExperimentConfig::from_toml_str(&toml, None).expect("benchmark config");
        common::bench_runs(&mut g, name, &cfg);
    }
    g.finish();
}

criterion_group!(benches, array_run);
criterion_main!(benches);
