//! The controller memory cache (`[[devices]] cache = {...}`) end to end on a fixed-time
//! device (reads 1 ms, writes 2 ms, transfers too fast to count), with hand-computed
//! responses: a hit costs no device time, a read miss one fill, a write-back miss on a full
//! cache waits for its dirty victim's write, write-through writes complete with the device
//! write; every request completes exactly once; bad tables get keyed errors.

use headway::config::{build_simulation, ExperimentConfig};
use headway::sim::RunResult;
use headway::stats::HOST_DEVICE;

use crate::common::scratch;

const MS: u64 = 1_000_000;

/// One fixed-time device with `cache` (a TOML inline table), replaying `trace` (DiskSim
/// ASCII: time ms, device, lbn, sectors, flags with 1 = read).
fn replay(cache: &str, trace: &str) -> RunResult {
    let dir = scratch("ctlr_cache");
    std::fs::write(dir.join("t.trace"), trace).unwrap();
    let toml = format!(
        "[[devices]]\nname = \"d\"\ndrive = \"flash\"\n\
         flash = {{ logical_bytes = 33554432, read_fixed_ms = 1.0, write_fixed_ms = 2.0, \
         read_mb_s = 1e9, write_mb_s = 1e9 }}\ncache = {cache}\n\n\
         [[workloads]]\ndevice = \"d\"\nkind = \"trace\"\npath = \"t.trace\"\n\n\
         [output]\nrecords = true\n"
    );
    let path = dir.join("c.toml");
    std::fs::write(&path, &toml).unwrap();
    let cfg = ExperimentConfig::from_toml_file(&path).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    build_simulation(&cfg, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .simulation
        .run()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `(lbn, sectors, is_read, response ns)` of the workload's requests, in completion order.
fn served(r: &RunResult) -> Vec<(u64, u32, bool, u64)> {
    let rec = r.records.as_ref().expect("records");
    (0..rec.len())
        .filter(|&i| rec.origin[i] < 0x8000)
        .map(|i| {
            (
                rec.lbn[i],
                rec.sectors[i],
                rec.is_read[i],
                rec.done_ns[i] - rec.arrival_ns[i],
            )
        })
        .collect()
}

/// `(lbn, sectors, is_read, done ns)` of the cache's own device operations.
fn device_ops(r: &RunResult) -> Vec<(u64, u32, bool, u64)> {
    let rec = r.records.as_ref().expect("records");
    (0..rec.len())
        .filter(|&i| rec.origin[i] >= 0x8000)
        .map(|i| (rec.lbn[i], rec.sectors[i], rec.is_read[i], rec.done_ns[i]))
        .collect()
}

#[test]
fn a_hit_costs_no_device_time_and_a_miss_fills_what_it_lacks() {
    let r = replay(
        "{ size_sectors = 64, line_sectors = 16 }",
        "0 0 0 8 1\n10 0 0 8 1\n20 0 4 8 1\n",
    );
    assert_eq!(
        served(&r),
        vec![(0, 8, true, MS), (0, 8, true, 0), (4, 8, true, MS)]
    );
    // The second read never reached the device; the third filled only sectors 8-11.
    assert_eq!(
        device_ops(&r),
        vec![(0, 8, true, MS), (8, 4, true, 21 * MS)]
    );
    let rec = r.records.as_ref().unwrap();
    let hit = (0..rec.len())
        .find(|&i| rec.origin[i] < 0x8000 && rec.arrival_ns[i] == 10 * MS)
        .unwrap();
    assert_eq!(rec.device[hit], HOST_DEVICE);
}

#[test]
fn a_write_back_miss_on_a_full_cache_waits_for_its_dirty_victim() {
    // Two lines: both writes are absorbed dirty; the read at 20 ms needs a line, and the
    // least recently used (lbn 0-15) must be written back first: 2 ms, then its 1 ms fill.
    let r = replay(
        "{ size_sectors = 32, line_sectors = 16, write_policy = \"write-back\" }",
        "0 0 0 8 0\n10 0 16 8 0\n20 0 32 8 1\n",
    );
    assert_eq!(
        served(&r),
        vec![(0, 8, false, 0), (16, 8, false, 0), (32, 8, true, 3 * MS)]
    );
    assert_eq!(
        device_ops(&r),
        vec![(0, 8, false, 22 * MS), (32, 8, true, 23 * MS)]
    );
}

#[test]
fn a_victim_write_back_takes_its_dirty_neighbours_up_to_the_cluster() {
    // Lines 0-15 and 16-31 are dirty end to end; the first is the victim, and with a
    // cluster of two lines one 32-sector write cleans both: the next miss needs no write.
    let r = replay(
        "{ size_sectors = 32, line_sectors = 16, flush_cluster_lines = 2 }",
        "0 0 0 16 0\n10 0 16 16 0\n20 0 64 8 1\n30 0 96 8 1\n",
    );
    assert_eq!(
        served(&r).iter().map(|s| s.3).collect::<Vec<_>>(),
        vec![0, 0, 3 * MS, MS]
    );
    assert_eq!(
        device_ops(&r),
        vec![
            (0, 32, false, 22 * MS),
            (64, 8, true, 23 * MS),
            (96, 8, true, 31 * MS)
        ]
    );
}

#[test]
fn write_through_completes_with_the_device_write_and_write_behind_at_once() {
    let trace = "0 0 0 8 0\n10 0 0 8 1\n";
    let through = replay(
        "{ size_sectors = 64, line_sectors = 16, write_policy = \"write-through\" }",
        trace,
    );
    assert_eq!(
        served(&through),
        vec![(0, 8, false, 2 * MS), (0, 8, true, 0)]
    );
    assert_eq!(device_ops(&through), vec![(0, 8, false, 2 * MS)]);
    let behind = replay(
        "{ size_sectors = 64, line_sectors = 16, write_policy = \"write-behind\" }",
        trace,
    );
    assert_eq!(served(&behind), vec![(0, 8, false, 0), (0, 8, true, 0)]);
    assert_eq!(device_ops(&behind), vec![(0, 8, false, 2 * MS)]);
}

#[test]
fn every_request_completes_exactly_once_and_runs_repeat() {
    // Requests arriving faster than the device serves them, on a cache of four lines:
    // misses queue behind write-backs and fills of lines other requests wait on.
    let mut trace = String::new();
    let mut x: u64 = 7;
    for i in 0..400u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let lbn = (x >> 33) % 256 * 4;
        let sectors = 1 + (x >> 20) % 24;
        let read = (x >> 10) % 3 != 0;
        trace += &format!("{}.5 0 {lbn} {sectors} {}\n", i / 2, read as u8);
    }
    let cache = "{ size_sectors = 64, line_sectors = 16, flush_cluster_lines = 2 }";
    let r = replay(cache, &trace);
    let rec = r.records.as_ref().unwrap();
    let mut ids: Vec<u64> = (0..rec.len())
        .filter(|&i| rec.origin[i] < 0x8000)
        .map(|i| rec.id[i])
        .collect();
    assert_eq!(ids.len(), 400);
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 400, "a request completed twice");
    assert_eq!(r.summary.requests, 400);
    let again = replay(cache, &trace);
    assert_eq!(served(&again), served(&r));
    assert_eq!(device_ops(&again), device_ops(&r));
}

#[test]
fn bad_cache_tables_get_keyed_errors() {
    let err = |cache: &str| {
        let toml = format!(
            "[[devices]]\nname = \"d\"\ncache = {cache}\n\n[workload]\nkind = \"open\"\nrequests = 1\n"
        );
        match ExperimentConfig::from_toml_str(&toml, Some(std::path::Path::new("c.toml")))
            .and_then(|cfg| build_simulation(&cfg, None).map(|_| ()))
        {
            Ok(()) => panic!("accepted: {cache}"),
            Err(e) => e.to_string(),
        }
    };
    let e = err("{ size_sectors = 100, line_sectors = 64 }");
    assert!(e.contains("devices[0].cache.line_sectors"), "{e}");
    let e = err("{ size_sectors = 0 }");
    assert!(e.contains("devices[0].cache.size_sectors"), "{e}");
    let e = err("{ size_sectors = 64, write_policy = \"sometimes\" }");
    assert!(e.contains("c.toml:3") && e.contains("write_policy"), "{e}");
    let e = err("{ size_sectors = 64, lines = 4 }");
    assert!(e.contains("lines"), "{e}");
}

#[test]
fn a_request_on_a_line_being_filled_waits_for_the_fill() {
    // The read's fill holds line 0-15 until 1 ms: the write at 0.5 ms waits for it, and so
    // does the read of sectors the fill brings.
    let r = replay(
        "{ size_sectors = 64, line_sectors = 16 }",
        "0 0 0 8 1\n0.5 0 8 4 0\n0.6 0 2 4 1\n",
    );
    assert_eq!(
        served(&r).iter().map(|s| s.3).collect::<Vec<_>>(),
        vec![MS, MS / 2, MS * 4 / 10]
    );
    assert_eq!(device_ops(&r), vec![(0, 8, true, MS)]);
}
