//! Host-managed zoned drives: write pointers, refused commands counted (never served), zone
//! reset and append, the open-zone limit, and keyed errors.

use headway::config::{build_simulation, ExperimentConfig};
use headway::device::hdd::HddDevice;
use headway::device::zoned::{ZoneCondition, ZoneError, ZonedDevice, ZonedKind, ZonedSpec};
use headway::device::{Device, DeviceIo};
use headway::request::{Command, Op, Request};
use headway::time::SimTime;

use crate::common::{serve_alone, toy_spec};

fn spec() -> ZonedSpec {
    ZonedSpec {
        zone_size_sectors: 4_000,
        conventional_zones: 1,
        kind: ZonedKind::HostManaged,
        max_open_zones: Some(2),
        zone_reset_ms: 1.5,
    }
}

fn device() -> ZonedDevice {
    ZonedDevice::new(
        Box::new(HddDevice::new(&toy_spec(0.0, 0.0), 1).unwrap()),
        spec(),
    )
}

/// Serve one command alone: (completion time, whether the media was touched).
fn serve(dev: &mut ZonedDevice, now: SimTime, lbn: u64, sectors: u32, op: Op) -> (SimTime, bool) {
    let (c, _) = serve_alone(dev, now, lbn, sectors, op);
    (c.done_ns, c.phases.transfer_ns > 0)
}

#[test]
fn sequential_writes_advance_the_write_pointer_and_an_unaligned_write_is_refused() {
    let mut d = device();
    assert_eq!(d.zones().len(), 100);
    let (t, served) = serve(&mut d, 0, 4_000, 8, Op::Write);
    assert!(served);
    let (t, served) = serve(&mut d, t, 4_008, 8, Op::Write);
    assert!(served);
    assert_eq!(d.zones()[1].write_pointer_lbn, 4_016);
    // Not at the write pointer: refused at once, the media untouched.
    let (t2, served) = serve(&mut d, t, 4_100, 8, Op::Write);
    assert!(!served);
    assert_eq!(t2, t);
    // Reading past the write pointer is refused too; below it, served.
    assert!(!serve(&mut d, t, 4_012, 8, Op::Read).1);
    assert!(serve(&mut d, t, 4_000, 16, Op::Read).1);
    let r = d.report();
    assert_eq!(
        (r.unaligned_writes, r.reads_beyond_write_pointer, r.errors()),
        (1, 1, 2)
    );
    assert_eq!(
        d.zones()[1].write_pointer_lbn,
        4_016,
        "a refused write moves nothing"
    );
}

#[test]
fn a_zone_reset_costs_its_stated_time_and_empties_the_zone() {
    let mut d = device();
    serve(&mut d, 0, 8_000, 8, Op::Write);
    assert_eq!(d.zones()[2].condition, ZoneCondition::ImplicitlyOpen);
    // By hand: zone_reset_ms = 1.5 is 1,500,000 ns; no media access.
    assert_eq!(d.reset_zone(8_003), 1_500_000);
    assert_eq!(d.zones()[2].condition, ZoneCondition::Empty);
    assert_eq!(d.zones()[2].write_pointer_lbn, 8_000);
    assert!(
        serve(&mut d, 0, 8_000, 8, Op::Write).1,
        "writable from the start again"
    );
    assert_eq!(d.report().resets, 1);
}

#[test]
fn zone_append_writes_at_the_write_pointer_the_drive_picks() {
    let mut d = device();
    let mut io = DeviceIo::default();
    let cmd = |lbn| Command::single(Request::new(0, lbn, 8, Op::Write));
    assert_eq!(d.zone_append(0, cmd(12_345), &mut io), Ok(12_000));
    // The drive serves one command at a time: let the first finish.
    while let Some((t, tok)) = io.wakeups.pop() {
        let mut next = DeviceIo::default();
        d.wake(t, tok, &mut next);
        io.wakeups.extend(next.wakeups);
    }
    assert_eq!(d.zone_append(0, cmd(12_000), &mut io), Ok(12_008));
    assert_eq!(d.zones()[3].write_pointer_lbn, 12_016);
    d.finish_zone(12_000);
    assert_eq!(
        d.zone_append(0, cmd(12_000), &mut io),
        Err(ZoneError::ZoneFull)
    );
}

#[test]
fn the_open_limit_closes_implicitly_open_zones_and_refuses_explicit_opens() {
    let mut d = device();
    let mut t = 0;
    for lbn in [4_000, 8_000, 12_000] {
        t = serve(&mut d, t, lbn, 8, Op::Write).0;
    }
    assert_eq!(d.zones()[1].condition, ZoneCondition::Closed);
    d.open_zone(20_000).unwrap();
    d.open_zone(24_000).unwrap();
    assert_eq!(d.open_zone(28_000), Err(ZoneError::TooManyOpenZones));
    let r = d.report();
    assert_eq!((r.implicit_closes, r.open_limit_refusals), (3, 1));
}

fn random_writes(zoned: &str) -> String {
    format!(
        r#"
seed = 2
[drive]
name = "ek1000"
[drive.zoned]
{zoned}
[workload]
requests = 300
interarrival_ms = 20.0
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
fn random_writes_to_sequential_zones_are_all_counted_and_none_is_served() {
    // ek1000: 78,120,000 sectors, 300 zones of 260,400; the first 30 conventional.
    let r = run(&random_writes(
        "zone_size_sectors = 260400\nconventional_zones = 30",
    ))
    .unwrap();
    let z = &r.zoned[0];
    assert_eq!((z.zones, z.conventional_zones), (300, 30));
    assert_eq!(r.summary.requests, 300, "every request completes");
    let rec = r.records.as_ref().unwrap();
    let conventional = (0..rec.len())
        .filter(|&i| rec.lbn[i] < 30 * 260_400)
        .count() as u64;
    let refused = (0..rec.len()).filter(|&i| rec.transfer_ns[i] == 0).count() as u64;
    // A random 8-sector write lands at a zone's write pointer (its start) almost never.
    assert_eq!(z.errors(), 300 - conventional);
    assert_eq!(refused, z.errors());
    assert!(z.unaligned_writes > 0);
}

#[test]
fn bad_zone_parameters_name_their_key() {
    let e = run(&random_writes("zone_size_sectors = 524288"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("drive.zoned.zone_size_sectors") && e.contains("78120000"),
        "{e}"
    );
    let e = run(&random_writes(
        "zone_size_sectors = 260400\nkind = \"drive-managed\"",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("kind") && e.contains("line"), "{e}");
    let both = random_writes("zone_size_sectors = 260400").replace(
        "[drive.zoned]",
        "[drive.smr]\nmedia_cache_sectors = 65536\nband_sectors = 5208\n[drive.zoned]",
    );
    let e = run(&both).unwrap_err().to_string();
    assert!(e.contains("drive.zoned") && e.contains("not both"), "{e}");
}

#[test]
fn the_zoned_writers_example_counts_its_refusals() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/zoned_writers.toml");
    let cfg = ExperimentConfig::from_toml_file(&path).unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    // 4 writers x 500 appends, 500 read-backs, 5 rewrites and 5 reads past the pointer, and
    // 4 x 4 zone resets (every 100 rounds but the last).
    assert_eq!(r.summary.requests, 2_000 + 500 + 10 + 16);
    let z = &r.zoned[0];
    assert_eq!((z.unaligned_writes, z.reads_beyond_write_pointer), (5, 5));
    assert_eq!(z.errors(), 10);
    assert_eq!(z.resets, 16);
    assert_eq!(z.implicit_closes, 0, "four writers fit eight open zones");
    // Each refusal is named in the records; everything else was served.
    let rec = r.records.as_ref().unwrap();
    let count = |col: &[&str], v: &str| col.iter().filter(|&&e| e == v).count();
    assert_eq!(count(&rec.error, "unaligned-write"), 5);
    assert_eq!(count(&rec.error, "read-beyond-write-pointer"), 5);
    assert_eq!(count(&rec.error, ""), 2_516);
    assert_eq!(count(&rec.zone_op, "reset"), 16);
}

/// Four writers each put four sequential writes to their own zone at the same instant, ten
/// times over; the host orders them (`host`, the `[host]` table) for a drive taking one at a
/// time.
fn bursts_of_zone_writes(host: &str) -> headway::sim::RunResult {
    let dir = crate::common::scratch("zoned-bursts");
    let mut trace = String::new();
    let mut wp = [260_400u64, 520_800, 781_200, 1_041_600];
    for burst in 0..10 {
        let t = burst as f64 * 200.0;
        for _ in 0..4 {
            for w in wp.iter_mut() {
                trace += &format!("{t:.3} 0 {w} 120 0\n");
                *w += 120;
            }
        }
    }
    std::fs::write(dir.join("bursts.trace"), trace).unwrap();
    let text = format!(
        r#"
[drive]
name = "ek1000"
[drive.zoned]
zone_size_sectors = 260400
conventional_zones = 1
[workload]
kind = "trace"
path = "{}"
format = "disksim-ascii"
{host}
"#,
        dir.join("bursts.trace").display()
    );
    run(&text).unwrap()
}

#[test]
fn sptf_breaks_zone_order_and_zoned_mq_deadline_keeps_every_write_at_its_write_pointer() {
    // Shortest positioning time first takes a zone's later write when the head reaches it
    // sooner: the drive refuses it.
    let unlocked = bursts_of_zone_writes("[host]\nscheduler = \"sptf\"");
    assert_eq!(unlocked.summary.requests, 160);
    assert!(
        unlocked.zoned[0].unaligned_writes > 0,
        "{:?}",
        unlocked.zoned[0]
    );
    let locked = bursts_of_zone_writes(
        "[host]\nscheduler = \"mq-deadline\"\n[host.options]\nzone_size_sectors = 260400\nconventional_zones = 1",
    );
    assert_eq!(locked.summary.requests, 160);
    assert_eq!(locked.zoned[0].errors(), 0, "{:?}", locked.zoned[0]);
}
