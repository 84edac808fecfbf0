//! Every DiskSim parameter file headway ships, and (ignored: they are not in the project)
//! every one in the shared reference data and DiskSim's own `valid/` folder, either runs or
//! says which setting it does not support (a `Params` error naming file, line and key).

use crate::common;

use std::path::{Path, PathBuf};

use headway::device::catalog;
use headway::device::disksim;
use headway::device::hdd::HddSpec;
use headway::request::Op;
use headway::validate::{validate, ValidateRecord};
use headway::HeadwayError;

/// A few hundred requests spread over the drive: random and sequential, reads and writes,
/// 1 to 256 sectors, reaching the last sector.
fn probe_trace(capacity: u64) -> Vec<ValidateRecord> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = 0u64;
    (0..300)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let sectors = [1u32, 8, 8, 64, 256][(x % 5) as usize];
            let lbn = match i {
                0 => capacity - u64::from(sectors),
                _ if x % 3 == 0 && next + u64::from(sectors) <= capacity => next,
                _ => (x >> 8) % (capacity - u64::from(sectors)),
            };
            next = lbn + u64::from(sectors);
            ValidateRecord {
                op: if x % 4 == 0 { Op::Write } else { Op::Read },
                marked_hit: false,
                disconnects: 0,
                lbn,
                sectors,
                measured_ms: 10.0,
                delay_ms: (x % 20) as f64 * 0.5,
            }
        })
        .collect()
}

/// Runs the drive and checks the run is sane.
fn runs(spec: &HddSpec) {
    let cap = spec.block_count;
    let r = validate(spec, &probe_trace(cap)).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
    assert_eq!(r.requests, 300);
    assert!(
        r.simulated_mean_ms > 0.0 && r.simulated_mean_ms < 200.0,
        "{}: {}",
        spec.name,
        r.simulated_mean_ms
    );
}

#[test]
fn every_catalog_drive_runs_requests_up_to_its_last_sector() {
    for name in catalog::names() {
        runs(&catalog::lookup(&name).unwrap());
    }
}

#[test]
fn hp_c3323a_is_disksims_drive_and_its_validation_trace_fits() {
    // DiskSim 4.0's file declares 2,056,008 blocks; its zones map the capacity DiskSim
    // uses. The measured trace reaches sector 1,898,003, which must fit.
    let spec = catalog::lookup("hp_c3323a").unwrap();
    assert!(spec.block_count > 1_898_003 + 64, "{}", spec.block_count);
    let w = spec.unmodelled_settings();
    if spec.block_count != 2_056_008 {
        assert!(
            w.iter()
                .any(|w| w.contains("2056008") && w.contains(&spec.block_count.to_string())),
            "{w:?}"
        );
    }
}

enum Outcome {
    Ran,
    /// Describes no disk at all (DiskSim's MEMS and simple-disk examples).
    NoDisk,
    /// The reader's refusal, which must name a key (the setting).
    Refused(String),
}

fn try_file(path: &Path) -> Outcome {
    let loaded = match path.extension().and_then(|e| e.to_str()) {
        Some("parv") => disksim::load_parv(path),
        _ => disksim::load_diskspecs(path),
    };
    match loaded {
        Ok(spec) => {
            runs(&spec);
            Outcome::Ran
        }
        Err(e) if e.to_string().contains("instantiates no `disksim_disk`") => Outcome::NoDisk,
        Err(e @ HeadwayError::Params { .. }) => {
            let HeadwayError::Params { key, .. } = &e else {
                unreachable!()
            };
            assert!(
                key.is_some(),
                "{}: refused without naming a setting: {e}",
                path.display()
            );
            Outcome::Refused(e.to_string())
        }
        Err(e) => panic!("{}: not a parameter error: {e}", path.display()),
    }
}

fn files_in(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| exts.contains(&e))
        })
        .collect();
    v.sort();
    v
}

/// Each file runs or names what it lacks; prints the table (`--nocapture`).
fn sweep(files: &[PathBuf]) {
    assert!(!files.is_empty());
    for f in files {
        match try_file(f) {
            Outcome::Ran => println!("{:40} runs", f.display()),
            Outcome::NoDisk => println!("{:40} describes no disk", f.display()),
            Outcome::Refused(why) => println!("{:40} refused: {why}", f.display()),
        }
    }
}

mod shared_data {
    use super::*;

    #[test]
    #[ignore = "needs the reference data in ../shared (not shipped); scripts/test.sh runs it when present"]
    fn every_reference_parameter_file_runs_or_names_the_setting_it_lacks() {
        let dir = common::shared_path("reference/disksim/params");
        sweep(&files_in(&dir, &["parv", "diskspecs"]));
    }
}

#[test]
#[ignore = "needs DiskSim's valid/ folder from ../shared/disksim-oracle/build.sh, \
            given as DISKSIM_VALID"]
fn every_parv_of_disksims_valid_folder_runs_or_names_the_setting_it_lacks() {
    let dir = PathBuf::from(std::env::var("DISKSIM_VALID").expect("DISKSIM_VALID is not set"));
    sweep(&files_in(&dir, &["parv"]));
}
