//! Skylight's observations on headway's drive-managed SMR model, the tables in docs/smr.md:
//! `cargo run --release -p headway --example smr_skylight`.
//!
//! 1. `examples/smr_burst.toml`: the burst's write latency and the probe reads' latency by
//!    time window, and what the media cache did.
//! 2. The fixed-location media cache seen by a probe on the full-size `st5000as0011`: a
//!    write near the inner diameter, then reads of it (served at the outer diameter, where
//!    the cache is) and of its unwritten neighbours (served in place).
use std::path::Path;

use headway::config::{build_simulation, ExperimentConfig};
use headway::device::catalog;
use headway::device::hdd::HddDevice;
use headway::device::smr::SmrDevice;
use headway::device::{Device, DeviceIo};
use headway::request::{Command, Completion, Op, Request};
use headway::time::SimTime;

fn main() {
    for name in ["st5000as0011", "st8000as0002"] {
        let e = catalog::CatalogEntry::from_spec(&catalog::lookup(name).unwrap()).unwrap();
        println!(
            "{name}: {} sectors exported, {:.2} GB, {} cylinders, mean seek {:.2} ms, {}",
            e.capacity_sectors,
            e.capacity_bytes as f64 / 1e9,
            e.cylinders,
            e.mean_seek_ms,
            e.recording
        );
    }
    burst();
    probe();
}

fn burst() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/smr_burst.toml");
    let cfg = ExperimentConfig::from_toml_file(&path).unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let rec = r.records.as_ref().unwrap();
    // Ten-second windows while the cache fills, then two-minute ones.
    let edges_s: Vec<u64> = (0..6)
        .map(|k| k * 10)
        .chain((0..=10).map(|k| 60 + k * 120))
        .collect();
    let window = |ns: u64| {
        edges_s
            .iter()
            .rposition(|&e| e * 1_000_000_000 <= ns)
            .unwrap()
    };
    // Per window and workload (0 burst, 1 probe): count, sum and max of response (ms).
    let mut acc = vec![[(0u64, 0.0f64, 0.0f64); 2]; edges_s.len()];
    for i in 0..rec.len() {
        let ms = (rec.done_ns[i] - rec.arrival_ns[i]) as f64 / 1e6;
        let a = &mut acc[window(rec.arrival_ns[i])][rec.origin[i] as usize];
        a.0 += 1;
        a.1 += ms;
        a.2 = a.2.max(ms);
    }
    println!("window_s   writes  write_mean_ms  write_max_ms  reads  read_mean_ms  read_max_ms");
    for (w, a) in acc.iter().enumerate().take(edges_s.len() - 1) {
        let mean = |x: (u64, f64, f64)| if x.0 == 0 { 0.0 } else { x.1 / x.0 as f64 };
        println!(
            "{:>4}-{:<5} {:>6} {:>14.2} {:>13.2} {:>6} {:>13.2} {:>12.2}",
            edges_s[w],
            edges_s[w + 1],
            a[0].0,
            mean(a[0]),
            a[0].2,
            a[1].0,
            mean(a[1]),
            a[1].2
        );
    }
    println!("{:?}", r.smr[0]);
    println!("end {:.1} s", r.end_ns as f64 / 1e9);
}

/// Submit one command and run the device until it completes.
fn serve(dev: &mut dyn Device, now: SimTime, lbn: u64, op: Op) -> Completion {
    let mut io = DeviceIo::default();
    dev.submit(now, Command::single(Request::new(now, lbn, 8, op)), &mut io);
    let mut wakeups = io.wakeups;
    let mut done = io.completions.pop();
    while done.is_none() {
        wakeups.sort();
        let (t, tok) = wakeups.remove(0);
        let mut next = DeviceIo::default();
        dev.wake(t, tok, &mut next);
        wakeups.extend(next.wakeups);
        done = next.completions.pop();
    }
    done.unwrap()
}

fn probe() {
    let spec = catalog::lookup("st5000as0011").unwrap();
    let inner = HddDevice::new(&spec, 1).unwrap();
    let mut dev = SmrDevice::new(Box::new(inner), spec.smr.clone().unwrap(), 1);
    let lbn = dev.info().capacity_sectors / 10 * 9;
    let mut now = 0;
    println!("probe at host LBN {lbn} (90% of the drive)");
    println!("step                          service_ms  seek_ms  cylinder");
    for (what, at, op) in [
        ("read, not yet written", lbn, Op::Read),
        ("write (to the media cache)", lbn, Op::Write),
        ("read it back (from the cache)", lbn, Op::Read),
        ("read the neighbour (in place)", lbn + 8, Op::Read),
        ("read it back again", lbn, Op::Read),
    ] {
        let c = serve(&mut dev, now, at, op);
        println!(
            "{what:<30}{:>10.2}{:>9.2}{:>10}",
            (c.done_ns - now) as f64 / 1e6,
            c.phases.seek_ns as f64 / 1e6,
            c.head.cylinder
        );
        now = c.done_ns + 100_000_000;
    }
}
