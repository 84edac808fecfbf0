//! The host's plan for each command it sends while others are still at the drive, against
//! what the drive did: host SPTF and aged SPTF (timed schedulers) over drive queues of 2, 4
//! and 8 (firmware FCFS, so the drive serves them in the order sent), on the HP C2490A,
//! the Atlas 10K and the Cheetah 4LP.
//!
//! A closed workload of 16 processes keeps the drive busy from the first dispatch on, so
//! the host plans every command but the first behind the ones at the drive and never
//! re-anchors. The run's records are replayed through the host's own planning
//! ([`plan_behind_queue`], what `TimedQueue` calls) with the oracle observing each
//! completion as the host's does, under two rules:
//! - **Before**: the rule the host used before, the last command's media end plus tail
//!   (`Release::next_start_ns`), no arrivals;
//! - **After**: the chain walked with the drive's queued rules (`Release::queued_next_ns`,
//!   `QueueModel::release_among` with the commands sent after).
//!
//! Each planned command's error is the drive's mechanism start and completion minus the
//! plan's, filed as covered (a read miss with only read misses ahead of it at the drive:
//! the predictor's queued rules cover it) or not (a write or a buffer hit at the drive or
//! being planned: the drive's write and hit rules are not the predictor's yet).
//!
//! `report_the_plan_errors` (ignored; `--ignored --nocapture`) prints the table of
//! docs/fidelity.md, "The host plans with the queued rules".

use std::sync::Arc;

use headway::config::{build_simulation, resolve_drive, ExperimentConfig};
use headway::device::hdd::{arrival_hold_ns, Mechanics, Overheads};
use headway::predict::{Access, Arrival, Geometry, Moment, OraclePredictor, Predictor, QueueModel};
use headway::request::{Command, Completion, HeadPosition, Op, Phases};
use headway::sched::{plan_behind_queue, queued_plan_completed, SentCommand};
use headway::stats::RequestRecords;

fn workload(kind: &str) -> &'static str {
    match kind {
        "random" => {
            "read_fraction = 1.0\nalign_sectors = 8\nsize = { kind = \"fixed\", sectors = 8 }\n"
        }
        "large" => "read_fraction = 1.0\nsize = { kind = \"fixed\", sectors = 64 }\n",
        "mixed" => {
            "read_fraction = 0.67\nalign_sectors = 8\n\
             size = { kind = \"exponential\", mean_sectors = 16.0 }\n"
        }
        _ => unreachable!(),
    }
}

/// A run's records and its mean response time (ms).
fn run(drive: &str, sched: &str, depth: usize, kind: &str, requests: u64) -> (RequestRecords, f64) {
    let toml = format!(
        "seed = 11\n[drive]\nname = \"{drive}\"\nqueue_depth = {depth}\n\
         firmware_scheduler = \"fcfs\"\n[host]\nscheduler = \"{sched}\"\n\
         [workload]\nkind = \"closed\"\nprocesses = 16\nthink_ms = 0.0\nrequests = {requests}\n{}\
         [output]\nrecords = true\n",
        workload(kind)
    );
    let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    (r.records.unwrap(), r.summary.response.mean_ms)
}

fn oracle(drive: &str) -> OraclePredictor {
    let spec = resolve_drive(drive, None).unwrap();
    OraclePredictor::of_drive(&spec, Arc::new(Mechanics::new(&spec).unwrap()), 0)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    Before,
    After,
}

/// Max and summed absolute error (ns) and the count.
#[derive(Clone, Copy, Default, Debug)]
struct Err {
    n: u64,
    /// Planned to the ns.
    exact: u64,
    max_ns: u64,
    sum_ns: u64,
}

impl Err {
    fn push(&mut self, e: i64) {
        self.n += 1;
        self.exact += u64::from(e == 0);
        self.max_ns = self.max_ns.max(e.unsigned_abs());
        self.sum_ns += e.unsigned_abs();
    }
    fn mean_ms(&self) -> f64 {
        self.sum_ns as f64 / self.n.max(1) as f64 / 1e6
    }
}

/// Per class (covered, not): the mechanism start's and the completion's errors; and, kept
/// apart from the covered class, the completions of read misses sent while the read ahead
/// of them, begun on an idle bus at its own arrival, still held the bus for its command
/// phase (`fresh_hold`: the opening burst, sent at the instant the first read began). The
/// drive makes such an arrival wait for that phase before its own hold
/// (`Drive::bus_released_at`), and every read sent in the burst holds the bus before the
/// first read gets it back, so each one sent after the one planned moves the first read's
/// completion and everything behind it: the plan made as a read is sent cannot know the
/// ones the host sends after it in the same instant (`fresh_hold`), the plan as the host
/// walks its chain again once it has sent the burst can (`fresh_hold_replanned`: each
/// burst read's completion as last planned before it completed).
#[derive(Default, Debug)]
struct Errors {
    start: [Err; 2],
    done: [Err; 2],
    fresh_hold: Err,
    fresh_hold_replanned: Err,
    /// The not-covered completions split: the command planned is a write, or a read (a hit,
    /// or a miss behind a write or a hit at the drive).
    not_covered_write: Err,
    not_covered_read: Err,
}

/// The host's plan for every command of `rec` under `rule`, against the drive.
fn plan_errors(drive: &str, rec: &RequestRecords, rule: Rule) -> Errors {
    let mut p = oracle(drive);
    let spec = resolve_drive(drive, None).unwrap();
    let read_hold_ns = arrival_hold_ns(&Overheads::from_spec(&spec), Op::Read, Op::Read).unwrap();
    let n = rec.len();
    let op = |i: usize| if rec.is_read[i] { Op::Read } else { Op::Write };
    let miss = |i: usize| rec.is_read[i] && !rec.cache_hit[i];
    // Dispatches in the order sent (the drive's FCFS serves them so), and completions.
    let mut sent: Vec<usize> = (0..n).collect();
    sent.sort_by_key(|&i| (rec.dispatch_ns[i], rec.start_ns[i], rec.done_ns[i]));
    let mut done: Vec<usize> = (0..n).collect();
    done.sort_by_key(|&i| rec.done_ns[i]);
    let mut next_done = 0;
    // Before: the last command's (head, next start); After: the chain (ids beside it).
    let mut last: Option<(HeadPosition, u64)> = None;
    let mut chain: Vec<SentCommand> = Vec::new();
    let mut at_drive: Vec<usize> = Vec::new();
    let mut out = Errors::default();
    // The opening burst's reads, and each read's completion as last planned: when the walk
    // has the drive take up the command behind it (that one queued behind it), or its own
    // plan if nothing was sent behind it.
    let mut burst: Vec<usize> = Vec::new();
    let mut replanned: Vec<Option<u64>> = vec![None; n];
    for &c in &sent {
        let t = rec.dispatch_ns[c];
        // The completions the host has seen by now.
        while next_done < n && rec.done_ns[done[next_done]] <= t {
            let i = done[next_done];
            next_done += 1;
            at_drive.retain(|&j| j != i);
            if rule == Rule::After {
                queued_plan_completed(&mut chain, i as u64, miss(i), rec.done_ns[i]);
            }
            let command = Command {
                device: 0,
                lbn: rec.lbn[i],
                sectors: rec.sectors[i],
                op: op(i),
                dispatch_ns: rec.dispatch_ns[i],
                predicted_ns: None,
                requests: Default::default(),
            };
            p.observe(&Completion {
                command,
                done_ns: rec.done_ns[i],
                phases: Phases {
                    start_ns: rec.start_ns[i],
                    overhead_ns: rec.overhead_ns[i],
                    seek_ns: rec.seek_ns[i],
                    rotate_ns: rec.rotate_ns[i],
                    transfer_ns: rec.transfer_ns[i],
                    bus_ns: rec.bus_ns[i],
                },
                cache_hit: rec.cache_hit[i],
                head: p.track_of(rec.lbn[i] + rec.sectors[i].max(1) as u64 - 1),
                head_lbn: rec.lbn[i] + rec.sectors[i] as u64,
            });
        }
        let outstanding = at_drive.len();
        let (from, start, taken, enters) = match rule {
            _ if outstanding == 0 => (p.head(), t, t, t),
            Rule::Before => {
                let (h, next) = last.unwrap();
                (h, next.max(t), t, t)
            }
            Rule::After => {
                let k = chain.len() - outstanding.min(chain.len());
                chain.drain(..k);
                let next = Arrival::new(t, op(c));
                let links = chain.clone();
                let last = plan_behind_queue(&p, &links, next, |i, at| {
                    if i > 0 && at.enters_ns < at.taken_ns {
                        replanned[links[i - 1].id as usize] = Some(at.taken_ns);
                    }
                    chain[i] = chain[i].planned(at);
                });
                if let Some(ahead) = links.last().filter(|_| last.enters_ns < last.taken_ns) {
                    replanned[ahead.id as usize] = Some(last.taken_ns);
                }
                (last.from, last.start_ns, last.taken_ns, last.enters_ns)
            }
        };
        let r = p.release(
            Moment::new(from, start),
            Access::new(rec.lbn[c], rec.sectors[c], op(c)),
        );
        if outstanding > 0 {
            let covered = miss(c) && at_drive.iter().all(|&j| miss(j));
            let class = usize::from(!covered);
            let j = at_drive[0];
            let fresh_hold = covered
                && rec.start_ns[j] == rec.dispatch_ns[j]
                && t < rec.start_ns[j] + read_hold_ns;
            let mech = rec.start_ns[c] + rec.overhead_ns[c];
            if !fresh_hold {
                out.start[class].push(mech as i64 - (start + r.estimate.overhead_ns) as i64);
            }
            if let Some(d) = r.done_ns {
                let e = rec.done_ns[c] as i64 - d as i64;
                if fresh_hold {
                    out.fresh_hold.push(e);
                    burst.push(c);
                    replanned[c] = Some(d);
                } else {
                    out.done[class].push(e);
                    if !covered {
                        match op(c) {
                            Op::Write => out.not_covered_write.push(e),
                            Op::Read => out.not_covered_read.push(e),
                        }
                    }
                }
            }
        }
        last = Some((r.head, r.next_start_ns(start)));
        if outstanding == 0 {
            chain.clear();
        }
        chain.push(SentCommand {
            from,
            start_ns: start,
            taken_ns: taken,
            arrives_ns: t,
            enters_ns: enters,
            id: c as u64,
            lbn: rec.lbn[c],
            sectors: rec.sectors[c],
            op: op(c),
        });
        at_drive.push(c);
    }
    for c in burst {
        let d = replanned[c].expect("planned");
        out.fresh_hold_replanned
            .push(rec.done_ns[c] as i64 - d as i64);
    }
    out
}

const DRIVES: [&str; 3] = ["hp_c2490a", "atlas10k", "cheetah4lp"];

/// Read misses sent behind read misses, host SPTF and aged SPTF, drive queues of 2, 4 and
/// 8, three drives: the host's plan with the queued rules and the re-anchoring at each
/// completion puts each completion to the ns on the Atlas 10K and the Cheetah 4LP, and all
/// but a few percent on the HP C2490A (a residue the predictor's own rule shows under host
/// SPTF: part of the queued read's command overhead falls after the completion ahead, not
/// traced). The old rule drifted: a whole overhead late at every queued read, never
/// re-anchored, seconds late on the HP C2490A by the run's end.
#[test]
fn the_host_plans_queued_read_misses_to_the_ns() {
    for drive in DRIVES {
        for sched in ["sptf", "aged-sptf"] {
            for depth in [2, 4, 8] {
                let (rec, mean) = run(drive, sched, depth, "random", 400);
                let after = plan_errors(drive, &rec, Rule::After);
                let before = plan_errors(drive, &rec, Rule::Before);
                let at = format!("{drive} {sched} depth {depth}: {after:?} before {before:?}");
                let (a, b) = (after.done[0], before.done[0]);
                assert!(a.n > 300, "{at}");
                // The reads planned before the host knew what it would send after them in the
                // same instant (`Errors::fresh_hold`) are the opening burst only: sent at the
                // moment the first read began. On the HP C2490A at depth 8, 6 of the 7 are
                // off by up to two revolutions (18.756 ms) as planned when sent; on the other
                // drives, and at depths 2 and 4, they are exact. As the host plans them again
                // once the burst is sent, every one is exact.
                assert!(after.fresh_hold.n < depth as u64, "{at}");
                assert_eq!(after.fresh_hold_replanned.n, after.fresh_hold.n, "{at}");
                assert_eq!(after.fresh_hold_replanned.max_ns, 0, "{at}");
                if drive != "hp_c2490a" || depth < 8 {
                    assert_eq!(after.fresh_hold.max_ns, 0, "{at}");
                } else {
                    assert!(after.fresh_hold.max_ns > 0, "{at}");
                }
                assert_eq!(after.done[1].n, 0, "{at}");
                if drive == "hp_c2490a" {
                    assert!(a.exact * 100 >= a.n * 95, "{at}");
                    assert!(a.mean_ms() < 0.5 && a.max_ns <= 9_500_000, "{at}");
                    assert!(b.mean_ms() > 100.0, "{at}");
                    // The scheduler plans so: the old plan's ranking, a revolution late at
                    // every queued read, gave 182-200 ms here.
                    assert!(mean < 170.0, "{at}: mean response {mean} ms");
                } else {
                    assert_eq!(a.max_ns, 0, "{at}");
                    // The records' phases are whole ns, each rounded on its own.
                    assert!(after.start[0].max_ns <= 2, "{at}");
                }
                if drive == "cheetah4lp" {
                    assert!(b.mean_ms() > 1.0, "{at}");
                }
            }
        }
    }
}

/// Reads and writes: the writes are not the predictor's to plan yet (its write and buffer
/// rules), but re-anchoring at each read miss's completion keeps their error from
/// accumulating: the mean error of a read miss planned behind read misses stays under a
/// millisecond on the Atlas 10K and the Cheetah 4LP, where the old plan drifted by tens.
#[test]
fn the_host_plan_does_not_drift_with_writes() {
    for drive in ["atlas10k", "cheetah4lp"] {
        let (rec, _) = run(drive, "sptf", 4, "mixed", 600);
        let after = plan_errors(drive, &rec, Rule::After);
        let before = plan_errors(drive, &rec, Rule::Before);
        let at = format!("{drive}: {after:?} before {before:?}");
        assert!(after.done[0].n > 100, "{at}");
        assert!(after.done[0].mean_ms() < 1.0, "{at}");
        assert!(before.done[0].mean_ms() > 5.0, "{at}");
    }
}

/// Why the opening burst cannot be planned with the holds of the reads sent after it in the
/// same instant (`Errors::fresh_hold`): the host does not have them yet. The simulation
/// hands the host one event at a time and lets it dispatch after each (`Simulation::pump`),
/// so the 16 requests arriving at 0 ms reach the host one by one, and each finds a free
/// drive slot and an otherwise empty host queue: SPTF has no choice to make, and the 2nd
/// read is planned before the 3rd has arrived. Were the burst in the host's queue at once,
/// SPTF would send the first eight in the order of their positions, not of their arrival.
#[test]
fn the_opening_burst_reaches_the_host_one_request_at_a_time() {
    let (rec, _) = run("hp_c2490a", "sptf", 8, "random", 400);
    let mut sent: Vec<usize> = (0..rec.len()).collect();
    sent.sort_by_key(|&i| (rec.dispatch_ns[i], rec.start_ns[i], rec.done_ns[i]));
    let first: Vec<u64> = sent[..8].iter().map(|&i| rec.id[i]).collect();
    assert!(
        sent[..8].iter().all(|&i| rec.dispatch_ns[i] == 0),
        "{first:?}"
    );
    assert_eq!(first, (0..8).collect::<Vec<u64>>());
}

#[test]
#[ignore = "prints the table of docs/fidelity.md (run with --ignored --nocapture)"]
fn report_the_plan_errors() {
    println!(
        "drive sched depth workload | mean response ms | covered n, completion max/mean ms \
         before -> after | not covered n, completion max/mean ms before -> after | the \
         opening burst's (`Errors::fresh_hold`) n, the same | the not covered split: writes \
         planned, then reads planned"
    );
    for drive in DRIVES {
        for sched in ["sptf", "aged-sptf"] {
            for depth in [2, 4, 8] {
                for kind in ["random", "large", "mixed"] {
                    let (rec, mean) = run(drive, sched, depth, kind, 2_000);
                    let b = plan_errors(drive, &rec, Rule::Before);
                    let a = plan_errors(drive, &rec, Rule::After);
                    let cell = |b: Err, a: Err| {
                        format!(
                            "{} exact {} -> {} {:.3}/{:.3} -> {:.3}/{:.3}",
                            a.n,
                            b.exact,
                            a.exact,
                            b.max_ns as f64 / 1e6,
                            b.mean_ms(),
                            a.max_ns as f64 / 1e6,
                            a.mean_ms()
                        )
                    };
                    println!(
                        "{drive} {sched} {depth} {kind} | {mean:.3} | {} | {} | {} | {} | {} | {}",
                        cell(b.done[0], a.done[0]),
                        cell(b.done[1], a.done[1]),
                        cell(b.fresh_hold, a.fresh_hold),
                        cell(a.fresh_hold, a.fresh_hold_replanned),
                        cell(b.not_covered_write, a.not_covered_write),
                        cell(b.not_covered_read, a.not_covered_read)
                    );
                }
            }
        }
    }
}
