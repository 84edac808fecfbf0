//! The host side of a zoned drive: the `kind = "zoned"` synthetic writers (plain writes and
//! zone appends) under schedulers that keep or break zone order, and zone commands read
//! from blkparse output.

use headway::config::{build_simulation, ExperimentConfig};
use headway::request_marks::ZoneOp;
use headway::stats::RequestRecords;
use headway::workload::trace::open_source;
use headway::workload::trace::TraceSource;
use headway::workload::{TraceFormat, TraceRecord};
use headway::Op;

use crate::common::fixture;

const ZONE: u64 = 260_400;

/// Four writers on zones 1-4 of a zoned ek1000, 120-sector writes, two fills of 50 with a
/// reset between, `depth` in flight each; `append` picks zone appends; `host` the `[host]`
/// table.
pub(crate) fn writers(append: bool, depth: u32, host: &str) -> headway::sim::RunResult {
    let text = format!(
        r#"
[drive]
name = "ek1000"
[drive.zoned]
zone_size_sectors = {ZONE}
conventional_zones = 1
[workload]
kind = "zoned"
zone_size_sectors = {ZONE}
first_zone = 1
writers = 4
write_sectors = 120
writes_per_reset = 50
depth = {depth}
append = {append}
fills = 2
{host}
[output]
records = true
"#
    );
    let cfg = ExperimentConfig::from_toml_str(&text, None).unwrap();
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
}

/// The data writes' (process, LBN) in completion order.
fn writes(rec: &RequestRecords) -> Vec<(u32, u64)> {
    (0..rec.len())
        .filter(|&i| rec.zone_op[i] != "reset" && rec.error[i].is_empty())
        .map(|i| (rec.process[i], rec.lbn[i]))
        .collect()
}

/// Every data write of writer `p` landed at its zone's start plus 120 sectors per earlier
/// write of the same fill: 0, 120, ..., 49 x 120 past the start, fill after fill.
pub(crate) fn in_zone_order(rec: &RequestRecords) {
    for p in 0..4u32 {
        let start = (p as u64 + 1) * ZONE;
        let lbns: Vec<u64> = writes(rec)
            .into_iter()
            .filter(|w| w.0 == p)
            .map(|w| w.1)
            .collect();
        assert_eq!(lbns.len(), 100, "writer {p}");
        let want: Vec<u64> = (0..100).map(|k| start + (k % 50) * 120).collect();
        assert_eq!(lbns, want, "writer {p}");
    }
}

#[test]
fn synthetic_zone_writers_fill_and_reset_their_zones() {
    // One write in flight per writer: each zone's writes arrive in order whatever the host
    // does. Two fills of 50 writes per writer, with a reset between: 400 writes, 4 resets.
    let r = writers(false, 1, "[host]\nscheduler = \"sptf\"");
    let z = &r.zoned[0];
    assert_eq!((z.errors(), z.resets), (0, 4), "{z:?}");
    assert_eq!(r.summary.requests, 404);
    in_zone_order(r.records.as_ref().unwrap());
}

#[test]
fn four_writes_in_flight_need_zone_locking_and_appends_do_not() {
    // Four plain writes in flight per zone: SPTF takes a later one first when the head
    // reaches it sooner, and the drive refuses it.
    let sptf = writers(false, 4, "[host]\nscheduler = \"sptf\"");
    assert!(sptf.zoned[0].unaligned_writes > 0, "{:?}", sptf.zoned[0]);
    // mq-deadline's zoned write locking sends one write per zone at a time, in order.
    let locking = "[host]\nscheduler = \"mq-deadline\"\n[host.options]\n\
                   zone_size_sectors = 260400\nconventional_zones = 1";
    let locked = writers(false, 4, locking);
    assert_eq!(locked.zoned[0].errors(), 0, "{:?}", locked.zoned[0]);
    in_zone_order(locked.records.as_ref().unwrap());
    // Zone appends under SPTF: the drive places each at the write pointer, so none is
    // refused, and the records give the LBN each got, in the order the drive took them
    // (it takes commands in arrival order, one at a time).
    for host in ["[host]\nscheduler = \"sptf\"", locking] {
        let r = writers(true, 4, host);
        let z = &r.zoned[0];
        assert_eq!((z.errors(), z.appends, z.resets), (0, 400, 4), "{z:?}");
        let rec = r.records.as_ref().unwrap();
        assert!((0..rec.len()).all(|i| rec.zone_op[i] == "append" || rec.zone_op[i] == "reset"));
        in_zone_order(rec);
    }
}

#[test]
fn zoned_workload_keys_are_checked() {
    let base = |extra: &str| {
        format!(
            "[drive]\nname = \"ek1000\"\n[workload]\nkind = \"zoned\"\nzone_size_sectors = \
             {ZONE}\n{extra}"
        )
    };
    let err = |t: String| {
        let cfg = ExperimentConfig::from_toml_str(&t, None);
        match cfg {
            Err(e) => e.to_string(),
            Ok(c) => build_simulation(&c, None).err().unwrap().to_string(),
        }
    };
    let e = err(base("writers = 301"));
    assert!(
        e.contains("workload.writers") && e.contains("78120000"),
        "{e}"
    );
    let e = err(base("writes_per_reset = 5000"));
    assert!(
        e.contains("workload.writes_per_reset") && e.contains("2034"),
        "{e}"
    );
    let e = err(base("size_sectors = 8"));
    assert!(e.contains("size_sectors") && e.contains("zoned"), "{e}");
    let e = err("[workload]\nkind = \"zoned\"\n".into());
    assert!(e.contains("zone_size_sectors"), "{e}");
}

#[test]
fn blkparse_zone_operations_become_zone_commands() {
    let source = TraceSource::new(TraceFormat::Blkparse);
    let mut r = open_source(&fixture("traces/blkparse_zoned.txt"), &source).unwrap();
    let mut got = Vec::new();
    while let Some(x) = r.next_record().unwrap() {
        got.push(x);
    }
    let dev = 8 * 256 + 16;
    let rec = |time_ns, lbn, sectors, process, zone_op| TraceRecord {
        time_ns,
        device: dev,
        lbn,
        sectors,
        op: Op::Write,
        process,
        response_ns: None,
        zone_op,
        high_priority: false,
    };
    assert_eq!(
        got,
        [
            // `ZR 260400 + 0`: a reset (carried as one sector).
            rec(0, 260_400, 1, 812, Some(ZoneOp::Reset)),
            // An open with no `+ n` at all.
            rec(1_000_000, 520_800, 1, 812, Some(ZoneOp::Open)),
            rec(2_000_000, 260_400, 128, 812, None),
            // `ZAS`: an append with the sync flag; its completion (C) is not a request.
            rec(3_000_000, 520_800, 64, 901, Some(ZoneOp::Append)),
            rec(4_000_000, 520_800, 1, 901, Some(ZoneOp::Close)),
            // `ZFS`: a finish (not a flush, although it holds an F).
            rec(5_000_000, 781_200, 1, 812, Some(ZoneOp::Finish)),
        ]
    );
    assert_eq!(r.process_name(901), Some("btrfs-worker"));

    // A reset of every zone is refused, naming the line.
    let dir = crate::common::scratch("blkparse-zra");
    let path = dir.join("zra.txt");
    std::fs::write(
        &path,
        "  8,16   0        1     0.000000000   812  Q ZRA 0 + 0 [zonefs]\n",
    )
    .unwrap();
    let mut r = open_source(&path, &source).unwrap();
    let e = r.next_record().unwrap_err().to_string();
    assert!(e.contains("ZRA") && e.contains("zra.txt:1:"), "{e}");
}

#[test]
fn the_zoned_synthetic_example_writes_every_zone_in_order() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/zoned_synthetic.toml");
    let cfg = ExperimentConfig::from_toml_file(&path).unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    // 4 writers x 2 fills x 100 writes, and one reset per writer between its fills.
    let z = &r.zoned[0];
    assert_eq!((z.errors(), z.resets, z.appends), (0, 4, 0), "{z:?}");
    assert_eq!(r.summary.requests, 800 + 4);
}
