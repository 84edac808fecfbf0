//! One experiment file (headway TOML or a DiskSim `.parv`) run as a whole process, for
//! timing against DiskSim on the same file:
//!
//!   cargo run --release -p headway --example run_experiment -- synthraid5.parv
use headway::config::{build_simulation, ExperimentConfig};

fn main() {
    let Some(path) = std::env::args().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: run_experiment FILE");
        std::process::exit(2);
    };
    let outcome = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e}", path.display()))
        .and_then(|text| {
            let cfg =
                ExperimentConfig::from_toml_str(&text, Some(&path)).map_err(|e| e.to_string())?;
            let built = build_simulation(&cfg, None).map_err(|e| e.to_string())?;
            built.simulation.run().map_err(|e| e.to_string())
        });
    match outcome {
        Ok(r) => println!(
            "{}: {} requests, mean response {:.3} ms",
            path.display(),
            r.summary.requests,
            r.summary.response.mean_ms
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
