//! A dual-actuator drive as two devices (`actuator = 0` / `1` in `[[devices]]` entries):
//! one stream per device gets twice one arm's random IOPS, the two devices share the link,
//! and the keys are checked.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use headway::config::{build_simulation, ExperimentConfig};
use headway::device::catalog;
use headway::device::hdd::dual_halves::DualHalf;
use headway::device::{Device, DeviceIo};
use headway::request::{Command, Completion, Op, Request};
use headway::SimTime;

fn run(text: &str) -> headway::Result<headway::sim::RunResult> {
    let cfg = ExperimentConfig::from_toml_str(text, None)?;
    build_simulation(&cfg, None)?.simulation.run()
}

fn entry(name: &str, arm: u8) -> String {
    format!(
        "[[devices]]\nname = \"{name}\"\ndrive = \"exos_2x14\"\nactuator = {arm}\nqueue_depth = 4\n"
    )
}

/// One synchronous reader of random 4 KiB blocks on `device`.
fn stream(device: &str) -> String {
    format!(
        "[[workloads]]\nkind = \"closed\"\nrequests = 300\nsize_sectors = 8\nread_fraction = 1.0\n\
         device = \"{device}\"\n"
    )
}

/// Requests completed per simulated second.
fn iops(r: &headway::sim::RunResult) -> f64 {
    let rec = r.records.as_ref().unwrap();
    let end = rec.done_ns.iter().max().copied().unwrap();
    rec.len() as f64 / end as f64 * 1e9
}

#[test]
fn one_stream_per_arm_device_gets_twice_one_arms_random_iops() {
    let out = "[host]\nscheduler = \"fcfs\"\n[output]\nrecords = true\n";
    let both = run(&format!(
        "seed = 3\n{}{}{}{}{out}",
        entry("arm0", 0),
        entry("arm1", 1),
        stream("arm0"),
        stream("arm1")
    ))
    .unwrap();
    let alone = run(&format!(
        "seed = 3\n{}{}{out}",
        entry("arm0", 0),
        stream("arm0")
    ))
    .unwrap();
    let rec = both.records.as_ref().unwrap();
    assert_eq!(rec.len(), 600);
    for dev in [0u16, 1] {
        let n = rec.device.iter().filter(|&&d| d == dev).count();
        assert_eq!(n, 300, "device {dev}");
    }
    // Each device addresses its arm's half of the drive from LBN 0.
    let half = catalog::lookup("exos_2x14").unwrap().block_count / 2;
    assert!(rec.lbn.iter().all(|&l| l < half));
    let ratio = iops(&both) / iops(&alone);
    println!(
        "one arm {:.1} IOPS, both {:.1}: ratio {ratio:.3}",
        iops(&alone),
        iops(&both)
    );
    assert!((1.85..=2.1).contains(&ratio), "ratio {ratio}");
    assert!((60.0..=110.0).contains(&iops(&alone)), "{}", iops(&alone));
}

/// Runs both devices' wake-ups until they are idle; each device's completions.
fn drain_both(devs: &mut [DualHalf; 2], ios: &mut [DeviceIo; 2]) -> [Vec<Completion>; 2] {
    let mut heap: BinaryHeap<Reverse<(SimTime, u64, usize, u64)>> = BinaryHeap::new();
    let mut seq = 0;
    let mut out = [vec![], vec![]];
    loop {
        for d in 0..2 {
            for (at, t) in ios[d].wakeups.drain(..) {
                seq += 1;
                heap.push(Reverse((at, seq, d, t)));
            }
            out[d].extend(ios[d].completions.drain(..));
        }
        let Some(Reverse((at, _, d, t))) = heap.pop() else {
            return out;
        };
        devs[d].wake(at, t, &mut ios[d]);
    }
}

/// With a slow link (0.05 ms a sector), a 2,000-sector read on each device at the same
/// place of its arm finish on the media together; the shared link carries one after the
/// other, 100 ms each, and each device hears only of its own.
#[test]
fn the_two_devices_share_one_link() {
    let mut spec = catalog::lookup("exos_2x14").unwrap();
    spec.bus.sector_transfer_ms = 0.05;
    let mut devs = DualHalf::pair(&spec, 4).unwrap();
    assert_eq!(
        devs[0].info().capacity_sectors,
        spec.block_count / 2,
        "each device is one arm's half"
    );
    let mut ios = [DeviceIo::default(), DeviceIo::default()];
    for d in 0..2 {
        let mut r = Request::new(0, 1_000_000, 2000, Op::Read);
        r.id = d as u64;
        r.device = d as u16;
        devs[d].submit(0, Command::single(r), &mut ios[d]);
    }
    assert_eq!((devs[0].outstanding(), devs[1].outstanding()), (1, 1));
    let done = drain_both(&mut devs, &mut ios);
    for d in 0..2 {
        assert_eq!(done[d].len(), 1, "device {d}");
        assert_eq!(done[d][0].command.requests[0].id, d as u64);
        assert_eq!(done[d][0].command.lbn, 1_000_000, "the arm's own LBN");
        assert_eq!(devs[d].outstanding(), 0);
    }
    let gap = done[1][0].done_ns.abs_diff(done[0][0].done_ns);
    assert!(gap >= 100_000_000 - 1_000, "gap {gap} ns");
    // Alone, the same read finishes a transfer sooner than the later of the two.
    let mut alone = DualHalf::pair(&spec, 4).unwrap();
    let mut io = [DeviceIo::default(), DeviceIo::default()];
    alone[1].submit(
        0,
        Command::single(Request::new(0, 1_000_000, 2000, Op::Read)),
        &mut io[1],
    );
    let one = drain_both(&mut alone, &mut io);
    let later = done[0][0].done_ns.max(done[1][0].done_ns);
    assert!(one[1][0].done_ns + 100_000_000 - 1_000 <= later);
}

#[test]
fn actuator_keys_are_checked() {
    let wl = "[workload]\nrequests = 10\n";
    let e = run(&format!(
        "[[devices]]\nname = \"a\"\ndrive = \"ek1000\"\nactuator = 0\n{}",
        stream("a")
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("devices[0].actuator") && e.contains("one actuator"),
        "{e}"
    );
    let e = run(&format!("{}{wl}", entry("a", 2)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("actuator") && e.contains("0 or 1"), "{e}");
    let other_depth = entry("b", 1).replace("queue_depth = 4", "queue_depth = 2");
    let e = run(&format!("{}{other_depth}{}", entry("a", 0), stream("a")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("devices[1].queue_depth"), "{e}");
}
