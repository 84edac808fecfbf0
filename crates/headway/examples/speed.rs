//! Rough speed check: `cargo run --release -p headway --example speed -- DRIVE SCHED N IA_MS`.
use headway::config::{build_simulation, ExperimentConfig};
use std::time::Instant;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let drive = a.get(1).map(String::as_str).unwrap_or("elite3");
    let sched = a.get(2).map(String::as_str).unwrap_or("fcfs");
    let n: u64 = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let ia: f64 = a.get(4).and_then(|s| s.parse().ok()).unwrap_or(12.0);
    let toml = format!("[drive]\nname=\"{drive}\"\n[host]\nscheduler=\"{sched}\"\n[workload]\nrequests={n}\ninterarrival_ms={ia}\n");
    let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
    let sim = build_simulation(&cfg, None).unwrap().simulation;
    let t = Instant::now();
    let r = sim.run().unwrap();
    let dt = t.elapsed().as_secs_f64();
    println!("{drive} {sched} n={n} ia={ia}: {:.3} s, {:.0} req/s, mean resp {:.2} ms, util {:.3}, mean queue {:.1}", dt, n as f64 / dt, r.summary.response.mean_ms, r.summary.utilisation, r.summary.mean_queue_length);
}
