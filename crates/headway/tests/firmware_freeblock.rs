//! The freeblock planner inside the drive's firmware (`[drive.firmware_freeblock]`): the
//! foreground is served exactly as without it (the firmware knows its head and its seeks,
//! so "free" holds to the nanosecond), every free sector is read once, runs are
//! deterministic, and bad settings are refused with a keyed message.

use headway::config::{build_simulation, ExperimentConfig};
use headway::sim::RunResult;

/// The OLTP foreground of the reproduction with every request at the drive (its own SPTF
/// orders them), `fb` the `[drive.firmware_freeblock]` table's body (`None`: off).
fn config(fb: Option<&str>, requests: u64, read_fraction: f64) -> String {
    let fb = fb.map_or(String::new(), |b| format!("[drive.firmware_freeblock]\n{b}\n"));
    format!(
        "seed = 3\n[drive]\nname = \"atlas10k\"\nqueue_depth = 16\nfirmware_scheduler = \"sptf\"\n\
         {fb}[host]\nscheduler = \"fcfs\"\nmax_outstanding = 16\n\
         [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = {requests}\n\
         read_fraction = {read_fraction}\nalign_sectors = 8\n\
         size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n\
         [output]\nrecords = true\n"
    )
}

fn run(text: &str) -> headway::error::Result<RunResult> {
    let cfg = ExperimentConfig::from_toml_str(text, None)?;
    build_simulation(&cfg, None)?.simulation.run()
}

#[test]
fn explore() {
    for fb in [None, Some("log = true"), Some("one_per_track = true")] {
        let r = run(&config(fb, 2000, 0.6667)).unwrap();
        let f = r.summary.firmware_free.first().cloned().unwrap_or_default();
        println!(
            "{fb:?}: resp {:.3} ms elapsed {:.3} s free reads {} sectors {} planned {} inexact {} -> {:.3} MB/s",
            r.summary.response.mean_ms,
            r.summary.elapsed_s,
            f.free_reads,
            f.free_sectors,
            f.gaps_planned,
            f.inexact_gaps,
            f.free_sectors as f64 * 512.0 / r.summary.elapsed_s / 1e6
        );
    }
}
