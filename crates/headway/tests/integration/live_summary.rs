//! The live run's summary while it goes on: at every step it counts exactly the requests
//! completed so far, and at the end it is the batch result's summary.

use headway::live::{Live, LiveCompletion, LiveRequest};
use headway::Op;

/// Requests 1.5 ms apart on the Elite 3, reads and writes alternating, places spread.
fn requests() -> Vec<LiveRequest> {
    (0..80u64)
        .map(|k| {
            let op = if k % 2 == 0 { Op::Read } else { Op::Write };
            LiveRequest::new(
                op,
                (k * 7919 * 131) % 1_000_000,
                8 + (k % 3) as u32 * 8,
                k * 1_500_000,
            )
            .tag(k)
        })
        .collect()
}

fn assert_counts(live: &Live, done: &[LiveCompletion]) {
    let s = live.summary();
    let reads = done.iter().filter(|c| c.op == Op::Read).count() as u64;
    let sectors: u64 = done.iter().map(|c| u64::from(c.sectors)).sum();
    assert_eq!(s.requests, done.len() as u64);
    assert_eq!((s.reads, s.writes), (reads, done.len() as u64 - reads));
    assert_eq!(s.sectors, sectors);
    assert_eq!(s.response.count, done.len() as u64);
    if !done.is_empty() {
        // The summary's mean response, by hand from the completions.
        let mean_ms =
            done.iter().map(|c| c.response_ns() as f64).sum::<f64>() / done.len() as f64 / 1e6;
        assert!(
            (s.response.mean_ms - mean_ms).abs() <= 1e-3 * mean_ms.max(1.0),
            "{} vs {mean_ms}",
            s.response.mean_ms
        );
    }
}

#[test]
fn the_summary_mid_run_counts_the_requests_completed_so_far() {
    let mut live = Live::from_toml_str(
        "seed = 3\n[drive]\nname = \"elite3\"\n[host]\nscheduler = \"sptf\"\n",
        None,
    )
    .unwrap();
    for r in requests() {
        live.submit(r).unwrap();
    }
    live.close();
    let mut done = Vec::new();
    assert_counts(&live, &done);
    let mut steps = 0;
    while let Some(t) = live.next_event_ns() {
        // Odd strides, so that steps end between events as well as on them.
        let to = t.max(live.now_ns() + 2_345_678);
        done.extend(live.advance_to(to).unwrap());
        assert_counts(&live, &done);
        steps += 1;
    }
    assert!(steps > 10, "{steps} steps");
    assert_eq!(done.len(), 80);
    let so_far = live.summary();
    let last = live.into_result().unwrap().summary;
    assert_eq!(
        (
            so_far.requests,
            so_far.reads,
            so_far.writes,
            so_far.sectors,
            so_far.arrived
        ),
        (
            last.requests,
            last.reads,
            last.writes,
            last.sectors,
            last.arrived
        )
    );
    assert_eq!(so_far.response, last.response);
    assert_eq!(so_far.elapsed_s, last.elapsed_s);
}
