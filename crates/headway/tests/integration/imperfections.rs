//! The truth made imperfect: seek jitter, spindle drift and the drive's own head movements,
//! seen as a host sees them (timed commands) and through a whole simulation.

use headway::calibrate::{device_for, Probe};
use headway::config::{build_simulation, ExperimentConfig};
use headway::device::catalog;
use headway::device::hdd::HddDevice;
use headway::device::imperfect::{ImperfectDevice, Imperfections};
use headway::engine::RngStreams;
use headway::link::Link;
use headway::request::Op;

fn probe(imp: &str) -> Probe {
    let spec = catalog::lookup("st41601n").unwrap();
    let imp: Imperfections = toml::from_str(imp).unwrap();
    Probe::new(device_for(&spec, &imp).unwrap(), Link::default())
}

/// Observed times of `n` pairs: write `a`, then immediately `b`.
fn pair_times(p: &mut Probe, a: u64, b: u64, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| {
            let t0 = p.write(a).unwrap();
            p.write(b).unwrap() - t0
        })
        .collect()
}

#[test]
fn no_imperfection_is_the_plain_drive() {
    assert!(Imperfections::default().is_none());
    let mut plain = probe("");
    // The wrapper itself, with nothing to add, changes nothing.
    let spec = catalog::lookup("st41601n").unwrap();
    let dev = HddDevice::new(&spec, 1).unwrap();
    let mech = dev.mechanics().clone();
    let wrapper = ImperfectDevice::new(
        Box::new(dev),
        mech,
        Imperfections::default(),
        RngStreams::new(1).stream("x"),
    );
    let mut wrapped = Probe::new(Box::new(wrapper), Link::default());
    assert_eq!(
        pair_times(&mut plain, 1000, 900_000, 20),
        pair_times(&mut wrapped, 1000, 900_000, 20)
    );
}

#[test]
fn seek_jitter_delays_only_commands_that_change_cylinder() {
    let mut plain = probe("");
    let mut jittery = probe("seek_jitter_ms = 2.0");
    // Same track: no seek, no jitter.
    assert_eq!(
        pair_times(&mut plain, 1000, 1040, 10),
        pair_times(&mut jittery, 1000, 1040, 10)
    );
    // A long seek: the time is the plain one or a rotation more (the sector was missed),
    // and some jitter does make it miss.
    let base = pair_times(&mut plain, 1000, 1_500_000, 1)[0];
    let t = pair_times(&mut jittery, 1000, 1_500_000, 200);
    let period = 11_117_287u64;
    assert!(t
        .iter()
        .all(|&x| x.abs_diff(base) < 1000 || x.abs_diff(base + period) < 1000));
    let missed = t.iter().filter(|&&x| x > base + period / 2).count();
    assert!(missed > 0, "jitter never cost a rotation");
}

#[test]
fn drift_moves_the_platter_against_the_clock() {
    // Rewriting one sector: completions are whole (warped) rotations apart. Over 60 s of a
    // 10 ppm wander with a 120 s period, the phase moves by up to about 190 us.
    let mut p = probe("rotation_drift_ppm = 10.0\ndrift_period_s = 120.0");
    let period = 11_117_287.381878821f64;
    let start = p.write(5000).unwrap();
    p.wait_until(start + 30_000_000_000);
    let later = p.write(5000).unwrap();
    let turns = (later - start) as f64 / period;
    let off_ns = (turns - turns.round()).abs() * period;
    assert!(
        off_ns > 20_000.0 && off_ns < 400_000.0,
        "phase moved {off_ns} ns"
    );
    // Without drift the same sector comes back on time to the nanosecond.
    let mut q = probe("");
    let start = q.write(5000).unwrap();
    q.wait_until(start + 30_000_000_000);
    let later = q.write(5000).unwrap();
    let turns = (later - start) as f64 / period;
    assert!((turns - turns.round()).abs() * period < 5.0);
}

#[test]
fn the_drive_moves_its_heads_while_idle() {
    // After a write, wait past the recalibration: the next write to the same track needs a
    // seek back, which the plain drive does not.
    let run = |imp: &str| {
        let mut p = probe(imp);
        let t0 = p.write(2000).unwrap();
        p.wait_until(t0 + 16_000_000_000);
        let t1 = p.now();
        p.access(Op::Write, 2040, 1).unwrap() - t1
    };
    let plain = run("");
    let moved = run("recal_interval_s = 15.0\nrecal_cylinders = 40");
    // The seek back (about 4 ms for 40 cylinders) lands the head on a different part of the
    // rotation: the time differs.
    assert_ne!(plain, moved);
}

#[test]
fn a_simulation_with_recalibrations_ends_with_its_workload() {
    let cfg = ExperimentConfig::from_toml_str(
        "[drive]\nname = \"st41601n\"\n[drive.imperfections]\nrecal_interval_s = 0.5\nseek_jitter_ms = 0.5\nrotation_drift_ppm = 20\n[host]\nscheduler = \"sptf\"\n[workload]\nkind = \"closed\"\nprocesses = 4\nrequests = 400\n",
        None,
    )
    .unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    assert_eq!(r.summary.requests, 400);
    // The oracle knows the nominal drive only: jitter and head movements cost it rotations.
    assert!(r.summary.prediction.mispredicted_fraction > 0.02);
}

#[test]
fn bad_imperfections_name_the_key() {
    let e = ExperimentConfig::from_toml_str("[drive.imperfections]\nseek_jitter_ms = -1\n", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("drive.imperfections.seek_jitter_ms"), "{e}");
    let e = ExperimentConfig::from_toml_str("[drive.imperfections]\njitter = 1\n", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("jitter"), "{e}");
}
