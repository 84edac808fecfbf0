//! Freeblock scheduling outside the firmware on drives other than the Atlas 10K and with a
//! predictor a host can have: the calibrated one, built from timing alone.

use std::sync::Arc;

use headway::config::{build_simulation, resolve_drive, ExperimentConfig};
use headway::device::hdd::Mechanics;
use headway::experiments::freeblock::measure;
use headway::predict::{OraclePredictor, QueueModel};
use headway::request::Op;
use headway::sim::RunResult;

/// The OLTP foreground (the reproduction's) under `freeblock` over SPTF.
fn oltp(drive: &str, predictor: &str, drive_extra: &str, host_options: &str, n: u64) -> String {
    format!(
        "seed = 1\n[drive]\nname = \"{drive}\"\nqueue_depth = 2\n{drive_extra}\n\
         [host]\nscheduler = \"freeblock\"\nmax_outstanding = 2\npredictor = \"{predictor}\"\n\
         [host.options]\n{host_options}\n[host.inner]\nscheduler = \"sptf\"\n\
         [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = {n}\n\
         read_fraction = 0.6667\nalign_sectors = 8\n\
         size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n\
         [output]\nrecords = true\n"
    )
}

fn run(text: &str) -> RunResult {
    let cfg = ExperimentConfig::from_toml_str(text, None).unwrap();
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
}

#[test]
fn st41601n_makes_free_reads_though_its_queued_read_tail_is_zero() {
    // The cause of the zero: the ST41601N's bus is faster than its media, so a read's data
    // has crossed the bus a sector after its media end, and the command queued behind it
    // has its (longer) overhead done by then: the oracle's queued read tail is zero for
    // every size. The wrapper took a flat tail line for "not learned yet" and never planned.
    let spec = resolve_drive("st41601n", None).unwrap();
    let p = OraclePredictor::of_drive(&spec, Arc::new(Mechanics::new(&spec).unwrap()), 0);
    for sectors in [1, 8, 64] {
        assert_eq!(p.tail_ns(sectors, Op::Read), 0, "{sectors} sectors");
    }
    for (label, bus) in [
        ("validated bus", ""),
        ("80 MB/s bus", "bus_sector_transfer_ms = 0.0064"),
    ] {
        let with = run(&oltp("st41601n", "oracle", bus, "c_fb_ms = 0.0", 1500));
        let without = run(&oltp("st41601n", "oracle", bus, "plan = false", 1500));
        let free = measure::free_bandwidth_mb_s(&with);
        let inc = measure::fg_response_increase(&with, &without);
        assert!(
            with.summary.background_requests > 300 && free > 0.1,
            "{label}: {} free reads, {free:.3} MB/s",
            with.summary.background_requests
        );
        assert!(
            inc < 0.02,
            "{label}: foreground response rose by {:.2}%",
            inc * 100.0
        );
    }
}

#[test]
fn the_calibrated_predictor_plans_free_reads_that_leave_the_foreground_alone() {
    // A predictor without a queue model: the wrapper measures the read tail from
    // completions (sched/freeblock/tail.rs, measured.rs). Before, it
    // made no free read at all on this run.
    let with = run(&oltp("atlas10k", "calibrated", "", "c_fb_ms = 0.2", 1500));
    let without = run(&oltp("atlas10k", "calibrated", "", "plan = false", 1500));
    let free = measure::free_bandwidth_mb_s(&with);
    let inc = measure::fg_response_increase(&with, &without);
    assert!(free > 0.2, "{free:.3} MB/s");
    assert!(
        inc.abs() < 0.02,
        "foreground response changed by {:.2}%",
        inc * 100.0
    );
}
