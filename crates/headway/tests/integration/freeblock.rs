//! Freeblock scheduling (`sched/freeblock/`): the free reads never delay the foreground
//! (exactly, with the oracle and no conservatism), each wanted block is read once, a scan
//! finishes, and the free bandwidth is positive and below its potential.

use std::collections::HashMap;
use std::sync::Arc;

use headway::config::{build_simulation, ExperimentConfig};
use headway::device::catalog;
use headway::device::hdd::{Mechanics, Overheads};
use headway::experiments::freeblock::measure;
use headway::predict::{Access, Geometry, Moment, OraclePredictor, Predictor};
use headway::request::{Op, HOST_ORIGIN_BASE};
use headway::sched::freeblock::planner::{self, FreeRead, Pair, PlanLimits, Tail};
use headway::sched::freeblock::wanted::WantedBlocks;
use headway::sim::RunResult;

fn oltp_rf(requests: u64, host_options: &str, inner: &str, seed: u64, rf: f64) -> String {
    format!(
        "seed = {seed}\n[drive]\nname = \"atlas10k\"\nqueue_depth = 2\n\
         [host]\nscheduler = \"freeblock\"\nmax_outstanding = 2\n\
         [host.options]\n{host_options}\n[host.inner]\nscheduler = \"{inner}\"\n\
         [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = {requests}\n\
         read_fraction = {rf}\nalign_sectors = 8\n\
         size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n\
         [output]\nrecords = true\n"
    )
}

fn run(text: &str) -> RunResult {
    let cfg = ExperimentConfig::from_toml_str(text, None).unwrap();
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
}

/// Completion time of every workload request, keyed by (process, its place in the
/// process's sequence, LBN): ids are shared with host-made requests, so they differ
/// between a run with free reads and one without.
fn fg_done(r: &RunResult) -> HashMap<(u32, usize, u64), u64> {
    let rec = r.records.as_ref().unwrap();
    let mut by_process: HashMap<u32, Vec<(u64, u64, u64)>> = HashMap::new();
    for i in (0..rec.len()).filter(|&i| rec.origin[i] < HOST_ORIGIN_BASE) {
        by_process.entry(rec.process[i]).or_default().push((
            rec.arrival_ns[i],
            rec.lbn[i],
            rec.done_ns[i],
        ));
    }
    let mut out = HashMap::new();
    for (p, mut v) in by_process {
        v.sort_unstable();
        for (k, (_, lbn, done)) in v.into_iter().enumerate() {
            out.insert((p, k, lbn), done);
        }
    }
    out
}

/// Free reads, as (lbn, sectors).
fn free_reads(r: &RunResult) -> Vec<(u64, u32)> {
    let rec = r.records.as_ref().unwrap();
    (0..rec.len())
        .filter(|&i| rec.origin[i] >= HOST_ORIGIN_BASE)
        .map(|i| (rec.lbn[i], rec.sectors[i]))
        .collect()
}

fn oltp_mixed(requests: u64, host_options: &str, seed: u64) -> String {
    oltp_rf(requests, host_options, "sptf", seed, 0.6667)
}

fn try_run(text: &str) -> Result<RunResult, String> {
    let cfg = ExperimentConfig::from_toml_str(text, None).map_err(|e| e.to_string())?;
    build_simulation(&cfg, None)
        .map_err(|e| e.to_string())?
        .simulation
        .run()
        .map_err(|e| e.to_string())
}

/// A small deterministic generator (the test needs no statistical quality).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 17
    }
}

#[test]
fn every_chosen_free_read_leaves_b_on_time_under_the_oracle() {
    // Random states: head anywhere, any time, B anywhere, a bitmap with holes. The plan is
    // checked against the timeline re-derived step by step from the oracle's estimates:
    // the free read is on one track, wanted throughout, and B's first sector (or, merged,
    // B's completion) is not later than on the direct path.
    let spec = catalog::lookup("atlas10k").unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let p = OraclePredictor::new(mech.clone(), Overheads::from_spec(&spec), 0);
    let cap = p.capacity_sectors();
    let mut wanted = WantedBlocks::new(cap);
    wanted.want(0, cap);
    let mut rng = Lcg(11);
    for _ in 0..2000 {
        let hole = rng.next() % cap;
        wanted.take(hole, 1 + rng.next() % 4000);
    }
    let (mut between, mut prepend) = (0, 0);
    for case in 0..300 {
        let from = p.track_of(rng.next() % cap);
        let tail = if case % 2 == 0 {
            Tail::default()
        } else {
            Tail {
                fixed_ns: 18_000.0,
                per_sector_ns: 82_000.0,
            }
        };
        let pair = Pair {
            from,
            start_ns: rng.next() % 1_000_000_000,
            b_lbn: rng.next() % (cap - 64),
            b_sectors: 8 * (1 + (rng.next() % 4) as u32),
            b_op: Op::Read,
            tail,
        };
        let limits = PlanLimits {
            c_fb_ns: 0,
            max_tracks: 256,
            allow_source_track: false,
        };
        let (plan, _) = planner::plan(&p, &pair, &wanted, &limits, 6).unwrap();
        let Some(plan) = plan else { continue };
        let d = planner::direct(&p, &pair);
        let tail_of = |n: u64| pair.tail_ns(n);
        match plan.read {
            FreeRead::Prepend { lbn } => {
                prepend += 1;
                assert!(lbn < pair.b_lbn);
                assert_eq!(wanted.count(lbn, pair.b_lbn - lbn), pair.b_lbn - lbn);
                assert_eq!(plan.utility, pair.b_lbn - lbn);
                assert_eq!(p.track_of(lbn), p.track_of(pair.b_lbn));
                let n = (pair.b_lbn + pair.b_sectors as u64 - lbn) as u32;
                let e = p.estimate(
                    Moment::new(from, pair.start_ns),
                    Access::new(lbn, n, Op::Read),
                );
                assert!(
                    pair.start_ns + e.service_ns() + tail_of(n as u64)
                        <= d.b_end_ns + tail_of(pair.b_sectors as u64),
                    "case {case}: the merged command ends after B alone"
                );
            }
            FreeRead::Between { lbn, sectors } => {
                between += 1;
                let n = sectors as u64;
                assert_eq!(
                    wanted.count(lbn, n),
                    n,
                    "case {case}: reads unwanted sectors"
                );
                assert_eq!(plan.utility, n);
                let t = p.track_of(lbn);
                assert_eq!(t, p.track_of(lbn + n - 1), "one track");
                assert_ne!(t, p.track_of(pair.b_lbn));
                assert_ne!(
                    t, from,
                    "the source track is not usable outside the firmware"
                );
                let f = p.estimate(
                    Moment::new(from, pair.start_ns),
                    Access::new(lbn, sectors, Op::Read),
                );
                assert!(f.rotate_ns < p.period_ns() as u64);
                let f_done = pair.start_ns + f.service_ns() + tail_of(n);
                let b = p.estimate(
                    Moment::new(f.end, f_done),
                    Access::new(pair.b_lbn, pair.b_sectors, Op::Read),
                );
                assert!(
                    f_done + b.positioning_ns() <= d.b_start_ns,
                    "case {case}: B starts {} ns late",
                    f_done + b.positioning_ns() - d.b_start_ns
                );
            }
        }
    }
    assert!(
        between > 20 && prepend > 5,
        "between {between}, prepend {prepend}"
    );
}

#[test]
fn a_scan_with_idle_service_reads_every_block_exactly_once() {
    let r = run(&oltp_mixed(
        300,
        "start_lbn = 100000\nsectors = 60000\nidle_service = true\nc_fb_ms = 0.2",
        5,
    ));
    assert_eq!(r.summary.requests, 300);
    let mut reads = free_reads(&r);
    reads.sort_unstable();
    let mut next = 100_000u64;
    for (lbn, n) in &reads {
        assert_eq!(*lbn, next, "a gap or an overlap at {lbn}");
        next += *n as u64;
    }
    assert_eq!(next, 160_000, "the scan ends with every block read");
    let by: HashMap<&str, (u64, u64)> = r
        .summary
        .by_origin
        .iter()
        .map(|g| (g.name.as_str(), (g.requests, g.bytes)))
        .collect();
    assert_eq!(by["freeblock"], (reads.len() as u64, 60_000 * 512));
    assert_eq!(r.summary.background_requests, reads.len() as u64);
}

#[test]
fn without_idle_service_the_scan_only_uses_the_foregrounds_gaps() {
    let with = run(&oltp_mixed(1500, "c_fb_ms = 0.2", 9));
    let without = run(&oltp_mixed(1500, "plan = false", 9));
    // Conservation: every workload request completes once, with or without free reads.
    assert_eq!(with.summary.requests, 1500);
    assert_eq!(without.summary.requests, 1500);
    assert_eq!(without.summary.background_requests, 0);
    let mut reads = free_reads(&with);
    assert!(reads.len() > 100, "{} free reads", reads.len());
    reads.sort_unstable();
    for w in reads.windows(2) {
        assert!(
            w[0].0 + w[0].1 as u64 <= w[1].0,
            "block read twice near {}",
            w[1].0
        );
    }
    let free = measure::free_bandwidth_mb_s(&with);
    let potential = measure::potential_free_bandwidth_mb_s(&without);
    assert!(
        free > 0.05 && free < potential,
        "free {free} potential {potential}"
    );
    // The foreground's mean response time moves little (the paper: under 2%; here the
    // bound leaves room for this short run's noise).
    let inc = measure::fg_response_increase(&with, &without);
    assert!(
        inc.abs() < 0.08,
        "foreground response changed by {:.1}%",
        inc * 100.0
    );
}

#[test]
fn runs_are_deterministic() {
    let a = run(&oltp_mixed(400, "c_fb_ms = 0.3", 4));
    let b = run(&oltp_mixed(400, "c_fb_ms = 0.3", 4));
    assert_eq!(free_reads(&a), free_reads(&b));
    assert_eq!(a.end_ns, b.end_ns);
    assert_eq!(fg_done(&a), fg_done(&b));
}

#[test]
fn bad_setups_are_keyed_errors() {
    let e = try_run(&oltp_mixed(
        10,
        "start_lbn = 17000000\nsectors = 10000000",
        1,
    ))
    .unwrap_err();
    assert!(
        e.contains("host.options.sectors") && e.contains("not inside the device"),
        "{e}"
    );
    let text = oltp_mixed(10, "", 1).replace(
        "max_outstanding = 2\n",
        "max_outstanding = 2\npredictor = \"lbn-curve\"\n",
    );
    let e = try_run(&text).unwrap_err();
    assert!(
        e.contains("host.predictor") && e.contains("geometry"),
        "{e}"
    );
    let text = oltp_mixed(10, "", 1).replace("max_outstanding = 2\n", "max_outstanding = 1\n");
    let e = try_run(&text).unwrap_err();
    assert!(e.contains("host.max_outstanding"), "{e}");
    let e = try_run(&oltp_mixed(10, "c_fb = 0.2", 1)).unwrap_err();
    assert!(e.contains("host.options.c_fb"), "{e}");
}

#[test]
fn planning_from_the_inner_schedulers_pipeline_end_leaves_the_foreground_unharmed() {
    // Read-only, oracle, no conservatism: the pair's start must be where the inner STF
    // scheduler plans its next command from (the predictor's bus tail less the queued
    // command's overhead). A wrapper timing the pair with its own, disagreeing tail sees B
    // a rotation late where the inner scheduler chose it to be just in time, fills that
    // rotation with a free read, and B loses it: +18.3% on this run before the fix, +8.1%
    // after it; +1.2% once the commands still at the drive are re-predicted from each
    // completion (a command that ran late left every later free read planned from a
    // release already past: 133 of 1,527 free reads lost a rotation, now 3 of 1,616).
    let with = run(&oltp_rf(2000, "c_fb_ms = 0.0", "sptf", 3, 1.0));
    let without = run(&oltp_rf(2000, "plan = false", "sptf", 3, 1.0));
    assert!(free_reads(&with).len() > 1000, "too few free reads to tell");
    let inc = measure::fg_response_increase(&with, &without);
    assert!(
        inc < 0.03,
        "foreground response rose by {:.2}% with free reads",
        inc * 100.0
    );
}

/// `oltp_rf` with free reads outside the foreground's two slots: the drive holds up to
/// four commands in FCFS order (two foreground, the free reads between them).
fn oltp_free_slots(requests: u64, host_options: &str, inner: &str, seed: u64, rf: f64) -> String {
    oltp_rf(requests, host_options, inner, seed, rf)
        .replace(
            "queue_depth = 2\n",
            "queue_depth = 4\nfirmware_scheduler = \"fcfs\"\n",
        )
        .replace("max_outstanding = 2\n", "max_outstanding = 4\n")
        .replace("[host.options]\n", "[host.options]\nfree_slots = true\n")
}

/// With `free_slots` the foreground's decisions do not wait for free reads: without free
/// reads the pipeline is the classic one to the nanosecond (the drive's deeper FCFS queue
/// and the host's larger window change nothing).
#[test]
fn free_slots_keep_the_foregrounds_decisions_of_the_classic_pipeline() {
    let classic = run(&oltp_rf(1000, "plan = false", "sptf", 3, 1.0));
    let slots = run(&oltp_free_slots(1000, "plan = false", "sptf", 3, 1.0));
    assert_eq!(
        classic.records.as_ref().unwrap().done_ns,
        slots.records.as_ref().unwrap().done_ns
    );
}

/// The "free, exactly" claim outside the firmware: with the oracle and no
/// conservatism, every foreground request of a whole run of the spec's OLTP workload (2:1
/// reads, 3,000 requests, over 1,000 free reads) completes at the same nanosecond with and
/// without free reads, under SPTF and under SSTF, with free reads in `free_slots`. What
/// makes it exact: the oracle's read tail and the read-ahead stop before the next command
/// are the drive's own (`predict/oracle_bus.rs`); no free read is planned on a track the
/// drive's buffer may hold (it would be served from the buffer, which the oracle's media
/// estimates do not model: SSTF's first change before, docs/freeblock.md); a prepended
/// read must leave B's completion, not only the next command's start, no later; and no
/// free read goes next to a foreground write (the drive writes it back at moments the host
/// cannot see). Not exact, measured there: the classic pipeline (a free read holds a
/// foreground slot, so the next foreground request is chosen later, from a larger pool),
/// and rarely a free read's buffer segment holding a later foreground read's blocks (1 of
/// 10,000 requests, SPTF, seed 11).
#[test]
fn free_reads_leave_every_foreground_completion_unchanged_exactly() {
    for inner in ["sptf", "sstf"] {
        let without = run(&oltp_free_slots(3000, "plan = false", inner, 3, 0.6667));
        let with = run(&oltp_free_slots(3000, "c_fb_ms = 0.0", inner, 3, 0.6667));
        let free = free_reads(&with).len();
        assert!(free > 1000, "{inner}: only {free} free reads");
        let (a, b) = (fg_done(&with), fg_done(&without));
        assert_eq!(a.len(), 3000);
        let changed = a.iter().filter(|(k, v)| b.get(k) != Some(v)).count();
        assert_eq!(
            changed, 0,
            "{inner}: {changed} foreground completions changed"
        );
    }
}
