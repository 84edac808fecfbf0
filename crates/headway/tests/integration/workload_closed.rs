//! Closed-loop workloads, run through the whole engine on the catalog's Elite 3.

use std::collections::BTreeMap;

use crate::common::workload::{experiment, mean};
use headway::config::build_simulation;
use headway::stats::RequestRecords;

fn run(workload: &str, extra: &str) -> RequestRecords {
    run_with("sptf", workload, extra)
}

fn run_with(scheduler: &str, workload: &str, extra: &str) -> RequestRecords {
    let cfg = experiment(&format!(
        "seed = 4\n[drive]\nname = \"elite3\"\n[host]\nscheduler = \"{scheduler}\"\n[output]\nrecords = true\n{extra}\n[workload]\nkind = \"closed\"\n{workload}"
    ));
    let result = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    result.records.unwrap()
}

/// Per process: (arrival, done, lbn, sectors) in arrival order.
fn by_process(r: &RequestRecords) -> BTreeMap<u32, Vec<(u64, u64, u64, u32)>> {
    let mut m: BTreeMap<u32, Vec<_>> = BTreeMap::new();
    for i in 0..r.len() {
        m.entry(r.process[i]).or_default().push((
            r.arrival_ns[i],
            r.done_ns[i],
            r.lbn[i],
            r.sectors[i],
        ));
    }
    for v in m.values_mut() {
        v.sort_unstable();
    }
    m
}

#[test]
fn each_process_has_one_request_outstanding_and_thinks_exactly() {
    let records = run(
        "processes = 4\nrequests = 2000\nthink = \"fixed\"\nthink_ms = 2.5",
        "",
    );
    assert_eq!(records.len(), 2000);
    let procs = by_process(&records);
    assert_eq!(procs.keys().copied().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    for (p, reqs) in &procs {
        assert!(reqs.len() >= 400, "process {p} issued only {}", reqs.len());
        // Every request, the first too, follows a think time.
        assert_eq!(reqs[0].0, 2_500_000, "process {p}");
        for w in reqs.windows(2) {
            // Issued exactly one think time after the previous one completed, so never
            // while it was still outstanding.
            assert_eq!(w[1].0, w[0].1 + 2_500_000, "process {p}: {w:?}");
        }
    }
    // With four synchronous processes the system never holds more than four requests.
    let mut events: Vec<(u64, i32)> = (0..records.len())
        .flat_map(|i| [(records.arrival_ns[i], 1), (records.done_ns[i], -1)])
        .collect();
    events.sort_unstable_by_key(|&(t, d)| (t, d));
    let mut level = 0;
    for (_, d) in events {
        level += d;
        assert!(level <= 4);
    }
}

#[test]
fn think_times_follow_their_distribution_and_see_the_link_latency() {
    // The workload hears of a completion when the host does: after the completion latency.
    let link = "[link]\ncompletion_latency_ms = 0.5";
    let cases = [
        ("think = \"exponential\"\nthink_ms = 3.0", 3.0, 0.0),
        (
            "think = \"uniform\"\nthink_min_ms = 1.0\nthink_max_ms = 5.0",
            3.0,
            1.0,
        ),
    ];
    for (body, mean_ms, min_ms) in cases {
        let records = run(&format!("processes = 3\nrequests = 6000\n{body}"), link);
        let mut thinks = Vec::new();
        for reqs in by_process(&records).values() {
            for w in reqs.windows(2) {
                let t = w[1].0 as f64 - (w[0].1 as f64 + 0.5e6);
                // Rounding to whole nanoseconds may shave off at most one.
                assert!(t >= min_ms * 1e6 - 1.0, "{body}: {t}");
                thinks.push(t / 1e6);
            }
        }
        let m = mean(thinks.iter().copied());
        assert!(
            (m / mean_ms - 1.0).abs() < 0.05,
            "{body}: mean think {m} ms"
        );
        if body.contains("uniform") {
            assert!(thinks
                .iter()
                .all(|&t| (1.0 - 1e-6..=5.0 + 1e-6).contains(&t)));
        }
    }
}

#[test]
fn each_process_keeps_its_own_sequential_stream() {
    // FCFS, so that the three take turns (SPTF would starve all but the nearest stream).
    let records = run_with(
        "fcfs",
        "processes = 3\nrequests = 900\nsize_sectors = 16\nlocality = { kind = \"sequential\" }",
        "",
    );
    let procs = by_process(&records);
    assert_eq!(procs.len(), 3);
    for (p, reqs) in procs {
        assert_eq!(reqs.len(), 300, "process {p}");
        for w in reqs.windows(2) {
            assert_eq!(w[1].2, w[0].2 + w[0].3 as u64, "process {p} jumped");
        }
    }
}

#[test]
fn more_processes_than_requests_issue_once_each() {
    let records = run("processes = 10\nrequests = 4", "");
    assert_eq!(records.len(), 4);
    let mut procs = records.process.clone();
    procs.sort_unstable();
    assert_eq!(procs, vec![0, 1, 2, 3]);
}
