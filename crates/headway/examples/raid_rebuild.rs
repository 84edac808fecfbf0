//! Rebuild time against foreground impact: a 4+1 RAID 5 volume of Atlas 10K drives under a
//! random small-request load loses a member, and a spare is rebuilt at set rates or in idle
//! time. Prints CSV (one row per policy, with the healthy and degraded runs for reference):
//!
//!   cargo run --release -p headway --example raid_rebuild > raid_rebuild.csv
//!
//! The volume uses the first `MEMBER_SECTORS` of each member, so that a rebuild takes
//! seconds of simulated time (docs/arrays.md shows the table).
use headway::config::{build_simulation, ExperimentConfig};

const MEMBER_SECTORS: u64 = 1_000_000;

fn config(array_extra: &str) -> String {
    let mut s = String::from("seed = 11\n");
    for name in ["d0", "d1", "d2", "d3", "d4", "spare"] {
        s += &format!("[[devices]]\nname = \"{name}\"\ndrive = \"atlas10k\"\n\n");
    }
    s += &format!(
        "[[arrays]]\nname = \"vol\"\nlevel = \"raid5\"\n\
         members = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\"]\nstripe_unit_sectors = 128\n\
         member_sectors = {MEMBER_SECTORS}\nspare = \"spare\"\n{array_extra}\n\n\
         [[workloads]]\ndevice = \"vol\"\nkind = \"open\"\nrequests = 20000\n\
         interarrival_ms = 8.0\nsize_sectors = 8\nread_fraction = 0.7\n\n\
         [host]\nscheduler = \"sptf\"\n"
    );
    s
}

fn main() {
    let fail = "failure = { member = \"d2\", at_ms = 1000.0 }";
    let runs: Vec<(String, String)> = [("healthy", String::new()), ("degraded", fail.to_string())]
        .into_iter()
        .map(|(n, e)| (n.to_string(), e))
        .chain([2.0, 5.0, 20.0].into_iter().map(|mb| {
            (
                format!("rate {mb} MB/s"),
                format!(
                "{fail}\nrebuild = {{ policy = \"rate\", rate_mb_s = {mb}, unit_sectors = 2048 }}"
            ),
            )
        }))
        .chain([1.0, 10.0].into_iter().map(|ms| {
            (
                format!("idle after {ms} ms"),
                format!(
                "{fail}\nrebuild = {{ policy = \"idle\", idle_ms = {ms}, unit_sectors = 2048 }}"
            ),
            )
        }))
        .collect();
    println!("policy,rebuild_ms,rebuild_done,foreground_mean_ms,foreground_p99_ms,requests");
    for (name, extra) in runs {
        let cfg = ExperimentConfig::from_toml_str(&config(&extra), None).expect("config");
        let r = build_simulation(&cfg, None)
            .expect("build")
            .simulation
            .run()
            .expect("run");
        let a = &r.arrays[0];
        let (rebuild_ms, done) = match &a.rebuild {
            Some(b) => (
                b.duration_ms.map_or(String::new(), |d| format!("{d:.0}")),
                format!("{}/{}", b.rows_done, b.rows_total),
            ),
            None => (String::new(), String::new()),
        };
        println!(
            "{name},{rebuild_ms},{done},{:.2},{:.2},{}",
            r.summary.response.mean_ms, r.summary.response.p99_ms, r.summary.requests
        );
    }
}
