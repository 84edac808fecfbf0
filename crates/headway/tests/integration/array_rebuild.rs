//! Rebuild and scrub policies of an array: `freeblock` rebuilds in the members'
//! rotational gaps (every row once, with or without a foreground, and at less cost to the
//! foreground than `rate` at the same rebuild time), and `rate` holds its rate with
//! several steps in flight.

use super::arrays::{err, run};
use headway::sim::RunResult;
use headway::stats::BackgroundSummary;

/// A 4+1 RAID 5 of Atlas 10K drives (members `d0..d4`, spare `d5`), `rows` rows of 64
/// sectors on each member, `d3` failing at 50 ms, rebuilt by `rebuild`; `requests`
/// random 8-sector foreground reads (mean gap 6 ms) under `host`.
pub(crate) fn raid5(rows: u64, rebuild: &str, requests: u64, host: &str) -> String {
    let mut s = String::from("seed = 7\n");
    for i in 0..6 {
        s += &format!(
            "[[devices]]\nname = \"d{i}\"\ndrive = \"atlas10k\"\nqueue_depth = 2\nmax_outstanding = 2\n\n"
        );
    }
    s += &format!(
        "[[arrays]]\nname = \"vol\"\nlevel = \"raid5\"\n\
         members = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\"]\nstripe_unit_sectors = 64\n\
         member_sectors = {}\nspare = \"d5\"\nfailure = {{ member = \"d3\", at_ms = 50.0 }}\n\
         rebuild = {{ {rebuild} }}\n\n",
        rows * 64
    );
    if requests > 0 {
        s += &format!(
            "[[workloads]]\ndevice = \"vol\"\nkind = \"open\"\nrequests = {requests}\n\
             interarrival_ms = 6.0\nsize_sectors = 8\nread_fraction = 1.0\nalign_sectors = 8\n\n"
        );
    } else {
        // One request at the start, so that the run has a workload and lasts past the
        // failure only through the rebuild.
        s += "[[workloads]]\ndevice = \"vol\"\nkind = \"open\"\nrequests = 1\n\
              interarrival_ms = 1.0\nsize_sectors = 8\n\n";
    }
    s += host;
    s
}

pub(crate) const FREEBLOCK_HOST: &str = "[host]\nscheduler = \"freeblock\"\n[host.options]\n\
                              idle_service = true\nidle_chunk_sectors = 64\n\
                              [host.inner]\nscheduler = \"sptf\"\n";

pub(crate) fn rebuild_of(r: &RunResult) -> &BackgroundSummary {
    r.arrays[0].rebuild.as_ref().expect("a rebuild")
}

#[test]
fn a_freeblock_rebuild_writes_every_row_onto_the_spare_once() {
    let r = run(&raid5(400, "policy = \"freeblock\"", 400, FREEBLOCK_HOST));
    let a = &r.arrays[0];
    let b = rebuild_of(&r);
    assert_eq!(b.policy, "freeblock");
    assert_eq!((b.rows_done, b.rows_total), (400, 400), "{b:?}");
    assert!(
        b.started_ms.unwrap() >= 50.0 && b.finished_ms.is_some(),
        "{b:?}"
    );
    // One spare write per row; every survivor read its rows (in free reads of any size).
    assert_eq!(a.members[5].rebuild_writes, 400);
    for (i, m) in a.members.iter().enumerate().take(5) {
        assert_eq!(m.rebuild_writes, 0);
        assert_eq!(m.rebuild_reads > 0, i != 3, "{i}: {m:?}");
    }
    assert_eq!(r.summary.requests, 400);
}

#[test]
fn a_freeblock_rebuild_completes_without_a_foreground_in_idle_time() {
    let r = run(&raid5(200, "policy = \"freeblock\"", 0, FREEBLOCK_HOST));
    let b = rebuild_of(&r);
    assert_eq!((b.rows_done, b.rows_total), (200, 200), "{b:?}");
    // Without idle-time service the members only read in the foreground's gaps: with no
    // foreground the rebuild does not advance (documented in docs/arrays.md).
    let host = FREEBLOCK_HOST.replace("idle_service = true", "idle_service = false");
    let r = run(&raid5(200, "policy = \"freeblock\"", 0, &host));
    let b = rebuild_of(&r);
    assert_eq!(b.rows_done, 0, "{b:?}");
}

#[test]
fn a_freeblock_rebuild_needs_freeblock_schedulers_on_the_members() {
    let host = "[host]\nscheduler = \"sptf\"\n";
    let e = err(&raid5(10, "policy = \"freeblock\"", 10, host));
    assert!(e.contains("arrays[0].rebuild.policy"), "{e}");
    assert!(e.contains("`vol`") && e.contains("`d0`"), "{e}");
}

#[test]
fn freeblock_costs_the_foreground_less_than_rate_at_the_same_rebuild_time() {
    // A busy foreground (ten processes, no think time): its gaps rebuild 100 rows in about
    // 8 s; `rate` is then set to rebuild in the same time, on the same pipeline without
    // free reads. Both rebuilds end the degraded reads early, so both beat no rebuild;
    // the rate's reads take the drives from the foreground, the free reads do not.
    let rows = 100;
    let closed = |rebuild: &str, host: &str| {
        raid5(rows, rebuild, 12000, host)
            .replace("kind = \"open\"", "kind = \"closed\"\nprocesses = 10")
            .replace("interarrival_ms = 6.0\n", "")
    };
    let free_only = FREEBLOCK_HOST.replace("idle_service = true", "idle_service = false");
    let fb = run(&closed("policy = \"freeblock\"", &free_only));
    let t_ms = rebuild_of(&fb).duration_ms.expect("finished");
    let mb_s = (rows * 64 * 512) as f64 / 1e6 / (t_ms / 1e3);
    let plain = FREEBLOCK_HOST.replace("idle_service = true", "plan = false");
    let rate = run(&closed(
        &format!("policy = \"rate\", rate_mb_s = {mb_s}"),
        &plain,
    ));
    let t_rate = rebuild_of(&rate).duration_ms.expect("finished");
    assert!((t_rate - t_ms).abs() < 0.02 * t_ms, "{t_rate} vs {t_ms}");
    let (r_fb, r_rate) = (fb.summary.response.mean_ms, rate.summary.response.mean_ms);
    assert!(r_fb < r_rate, "freeblock {r_fb} ms, rate {r_rate} ms");
}

#[test]
fn doubling_the_rate_halves_the_rebuild_time() {
    let host = "[host]\nscheduler = \"sptf\"\n";
    let time = |mb_s: f64| {
        let r = run(&raid5(
            400,
            &format!("policy = \"rate\", rate_mb_s = {mb_s}"),
            20,
            host,
        ));
        let b = rebuild_of(&r);
        assert_eq!(b.rows_done, 400);
        b.duration_ms.expect("finished")
    };
    // 400 rows of 32 KiB: 13.1 MB, 2.6 s at 5 MB/s; the drives could go several times
    // faster.
    let (slow, fast) = (time(1.5), time(3.0));
    let ratio = fast / slow;
    assert!(
        (ratio - 0.5).abs() < 0.02,
        "{slow} ms at 1.5 MB/s, {fast} ms at 3 MB/s"
    );
}

#[test]
fn a_freeblock_scrub_reads_every_row_of_every_member() {
    let text = raid5(100, "policy = \"freeblock\"", 200, FREEBLOCK_HOST)
        .replace("failure = { member = \"d3\", at_ms = 50.0 }\n", "")
        .replace(
            "rebuild = { policy = \"freeblock\" }",
            "scrub = { policy = \"freeblock\" }",
        );
    let r = run(&text);
    let s = r.arrays[0].scrub.as_ref().expect("a scrub");
    assert_eq!((s.rows_done, s.rows_total), (100, 100), "{s:?}");
    for m in r.arrays[0].members.iter().take(5) {
        assert!(m.scrub_reads > 0, "{m:?}");
        assert_eq!((m.rebuild_reads, m.rebuild_writes), (0, 0));
    }
}
