//! Pacing settings of a rebuild: `rate_window_steps` bounds the `rate` steps in flight
//! (one serialises them), and `spare_writes = "idle"` holds the writes onto the spare for
//! its idle time, so the spare's own foreground waits less while every row is still
//! written once.

use super::array_rebuild::{raid5, rebuild_of, FREEBLOCK_HOST};
use super::arrays::{err, run};
use headway::request::HOST_ORIGIN_BASE;
use headway::sim::RunResult;
use std::collections::BTreeMap;

const SPTF_HOST: &str = "[host]\nscheduler = \"sptf\"\n[output]\nrecords = true\n";

/// The records' origin id of the host component `name`.
fn origin(r: &RunResult, name: &str) -> u16 {
    let k = r.host_origins.iter().position(|o| o == name).expect(name);
    HOST_ORIGIN_BASE + k as u16
}

/// Each rebuild step (keyed by its first member sector): its first member operation's
/// arrival and its last one's completion.
fn rebuild_steps(r: &RunResult) -> Vec<(u64, u64, u64)> {
    let rec = r.records.as_ref().expect("records");
    let o = origin(r, "rebuild");
    let mut steps: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for i in (0..rec.len()).filter(|&i| rec.origin[i] == o) {
        let e = steps.entry(rec.lbn[i]).or_insert((u64::MAX, 0));
        e.0 = e.0.min(rec.arrival_ns[i]);
        e.1 = e.1.max(rec.done_ns[i]);
    }
    steps.into_iter().map(|(l, (a, d))| (l, a, d)).collect()
}

#[test]
fn a_rate_window_of_one_step_serialises_the_steps() {
    // 100 MB/s asks for a step every 0.3 ms, far faster than one 32 KiB step over five
    // drives: the window is the limit.
    let rebuild = |w: &str| {
        run(&raid5(
            60,
            &format!("policy = \"rate\", rate_mb_s = 100.0{w}"),
            20,
            SPTF_HOST,
        ))
    };
    let one = rebuild(", rate_window_steps = 1");
    let eight = rebuild("");
    for r in [&one, &eight] {
        assert_eq!(rebuild_of(r).rows_done, 60);
        assert_eq!(rebuild_steps(r).len(), 60);
    }
    let s = rebuild_steps(&one);
    for w in s.windows(2) {
        assert!(
            w[1].1 >= w[0].2,
            "step {} began before step {} ended",
            w[1].0,
            w[0].0
        );
    }
    let overlaps = |r: &RunResult| {
        let s = rebuild_steps(r);
        s.windows(2).filter(|w| w[1].1 < w[0].2).count()
    };
    assert!(overlaps(&eight) > 30, "{}", overlaps(&eight));
    let t = |r: &RunResult| rebuild_of(r).duration_ms.expect("finished");
    assert!(t(&one) > 1.5 * t(&eight), "{} vs {} ms", t(&one), t(&eight));
}

#[test]
fn rate_window_steps_is_checked_by_key() {
    let e = err(&raid5(
        10,
        "policy = \"rate\", rate_mb_s = 1.0, rate_window_steps = 0",
        10,
        SPTF_HOST,
    ));
    assert!(e.contains("arrays[0].rebuild.rate_window_steps"), "{e}");
    assert!(e.contains("at least 1"), "{e}");
    let e = err(&raid5(
        10,
        "policy = \"idle\", rate_window_steps = 2",
        10,
        SPTF_HOST,
    ));
    assert!(e.contains("arrays[0].rebuild.rate_window_steps"), "{e}");
    let scrub = raid5(10, "policy = \"idle\"", 10, SPTF_HOST)
        .replace("failure = { member = \"d3\", at_ms = 50.0 }\n", "")
        .replace(
            "rebuild = { policy = \"idle\" }",
            "scrub = { policy = \"idle\", spare_writes = \"idle\" }",
        );
    let e = err(&scrub);
    assert!(e.contains("arrays[0].scrub.spare_writes"), "{e}");
    let e = err(&raid5(
        10,
        "policy = \"idle\", spare_writes = \"later\"",
        10,
        SPTF_HOST,
    ));
    // An unknown choice inside the inline table: serde names the table and the choices.
    assert!(
        e.contains("arrays.rebuild") && e.contains("later") && e.contains("immediate"),
        "{e}"
    );
}

/// The spare's foreground (reads of rows already rebuilt): member operations on `d5` made
/// for logical requests, their count and mean response (ms).
fn spare_foreground(r: &RunResult) -> (usize, f64) {
    let rec = r.records.as_ref().expect("records");
    let o = origin(r, "array");
    let times: Vec<u64> = (0..rec.len())
        .filter(|&i| rec.device[i] == 5 && rec.origin[i] == o)
        .map(|i| rec.done_ns[i] - rec.arrival_ns[i])
        .collect();
    let n = times.len();
    (n, times.iter().sum::<u64>() as f64 / n.max(1) as f64 / 1e6)
}

/// The rows written onto the spare: each row's first member sector, in order.
fn spare_rows_written(r: &RunResult) -> Vec<u64> {
    let rec = r.records.as_ref().expect("records");
    let o = origin(r, "rebuild");
    let mut rows: Vec<u64> = (0..rec.len())
        .filter(|&i| rec.origin[i] == o && !rec.is_read[i])
        .map(|i| {
            assert_eq!(rec.device[i], 5, "a rebuild write off the spare");
            rec.lbn[i]
        })
        .collect();
    rows.sort_unstable();
    rows
}

/// `raid5` under a bursty foreground: spells of reads 2 ms apart (about 40 ms long) between
/// quiet spells (about 60 ms), so the spare has idle time a quiet-time rule can find.
fn bursty(rebuild: &str) -> String {
    raid5(200, rebuild, 600, SPTF_HOST).replace(
        "kind = \"open\"\nrequests = 600\ninterarrival_ms = 6.0\n",
        "kind = \"bursty\"\nrequests = 600\non_rate_iops = 500.0\non_mean_ms = 40.0\n\
         off_mean_ms = 60.0\n",
    )
}

/// A `rate` rebuild at 3 MB/s under a bursty foreground: written at once, a row's spare
/// write lands in the middle of the spare's bursts; held for 30 ms of spare quiet, it
/// waits for the quiet spells (measured: the spare's foreground 11.1 ms against 6.8 ms,
/// the rebuild 2.19 s against 2.61 s).
#[test]
fn idle_spare_writes_cost_the_spare_foreground_less_and_write_every_row_once() {
    let policy = "policy = \"rate\", rate_mb_s = 3.0, idle_ms = 30.0";
    let now = run(&bursty(policy));
    let held = run(&bursty(&format!("{policy}, spare_writes = \"idle\"")));
    let all: Vec<u64> = (0..200).map(|k| k * 64).collect();
    for r in [&now, &held] {
        assert_eq!(rebuild_of(r).rows_done, 200);
        assert_eq!(r.arrays[0].members[5].rebuild_writes, 200);
        assert_eq!(spare_rows_written(r), all);
    }
    let (n_now, ms_now) = spare_foreground(&now);
    let (n_held, ms_held) = spare_foreground(&held);
    assert!(n_now > 40 && n_held > 40, "{n_now} {n_held}");
    assert!(
        ms_held < 0.8 * ms_now,
        "{ms_held} ms held, {ms_now} ms at once"
    );
    // The writes wait, so the rebuild takes longer.
    assert!(rebuild_of(&held).duration_ms > rebuild_of(&now).duration_ms);
}

/// Under `freeblock` the rows finish in any order and their held writes drain in the
/// spare's idle time: every row is still written once.
#[test]
fn a_freeblock_rebuild_with_idle_spare_writes_writes_every_row_once() {
    let host = format!("{FREEBLOCK_HOST}[output]\nrecords = true\n");
    let r = run(&raid5(
        100,
        "policy = \"freeblock\", spare_writes = \"idle\", idle_ms = 5.0",
        200,
        &host,
    ));
    let b = rebuild_of(&r);
    assert_eq!((b.rows_done, b.rows_total), (100, 100), "{b:?}");
    assert_eq!(r.arrays[0].members[5].rebuild_writes, 100);
    let all: Vec<u64> = (0..100).map(|k| k * 64).collect();
    assert_eq!(spare_rows_written(&r), all);
}
