//! The reference benchmark (as `headway bench`): random 4 KiB reads, uniform over the
//! drive, exponential inter-arrivals, replayed through FCFS and SPTF, ordered at the host
//! (one command at the drive) and, as DiskSim's benchmark setup does, by the drive's own
//! firmware over a queue of 64 (the `_drive_q64` cases). Reports simulated requests per
//! second of wall time (criterion's "elements/s").
//!
//! `cargo bench -p headway --bench replay`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use headway::config::ExperimentConfig;

mod common;

const REQUESTS: u64 = 200_000;

/// `firmware`: the drive's own scheduler over a queue of 64 (the host passes every request
/// on in arrival order); `None`: the host orders them, one command at the drive.
fn config(
    drive: &str,
    sched: &str,
    firmware: Option<&str>,
    interarrival_ms: f64,
) -> ExperimentConfig {
    let (host, drive_queue) = match firmware {
        Some(fw) => (
            "fcfs",
            format!("queue_depth = 64\nfirmware_scheduler = \"{fw}\"\n"),
        ),
        None => (sched, String::new()),
    };
    ExperimentConfig::from_toml_str(
        &format!("seed = 1\n[drive]\nname = \"{drive}\"\n{drive_queue}[host]\nscheduler = \"{host}\"\n[workload]\nrequests = {REQUESTS}\ninterarrival_ms = {interarrival_ms}\nsize_sectors = 8\nread_fraction = 1.0\n"),
        None,
    )
    .expect("benchmark config")
}

fn replay(c: &mut Criterion) {
    let mut g = c.benchmark_group("replay");
    g.sample_size(10);
    g.throughput(Throughput::Elements(REQUESTS));
    for (name, drive, sched, firmware, ia) in [
        ("fcfs_moderate", "atlas10k", "fcfs", None, 12.0),
        ("sptf_moderate", "atlas10k", "sptf", None, 12.0),
        ("sptf_heavy", "atlas10k", "sptf", None, 5.5),
        (
            "fcfs_moderate_drive_q64",
            "atlas10k",
            "fcfs",
            Some("fcfs"),
            12.0,
        ),
        (
            "sptf_heavy_drive_q64",
            "atlas10k",
            "sptf",
            Some("sptf"),
            5.5,
        ),
    ] {
        let cfg = config(drive, sched, firmware, ia);
        common::bench_runs(&mut g, name, &cfg);
    }
    g.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
