//! The dual-actuator drive: two arms over the LBN halves double random IOPS, share the
//! link, split a command crossing the middle, and lose or invent no command.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use headway::config::{build_simulation, ExperimentConfig};
use headway::device::catalog;
use headway::device::hdd::dual::{half_spec, DualActuator};
use headway::device::hdd::HddDevice;
use headway::device::{Device, DeviceIo};
use headway::request::{Command, Completion, Op, Request};
use headway::SimTime;

/// Runs a device: closed-loop streams, each keeping one command outstanding over its own LBN
/// range, `per_stream` commands each. Returns every completion in order.
fn closed_loop(
    dev: &mut dyn Device,
    ranges: &[(u64, u64)],
    per_stream: u64,
    sectors: u32,
) -> Vec<Completion> {
    let mut io = DeviceIo::default();
    let mut heap: BinaryHeap<Reverse<(SimTime, u64, u64)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |lo: u64, hi: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        lo + rng % (hi - lo - sectors as u64)
    };
    let mut issued = vec![0u64; ranges.len()];
    let mut id = 0u64;
    let mut out = vec![];
    let mut submit =
        |dev: &mut dyn Device, io: &mut DeviceIo, s: usize, now: SimTime, id: &mut u64| {
            let lbn = next(ranges[s].0, ranges[s].1);
            let mut r = Request::new(now, lbn, sectors, Op::Read);
            r.id = *id * 16 + s as u64;
            *id += 1;
            let mut cmd = Command::single(r);
            cmd.dispatch_ns = now;
            dev.submit(now, cmd, io);
        };
    for s in 0..ranges.len() {
        submit(dev, &mut io, s, 0, &mut id);
        issued[s] += 1;
    }
    loop {
        for (at, t) in io.wakeups.drain(..) {
            seq += 1;
            heap.push(Reverse((at, seq, t)));
        }
        let done: Vec<Completion> = io.completions.drain(..).collect();
        for c in done {
            let s = (c.command.requests[0].id % 16) as usize;
            let now = c.done_ns;
            out.push(c);
            if issued[s] < per_stream {
                issued[s] += 1;
                submit(dev, &mut io, s, now, &mut id);
            }
        }
        if !io.wakeups.is_empty() {
            continue;
        }
        let Some(Reverse((at, _, t))) = heap.pop() else {
            break;
        };
        dev.wake(at, t, &mut io);
    }
    out
}

fn makespan(c: &[Completion]) -> SimTime {
    c.iter().map(|c| c.done_ns).max().unwrap()
}

#[test]
fn a_half_is_half_the_surfaces_lbns_and_cache() {
    let spec = catalog::lookup("exos_2x14").unwrap();
    assert_eq!(spec.actuators, 2);
    let h = half_spec(&spec).unwrap();
    assert_eq!((h.surfaces, h.actuators), (8, 1));
    assert_eq!(h.block_count * 2, spec.block_count);
    assert_eq!(h.cache.unwrap().segments * 2, spec.cache.unwrap().segments);
    let single = catalog::lookup("ultrastar_hc310").unwrap();
    assert!(half_spec(&single)
        .unwrap_err()
        .to_string()
        .contains("actuators"));
}

/// Two streams of random 4 KiB reads, one per half, each with one command outstanding:
/// the arms work independently, and the link carries 8 sectors (7 µs at 600 MB/s) per ~12 ms
/// access, so two arms finish twice the commands in the time one arm takes for its share:
/// the IOPS ratio is 2 less the link's share (under 1%) and sampling noise.
#[test]
fn two_streams_on_the_two_halves_get_twice_one_arms_random_iops() {
    let spec = catalog::lookup("exos_2x14").unwrap();
    let n = 300;
    let mut dual = DualActuator::new(&spec, 4).unwrap();
    let half = dual.boundary_lbn();
    let both = closed_loop(&mut dual, &[(0, half), (half, 2 * half)], n, 8);
    assert_eq!(both.len(), 2 * n as usize);
    let mut one = HddDevice::new(&half_spec(&spec).unwrap(), 4).unwrap();
    let alone = closed_loop(&mut one, &[(0, half)], n, 8);
    let iops_dual = both.len() as f64 / makespan(&both) as f64;
    let iops_one = alone.len() as f64 / makespan(&alone) as f64;
    let ratio = iops_dual / iops_one;
    println!("dual/one random-read IOPS ratio {ratio:.3}");
    assert!((1.85..=2.1).contains(&ratio), "ratio {ratio}");
    // One arm's random-read rate is the datasheet class's: 1 / (seek + half a turn + ...).
    let per_s = iops_one * 1e9;
    println!("one arm: {per_s:.1} IOPS");
    assert!((60.0..=110.0).contains(&per_s), "{per_s} IOPS per arm");
    // Determinism: the same streams again give the same completions.
    let mut again = DualActuator::new(&spec, 4).unwrap();
    let repeat = closed_loop(&mut again, &[(0, half), (half, 2 * half)], n, 8);
    let key = |v: &[Completion]| {
        v.iter()
            .map(|c| (c.done_ns, c.command.lbn))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&both), key(&repeat));
}

/// With a slow link (0.05 ms a sector), two 2,000-sector reads at the same place in either
/// half finish on the media together; the link carries one after the other, 100 ms each.
#[test]
fn the_shared_link_carries_one_transfer_at_a_time() {
    let mut spec = catalog::lookup("exos_2x14").unwrap();
    spec.bus.sector_transfer_ms = 0.05;
    let mut dual = DualActuator::new(&spec, 4).unwrap();
    let half = dual.boundary_lbn();
    let mut io = DeviceIo::default();
    for (i, lbn) in [1_000_000u64, half + 1_000_000].into_iter().enumerate() {
        let mut r = Request::new(0, lbn, 2000, Op::Read);
        r.id = i as u64;
        dual.submit(0, Command::single(r), &mut io);
    }
    let done = drain(&mut dual, &mut io);
    assert_eq!(done.len(), 2);
    let gap = done[1].done_ns.abs_diff(done[0].done_ns);
    assert!(gap >= 100_000_000 - 1_000, "gap {gap} ns");
    assert_eq!(dual.outstanding(), 0);
}

/// Runs the device's wake-ups until it is idle; the completions in order.
fn drain(dev: &mut dyn Device, io: &mut DeviceIo) -> Vec<Completion> {
    let mut heap: BinaryHeap<Reverse<(SimTime, u64, u64)>> = BinaryHeap::new();
    let mut seq = 0;
    let mut out = vec![];
    loop {
        for (at, t) in io.wakeups.drain(..) {
            seq += 1;
            heap.push(Reverse((at, seq, t)));
        }
        out.extend(io.completions.drain(..));
        let Some(Reverse((at, _, t))) = heap.pop() else {
            return out;
        };
        dev.wake(at, t, io);
    }
}

#[test]
fn a_command_crossing_the_middle_is_split_and_completes_once() {
    let spec = catalog::lookup("exos_2x14").unwrap();
    let mut dual = DualActuator::new(&spec, 4).unwrap();
    let half = dual.boundary_lbn();
    let mut io = DeviceIo::default();
    let mut r = Request::new(0, half - 8, 16, Op::Read);
    r.id = 42;
    dual.submit(0, Command::single(r), &mut io);
    let done = drain(&mut dual, &mut io);
    assert_eq!(done.len(), 1);
    assert_eq!(
        (done[0].command.lbn, done[0].command.sectors),
        (half - 8, 16)
    );
    assert_eq!(done[0].command.requests[0].id, 42);
    assert_eq!(dual.outstanding(), 0);
    // Each part alone finishes no later than the whole.
    for (lbn, sectors) in [(half - 8, 8), (half, 8)] {
        let mut d = DualActuator::new(&spec, 4).unwrap();
        let mut io = DeviceIo::default();
        d.submit(
            0,
            Command::single(Request::new(0, lbn, sectors, Op::Read)),
            &mut io,
        );
        let part = drain(&mut d, &mut io);
        assert!(part[0].done_ns <= done[0].done_ns);
    }
}

#[test]
fn a_run_of_the_catalog_drive_completes_every_request() {
    let toml = "[drive]\nname=\"exos_2x14\"\nqueue_depth=8\n[host]\nscheduler=\"fcfs\"\n\
                [workload]\nrequests=2000\ninterarrival_ms=4.0\nread_fraction=0.7\n";
    let cfg = ExperimentConfig::from_toml_str(toml, None).unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    assert_eq!(r.summary.requests, 2000, "{:?}", r.summary);
}

#[test]
fn per_arm_firmware_settings_are_refused_by_key_not_ignored() {
    let toml =
        "[drive]\nname=\"exos_2x14\"\nfirmware_scheduler=\"fcfs\"\n[workload]\nrequests=10\n";
    let cfg = ExperimentConfig::from_toml_str(toml, None).unwrap();
    let e = build_simulation(&cfg, None).err().unwrap().to_string();
    assert!(
        e.contains("drive.firmware_scheduler") && e.contains("two actuators"),
        "{e}"
    );
}
