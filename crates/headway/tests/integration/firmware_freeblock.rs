//! The freeblock planner inside the drive's firmware (`[drive.firmware_freeblock]`): the
//! foreground is served exactly as without it (the firmware knows its head and its seeks,
//! so "free" holds to the nanosecond), every free sector is read once, runs are
//! deterministic, and bad settings are refused with a keyed message.

use headway::config::{build_simulation, ExperimentConfig};
use headway::sim::RunResult;

/// The OLTP foreground of the reproduction with every request at the drive (its own SPTF
/// orders them), `fb` the `[drive.firmware_freeblock]` table's body (`None`: off).
fn config(fb: Option<&str>, requests: u64, read_fraction: f64) -> String {
    let fb = fb.map_or(String::new(), |b| {
        format!("[drive.firmware_freeblock]\n{b}\n")
    });
    format!(
        "seed = 3\n[drive]\nname = \"atlas10k\"\nqueue_depth = 16\nfirmware_scheduler = \"sptf\"\n\
         {fb}[host]\nscheduler = \"fcfs\"\nmax_outstanding = 16\n\
         [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = {requests}\n\
         read_fraction = {read_fraction}\nalign_sectors = 8\n\
         size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n\
         [output]\nrecords = true\n"
    )
}

fn run(text: &str) -> headway::error::Result<RunResult> {
    let cfg = ExperimentConfig::from_toml_str(text, None)?;
    build_simulation(&cfg, None)?.simulation.run()
}

fn free(r: &RunResult) -> headway::device::hdd::FirmwareFreeReport {
    r.summary
        .firmware_free
        .first()
        .cloned()
        .expect("a firmware_free report")
}

#[test]
fn foreground_is_served_exactly_as_without_free_reads() {
    let off = run(&config(None, 600, 0.6667)).unwrap();
    assert!(off.summary.firmware_free.is_empty());
    for fb in ["", "one_per_track = true"] {
        let on = run(&config(Some(fb), 600, 0.6667)).unwrap();
        let f = free(&on);
        assert!(f.free_sectors > 10_000, "{fb}: {f:?}");
        // The firmware knows its head and its seeks: the "free" claim holds exactly.
        let (a, b) = (off.records.as_ref().unwrap(), on.records.as_ref().unwrap());
        assert_eq!(a.done_ns, b.done_ns, "{fb}");
        assert_eq!(a.lbn, b.lbn, "{fb}");
        assert_eq!(off.summary.response, on.summary.response, "{fb}");
        // Nearly every foreground read's service matched the firmware's model.
        assert!(f.inexact_gaps * 20 < f.gaps_planned, "{f:?}");
    }
}

#[test]
fn every_free_sector_is_read_once_and_runs_are_deterministic() {
    let text = config(Some("log = true"), 600, 0.6667);
    let (r1, r2) = (run(&text).unwrap(), run(&text).unwrap());
    let f = free(&r1);
    assert_eq!(f, free(&r2));
    assert_eq!(f.reads.len() as u64, f.free_reads);
    let mut reads: Vec<(u64, u64)> = f.reads.iter().map(|&(l, n, _)| (l, n as u64)).collect();
    assert_eq!(reads.iter().map(|r| r.1).sum::<u64>(), f.free_sectors);
    reads.sort();
    for w in reads.windows(2) {
        assert!(w[0].0 + w[0].1 <= w[1].0, "overlap: {w:?}");
    }
    // Conservation: read + still wanted = the region (the whole drive).
    let cap = headway::device::hdd::Mechanics::new(
        &headway::device::catalog::lookup("atlas10k").unwrap(),
    )
    .unwrap()
    .layout
    .capacity_sectors();
    assert_eq!(f.free_sectors + f.wanted_remaining, cap);
    assert!(f.scan_done_ns.is_none());
}

#[test]
fn a_region_is_read_only_inside_and_conserved() {
    let r = run(&config(
        Some("start_lbn = 1000000\nsectors = 300000\nlog = true"),
        600,
        1.0,
    ))
    .unwrap();
    let f = free(&r);
    assert!(f.free_reads > 0, "{f:?}");
    assert_eq!(f.free_sectors + f.wanted_remaining, 300_000, "{f:?}");
    assert!(f
        .reads
        .iter()
        .all(|&(l, n, _)| l >= 1_000_000 && l + n as u64 <= 1_300_000));
}

#[test]
fn bad_settings_are_refused_with_their_key() {
    for (body, key) in [
        ("c_fb_ms = -1.0", "drive.firmware_freeblock.c_fb_ms"),
        ("sectors = 99999999999", "drive.firmware_freeblock.sectors"),
        (
            "start_lbn = 99999999999",
            "drive.firmware_freeblock.start_lbn",
        ),
        ("max_tracks = 0", "drive.firmware_freeblock.max_tracks"),
        (
            "max_reads_per_gap = 0",
            "drive.firmware_freeblock.max_reads_per_gap",
        ),
        ("bogus = 1", "bogus"),
    ] {
        check_refused(&config(Some(body), 10, 1.0), body, key);
    }
    let bad_bus =
        config(None, 10, 1.0).replace("[drive]\n", "[drive]\nbus_sector_transfer_ms = 0.0\n");
    check_refused(&bad_bus, "bus 0", "drive.bus_sector_transfer_ms");
}

fn check_refused(text: &str, body: &str, key: &str) {
    let err = match run(text) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{body} accepted"),
    };
    assert!(err.contains(key), "{body}: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Hand-computed: A reads 8 sectors at the start of a track, B 8 sectors 100 sectors further
/// on the same track, and the scan wants exactly the 100 sectors between them. While A's
/// data cross the bus the platter turns on; when B's mechanism starts (at A's completion,
/// plus B's overhead), the sectors still ahead of the head before B's first sector are the
/// gap, and the firmware reads every one of them (the destination track, prepended):
/// 100 − ⌈(B's mechanism start − A's media end) / sector time⌉.
#[test]
fn hand_computed_gap_on_one_track() {
    use headway::device::hdd::{FirmwareFreeblockConfig, HddDevice, Mechanics};
    use headway::device::{Device, DeviceIo};
    use headway::predict::{Geometry, OraclePredictor};
    use headway::request::{Command, Op, Request};
    use std::sync::Arc;

    let spec = headway::device::catalog::lookup("atlas10k").unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let a_lbn = mech.layout.first_lbn_on_track(100, 0).unwrap();
    let b_lbn = a_lbn + 8 + 100;
    let cfg = FirmwareFreeblockConfig {
        start_lbn: a_lbn + 8,
        sectors: Some(100),
        log: true,
        ..Default::default()
    };
    let mut dev = HddDevice::with_mechanics(&spec, mech.clone(), 2, Some("fcfs"))
        .unwrap()
        .with_firmware_freeblock(&cfg)
        .unwrap();
    let mut io = DeviceIo::default();
    dev.submit(
        0,
        Command::single(Request::new(0, a_lbn, 8, Op::Read)),
        &mut io,
    );
    dev.submit(
        0,
        Command::single(Request::new(0, b_lbn, 8, Op::Read)),
        &mut io,
    );
    let mut done = vec![];
    while done.len() < 2 {
        let (t, tok) = io.wakeups.remove(0);
        dev.wake(t, tok, &mut io);
        done.append(&mut io.completions);
    }
    let completion_ns = dev.overheads().completion_ns[Op::Read as usize];
    let pre = |p: &headway::request::Phases| p.overhead_ns - completion_ns;
    let a = &done[0].phases;
    let a_media_end = a.start_ns + pre(a) + a.seek_ns + a.rotate_ns + a.transfer_ns;
    let b = &done[1].phases;
    let b_mech_start = b.start_ns + pre(b);
    assert_eq!(b.seek_ns, 0, "B is on A's track");
    let p = OraclePredictor::new(mech.clone(), *dev.overheads(), 0);
    let track = p.track_of(a_lbn);
    let sector_ns = p.track_info(track).unwrap().sector_ns;
    let passed = ((b_mech_start - a_media_end) as f64 / sector_ns).ceil() as u64;
    assert!(passed > 0 && passed < 100, "{passed}");
    let f = dev.firmware_free().unwrap();
    assert_eq!(f.reads.len(), 1, "{f:?}");
    assert_eq!(f.reads[0].0, a_lbn + 8 + passed, "{f:?}");
    assert_eq!(f.free_sectors, 100 - passed, "{f:?}");
    // B's latency is exactly the free sectors' time (the head reads on into B).
    let latency_sectors = b.rotate_ns as f64 / sector_ns;
    assert!(
        (latency_sectors - f.free_sectors as f64).abs() < 1.0,
        "{latency_sectors}"
    );
}
