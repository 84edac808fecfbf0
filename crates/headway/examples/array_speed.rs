//! Simulation speed of a disk array against one drive: requests per second of a 4+1 RAID 5
//! volume under random small writes (each becomes four member operations), next to one
//! drive under the same load, and member operations per second:
//!
//!   cargo run --release -p headway --example array_speed
use std::time::Instant;

use headway::config::{build_simulation, ExperimentConfig};

const REQUESTS: u64 = 200_000;

fn workload(device: &str) -> String {
    format!(
        "[[workloads]]\n{device}kind = \"open\"\nrequests = {REQUESTS}\ninterarrival_ms = 4.0\n\
         size_sectors = 8\nalign_sectors = 8\nread_fraction = 0.0\n"
    )
}

fn time(toml: &str) -> (f64, u64) {
    let cfg = ExperimentConfig::from_toml_str(toml, None).expect("config");
    let t = Instant::now();
    let r = build_simulation(&cfg, None)
        .expect("build")
        .simulation
        .run()
        .expect("run");
    let s = t.elapsed().as_secs_f64();
    let member_ops = r
        .arrays
        .first()
        .map_or(r.summary.requests, |a| a.member_reads + a.member_writes);
    (s, member_ops)
}

fn main() {
    let single = format!(
        "[[devices]]\nname = \"d0\"\ndrive = \"atlas10k\"\n\n{}",
        workload("")
    );
    let mut raid = String::new();
    for i in 0..5 {
        raid += &format!("[[devices]]\nname = \"d{i}\"\ndrive = \"atlas10k\"\n\n");
    }
    raid += "[[arrays]]\nname = \"vol\"\nlevel = \"raid5\"\n\
             members = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\"]\n\n";
    raid += &workload("device = \"vol\"\n");
    println!("run,seconds,requests_per_s,member_ops,member_ops_per_s");
    for (name, toml) in [("one drive", &single), ("raid5 4+1", &raid)] {
        let (s, ops) = time(toml);
        println!(
            "{name},{s:.3},{:.0},{ops},{:.0}",
            REQUESTS as f64 / s,
            ops as f64 / s
        );
    }
}
