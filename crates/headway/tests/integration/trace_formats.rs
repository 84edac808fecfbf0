//! Every trace format: exact parse of a hand-written fixture, detection, compression.

use std::path::Path;

use crate::common::{fixture, scratch};
use headway::workload::trace::{detect_format, open_source, BlkparseEvent, CsvSpec, TraceSource};
use headway::workload::{TraceFormat, TraceRecord};
use headway::Op;

fn t(name: &str) -> std::path::PathBuf {
    fixture(&format!("traces/{name}"))
}

/// Every record of `path`, with the line (or record number) each came from.
fn read(path: &Path, source: &TraceSource) -> Vec<(TraceRecord, usize)> {
    let mut r = open_source(path, source).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    while let Some(rec) = r.next_record().unwrap_or_else(|e| panic!("{e}")) {
        out.push((rec, r.line()));
    }
    out
}

fn fmt(f: TraceFormat) -> TraceSource {
    TraceSource::new(f)
}

#[allow(clippy::too_many_arguments)]
fn rec(
    time_ns: u64,
    device: u16,
    lbn: u64,
    sectors: u32,
    op: Op,
    process: u32,
    response_ns: Option<u64>,
) -> TraceRecord {
    TraceRecord {
        time_ns,
        device,
        lbn,
        sectors,
        op,
        process,
        response_ns,
        zone_op: None,
        high_priority: false,
    }
}
use Op::{Read as R, Write as W};

#[test]
fn disksim_validate_rebuilds_issue_times_from_access_and_delay() {
    let got = read(&t("validate.trace"), &fmt(TraceFormat::DisksimValidate));
    let recs: Vec<_> = got.iter().map(|(r, _)| *r).collect();
    assert_eq!(
        recs,
        vec![
            rec(0, 0, 1000, 8, R, 0, Some(1_000_000)),
            rec(1_500_000, 0, 2000, 16, W, 0, Some(2_500_500)),
            rec(4_000_500, 0, 100, 4, R, 0, Some(800_000)),
            rec(6_000_500, 0, 5000, 8, W, 0, Some(650_000)),
        ]
    );
}

#[test]
fn spc_blocks_bytes_and_seconds() {
    let got = read(&t("spc.csv"), &fmt(TraceFormat::Spc));
    let recs: Vec<_> = got.iter().map(|(r, _)| *r).collect();
    assert_eq!(
        recs,
        vec![
            rec(0, 0, 303_567, 7, W, 0, None),
            rec(1_500_000, 1, 1000, 8, R, 0, None),
            rec(2_500_000, 0, 303_574, 1, R, 0, None),
            // 1000 bytes widen to two whole sectors.
            rec(500_000_000, 1, 8, 2, W, 0, None),
        ]
    );
}

#[test]
fn msr_windows_ticks_and_bytes() {
    let got = read(&t("msr.csv"), &fmt(TraceFormat::Msr));
    let t0 = 128_166_372_003_061_629u64 * 100;
    let recs: Vec<_> = got.iter().map(|(r, _)| *r).collect();
    assert_eq!(
        recs,
        vec![
            rec(t0, 1, 6_812_280, 8, R, 0, Some(890_600)),
            rec(t0 + 10_000_000, 1, 1, 2, W, 0, Some(2_000_000)),
            // Bytes 1000..1100 lie in sectors 1 and 2.
            rec(t0 + 1_332_052_600, 1, 1, 2, R, 0, Some(30_000)),
        ]
    );
    assert_eq!(got[0].1, 2, "the header is line 1");
}

#[test]
fn fiu_keeps_pids_and_names_even_with_blanks() {
    let mut r = open_source(&t("fiu.trace"), &fmt(TraceFormat::Fiu)).unwrap();
    let mut recs = Vec::new();
    while let Some(x) = r.next_record().unwrap() {
        recs.push(x);
    }
    assert_eq!(
        recs,
        vec![
            rec(89_966_527_394_820, 6 * 256, 904_265_560, 8, W, 4892, None),
            rec(89_966_527_400_000, 6 * 256, 1000, 16, R, 5001, None),
            rec(89_966_528_394_820, 6 * 256, 904_265_568, 8, W, 4892, None),
        ]
    );
    assert_eq!(r.process_name(4892), Some("syslogd"));
    assert_eq!(r.process_name(5001), Some("gnome terminal"));
}

#[test]
fn blkparse_queue_or_dispatch_events_with_pids_and_names() {
    let mut r = open_source(&t("blkparse.txt"), &fmt(TraceFormat::Blkparse)).unwrap();
    let mut got = Vec::new();
    while let Some(x) = r.next_record().unwrap() {
        got.push((x, r.line()));
    }
    assert_eq!(
        got,
        vec![
            (rec(0, 8 * 256, 223_490, 8, W, 697, None), 1),
            (rec(1_000_000, 8 * 256, 1000, 16, R, 1234, None), 6),
            (rec(1_000_250, 8 * 256, 1016, 16, R, 1234, None), 7),
            // The flush on line 11 carries no data; line 12 is another device.
            (rec(30_000_000, 8 * 256 + 16, 64, 8, W, 55, None), 12),
        ]
    );
    assert_eq!(r.process_name(697), Some("kjournald"));
    assert_eq!(r.process_name(55), Some("kworker/u8:2"));

    let dispatch = TraceSource {
        blkparse_event: BlkparseEvent::Dispatch,
        ..fmt(TraceFormat::Blkparse)
    };
    let got = read(&t("blkparse.txt"), &dispatch);
    assert_eq!(
        got,
        vec![
            (rec(10_500, 8 * 256, 223_490, 8, W, 697, None), 5),
            (rec(1_100_000, 8 * 256, 1000, 32, R, 0, None), 9),
        ]
    );
}

#[test]
fn hp_srt_records_in_256_byte_sectors_and_suspects_skipped() {
    let mut r = open_source(&t("hp_small.srt"), &fmt(TraceFormat::HpSrt)).unwrap();
    let mut got = Vec::new();
    while let Some(x) = r.next_record().unwrap() {
        got.push((x, r.line()));
    }
    assert_eq!(
        got,
        vec![
            (rec(0, 0, 528, 8, R, 0, Some(19_687_000)), 1),
            // 256-byte sector 12257 starts half way into 512-byte sector 6128; 2048 bytes
            // from there end half way into sector 6132, so five sectors are touched.
            (rec(22_479_000, 1, 6128, 5, W, 0, Some(10_038_000)), 2),
            (
                rec(30_184_992_000, 0, 337_016, 16, W, 0, Some(36_899_000)),
                4
            ),
        ]
    );
    assert_eq!(r.skipped(), 1, "one suspect record");
}

#[test]
fn csv_variants_of_the_reference_traces() {
    // msr-chunks style: time_ms devno offset_bytes size_bytes 1=read.
    let spec = CsvSpec::parse_map(
        "delimiter=whitespace,time=0,device=1,address=2,size=3,op=4,time_unit=ms,address_unit=bytes,size_unit=bytes,read=1,write=0",
    )
    .unwrap();
    let src = TraceSource {
        format: TraceFormat::Csv,
        csv: Some(spec),
        ..Default::default()
    };
    let recs: Vec<_> = read(&t("ms_bytes.trace"), &src)
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(
        recs,
        vec![
            rec(0, 0, 22_583_600, 8, R, 0, None),
            rec(0, 0, 22_583_968, 8, R, 0, None),
            rec(22_810_000, 0, 4_307_312, 8, W, 0, None),
            rec(45_304_000, 0, 2, 1, W, 0, None),
        ]
    );
    // MQSim style: time_ns devno lba_sectors size_sectors 1=read, written as TOML.
    let spec: CsvSpec = toml::from_str(
        r#"delimiter = "whitespace"
           time = 0
           device = 1
           address = 2
           size = 3
           op = 4
           time_unit = "ns"
           read_values = ["1"]
           write_values = ["0"]"#,
    )
    .unwrap();
    let src = TraceSource {
        format: TraceFormat::Csv,
        csv: Some(spec),
        ..Default::default()
    };
    let recs: Vec<_> = read(&t("ns_sectors.trace"), &src)
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(recs[0], rec(11_413_000, 0, 657_728, 16, R, 0, None));
    assert_eq!(recs[2], rec(11_721_000, 1, 21_868_784, 16, W, 0, None));
}

#[test]
fn headway_csv_reads_without_a_mapping() {
    let recs: Vec<_> = read(&t("headway.csv"), &fmt(TraceFormat::Csv))
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(
        recs,
        vec![
            rec(0, 0, 1000, 8, R, 7, None),
            rec(1500, 0, 2000, 16, W, 7, None),
            rec(2_000_000, 2, 0, 1, R, 9, None),
        ]
    );
}

#[test]
fn csv_mapping_errors_name_the_problem() {
    let e = |m: &str| CsvSpec::parse_map(m).unwrap_err().to_string();
    assert!(e("time=0,address=1,size=2").contains("`op=<column>` is required"));
    assert!(e("time=0,address=1,size=2,op=3,time_unit=min").contains("time unit `min`"));
    assert!(e("time=0,address=1,size=2,op=3,address_unit=kb").contains("unit `kb`"));
    assert!(e("time=t,address=1,size=2,op=3").contains("header = false"));
    assert!(e("time=0,address=1,size=2,op=3,read=1,write=1").contains("both"));
    assert!(e("time=0,address=1,size=2,op=3,colour=red").contains("unknown key `colour`"));
    // A named column missing from the header is an error at line 1.
    let dir = scratch("csvhdr");
    let p = dir.join("h.csv");
    std::fs::write(&p, "when,lba,len,rw\n0,1,2,R\n").unwrap();
    let src = TraceSource {
        format: TraceFormat::Csv,
        csv: Some(CsvSpec::parse_map("header=yes,time=when,address=lba,size=len,op=kind").unwrap()),
        ..Default::default()
    };
    let mut r = open_source(&p, &src).unwrap();
    let e = r.next_record().unwrap_err().to_string();
    assert!(
        e.contains("h.csv:1: ")
            && e.contains("no column `kind`")
            && e.contains("when, lba, len, rw"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn formats_are_detected_where_unambiguous() {
    for (file, f) in [
        ("disksim_small.trace", TraceFormat::DisksimAscii),
        ("disksim_small.trace.gz", TraceFormat::DisksimAscii),
        ("traces/disksim_small.trace.zst", TraceFormat::DisksimAscii),
        ("traces/disksim_small.trace.xz", TraceFormat::DisksimAscii),
        ("traces/validate.trace", TraceFormat::DisksimValidate),
        ("traces/spc.csv", TraceFormat::Spc),
        ("traces/msr.csv", TraceFormat::Msr),
        ("traces/fiu.trace", TraceFormat::Fiu),
        ("traces/blkparse.txt", TraceFormat::Blkparse),
        ("traces/hp_small.srt", TraceFormat::HpSrt),
        ("traces/headway.csv", TraceFormat::Csv),
    ] {
        assert_eq!(
            detect_format(&fixture(file)).unwrap_or_else(|e| panic!("{file}: {e}")),
            f,
            "{file}"
        );
    }
    // The byte and nanosecond variants look like DiskSim ASCII but are refused, not misread.
    for (file, why) in [
        ("traces/ms_bytes.trace", "multiple of 512"),
        ("traces/ns_sectors.trace", "nanoseconds"),
    ] {
        let e = detect_format(&fixture(file)).unwrap_err().to_string();
        assert!(e.contains(why) && e.contains("--format"), "{file}: {e}");
    }
}

#[test]
fn compressed_inputs_read_like_plain() {
    let plain = read(
        &fixture("disksim_small.trace"),
        &fmt(TraceFormat::DisksimAscii),
    );
    for f in [
        "disksim_small.trace.gz",
        "traces/disksim_small.trace.zst",
        "traces/disksim_small.trace.xz",
    ] {
        assert_eq!(
            read(&fixture(f), &fmt(TraceFormat::DisksimAscii)),
            plain,
            "{f}"
        );
    }
}

#[test]
fn format_names_round_trip() {
    for f in TraceFormat::ALL {
        assert_eq!(TraceFormat::from_name(f.name()).unwrap(), f);
    }
    let e = TraceFormat::from_name("srt").unwrap_err().to_string();
    assert!(
        e.contains("unknown trace format `srt`") && e.contains("hp-srt"),
        "{e}"
    );
}
