//! Zone commands issued by a trace (DiskSim ASCII's sixth field) through the host to a
//! zoned drive: a reset's cost and effect, an append's written LBN, and each refusal's
//! error kind in the per-request records.

use headway::config::{build_simulation, ExperimentConfig};
use headway::stats::RequestRecords;

/// Replay `trace` on a zoned ek1000 (zones of 260,400 sectors, zone 0 conventional, a zone
/// reset costing 2 ms) with per-request records.
fn replay(trace: &str) -> headway::sim::RunResult {
    replay_under(trace, "")
}

/// [`replay`] with `host` (TOML: a `[host]` table, or nothing) in its configuration.
pub(crate) fn replay_under(trace: &str, host: &str) -> headway::sim::RunResult {
    let dir = crate::common::scratch("zone-commands");
    let path = dir.join("zone_commands.trace");
    std::fs::write(&path, trace).unwrap();
    let text = format!(
        r#"
[drive]
name = "ek1000"
[drive.zoned]
zone_size_sectors = 260400
conventional_zones = 1
zone_reset_ms = 2.0
[workload]
kind = "trace"
path = "{}"
format = "disksim-ascii"
{host}
[output]
records = true
"#,
        path.display()
    );
    let cfg = ExperimentConfig::from_toml_str(&text, None).unwrap();
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
}

/// The records' rows in arrival order (request ids follow the trace's lines).
pub(crate) fn by_id(rec: &RequestRecords) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..rec.len()).collect();
    rows.sort_by_key(|&i| rec.id[i]);
    rows
}

#[test]
fn a_reset_from_a_trace_rewinds_the_write_pointer_and_costs_its_time() {
    // 100 ms apart, so each command finds the drive idle.
    let r = replay(
        "0 0 260400 8 0\n\
         100 0 260408 8 0\n\
         200 0 260400 1 0 reset\n\
         300 0 260400 8 0\n\
         400 0 260400 8 0\n",
    );
    let rec = r.records.as_ref().unwrap();
    let rows = by_id(rec);
    assert_eq!(rows.len(), 5);
    let (w1, w2, reset, again, rewrite) = (rows[0], rows[1], rows[2], rows[3], rows[4]);
    for i in [w1, w2, again] {
        assert!(rec.transfer_ns[i] > 0 && rec.error[i].is_empty(), "row {i}");
    }
    // The reset: 2 ms of the drive's bookkeeping, no media access, from its arrival.
    assert_eq!(rec.zone_op[reset], "reset");
    assert_eq!(rec.error[reset], "");
    assert_eq!(rec.arrival_ns[reset], 200_000_000);
    assert_eq!(rec.done_ns[reset] - rec.dispatch_ns[reset], 2_000_000);
    assert_eq!(rec.overhead_ns[reset], 2_000_000);
    assert_eq!(rec.transfer_ns[reset] + rec.seek_ns[reset], 0);
    // After it, a write at the zone's start is served; the same write again is behind the
    // write pointer (260,408) and refused with its kind named.
    assert_eq!(rec.error[rewrite], "unaligned-write");
    assert_eq!(rec.done_ns[rewrite], rec.dispatch_ns[rewrite]);
    let z = &r.zoned[0];
    assert_eq!((z.resets, z.unaligned_writes, z.errors()), (1, 1, 1));
}

#[test]
fn an_append_from_a_trace_records_the_lbn_the_drive_wrote() {
    let r = replay(
        "0 0 520800 16 0\n\
         100 0 520800 8 0 append\n\
         200 0 521000 8 0 append\n\
         300 0 520832 8 1\n\
         400 0 520800 1 0 finish\n\
         500 0 520800 8 0 append\n",
    );
    let rec = r.records.as_ref().unwrap();
    let rows = by_id(rec);
    // The trace names the zone by any sector in it; the drive writes at its write pointer.
    assert_eq!(rec.lbn[rows[1]], 520_816);
    assert_eq!(rec.lbn[rows[2]], 520_824);
    assert!(rec.transfer_ns[rows[1]] > 0 && rec.transfer_ns[rows[2]] > 0);
    // The write pointer is now 520,832: reading the 8 sectors there is past it.
    assert_eq!(rec.error[rows[3]], "read-beyond-write-pointer");
    // After FINISH ZONE the zone is full: an append is refused.
    assert_eq!(rec.zone_op[rows[4]], "finish");
    assert_eq!(rec.error[rows[5]], "zone-full");
    let z = &r.zoned[0];
    assert_eq!(
        (z.appends, z.full_zone_writes, z.reads_beyond_write_pointer),
        (2, 1, 1)
    );
}
