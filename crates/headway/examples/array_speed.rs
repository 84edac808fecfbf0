//! Simulation speed of a disk array against one drive: requests per second of a 4+1 RAID 5
//! volume under random small writes (each becomes four member operations: the old data and
//! parity read, then both written), next to one drive under the same arrival stream, and
//! to the five drives given the member operations' load as plain requests (each drive an
//! open stream of half reads, half writes at the rate its member operations arrive):
//!
//!   cargo run --release -p headway --example array_speed [INTERARRIVAL_MS] [one|raid5|five] [REQUESTS]
//!
//! The default mean inter-arrival, 4 ms, overloads both the drive and the array's members
//! (their queues grow through the run: the mean response column shows it); 12 ms loads
//! them moderately. A case name runs that case only (for a profiler or an instruction
//! count: two lengths' difference takes out the start-up), and REQUESTS (default 200,000)
//! sets the run's length.
use std::time::Instant;

use headway::config::{build_simulation, ExperimentConfig};

const DEFAULT_REQUESTS: u64 = 200_000;

fn workload(device: &str, requests: u64, interarrival_ms: f64, read_fraction: f64) -> String {
    format!(
        "[[workloads]]\n{device}kind = \"open\"\nrequests = {requests}\n\
         interarrival_ms = {interarrival_ms:?}\nsize_sectors = 8\nalign_sectors = 8\n\
         read_fraction = {read_fraction:?}\n"
    )
}

/// Seconds to run `toml`, the requests (logical ones, for an array), the member operations
/// (the requests, without an array) and the mean response time (ms).
fn time(toml: &str) -> (f64, u64, u64, f64) {
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
    let requests = r.arrays.first().map_or(r.summary.requests, |a| a.requests);
    (s, requests, member_ops, r.summary.response.mean_ms)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let interarrival_ms: f64 = args
        .next()
        .map_or(4.0, |a| a.parse().expect("INTERARRIVAL_MS is a number"));
    let only = args.next();
    let requests: u64 = args.next().map_or(DEFAULT_REQUESTS, |a| {
        a.parse().expect("REQUESTS is a whole number")
    });
    let single = format!(
        "[[devices]]\nname = \"d0\"\ndrive = \"atlas10k\"\n\n{}",
        workload("", requests, interarrival_ms, 0.0)
    );
    let mut raid = String::new();
    for i in 0..5 {
        raid += &format!("[[devices]]\nname = \"d{i}\"\ndrive = \"atlas10k\"\n\n");
    }
    raid += "[[arrays]]\nname = \"vol\"\nlevel = \"raid5\"\n\
             members = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\"]\n\n";
    raid += &workload("device = \"vol\"\n", requests, interarrival_ms, 0.0);
    // The member operations' load as plain requests: four a request, spread evenly over
    // the five drives, so each drive gets `requests * 4 / 5` over the same simulated time.
    let mut five = String::new();
    for i in 0..5 {
        five += &format!("[[devices]]\nname = \"d{i}\"\ndrive = \"atlas10k\"\n\n");
    }
    for i in 0..5 {
        five += &workload(
            &format!("device = \"d{i}\"\n"),
            requests * 4 / 5,
            interarrival_ms * 5.0 / 4.0,
            0.5,
        );
    }
    println!("run,seconds,requests_per_s,member_ops,member_ops_per_s,mean_response_ms");
    let cases = [
        ("one drive", "one", &single),
        ("raid5 4+1", "raid5", &raid),
        ("five drives", "five", &five),
    ];
    for (name, key, toml) in cases {
        if only.as_deref().is_some_and(|o| o != key) {
            continue;
        }
        let (s, requests, ops, response_ms) = time(toml);
        println!(
            "{name},{s:.3},{:.0},{ops},{:.0},{response_ms:.2}",
            requests as f64 / s,
            ops as f64 / s
        );
    }
}
