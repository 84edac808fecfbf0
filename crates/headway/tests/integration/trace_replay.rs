//! Replay modes and options (closed, validate, window, op, devices, fit, speed) and the trace
//! tools (stats, convert, batches).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

use crate::common::workload::{try_run_open, workload};
use crate::common::{fixture, scratch};
use headway::engine::RngStreams;
use headway::workload::trace::{
    convert, open_source, stats, ConvertFormat, FeedOptions, TraceBatches, TraceSource,
};
use headway::workload::{Arrivals, TraceFormat, Workload};
use headway::{Op, Request, SimTime};

/// A toy engine: every request is served in `service_ns` from its arrival, in parallel.
/// Returns the requests in arrival order.
fn run_closed(w: &mut dyn Workload, service_ns: SimTime) -> headway::Result<Vec<Request>> {
    let mut out = Vec::new();
    // (time, 0 = arrival / 1 = completion, sequence, request)
    let mut events: BinaryHeap<Reverse<(SimTime, u8, u64, RequestKey)>> = BinaryHeap::new();
    let mut reqs: Vec<Request> = Vec::new();
    let mut seq = 0;
    let mut arrivals = Arrivals::default();
    w.start(&mut arrivals)?;
    let mut push = |events: &mut BinaryHeap<_>, reqs: &mut Vec<Request>, a: &mut Arrivals| {
        for r in a.drain() {
            reqs.push(r);
            events.push(Reverse((r.arrival_ns, 0, seq, RequestKey(reqs.len() - 1))));
            seq += 1;
        }
    };
    push(&mut events, &mut reqs, &mut arrivals);
    while let Some(Reverse((t, kind, _, RequestKey(i)))) = events.pop() {
        let r = reqs[i];
        if kind == 0 {
            out.push(r);
            w.on_arrival(&r, &mut arrivals)?;
            events.push(Reverse((
                t + service_ns,
                1,
                u64::MAX - i as u64,
                RequestKey(i),
            )));
        } else {
            w.on_completion(&r, t, &mut arrivals)?;
        }
        push(&mut events, &mut reqs, &mut arrivals);
    }
    Ok(out)
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct RequestKey(usize);

fn build(dir: &Path, keys: &str, capacity: u64) -> Box<dyn Workload> {
    workload(&format!("kind = \"trace\"\n{keys}"))
        .build(capacity, &RngStreams::new(1), Some(dir))
        .unwrap_or_else(|e| panic!("{e}"))
}

const MS: u64 = 1_000_000;

#[test]
fn closed_mode_keeps_each_process_think_time() {
    let dir = scratch("closed");
    // Process 1 at 0, 10, 20 ms; process 2 at 5 and 6 ms. No response times in the trace, so
    // think = the gap between a process's issues.
    std::fs::write(
        dir.join("p.csv"),
        "time_ns,device,lbn,sectors,op,process\n0,0,0,8,R,1\n5000000,0,100,8,R,2\n6000000,0,200,8,W,2\n10000000,0,8,8,R,1\n20000000,0,16,8,R,1\n",
    )
    .unwrap();
    let mut w = build(&dir, "path = \"p.csv\"\nmode = \"closed\"", 1 << 20);
    let got: Vec<(u64, u32, u64)> = run_closed(&mut *w, MS)
        .unwrap()
        .iter()
        .map(|r| (r.arrival_ns, r.process, r.lbn))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, 1, 0),
            (5 * MS, 2, 100),
            (7 * MS, 2, 200), // completed at 6 ms, thinks 1 ms
            (11 * MS, 1, 8),  // completed at 1 ms, thinks 10 ms
            (22 * MS, 1, 16), // completed at 12 ms, thinks 10 ms
        ]
    );
    // At speed 2 think times halve too.
    let mut w = build(
        &dir,
        "path = \"p.csv\"\nmode = \"closed\"\nspeed = 2.0",
        1 << 20,
    );
    let times: Vec<u64> = run_closed(&mut *w, MS)
        .unwrap()
        .iter()
        .map(|r| r.arrival_ns)
        .collect();
    assert_eq!(times, vec![0, 2_500_000, 4_000_000, 6 * MS, 12 * MS]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn closed_mode_uses_recorded_response_times() {
    // MSR records response times: request 2 was issued 10 ms after request 1, which took
    // 0.8906 ms, so the think time is 9.1094 ms.
    let mut w = build(
        &fixture("traces"),
        "path = \"msr.csv\"\nmode = \"closed\"",
        1 << 24,
    );
    let times: Vec<u64> = run_closed(&mut *w, MS)
        .unwrap()
        .iter()
        .map(|r| r.arrival_ns)
        .collect();
    assert_eq!(times[1], MS + 9_109_400);
    let rep = w.trace_report().unwrap();
    assert!(
        rep.notes[0].contains("names no processes"),
        "{:?}",
        rep.notes
    );
}

#[test]
fn validate_mode_issues_each_request_its_delay_after_the_previous_completes() {
    let mut w = build(
        &fixture("traces"),
        "path = \"validate.trace\"\nmode = \"validate\"",
        1 << 20,
    );
    let times: Vec<u64> = run_closed(&mut *w, MS)
        .unwrap()
        .iter()
        .map(|r| r.arrival_ns)
        .collect();
    // Service 1 ms; delays 0.5, 0, 1.2 ms.
    assert_eq!(times, vec![0, 1_500_000, 2_500_000, 4_700_000]);
}

fn open(dir: &Path, keys: &str, capacity: u64) -> headway::Result<Vec<Request>> {
    let mut w = workload(&format!("kind = \"trace\"\n{keys}")).build(
        capacity,
        &RngStreams::new(1),
        Some(dir),
    )?;
    try_run_open(&mut *w)
}

#[test]
fn window_op_device_and_limit_filters() {
    let dir = fixture("");
    let base = "path = \"disksim_small.trace\"\nmerge_devices = true";
    let all = open(&dir, base, 1 << 30).unwrap();
    assert_eq!(all.len(), 11);
    // Window [2.5 ms, 11 ms): times shift so that the window starts at 0.
    let w = open(
        &dir,
        &format!("{base}\nstart_s = 0.0025\nend_s = 0.011"),
        1 << 30,
    )
    .unwrap();
    assert_eq!(
        w.iter().map(|r| (r.arrival_ns, r.lbn)).collect::<Vec<_>>(),
        vec![
            (16_000, 176),
            (16_000, 0),
            (750_000, 8),
            (1_500_001, 16),
            (8_250_000, 5_461_525)
        ]
    );
    let reads = open(&dir, &format!("{base}\nop = \"read\""), 1 << 30).unwrap();
    assert_eq!(reads.len(), 7);
    assert!(reads.iter().all(|r| r.op == Op::Read));
    let dev1 = open(
        &dir,
        "path = \"disksim_small.trace\"\ndevices = [1]",
        1 << 30,
    )
    .unwrap();
    assert_eq!(dev1.len(), 3);
    let both = open(
        &dir,
        "path = \"disksim_small.trace\"\ndevices = [0, 1]",
        1 << 30,
    )
    .unwrap();
    assert_eq!(both.len(), 11);
    let e = headway::config::ExperimentConfig::from_toml_str(
        "[workload]\nkind = \"trace\"\npath = \"x\"\ndevice = 1\nmerge_devices = true",
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("at most one of device, devices and merge_devices"),
        "{e}"
    );
}

#[test]
fn fit_wrap_scale_and_truncate() {
    let dir = scratch("fit");
    std::fs::write(
        dir.join("f.trace"),
        "0 0 10 8 1\n1 0 95 8 1\n2 0 150 8 1\n3 0 199 1 1\n",
    )
    .unwrap();
    let lbns = |keys: &str| -> Vec<(u64, u32)> {
        open(
            &dir,
            &format!("path = \"f.trace\"\nformat = \"disksim-ascii\"\n{keys}"),
            100,
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .iter()
        .map(|r| (r.lbn, r.sectors))
        .collect()
    };
    // wrap: modulo capacity, moved back if it would run off the end.
    assert_eq!(
        lbns("fit = \"wrap\""),
        vec![(10, 8), (92, 8), (50, 8), (99, 1)]
    );
    // scale: by 100 / 200 (the trace's extent, from a first pass).
    assert_eq!(
        lbns("fit = \"scale\""),
        vec![(5, 8), (47, 8), (75, 8), (99, 1)]
    );
    assert_eq!(
        lbns("fit = \"scale\"\nvolume_sectors = 1000"),
        vec![(1, 8), (9, 8), (15, 8), (19, 1)]
    );
    // truncate: shortened at the end, dropped past it.
    assert_eq!(lbns("fit = \"truncate\""), vec![(10, 8), (95, 5)]);
    let e = open(&dir, "path = \"f.trace\"\nformat = \"disksim-ascii\"", 100)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("f.trace:2: ")
            && e.contains("the drive has 100 sectors")
            && e.contains("the trace addresses 200 sectors"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stats_of_a_fixture() {
    let s = stats(
        &fixture("traces/blkparse.txt"),
        &TraceSource::default(),
        &FeedOptions::default(),
    )
    .unwrap();
    assert_eq!(s.format, "blkparse");
    assert_eq!((s.records, s.reads, s.writes), (4, 2, 2));
    assert!((s.span_s - 0.03).abs() < 1e-12);
    assert_eq!((s.min_sector, s.max_end_sector), (64, 223_498));
    assert_eq!(s.devices.len(), 2);
    assert_eq!(s.processes[0].pid, 1234);
    assert_eq!(s.processes[0].name.as_deref(), Some("cat"));
    assert_eq!(s.processes[0].count, 2);
    // Seek distances per device: 223498 -> 1000, then 1016 -> 1016.
    assert_eq!(s.seek_distance_sectors.count, 2);
    assert_eq!(s.seek_distance_sectors.min, 0.0);
    let json = serde_json::to_value(&s).unwrap();
    for key in [
        "records",
        "reads",
        "writes",
        "span_s",
        "max_end_sector",
        "rate_iops",
        "read_fraction",
        "size_sectors",
        "interarrival_ms",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
    let src = TraceSource::new(TraceFormat::DisksimAscii);
    let s = stats(
        &fixture("disksim_small.trace.gz"),
        &src,
        &FeedOptions::default(),
    )
    .unwrap();
    assert_eq!(
        (s.records, s.reads, s.compression.as_str()),
        (11, 7, "gzip")
    );
    assert_eq!(s.max_end_sector, 5_461_533);
}

#[test]
fn convert_round_trips_through_csv_and_disksim_ascii() {
    let dir = scratch("convert");
    for (file, format) in [
        ("traces/fiu.trace", TraceFormat::Fiu),
        ("traces/msr.csv", TraceFormat::Msr),
        ("traces/hp_small.srt", TraceFormat::HpSrt),
        ("traces/spc.csv", TraceFormat::Spc),
    ] {
        let src = TraceSource::new(format);
        let opts = FeedOptions::default();
        let original: Vec<_> = {
            let mut b = TraceBatches::open(&fixture(file), &src, &opts, 1000).unwrap();
            b.next_batch().unwrap().unwrap()
        }
        .time_ns;
        for (to, name) in [
            (ConvertFormat::Csv, "out.csv.zst"),
            (ConvertFormat::DisksimAscii, "out.trace.xz"),
        ] {
            let out = dir.join(name);
            let n = convert(&fixture(file), &src, &out, to, &opts).unwrap();
            assert_eq!(n as usize, original.len(), "{file}");
            let back = TraceSource::new(match to {
                ConvertFormat::Csv => TraceFormat::Csv,
                ConvertFormat::DisksimAscii => TraceFormat::DisksimAscii,
            });
            let mut a = open_source(&fixture(file), &src).unwrap();
            let mut b = open_source(&out, &back).unwrap();
            let mut t0 = None;
            let mut i = 0;
            while let Some(x) = a.next_record().unwrap() {
                let t0 = *t0.get_or_insert(x.time_ns);
                let y = b.next_record().unwrap().unwrap();
                assert_eq!(
                    (x.time_ns - t0, x.lbn, x.sectors, x.op),
                    (y.time_ns, y.lbn, y.sectors, y.op),
                    "{file} -> {name} #{i}"
                );
                if to == ConvertFormat::Csv {
                    assert_eq!((x.device, x.process), (y.device, y.process));
                }
                i += 1;
            }
            assert!(b.next_record().unwrap().is_none());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn batches_of_columns() {
    let mut b = TraceBatches::open(
        &fixture("traces/headway.csv"),
        &TraceSource::default(),
        &FeedOptions::default(),
        2,
    )
    .unwrap();
    let first = b.next_batch().unwrap().unwrap();
    assert_eq!(first.lbn, vec![1000, 2000]);
    assert_eq!(first.is_read, vec![true, false]);
    assert_eq!(first.process, vec![7, 7]);
    let second = b.next_batch().unwrap().unwrap();
    assert_eq!((second.len(), second.device[0]), (1, 2));
    assert!(b.next_batch().unwrap().is_none());
}

#[test]
fn a_csv_mapping_may_be_one_string_as_on_the_command_line() {
    let dir = fixture("traces");
    let reqs = open(
        &dir,
        "path = \"ms_bytes.trace\"\nformat = \"csv\"\ncsv = \"delimiter=whitespace,time=0,device=1,address=2,size=3,op=4,time_unit=ms,address_unit=bytes,size_unit=bytes,read=1,write=0\"",
        1 << 30,
    )
    .unwrap();
    assert_eq!(reqs.len(), 4);
    assert_eq!((reqs[3].arrival_ns, reqs[3].lbn), (45_304_000, 2));
    let e = headway::config::ExperimentConfig::from_toml_str(
        "[workload]\nkind = \"trace\"\npath = \"x\"\nformat = \"csv\"\ncsv = \"time=0,address=1\"",
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("line 5") && e.contains("`size=<column>` is required"),
        "{e}"
    );
}
