//! Replay a trace file and print the summary, the trace report, and the time taken: the
//! command behind the peak-memory figure in `docs/traces.md`.
//!
//! ```text
//! cargo run --release -p headway --example replay_trace -- generate 10000000 /tmp/big.trace
//! /usr/bin/time -v target/release/examples/replay_trace /tmp/big.trace [drive] [scheduler] ['extra workload keys']
//! ```
//!
//! `generate N PATH` writes N random 4 KiB requests (70% reads, exponential gaps of 20 ms
//! mean, one device) in DiskSim ASCII.

use std::io::Write;
use std::time::Instant;

use headway::config::{build_simulation, ExperimentConfig};
use rand::{Rng, SeedableRng};

const ELITE3_SECTORS: u64 = 5_461_533;

fn generate(n: u64, path: &str) -> std::io::Result<()> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(42);
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut t = 0.0f64;
    for _ in 0..n {
        t += -20.0 * (1.0 - rng.random::<f64>()).ln();
        let lbn = rng.random_range(0..ELITE3_SECTORS / 8) * 8;
        writeln!(out, "{t:.6} 0 {lbn} 8 {}", rng.random_bool(0.7) as u8)?;
    }
    out.flush()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("generate") {
        let n: u64 = args
            .get(1)
            .and_then(|s| s.parse().ok())
            .expect("generate N PATH");
        generate(n, args.get(2).expect("generate N PATH")).unwrap();
        return;
    }
    let trace = args
        .first()
        .expect("replay_trace TRACE [drive] [scheduler]");
    let drive = args.get(1).map(String::as_str).unwrap_or("elite3");
    let sched = args.get(2).map(String::as_str).unwrap_or("fcfs");
    let extra = args.get(3).map(String::as_str).unwrap_or("");
    let toml = format!(
        "[drive]\nname = \"{drive}\"\n[host]\nscheduler = \"{sched}\"\n[workload]\nkind = \"trace\"\npath = \"{trace}\"\n{extra}\n"
    );
    let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap_or_else(|e| panic!("{e}"));
    let started = Instant::now();
    let result = match build_simulation(&cfg, None).and_then(|b| b.simulation.run()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let secs = started.elapsed().as_secs_f64();
    let s = &result.summary;
    println!(
        "{} requests in {secs:.1} s ({:.0} requests/s); mean response {:.3} ms",
        s.requests,
        s.requests as f64 / secs,
        s.response.mean_ms
    );
    for w in &result.warnings {
        println!("warning: {w}");
    }
}
