//! Disk arrays end to end: `[[arrays]]` volumes run, every logical request completes once
//! after its member operations, the member I/O counts of small and full-stripe writes,
//! degraded reads, rebuild and scrub coverage, keyed errors, determinism.

use headway::config::{build_simulation, ExperimentConfig};
use headway::sim::RunResult;

fn run(toml: &str) -> RunResult {
    let cfg = ExperimentConfig::from_toml_str(toml, None).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    build_simulation(&cfg, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .simulation
        .run()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn err(toml: &str) -> String {
    match ExperimentConfig::from_toml_str(toml, None)
        .and_then(|cfg| build_simulation(&cfg, None).map(|_| ()))
    {
        Ok(()) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

/// `n` devices `d0..` of a small drive, the array table `array`, the workload table `wl`.
fn system(n: usize, array: &str, wl: &str) -> String {
    let mut s = String::from("seed = 3\n");
    for i in 0..n {
        s += &format!("[[devices]]\nname = \"d{i}\"\ndrive = \"atlas10k\"\n\n");
    }
    s += &format!("[[arrays]]\nname = \"vol\"\n{array}\n\n[[workloads]]\ndevice = \"vol\"\n{wl}\n");
    s
}

const RAID5: &str = "level = \"raid5\"\nmembers = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\"]\nstripe_unit_sectors = 16";

#[test]
fn raid5_small_writes_are_four_member_ios() {
    let r = run(&system(
        5,
        RAID5,
        "kind = \"open\"\nrequests = 200\ninterarrival_ms = 5.0\nsize_sectors = 8\nread_fraction = 0.0\nalign_sectors = 8",
    ));
    let a = &r.summary.arrays[0];
    println!("{a:?}");
    assert_eq!(a.requests, 200);
    assert_eq!(r.summary.requests, 200);
    assert_eq!(a.rmw_writes, 200);
    assert_eq!(a.member_reads, 400);
    assert_eq!(a.member_writes, 400);
    assert_eq!(a.parity_ios, 400);
}
