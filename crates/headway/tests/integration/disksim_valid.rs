//! DiskSim 4.0's own `valid/` experiments run in headway as they are, compared with what
//! DiskSim printed for them (`tests/fixtures/disksim_valid/`, written by
//! `scripts/disksim_valid_fixtures.py`): overall mean response and the mean response of each
//! device, within 2%, or within the measured gap of a named mechanism (docs/disksim-params.md).
//!
//! The `.parv` files are DiskSim's, not shipped: the tests read them from the oracle archive
//! in the reference data and are skipped (ignored, with the reason) without it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common;
use headway::config::{build_simulation, ExperimentConfig};
use headway::sim::RunResult;

/// DiskSim's valid/ folder, unpacked once from the oracle archive.
fn valid_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let archive = common::shared_path("disksim-oracle/disksim-4.0.tar.gz");
        let dest =
            std::env::temp_dir().join(format!("headway-disksim-valid-{}", std::process::id()));
        std::fs::create_dir_all(&dest).unwrap();
        let status = std::process::Command::new("tar")
            .args(["-xzf"])
            .arg(&archive)
            .arg("-C")
            .arg(&dest)
            .arg("disksim-4.0/valid")
            .status()
            .expect("tar runs");
        assert!(status.success(), "unpacking {}", archive.display());
        dest.join("disksim-4.0/valid")
    })
}

fn fixture(name: &str) -> serde_json::Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/disksim_valid")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn run(name: &str) -> (ExperimentConfig, RunResult) {
    let path = valid_dir().join(format!("{name}.parv"));
    let text = std::fs::read_to_string(&path).unwrap();
    let cfg = ExperimentConfig::from_toml_str(&text, Some(&path)).unwrap();
    let result = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    (cfg, result)
}

/// Relative gap of `ours` from `theirs`.
fn gap(ours: f64, theirs: f64) -> f64 {
    (ours - theirs) / theirs
}

/// Headway's overall mean and each DiskSim device with requests, against the fixture: each
/// within `tolerance` (relative).
fn compare(name: &str, tolerance: f64) {
    let fx = fixture(name);
    let (cfg, r) = run(name);
    let theirs = fx["overall_mean_ms"].as_f64().unwrap();
    let ours = r.summary.response.mean_ms;
    println!(
        "{name}: DiskSim {theirs:.3} ms, headway {ours:.3} ms ({:+.1}%), {} requests",
        100.0 * gap(ours, theirs),
        r.summary.requests
    );
    for w in &r.warnings {
        println!("  warning: {w}");
    }
    let mut failures = Vec::new();
    if gap(ours, theirs).abs() > tolerance {
        failures.push(format!("overall {ours:.3} vs {theirs:.3}"));
    }
    for d in fx["devices"].as_array().unwrap() {
        let n = d["requests"].as_u64().unwrap();
        if n == 0 {
            continue;
        }
        let i = d["device"].as_u64().unwrap() as usize;
        let theirs = d["mean_ms"].as_f64().unwrap();
        let dev_name = cfg.devices.get(i).map(|d| d.name.as_str()).unwrap_or("?");
        let Some(g) = r.summary.by_device.iter().find(|g| g.name == dev_name) else {
            failures.push(format!("device {i}: headway has no such device"));
            continue;
        };
        println!(
            "  device {i}: DiskSim {theirs:.3} ms over {n}, headway {:.3} ms over {} ({:+.1}%)",
            g.mean_response_ms,
            g.requests,
            100.0 * gap(g.mean_response_ms, theirs)
        );
        if gap(g.mean_response_ms, theirs).abs() > tolerance {
            failures.push(format!(
                "device {i}: {:.3} vs {theirs:.3}",
                g.mean_response_ms
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{name}: beyond {tolerance}: {failures:?}"
    );
}

mod shared_data {
    use super::*;

    const WHY: &str = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)";

    #[test]
    #[ignore = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)"]
    fn synthclosed() {
        let _ = WHY;
        compare("synthclosed", 0.02);
    }

    #[test]
    #[ignore = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)"]
    fn synthmixed() {
        compare("synthmixed", 0.02);
    }

    #[test]
    #[ignore = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)"]
    fn synthopen() {
        compare("synthopen", 0.02);
    }

    #[test]
    #[ignore = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)"]
    fn three_disks() {
        compare("3disks", 0.02);
    }

    #[test]
    #[ignore = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)"]
    fn three_disks_on_separate_controllers() {
        compare("3disks2", 0.02);
    }

    #[test]
    #[ignore = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)"]
    fn synthcachemem() {
        compare("synthcachemem", 0.02);
    }

    #[test]
    #[ignore = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)"]
    fn synthcachedev() {
        compare("synthcachedev", 0.02);
    }
}
