//! `level = "cache-device"` volumes end to end: a read miss reads the disk and populates the
//! cache device, a written extent is read back from the cache device alone, destaging
//! writes every dirty sector to the disk exactly once, requests waiting for a slot start in
//! C-LOOK order, and bad tables get keyed errors.

use super::arrays::{err, run};
use headway::sim::RunResult;
use headway::stats::{ArraySummary, CacheDeviceSummary, HOST_DEVICE};

/// A cache device `c` (`cache_drive`) over disk `d`, the `[arrays.cache]` lines `cache`,
/// replaying `trace` (DiskSim ASCII lines, device 0) onto the volume.
fn system(test: &str, cache_drive: &str, cache: &str, trace: &str) -> String {
    let dir = std::env::temp_dir().join(format!("headway-cachedev-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.trace");
    std::fs::write(&path, trace).unwrap();
    format!(
        "seed = 1\n\
         [[devices]]\nname = \"c\"\ndrive = \"{cache_drive}\"\n\n\
         [[devices]]\nname = \"d\"\ndrive = \"atlas10k\"\n\n\
         [[arrays]]\nname = \"vol\"\nlevel = \"cache-device\"\nmembers = [\"c\", \"d\"]\n\
         [arrays.cache]\n{cache}\n\n\
         [[workloads]]\ndevice = \"vol\"\nkind = \"trace\"\npath = \"{}\"\n",
        path.display()
    )
}

fn volume(r: &RunResult) -> (&ArraySummary, &CacheDeviceSummary) {
    let a = &r.arrays[0];
    (a, a.cache.as_ref().expect("a cache-device summary"))
}

/// (reads, writes) of the cache device and of the disk.
fn member_ios(a: &ArraySummary) -> [(u64, u64); 2] {
    [
        (a.members[0].reads, a.members[0].writes),
        (a.members[1].reads, a.members[1].writes),
    ]
}

#[test]
fn a_read_miss_reads_the_disk_then_populates_the_cache_device() {
    let trace = "0.0 0 1000 8 1\n50.0 0 1000 8 1\n";
    let r = run(&system("miss", "atlas10k", "", trace));
    let (a, c) = volume(&r);
    assert_eq!((a.requests, r.summary.requests), (2, 2));
    // The first read misses (a disk read, a population write); the second hits.
    assert_eq!((c.read_misses, c.population_writes, c.read_hits), (1, 1, 1));
    assert_eq!(member_ios(a), [(1, 1), (1, 0)]);
}

#[test]
fn a_written_extent_is_read_back_from_the_cache_device_alone() {
    let trace = "0.0 0 5000 16 0\n20.0 0 5000 16 1\n40.0 0 5008 8 1\n";
    let r = run(&system(
        "hit",
        "atlas10k",
        "destage_idle_ms = 1000.0",
        trace,
    ));
    let (a, c) = volume(&r);
    assert_eq!((c.write_hits, c.read_hits, c.read_misses), (1, 2, 0));
    // The disk reads nothing; once it has idled a second, the dirty extent is destaged:
    // one more read on the cache device, the disk's only write.
    assert_eq!(member_ios(a), [(3, 1), (0, 1)]);
    assert_eq!((c.destage_sectors, c.dirty_sectors_end), (16, 0));
    // The reads completed well before the destage began.
    assert!(
        r.summary.response.max_ms < 100.0,
        "{:?}",
        r.summary.response
    );
}

#[test]
fn destaging_writes_every_dirty_sector_to_the_disk_once() {
    // Two overlapping writes and a separate one: 40 distinct dirty sectors in two runs
    // (1000..1032 and 9000..9008), destaged once the disk has idled 50 ms from the start
    // (the writes are done on the cache device by then).
    let trace = "0.0 0 1000 16 0\n1.0 0 1016 16 0\n2.0 0 1008 16 0\n3.0 0 9000 8 0\n";
    let r = run(&system(
        "destage",
        "atlas10k",
        "destage_idle_ms = 50.0",
        trace,
    ));
    let (a, c) = volume(&r);
    assert_eq!(c.write_hits, 4);
    assert_eq!((c.destage_reads, c.destage_writes), (2, 2));
    assert_eq!(c.destage_sectors, 40);
    assert_eq!(c.dirty_sectors_end, 0);
    // Conservation: four writes and two destage reads on the cache device, two destage
    // writes on the disk, and every member operation is counted once in the volume's.
    assert_eq!(member_ios(a), [(2, 4), (0, 2)]);
    assert_eq!((a.member_reads, a.member_writes), (2, 6));
    assert_eq!((a.requests, a.writes), (4, 4));
}

#[test]
fn write_through_writes_the_disk_after_the_cache_device() {
    let trace = "0.0 0 1000 8 0\n100.0 0 1000 8 1\n";
    let r = run(&system("through", "atlas10k", "write = \"through\"", trace));
    let (a, c) = volume(&r);
    assert_eq!(member_ios(a), [(1, 1), (0, 1)]);
    assert_eq!(
        (c.read_hits, c.destage_writes, c.dirty_sectors_end),
        (1, 0, 0)
    );
}

#[test]
fn requests_beyond_the_cached_range_go_to_the_disk() {
    let trace = "0.0 0 100 8 0\n10.0 0 100 8 1\n";
    let r = run(&system("beyond", "atlas10k", "size_sectors = 64", trace));
    let (a, c) = volume(&r);
    assert_eq!(
        (c.write_misses, c.read_misses, c.population_writes),
        (1, 1, 0)
    );
    assert_eq!(member_ios(a), [(0, 0), (1, 1)]);
}

#[test]
fn max_outstanding_makes_later_requests_wait_their_turn() {
    // A read miss (on the disk) and a write (on the cache device) arrive together: without
    // a limit they are served side by side, with one at a time the write waits for the
    // read.
    let trace = "0.0 0 1000 8 1\n0.0 0 800000 8 0\n";
    let free = run(&system("free", "atlas10k", "", trace));
    let one = run(&system("one", "atlas10k", "max_outstanding = 1", trace));
    let (a, b) = (&free.summary.response, &one.summary.response);
    assert_eq!((free.summary.requests, one.summary.requests), (2, 2));
    assert!(b.max_ms > 1.5 * a.max_ms, "{a:?}\n{b:?}");
    // The read (the slower of the two when they run side by side, the drive's write cache
    // taking the write) is not delayed by the limit: it went first.
    assert!((b.min_ms - a.max_ms).abs() < 0.01, "{a:?}\n{b:?}");
    assert_eq!(member_ios(volume(&free).0), member_ios(volume(&one).0));
}

#[test]
fn waiting_requests_start_in_c_look_order_by_first_lbn() {
    // The read at 500,000 holds the one slot; the three that arrive while it runs start
    // upward from it (600,000, then 900,000) and then from the lowest (100,000), as
    // DiskSim's I/O driver takes them, not in the order they came.
    let trace = "0.0 0 500000 8 1\n0.1 0 900000 8 1\n0.1 0 100000 8 1\n0.1 0 600000 8 1\n";
    let toml =
        system("clook", "atlas10k", "max_outstanding = 1", trace) + "[output]\nrecords = true\n";
    let r = run(&toml);
    let rec = r.records.as_ref().expect("records");
    let mut logical: Vec<(u64, u64)> = (0..rec.len())
        .filter(|&i| rec.device[i] == HOST_DEVICE)
        .map(|i| (rec.done_ns[i], rec.lbn[i]))
        .collect();
    logical.sort_unstable();
    let order: Vec<u64> = logical.iter().map(|&(_, lbn)| lbn).collect();
    assert_eq!(order, vec![500_000, 600_000, 900_000, 100_000]);
}

#[test]
fn cache_device_runs_are_deterministic() {
    let trace: String = (0..200)
        .map(|i| format!("{}.0 0 {} 8 {}\n", i * 3, (i * 7919 % 400) * 8, i % 3 != 0))
        .map(|l| l.replace("true", "1").replace("false", "0"))
        .collect();
    let toml = system("determinism", "atlas10k", "destage_idle_ms = 2.0", &trace);
    let (a, b) = (run(&toml), run(&toml));
    assert_eq!(a.arrays, b.arrays);
    assert_eq!(a.summary.response.mean_ms, b.summary.response.mean_ms);
    let (v, c) = volume(&a);
    assert_eq!(v.requests, 200);
    // Every missed read populates; every write lands on the cache device.
    assert_eq!(c.read_misses, c.population_writes);
    assert_eq!(v.members[0].writes, c.population_writes + c.write_hits);
    assert_eq!(v.members[1].writes, c.destage_writes);
}

#[test]
fn bad_cache_devices_get_keyed_errors() {
    let base = system("errors", "atlas10k", "", "0.0 0 0 8 1\n");
    let cases = [
        (
            base.replace(
                "[arrays.cache]\n",
                "[arrays.cache]\nsize_sectors = 999999999999\n",
            ),
            "arrays[0].cache.size_sectors",
            "do not fit on the cache device",
        ),
        (
            base.replace("[arrays.cache]\n", "[arrays.cache]\nmax_outstanding = 0\n"),
            "arrays[0].cache.max_outstanding",
            "at least 1",
        ),
        (
            base.replace("[arrays.cache]\n", "[arrays.cache]\nsize_sectors = 0\n"),
            "arrays[0].cache.size_sectors",
            "at least 1",
        ),
        (
            base.replace("members = [\"c\", \"d\"]", "members = [\"c\"]"),
            "arrays[0].members",
            "takes two members",
        ),
        (
            base.replace(
                "members = [\"c\", \"d\"]",
                "members = [\"c\", \"d\", \"e\"]",
            ),
            "arrays[0].members",
            "takes two members",
        ),
        (
            base.replace("[arrays.cache]\n", "[arrays.cache]\nline_sectors = 8\n"),
            "line_sectors",
            "unknown field",
        ),
        (
            base.replace("[arrays.cache]\n", "[arrays.cache]\nwrite = \"around\"\n"),
            "write",
            "unknown variant",
        ),
        (
            base.replace("level = \"cache-device\"", "level = \"raid1\""),
            "arrays[0].cache",
            "only level = \"cache-device\"",
        ),
    ];
    for (toml, key, msg) in cases {
        let e = err(&toml);
        assert!(e.contains(key) && e.contains(msg), "{key} / {msg}: {e}");
    }
}
