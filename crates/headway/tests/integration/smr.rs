//! Drive-managed SMR: writes absorbed by the media cache, reads served from it, band
//! cleaning's cost on the toy drive's mechanics, forced cleaning and its stalls, keyed
//! errors, and the Skylight drives in the catalog.

use headway::config::{build_simulation, ExperimentConfig};
use headway::device::catalog;
use headway::device::hdd::HddDevice;
use headway::device::smr::{SmrDevice, SmrSpec};
use headway::device::{Device, DeviceIo};
use headway::request::{Completion, Op};
use headway::time::SimTime;

use crate::common::{serve_alone, toy_spec, TOY_CYL};

/// Media cache on cylinder 0, bands of one cylinder: host band k is physical cylinder k + 1.
fn toy_smr() -> SmrSpec {
    SmrSpec {
        media_cache_sectors: TOY_CYL,
        media_cache_start_lbn: 0,
        band_sectors: TOY_CYL,
        idle_clean_delay_ms: 1000.0,
        max_cache_extents: None,
    }
}

fn toy_device() -> SmrDevice {
    let inner = HddDevice::new(&toy_spec(0.0, 0.0), 1).unwrap();
    SmrDevice::new(Box::new(inner), toy_smr(), 1)
}

/// Serve one command; the wake-ups it leaves pending go to `later`.
fn serve(
    dev: &mut dyn Device,
    now: SimTime,
    lbn: u64,
    sectors: u32,
    op: Op,
    later: &mut Vec<(SimTime, u64)>,
) -> Completion {
    let (c, pending) = serve_alone(dev, now, lbn, sectors, op);
    later.extend(pending);
    c
}

/// Fire every pending wake-up in time order (idle cleaning runs to its end).
fn drain(dev: &mut dyn Device, mut wakeups: Vec<(SimTime, u64)>) -> SimTime {
    let mut last = 0;
    while !wakeups.is_empty() {
        wakeups.sort();
        let (t, tok) = wakeups.remove(0);
        last = t;
        let mut next = DeviceIo::default();
        dev.wake(t, tok, &mut next);
        assert!(
            next.completions.is_empty(),
            "no host command is outstanding"
        );
        wakeups.extend(next.wakeups);
    }
    last
}

const MS: SimTime = 1_000_000;

#[test]
fn the_media_cache_absorbs_a_write_and_a_probe_sees_it_at_the_outer_diameter() {
    let mut dev = toy_device();
    assert_eq!(dev.info().capacity_sectors, 400_000 - TOY_CYL);
    let mut later = Vec::new();
    // Host LBN 200,000 is in band 500, physical cylinder 501; its write goes to the cache
    // on cylinder 0, where the head already is: no seek.
    let w = serve(&mut dev, 0, 200_000, 8, Op::Write, &mut later);
    assert_eq!(w.phases.seek_ns, 0);
    assert_eq!(dev.held_sectors(), 8);
    // A read of the written sectors comes from the cache: still no seek.
    let r = serve(&mut dev, w.done_ns, 200_000, 8, Op::Read, &mut later);
    assert_eq!(r.phases.seek_ns, 0);
    // A read of the band's other sectors goes to cylinder 501: seek 1 ms + 0.01 ms * 501.
    let far = serve(&mut dev, r.done_ns, 200_100, 8, Op::Read, &mut later);
    assert_eq!(far.phases.seek_ns, 6_010_000);
    // Reading the cached sectors again seeks all the way back to the cache.
    let back = serve(&mut dev, far.done_ns, 200_000, 8, Op::Read, &mut later);
    assert_eq!(back.phases.seek_ns, 6_010_000);
    let rep = dev.report();
    assert_eq!((rep.cache_writes, rep.cache_reads), (1, 2));
}

#[test]
fn a_band_cleaning_costs_a_band_read_a_cache_read_and_a_band_write() {
    let mut dev = toy_device();
    let mut later = Vec::new();
    let w = serve(&mut dev, 0, 200_000, 8, Op::Write, &mut later);
    let end = drain(&mut dev, later);
    let rep = dev.report();
    assert_eq!((rep.idle_cleanings, rep.forced_cleanings), (1, 0));
    assert_eq!(rep.held_sectors, 0);
    // Cleaning starts 1 s after the write's completion and ends with the band's write.
    let start = w.done_ns + 1000 * MS;
    // The same three commands on the bare mechanics, from the same state, take the same time.
    let mut bare = HddDevice::new(&toy_spec(0.0, 0.0), 1).unwrap();
    let mut none = Vec::new();
    serve(&mut bare, 0, 0, 8, Op::Write, &mut none);
    let band = 501 * TOY_CYL;
    let a = serve(&mut bare, start, band, TOY_CYL as u32, Op::Read, &mut none);
    let b = serve(&mut bare, a.done_ns, 0, 8, Op::Read, &mut none);
    let c = serve(
        &mut bare,
        b.done_ns,
        band,
        TOY_CYL as u32,
        Op::Write,
        &mut none,
    );
    assert_eq!(rep.cleaning_ns, c.done_ns - start);
    assert_eq!(
        end, c.done_ns,
        "the band's write is the last thing the drive does"
    );
    // By hand: three 501-cylinder seeks (6.01 ms each), four revolutions of transfer for the
    // band each way (40 ms), 0.8 ms for the cached sectors and 0.2 ms of write settling, at
    // least; at most a revolution of latency per command and per head switch on top.
    let least = 3 * 6_010_000 + 2 * 40 * MS + 800_000 + 200_000;
    let most = least + 3 * 10 * MS + 6 * (10 * MS + 500_000);
    assert!(
        (least..=most).contains(&rep.cleaning_ns),
        "{} not in {least}..={most}",
        rep.cleaning_ns
    );
}

#[test]
fn a_write_covering_whole_bands_goes_in_place_and_drops_their_cached_copy() {
    let mut dev = toy_device();
    let mut later = Vec::new();
    serve(&mut dev, 0, 1_000, 8, Op::Write, &mut later);
    assert_eq!(dev.held_sectors(), 8);
    // 390..1210 covers band 1 (400..800) and band 2 (800..1200) whole: both in place, and
    // band 2's cached sectors are dropped; the ten sectors on either side go to the cache.
    let w = serve(&mut dev, 0, 390, 820, Op::Write, &mut later);
    let rep = dev.report();
    assert_eq!(rep.band_writes, 2);
    assert_eq!(dev.held_sectors(), 10 + 10);
    assert!(w.done_ns > 0);
}

fn burst(cache_sectors: u64, requests: u64) -> String {
    format!(
        r#"
seed = 3
[drive]
name = "ek1000"
[drive.smr]
media_cache_sectors = {cache_sectors}
band_sectors = 5208
idle_clean_delay_ms = 500.0
[workload]
kind = "closed"
processes = 1
think_ms = 0.0
requests = {requests}
read_fraction = 0.0
size_sectors = 8
[output]
records = true
"#
    )
}

fn run(text: &str) -> headway::Result<headway::sim::RunResult> {
    let cfg = ExperimentConfig::from_toml_str(text, None)?;
    build_simulation(&cfg, None)?.simulation.run()
}

#[test]
fn a_random_write_burst_is_fast_until_the_cache_fills_then_stalls_on_cleaning() {
    // 64 writes of 8 sectors fill a 512-sector cache; every later write forces a cleaning
    // (of one band, which may hold more than one of the cached writes).
    let r = run(&burst(512, 400)).unwrap();
    assert_eq!(r.summary.requests, 400);
    let smr = &r.smr[0];
    assert_eq!(smr.cache_writes, 400);
    assert!(smr.max_held_sectors <= 512);
    assert!(smr.forced_cleanings >= 300, "{smr:?}");
    // After the burst the drive cleans the rest in idle time.
    assert_eq!(smr.held_sectors, 0);
    assert!(smr.idle_cleanings > 0);
    let rec = r.records.as_ref().unwrap();
    let resp = |i: usize| (rec.done_ns[i] - rec.arrival_ns[i]) as f64;
    let mean = |lo: usize, hi: usize| (lo..hi).map(resp).sum::<f64>() / (hi - lo) as f64;
    let (before, after) = (mean(0, 60), mean(100, 400));
    // A band cleaning reads and writes 5,208 sectors (eight revolutions each way).
    assert!(after > 10.0 * before, "before {before} after {after}");
    // Conservation: every sector the burst wrote is in the cache or was cleaned to its band.
    assert!(smr.held_sectors <= 512);
    // Determinism.
    let again = run(&burst(512, 400)).unwrap();
    assert_eq!(again.records, r.records);
    assert_eq!(again.smr, r.smr);
}

#[test]
fn bad_smr_parameters_name_their_key() {
    let cases = [
        (
            "band_sectors = 5208",
            "band_sectors = 0",
            "drive.smr.band_sectors",
        ),
        (
            "media_cache_sectors = 512",
            "media_cache_sectors = 900000000",
            "drive.smr.media_cache_sectors",
        ),
        (
            "idle_clean_delay_ms = 500.0",
            "idle_clean_delay_ms = -1.0",
            "drive.smr.idle_clean_delay_ms",
        ),
    ];
    for (from, to, key) in cases {
        let text = burst(512, 10).replace(from, to);
        let e = run(&text).unwrap_err().to_string();
        assert!(e.contains(key), "{key}: {e}");
    }
    let e = run(&burst(512, 10).replace("band_sectors = 5208", "band_sectors = 5208\nbands = 3"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("bands") && e.contains("line"), "{e}");
}

#[test]
fn the_skylight_drives_are_in_the_catalog_with_their_media_cache_set_aside() {
    for (name, exported, cache) in [
        ("st5000as0011", 9_767_541_168u64, 41_943_040u64),
        ("st8000as0002", 15_628_053_168, 52_428_800),
    ] {
        let spec = catalog::lookup(name).unwrap();
        let smr = spec.smr.clone().expect("a drive-managed SMR drive");
        assert_eq!(smr.media_cache_sectors, cache);
        let inner = HddDevice::new(&spec, 1).unwrap();
        assert_eq!(inner.info().capacity_sectors, exported);
        let dev = SmrDevice::new(Box::new(inner), smr, 1);
        assert_eq!(dev.info().capacity_sectors, exported - cache);
        assert!(spec.description.contains("external") && spec.description.contains("STAND-IN"));
    }
}
