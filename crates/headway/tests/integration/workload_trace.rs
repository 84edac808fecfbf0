//! Trace replay: the DiskSim ASCII reader, gzip, the replay options and end-to-end runs.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common::workload::{try_run_open, workload};
use crate::common::{fixture, scratch};
use headway::config::build_simulation;
use headway::engine::RngStreams;
use headway::workload::trace::open_reader;
use headway::workload::{TraceFormat, TraceRecord, WorkloadConfig};
use headway::{HeadwayError, Op, Request};
use rand::{Rng, SeedableRng};

const ELITE3_SECTORS: u64 = 5_461_533;

fn read_all(path: &Path) -> Vec<TraceRecord> {
    let mut r = open_reader(path, TraceFormat::DisksimAscii).unwrap();
    let mut out = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        out.push(rec);
    }
    out
}

fn rec(time_ns: u64, device: u16, lbn: u64, sectors: u32, op: Op) -> TraceRecord {
    TraceRecord {
        time_ns,
        device,
        lbn,
        sectors,
        op,
        process: 0,
        response_ns: None,
        zone_op: None,
        high_priority: false,
    }
}

#[test]
fn the_fixture_parses_exactly() {
    let recs = read_all(&fixture("disksim_small.trace"));
    assert_eq!(recs.len(), 11);
    assert_eq!(recs[0], rec(0, 0, 1000, 8, Op::Read));
    assert_eq!(recs[1], rec(221_000, 0, 2048, 16, Op::Write));
    assert_eq!(recs[4], rec(2_516_000, 1, 176, 640, Op::Read)); // flags 0x1
    assert_eq!(recs[6], rec(3_250_000, 0, 8, 8, Op::Read)); // flags 11 (hex): bit 0 set
    assert_eq!(recs[7], rec(4_000_001, 0, 16, 8, Op::Write)); // 4.0000005 ms rounds up
    assert_eq!(recs[8], rec(10_750_000, 1, 5_461_525, 8, Op::Write)); // the drive's last sectors
    assert_eq!(recs[10], rec(20_125_000, 0, 77, 3, Op::Read)); // CRLF line ending
    assert_eq!(recs.iter().filter(|r| r.op == Op::Read).count(), 7);
}

#[test]
fn gzip_reads_the_same_as_plain() {
    let plain = read_all(&fixture("disksim_small.trace"));
    assert_eq!(read_all(&fixture("disksim_small.trace.gz")), plain);

    // Concatenated gzip members (as `cat a.gz b.gz` makes) are one stream.
    let dir = scratch("gzip-members");
    let text = std::fs::read(fixture("disksim_small.trace")).unwrap();
    let path = dir.join("twice.trace.gz");
    let mut file = std::fs::File::create(&path).unwrap();
    for _ in 0..2 {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        file.write_all(&gz.finish().unwrap()).unwrap();
    }
    drop(file);
    // The second copy's times go backwards, which the reader (unlike the replay) allows.
    let twice = read_all(&path);
    assert_eq!(twice.len(), 22);
    assert_eq!(&twice[11..], &plain[..]);
}

/// Replay `text` (written to a scratch file) on the Elite 3 with `extra` workload keys.
fn replay(test: &str, text: &str, extra: &str) -> headway::Result<Vec<Request>> {
    let dir = scratch(test);
    std::fs::write(dir.join("t.trace"), text).unwrap();
    let cfg = workload(&format!("kind = \"trace\"\npath = \"t.trace\"\n{extra}"));
    let result = cfg
        .build(ELITE3_SECTORS, &RngStreams::new(1), Some(&dir))
        .and_then(|mut w| try_run_open(&mut *w));
    std::fs::remove_dir_all(&dir).unwrap();
    result
}

#[test]
fn each_malformed_line_is_an_error_naming_file_and_line() {
    let good = "# header\n0.5 0 0 8 1\n\n1.0 0 8 8 0\n";
    let cases = [
        ("1.5 0 16 8", "expected 5 fields"),
        ("1.5 0 16 8 1 9", "zone command: expected reset"),
        ("1.5 0 16 8 0 reset 9", "expected 5 fields"),
        ("1.5ms 0 16 8 1", "time_ms"),
        ("-1.5 0 16 8 1", "time_ms: must not be negative"),
        ("1.5 x 16 8 1", "devno"),
        ("1.5 0 abc 8 1", "blkno"),
        ("1.5 0 -16 8 1", "blkno: must not be negative"),
        ("1.5 0 16 -8 1", "bcount: must not be negative"),
        ("1.5 0 16 0 1", "at least 1 sector"),
        ("1.5 0 16 8 read", "flags"),
        ("0.75 0 16 8 1", "time goes backwards"),
        ("1.5 0 5461530 8 1", "runs past the end of the drive"),
        (
            "1.5 0 18446744073709551615 8 1",
            "runs past the end of the drive",
        ),
    ];
    for (i, (bad, needle)) in cases.iter().enumerate() {
        let text = format!("{good}{bad}\n2.0 0 0 8 1\n");
        let e = replay(&format!("malformed-{i}"), &text, "").expect_err(bad);
        let HeadwayError::Trace { file, line, msg } = &e else {
            panic!("{bad}: not a trace error: {e}");
        };
        assert_eq!(*line, Some(5), "{bad}: {e}");
        assert!(file.as_ref().unwrap().ends_with("t.trace"), "{bad}: {e}");
        assert!(msg.contains(needle), "{bad}: {e}");
        assert!(e.to_string().contains("t.trace:5: "), "{e}");
    }
}

#[test]
fn a_missing_trace_is_an_io_error_naming_the_file() {
    let cfg = workload("kind = \"trace\"\npath = \"no/such.trace\"");
    let dir = PathBuf::from("/nonexistent-headway");
    match cfg.build(ELITE3_SECTORS, &RngStreams::new(1), Some(&dir)) {
        Err(HeadwayError::Io { path, .. }) => assert_eq!(path, dir.join("no/such.trace")),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("built a workload from a missing file"),
    }
}

#[test]
fn replay_options_speed_limit_and_device() {
    let text = "0 0 0 8 1\n1.0 1 8 8 1\n2.0 0 16 8 0\n3.0 1 24 8 1\n4.0 0 32 8 1\n";
    let e = replay("opts-two-devices", text, "")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.trace:2: ")
            && e.contains("device 0 and device 1")
            && e.contains("merge_devices"),
        "{e}"
    );
    let all = replay("opts-all", text, "merge_devices = true").unwrap();
    assert_eq!(
        all.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(),
        vec![0, 1_000_000, 2_000_000, 3_000_000, 4_000_000]
    );
    // Every replayed record goes to the simulated drive, whatever its trace device.
    assert!(all.iter().all(|r| r.device == 0));
    assert_eq!(all[2].op, Op::Write);

    let fast = replay("opts-fast", text, "speed = 2.0\nmerge_devices = true").unwrap();
    assert_eq!(
        fast.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(),
        vec![0, 500_000, 1_000_000, 1_500_000, 2_000_000]
    );
    let slow = replay("opts-slow", text, "speed = 0.3\nmerge_devices = true").unwrap();
    assert_eq!(slow[1].arrival_ns, 3_333_333);

    let dev1 = replay("opts-dev", text, "device = 1").unwrap();
    assert_eq!(dev1.iter().map(|r| r.lbn).collect::<Vec<_>>(), vec![8, 24]);
    // The limit counts replayed requests, after the device filter.
    let first = replay("opts-limit", text, "device = 0\nlimit = 2").unwrap();
    assert_eq!(first.iter().map(|r| r.lbn).collect::<Vec<_>>(), vec![0, 16]);
    // A limit stops reading: a bad line past it is never seen.
    let first = replay(
        "opts-limit-bad",
        &format!("{text}garbage\n"),
        "limit = 5\nmerge_devices = true",
    )
    .unwrap();
    assert_eq!(first.len(), 5);
}

#[test]
fn the_trace_path_is_relative_to_the_experiment_file() {
    let dir = scratch("relative");
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    std::fs::copy(
        fixture("disksim_small.trace.gz"),
        dir.join("traces/small.trace.gz"),
    )
    .unwrap();
    let exp = dir.join("exp.toml");
    std::fs::write(
        &exp,
        "[drive]\nname = \"elite3\"\n[workload]\nkind = \"trace\"\npath = \"traces/small.trace.gz\"\nmerge_devices = true\n",
    )
    .unwrap();
    let cfg = headway::config::ExperimentConfig::from_toml_file(&exp).unwrap();
    let result = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    assert_eq!(result.summary.requests, 11);
    assert_eq!(result.summary.reads, 7);
}

/// Like DiskSim's benchmark generator: random 8-sector aligned I/O, exponential gaps.
fn write_trace(path: &Path, lines: usize, mean_gap_ms: f64, seed: u64) -> u64 {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut t = 0.0f64;
    let mut reads = 0;
    for _ in 0..lines {
        t += -mean_gap_ms * (1.0 - rng.random::<f64>()).ln();
        let lbn = rng.random_range(0..ELITE3_SECTORS / 8) * 8;
        let read = rng.random_bool(0.7);
        reads += read as u64;
        writeln!(out, "{t:.6} 0 {lbn} 8 {}", read as u8).unwrap();
    }
    reads
}

#[test]
fn a_200k_line_trace_replays_end_to_end() {
    let dir = scratch("e2e");
    let reads = write_trace(&dir.join("big.trace"), 200_000, 40.0, 77);
    let exp = dir.join("exp.toml");
    std::fs::write(
        &exp,
        "[drive]\nname = \"elite3\"\n[host]\nscheduler = \"sptf\"\n[workload]\nkind = \"trace\"\npath = \"big.trace\"\n",
    )
    .unwrap();
    let cfg = headway::config::ExperimentConfig::from_toml_file(&exp).unwrap();
    let result = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    assert_eq!(result.summary.requests, 200_000);
    assert_eq!(result.summary.reads, reads);
    assert_eq!(result.summary.writes, 200_000 - reads);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_path_without_kind_trace_is_refused_not_replayed() {
    // Without `kind`, the table is an open workload, for which `path` is a stray key.
    let e =
        headway::config::ExperimentConfig::from_toml_str("[workload]\npath = \"x.trace\"", None)
            .unwrap_err();
    assert!(
        e.to_string()
            .contains("field `path` belongs to kind = \"trace\" workloads"),
        "{e}"
    );
    assert!(matches!(
        workload("kind = \"trace\"\npath = \"x\""),
        WorkloadConfig::Trace(_)
    ));
}

mod shared_data {
    use super::*;

    /// The MSN file-server excerpt from the shared reference data, not shipped with the
    /// project.
    #[test]
    #[ignore = "needs the reference data in ../shared (not shipped); scripts/test.sh runs it when present"]
    fn the_msn_reference_trace_parses_when_available() {
        let path = common::shared_path("reference/traces/msn-fs/MSN-FS-30s-ms");
        let recs = read_all(&path);
        assert_eq!(recs.len(), 149_999);
        assert_eq!(recs[0], rec(0, 5, 174_224_064, 16, Op::Read));
        assert_eq!(recs[7], rec(2_516_000, 5, 176_275_232, 640, Op::Read));
        assert_eq!(
            recs.last().copied(),
            Some(rec(143_068_077_000, 5, 175_985_024, 16, Op::Read))
        );
        assert_eq!(recs.iter().filter(|r| r.op == Op::Write).count(), 19_516);
    }
}
