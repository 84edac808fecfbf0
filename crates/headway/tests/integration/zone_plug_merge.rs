//! Merging the writes waiting in a zone's plug (`[host] zone_plug_merge`, on by default with
//! zone write plugging): the writes behind the one a plug lets go leave with it as one
//! command, and each host request still completes once, with its own response time.

use std::collections::{BTreeMap, HashSet};

use headway::sim::RunResult;
use headway::stats::RequestRecords;

use crate::zone_commands::by_id;

const ZONE: u64 = 260_400;

/// Replay `trace` (DiskSim ASCII) on a zoned ek1000 (zones of 260,400 sectors, zone 0
/// conventional, a reset costing 2 ms) under `host`, with per-request records.
fn replay(trace: &str, host: &str) -> RunResult {
    crate::zone_commands::replay_under(trace, host)
}

/// Each of the trace's `n` requests completed exactly once, none refused.
fn conserved(r: &RunResult, n: usize) {
    let rec = r.records.as_ref().unwrap();
    assert_eq!((r.summary.requests as usize, rec.len()), (n, n));
    let ids: HashSet<u64> = rec.id.iter().copied().collect();
    assert_eq!(
        ids,
        (0..n as u64).collect(),
        "a request completed twice or never"
    );
    assert_eq!(r.zoned[0].errors(), 0, "{:?}", r.zoned[0]);
}

#[test]
fn three_writes_waiting_behind_a_plugged_write_leave_as_one_24_sector_command() {
    // Four contiguous 8-sector writes to zone 1, 10 us apart: the first goes to the drive,
    // the other three wait in the zone's plug until it completes.
    let trace = "0.00 0 260400 8 0\n0.01 0 260408 8 0\n0.02 0 260416 8 0\n0.03 0 260424 8 0\n";
    let fcfs = "[host]\nscheduler = \"fcfs\"\nmax_outstanding = 1";
    let merged = replay(trace, &format!("{fcfs}\nzone_write_plugging = true"));
    conserved(&merged, 4);
    // What one 24-sector write sent when the first completes costs: the same first write
    // and a 24-sector write queued behind it, with no plugging.
    let alone = replay("0.00 0 260400 8 0\n0.00 0 260408 24 0\n", fcfs);
    let (m, a) = (merged.records.unwrap(), alone.records.unwrap());
    let (mr, ar) = (by_id(&m), by_id(&a));
    assert_eq!(
        (m.done_ns[mr[0]], m.lbn[mr[0]]),
        (a.done_ns[ar[0]], 260_400)
    );
    let (sent_ns, done_ns) = (a.dispatch_ns[ar[1]], a.done_ns[ar[1]]);
    assert!(sent_ns > 30_000, "the three waited behind the first");
    for (k, &i) in mr[1..].iter().enumerate() {
        // Each completes when the one command does, at its own LBN and size, and its
        // response time runs from its own arrival.
        assert_eq!(
            (m.dispatch_ns[i], m.done_ns[i], m.lbn[i], m.sectors[i]),
            (sent_ns, done_ns, 260_408 + 8 * k as u64, 8),
            "request {}",
            k + 1
        );
        assert_eq!(m.arrival_ns[i], 10_000 * (k as u64 + 1));
    }
    let response_ns: u64 = mr.iter().map(|&i| m.done_ns[i] - m.arrival_ns[i]).sum();
    let want_ns = a.done_ns[ar[0]] + 3 * done_ns - 60_000;
    assert_eq!(response_ns, want_ns);
    // Four host requests, two commands at the drive.
    let (resp, service) = (&merged.summary.response, &merged.summary.service);
    assert_eq!((resp.count, service.count), (4, 2));
    // The summary's mean comes from its latency histogram (three significant digits).
    let mean_ms = want_ns as f64 / 4.0 / 1e6;
    assert!(
        (resp.mean_ms / mean_ms - 1.0).abs() < 1e-3,
        "{} {mean_ms}",
        resp.mean_ms
    );
    // Unmerged, the three go one per completion.
    let apart = replay(
        trace,
        &format!("{fcfs}\nzone_write_plugging = true\nzone_plug_merge = false"),
    );
    conserved(&apart, 4);
    let p = apart.records.unwrap();
    let dones: HashSet<u64> = p.done_ns.iter().copied().collect();
    assert_eq!((dones.len(), apart.summary.service.count), (4, 4));
    // By hand: ek1000 has no cache and no command overhead, and 651 sectors pass per
    // 1/90 s revolution, so 8 sectors take 136,542 ns. The merged command writes 24
    // sectors from where the first write ended: 409,626 ns after it.
    let first_done_ns = m.done_ns[mr[0]];
    assert_eq!(done_ns - first_done_ns, 409_626);
    // Unmerged, each 8-sector write starts where the one before ended, with no revolution
    // lost: they end 136,542 ns apart and the last at the merged command's end. Merging on
    // this drive delays the first two riders' completions and saves no media time.
    let mut apart_done: Vec<u64> = p.done_ns.clone();
    apart_done.sort_unstable();
    let steps: Vec<u64> = apart_done.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(apart_done[0], first_done_ns);
    assert!(steps.iter().all(|&d| d.abs_diff(136_542) <= 1), "{steps:?}");
    assert_eq!(apart_done[3], done_ns);
}

/// A seeded random zoned workload: six writers, each on its own zone (1-6), send bursts of
/// one to six sequential writes (or appends) of 8-128 sectors, resetting the zone after
/// about 4,000 sectors, with random reads between.
fn random_trace(appends: bool, seed: u64) -> (String, usize) {
    let mut x = seed;
    let mut next = move |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let mut lines: Vec<(u64, String)> = Vec::new();
    for w in 1..=6u64 {
        let start = w * ZONE;
        let (mut t_us, mut written) = (next(5_000), 0u64);
        while t_us < 1_500_000 {
            for _ in 0..=next(6) {
                let sectors = 8 * (1 + next(16));
                let line = if appends {
                    format!("0 {start} {sectors} 0 append")
                } else {
                    format!("0 {} {sectors} 0", start + written)
                };
                lines.push((t_us, line));
                written += sectors;
                t_us += next(300);
            }
            if written > 4_000 {
                lines.push((t_us, format!("0 {start} 1 0 reset")));
                written = 0;
            }
            t_us += 5_000 + next(40_000);
        }
    }
    // Reads in the conventional zone 0 (a sequential zone's unwritten sectors are refused).
    for _ in 0..200 {
        let lbn = next(ZONE - 64);
        lines.push((next(1_500_000), format!("0 {lbn} {} 1", 8 * (1 + next(8)))));
    }
    lines.sort_by_key(|(t, _)| *t);
    let n = lines.len();
    let text = lines
        .iter()
        .map(|(t, l)| format!("{}.{:03} {l}\n", t / 1000, t % 1000))
        .collect();
    (text, n)
}

/// The data writes of `rec` grouped by the command that carried them (same device,
/// dispatch and completion): each group's (first LBN, sectors, requests), after checking
/// that it is one contiguous extent.
fn commands(rec: &RequestRecords) -> Vec<(u64, u64, usize)> {
    let mut groups: BTreeMap<(u16, u64, u64), Vec<(u64, u64)>> = BTreeMap::new();
    for i in 0..rec.len() {
        if !rec.is_read[i] && rec.zone_op[i] != "reset" {
            let key = (rec.device[i], rec.dispatch_ns[i], rec.done_ns[i]);
            groups
                .entry(key)
                .or_default()
                .push((rec.lbn[i], rec.sectors[i] as u64));
        }
    }
    groups
        .into_values()
        .map(|mut g| {
            g.sort_unstable();
            for pair in g.windows(2) {
                assert_eq!(
                    pair[0].0 + pair[0].1,
                    pair[1].0,
                    "a gap in a command: {g:?}"
                );
            }
            (g[0].0, g.iter().map(|p| p.1).sum(), g.len())
        })
        .collect()
}

#[test]
fn a_random_zoned_workload_completes_every_request_once_merged_or_not() {
    for appends in [false, true] {
        let (trace, n) = random_trace(appends, 39);
        let mut host = "[host]\nscheduler = \"sptf\"\nzone_write_plugging = true\n".to_string();
        if appends {
            host += "zone_append = \"emulated\"\n";
        }
        let merged = replay(&trace, &host);
        conserved(&merged, n);
        let apart = replay(&trace, &format!("{host}zone_plug_merge = false"));
        conserved(&apart, n);
        let (m, a) = (
            commands(merged.records.as_ref().unwrap()),
            commands(apart.records.as_ref().unwrap()),
        );
        let sectors = |c: &[(u64, u64, usize)]| c.iter().map(|g| g.1).sum::<u64>();
        assert_eq!(sectors(&m), sectors(&a), "appends {appends}");
        assert!(a.iter().all(|g| g.2 == 1), "appends {appends}: unmerged");
        let riders = m.iter().filter(|g| g.2 > 1).count();
        assert!(riders > 20, "appends {appends}: {riders} merged commands");
        assert!(
            m.iter().all(|g| g.2 == 1 || g.1 <= 2560),
            "appends {appends}: over the limit"
        );
        assert!(m.len() < a.len(), "appends {appends}");
    }
}

#[test]
fn merged_runs_are_deterministic() {
    let (trace, n) = random_trace(false, 7);
    let host = "[host]\nscheduler = \"sptf\"\nzone_write_plugging = true\n\
                zone_plug_max_merge_sectors = 64";
    let one = replay(&trace, host);
    let two = replay(&trace, host);
    conserved(&one, n);
    let (a, b) = (one.records.unwrap(), two.records.unwrap());
    assert_eq!((&a.id, &a.done_ns, &a.lbn), (&b.id, &b.done_ns, &b.lbn));
    assert_eq!(one.summary.response, two.summary.response);
    let merged: Vec<_> = commands(&a).into_iter().filter(|g| g.2 > 1).collect();
    assert!(
        !merged.is_empty() && merged.iter().all(|g| g.1 <= 64),
        "{merged:?}"
    );
}
