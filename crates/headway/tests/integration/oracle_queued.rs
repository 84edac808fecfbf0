//! The oracle's prediction error per request with commands queued at the drive: a host
//! queue (closed workload, FCFS host) over a drive queue of 2, 4 and 8, on several drives.
//!
//! Each read miss that the drive took up at the completion of a read miss (so where and
//! when it began is the oracle's to say: `QueueModel::release` of the one ahead, anchored at
//! that one's actual completion, as `freeblock::measure` chains them) is predicted twice:
//! by `release` (the read alone at the drive's bus) and by `release_among` (with the
//! commands that reached the drive while it was in service, which the host sent and so
//! knows). Each prediction error is the measured minus the predicted completion, filed
//! under the mechanism that can move it (see `Class`).
//!
//! Run with `--nocapture` for the table (docs/fidelity.md, "The oracle with commands queued
//! at the drive").

use std::sync::Arc;

use headway::config::{build_simulation, resolve_drive, ExperimentConfig};
use headway::device::hdd::Mechanics;
use headway::predict::{Access, Among, Arrival, Geometry, Moment, OraclePredictor, QueueModel};
use headway::request::{HeadPosition, Op};
use headway::stats::RequestRecords;

/// The mechanism that can move a read miss's completion away from the one-command
/// prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// Nothing queued changes its prediction.
    Alone,
    /// Its command overhead, done while it waited in the drive's queue, is longer than the
    /// tail of the read ahead of it: it begins before that one's media end plus tail.
    QueuedOverhead,
    /// A read that reached the drive while it or the read ahead of it was in service held
    /// the bus past when that one asked for it back (`HddDevice::arrival_on_bus`).
    BusHold,
    /// A fast write did (its write-hit overhead and disconnect: `arrival_hold_ns`).
    WriteHold,
    /// Larger than its buffer segment (the full-segment stall, `segment_full`).
    OverSegment,
    /// Its blocks may be in the buffer already: they overlap what a recent command's segment
    /// can hold (`QueueModel::buffer_reach` of the last `buffer_segments` commands). The drive
    /// serves it as a partial or an ongoing hit (read-ahead under way), which it records as
    /// no hit; the oracle predicts every read as a miss (no host-side buffer model).
    BufferReach,
    /// The read ahead of it was the chain's anchor (after a write, a hit or an idle drive,
    /// where the head is not the chain's to say) and its own completion was mispredicted: so
    /// is when it asked for the bus back, which decides whether this one's overhead overlapped.
    AheadUnknown,
    /// Mispredicted, and a command reached the drive after this read or the one ahead asked
    /// for the bus back: the drive lets it take the bus while that read waits for the media
    /// (`bus::next_gap`, docs/fidelity.md "the read's gap on the bus"). The oracle follows
    /// it (`predict/oracle_bus.rs`), and the class is asserted empty.
    BusGap,
}

/// The oracle's predictions compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Model {
    /// As the host chains it before this work: `Release::next_start_ns`, no arrivals.
    Before,
    /// With the queued command's overhead overlapped (`Release::queued_next_ns`, the
    /// overhead counted from its arrival), no arrivals.
    Overlap,
    /// And the arriving reads' bus holds (`QueueModel::release_among` with the reads only:
    /// the oracle before it followed the arriving writes).
    ReadHolds,
    /// And the arriving fast writes' (`QueueModel::release_among`).
    Full,
}

const MODELS: [Model; 4] = [Model::Before, Model::Overlap, Model::ReadHolds, Model::Full];

/// One command at the drive, from the records.
#[derive(Clone, Copy, Debug)]
struct Cmd {
    arrived: u64,
    start: u64,
    done: u64,
    lbn: u64,
    n: u32,
    read: bool,
    hit: bool,
}

/// Per class: the count, and per model the largest and the summed absolute error (ns).
#[derive(Default, Debug)]
struct Errors {
    by_class: std::collections::BTreeMap<Class, (u64, [(u64, u64); 4])>,
}

impl Errors {
    fn push(&mut self, c: Class, errors_ns: [i64; 4]) {
        let e = self.by_class.entry(c).or_default();
        e.0 += 1;
        for (m, err) in e.1.iter_mut().zip(errors_ns) {
            m.0 = m.0.max(err.unsigned_abs());
            m.1 += err.unsigned_abs();
        }
    }
    /// The largest absolute error of `model` over every class but `except`.
    fn max_ns(&self, model: Model, except: &[Class]) -> u64 {
        self.by_class
            .iter()
            .filter(|(c, _)| !except.contains(c))
            .map(|(_, e)| e.1[model as usize].0)
            .max()
            .unwrap_or(0)
    }
    /// The largest absolute error of `model` in class `c`.
    fn max_in(&self, model: Model, c: Class) -> u64 {
        self.by_class.get(&c).map_or(0, |e| e.1[model as usize].0)
    }
    fn count(&self, c: Class) -> u64 {
        self.by_class.get(&c).map_or(0, |e| e.0)
    }
}

/// The workload's body: 16 processes without think time keep the drive's queue full (a
/// command reaches the drive at each completion); the OLTP mixes (the freeblock
/// reproduction's foreground, 10 processes thinking 30 ms) send them at any time, so that
/// some reach the drive late in a read miss's service, just before it asks for the bus.
fn workload(kind: &str) -> String {
    let saturated = "processes = 16\nthink_ms = 0.0\n";
    let oltp = "processes = 10\nthink_ms = 30.0\nread_fraction = 0.6667\nalign_sectors = 8\n";
    let body = match kind {
        "oltp" => {
            return format!("{oltp}size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n")
        }
        "oltp_large" => {
            return format!("{oltp}size = {{ kind = \"exponential\", mean_sectors = 124.0 }}\n")
        }
        _ => body(kind),
    };
    format!("{saturated}{body}")
}

fn body(kind: &str) -> &'static str {
    match kind {
        "random" => {
            "read_fraction = 1.0\nalign_sectors = 8\nsize = { kind = \"fixed\", sectors = 8 }\n"
        }
        "large" => "read_fraction = 1.0\nsize = { kind = \"fixed\", sectors = 128 }\n",
        "sequential" => {
            "read_fraction = 1.0\nsize = { kind = \"fixed\", sectors = 16 }\n\
             locality = { kind = \"sequential\", run_length = 8 }\n"
        }
        "mixed" => {
            "read_fraction = 0.67\nalign_sectors = 8\n\
             size = { kind = \"exponential\", mean_sectors = 16.0 }\n"
        }
        _ => unreachable!(),
    }
}

fn records(drive: &str, depth: usize, kind: &str, requests: u64) -> RequestRecords {
    // Over a drive queue of 2 the firmware's order is the host's; deeper, the drive's SPTF
    // reorders (the chain follows the order the drive took the commands up in).
    let firmware = if depth > 2 { "sptf" } else { "fcfs" };
    let toml = format!(
        "seed = 7\n[drive]\nname = \"{drive}\"\nqueue_depth = {depth}\n\
         firmware_scheduler = \"{firmware}\"\n[host]\nscheduler = \"fcfs\"\n\
         [workload]\nkind = \"closed\"\nrequests = {requests}\n{}\
         [output]\nrecords = true\n",
        workload(kind)
    );
    let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
        .records
        .unwrap()
}

fn oracle(drive: &str) -> (OraclePredictor, u32) {
    let spec = resolve_drive(drive, None).unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let seg = spec
        .cache
        .as_ref()
        .filter(|c| c.enabled)
        .map_or(u32::MAX, |c| c.segment_sectors);
    (OraclePredictor::of_drive(&spec, mech, 0), seg)
}

/// The prediction errors of every read miss queued behind a read miss (ns).
fn errors(drive: &str, depth: usize, kind: &str, requests: u64) -> Errors {
    let rec = records(drive, depth, kind, requests);
    let (p, seg) = oracle(drive);
    let mut cmds: Vec<Cmd> = (0..rec.len())
        .map(|i| Cmd {
            arrived: rec.dispatch_ns[i],
            start: rec.start_ns[i],
            done: rec.done_ns[i],
            lbn: rec.lbn[i],
            n: rec.sectors[i],
            read: rec.is_read[i],
            hit: rec.cache_hit[i],
        })
        .collect();
    cmds.sort_by_key(|c| (c.start, c.done));
    // (arrival, place in `cmds`), in the order they reached the drive.
    let mut by_arrival: Vec<(Arrival, usize)> = cmds
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let op = if c.read { Op::Read } else { Op::Write };
            (Arrival::new(c.arrived, op), i)
        })
        .collect();
    by_arrival.sort_by_key(|a| (a.0.at_ns, a.1));
    // The other commands reaching the drive while the `i`-th is in service (from its start
    // on: those at its very start reached it after it was taken up, the host's dispatch at
    // the completion before).
    let during = |i: usize| -> Vec<(Arrival, usize)> {
        let c = &cmds[i];
        let lo = by_arrival.partition_point(|a| a.0.at_ns < c.start);
        let hi = by_arrival.partition_point(|a| a.0.at_ns < c.done);
        by_arrival[lo..hi]
            .iter()
            .filter(|a| a.1 != i)
            .copied()
            .collect()
    };
    let miss = |c: &Cmd| c.read && !c.hit && c.n > 0;
    let mut out = Errors::default();
    // The previous command's origin (head, start) as each model predicts it, if it was a
    // read miss.
    let mut state: Option<[(HeadPosition, u64); 4]> = None;
    let reads_only = |v: &[(Arrival, usize)]| -> Vec<(Arrival, usize)> {
        v.iter().copied().filter(|a| a.0.op == Op::Read).collect()
    };
    for k in 1..cmds.len() {
        let (prev, c) = (cmds[k - 1], cmds[k]);
        if !miss(&c) {
            state = None;
            continue;
        }
        let next = match state {
            Some(origins) if c.start == prev.done => {
                let (arr_p, arr) = (during(k - 1), during(k));
                let arrivals = |m: Model, v: &[(Arrival, usize)]| -> Vec<(Arrival, usize)> {
                    match m {
                        Model::Full => v.to_vec(),
                        Model::ReadHolds => reads_only(v),
                        _ => vec![],
                    }
                };
                let only = |v: &[(Arrival, usize)]| v.iter().map(|a| a.0).collect::<Vec<_>>();
                let mut d = [0u64; 4];
                let mut next = origins;
                let mut hold_moved = false;
                let mut ahead_ns = [0u64; 4];
                let mut after_ask = false;
                let late_in = |v: &[(Arrival, usize)], ask: Option<u64>| {
                    ask.is_some_and(|a| v.iter().any(|x| x.0.at_ns >= a))
                };
                for m in MODELS {
                    let (from, o) = origins[m as usize];
                    let arr_m = arrivals(m, &arr_p);
                    let mut enters = vec![0; arr_m.len()];
                    let r = p.release_among(
                        Moment::new(from, o),
                        Access::new(prev.lbn, prev.n, Op::Read),
                        Among {
                            arrivals: &only(&arr_m),
                            began_idle: false,
                            enters_ns: &mut enters,
                        },
                    );
                    let d_p = r.done_ns.unwrap();
                    ahead_ns[m as usize] = d_p;
                    let q = if m == Model::Before {
                        r.next_start_ns(o)
                    } else {
                        r.queued_next_ns.unwrap()
                    };
                    // Anchored at the one ahead's actual completion.
                    let mut o_c = (prev.done as i64 + q as i64 - d_p as i64).max(0) as u64;
                    if m != Model::Before {
                        // Its command overhead counts from when it entered the drive's queue
                        // (`release_among`'s `enters_ns`, anchored as the start): the end of
                        // the holds ahead of it, or, for a read reaching the drive after the
                        // one ahead asked for the bus back, that one's completion (and one
                        // sent at that completion reaches an idle drive).
                        let entered = arr_m.iter().zip(&enters).find(|(a, _)| a.1 == k);
                        let entered =
                            entered.map_or(
                                c.arrived,
                                |(_, &e)| {
                                    if e >= d_p {
                                        prev.done
                                    } else {
                                        e
                                    }
                                },
                            );
                        o_c = o_c.max(entered);
                    }
                    next[m as usize] = (r.head, o_c);
                    let rc = p.release_among(
                        Moment::new(r.head, o_c),
                        Access::new(c.lbn, c.n, Op::Read),
                        Among {
                            arrivals: &only(&arrivals(m, &arr)),
                            began_idle: false,
                            enters_ns: &mut [],
                        },
                    );
                    d[m as usize] = rc.done_ns.unwrap();
                    if m == Model::Full {
                        after_ask =
                            late_in(&arr_p, r.bus_asked_ns) || late_in(&arr, rc.bus_asked_ns);
                    }
                    if m == Model::ReadHolds {
                        let alone_p = p.release(
                            Moment::new(from, o),
                            Access::new(prev.lbn, prev.n, Op::Read),
                        );
                        let alone =
                            p.release(Moment::new(r.head, o_c), Access::new(c.lbn, c.n, Op::Read));
                        hold_moved = alone_p.done_ns != Some(d_p) || alone.done_ns != rc.done_ns;
                    }
                }
                let reach = k.saturating_sub(p.buffer_segments() as usize)..k;
                let buffered = cmds[reach].iter().any(|b| {
                    let op = if b.read { Op::Read } else { Op::Write };
                    p.buffer_reach(Access::new(b.lbn, b.n, op))
                        .is_some_and(|(lo, hi)| c.lbn < hi && c.lbn + c.n as u64 > lo)
                });
                let class = if ahead_ns[Model::Full as usize] != prev.done {
                    Class::AheadUnknown
                } else if buffered {
                    Class::BufferReach
                } else if c.n > seg {
                    Class::OverSegment
                } else if after_ask && d[Model::Full as usize] != c.done {
                    Class::BusGap
                } else if d[Model::Full as usize] != d[Model::ReadHolds as usize] {
                    Class::WriteHold
                } else if hold_moved {
                    Class::BusHold
                } else if d[Model::Overlap as usize] != d[Model::Before as usize] {
                    Class::QueuedOverhead
                } else {
                    Class::Alone
                };
                if std::env::var("ORACLE_QUEUED_DEBUG").is_ok() && c.done != d[Model::Full as usize]
                {
                    println!(
                        "k {k} {class:?} prev {prev:?}\n  c {c:?}\n  arr_p {arr_p:?}\n  arr {arr:?} predicted {d:?} ahead predicted {ahead_ns:?}"
                    );
                }
                out.push(class, d.map(|d| c.done as i64 - d as i64));
                Some(next)
            }
            _ => {
                // Anchor: where the head is after the one ahead (a write, a hit, or an idle
                // drive) is not the chain's to say; start from its last block, when it came.
                let from = p.track_of(prev.lbn + prev.n.max(1) as u64 - 1);
                if miss(&prev) {
                    Some([(from, c.start); 4])
                } else {
                    None
                }
            }
        };
        state = next;
    }
    out
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// The table of docs/fidelity.md: every drive, depth and workload, per class, the old and
/// the new oracle's max and mean absolute error.
/// Every read miss queued behind a read miss, on three drives, over drive queues of 2 and 8,
/// saturated (reads of 4 KiB, 8 KiB sequential, 64 KiB, and a read/write mix) and the OLTP
/// mix of large requests sent at any time: the oracle with the queued overhead, the arrivals'
/// bus holds (reads and fast writes) and the read-ahead held to its segment's room predicts
/// each completion to the ns, where the chain as the host made it before was a whole
/// revolution late on the HP C2490A and the Cheetah 4LP (the queued overhead), the overlap
/// alone left the bus holds (HP C2490A, 128-block reads), and the unheld read-ahead put a few
/// large reads a revolution early. Named and left: reads whose blocks a recent command's
/// segment may hold (`Class::BufferReach`: partial and ongoing hits, no host-side buffer
/// model) and reads behind a mispredicted anchor (`Class::AheadUnknown`).
#[test]
fn the_oracle_predicts_queued_reads_to_the_ns() {
    let named = [Class::BufferReach, Class::AheadUnknown];
    for drive in ["hp_c2490a", "atlas10k", "cheetah4lp"] {
        for depth in [2, 8] {
            for kind in ["random", "sequential", "mixed", "large", "oltp_large"] {
                let e = errors(drive, depth, kind, 600);
                let at = format!("{drive} depth {depth} {kind}: {e:?}");
                assert!(
                    e.count(Class::Alone) + e.count(Class::QueuedOverhead) > 100,
                    "{at}"
                );
                if kind != "oltp_large" {
                    assert_eq!(e.count(Class::OverSegment), 0, "{at}");
                }
                assert_eq!(e.max_ns(Model::Full, &named), 0, "{at}");
                assert_eq!(e.count(Class::BusGap), 0, "{at}");
                if e.count(Class::QueuedOverhead) > 0 {
                    assert!(
                        e.max_ns(Model::Before, &[Class::Alone, Class::BusHold]) > 5_000_000,
                        "{at}"
                    );
                }
                if e.count(Class::BusHold) > 0 {
                    assert!(
                        e.max_ns(Model::Overlap, &[Class::Alone, Class::QueuedOverhead]) > 0,
                        "{at}"
                    );
                }
            }
        }
    }
    // A read larger than its segment asks for the bus back as any read miss (the drive's
    // `bus_back`): on the HP C2490A at depth 8, an arrival held the bus past the ask of one
    // of the OLTP mix's over-segment reads, 2.698 ms late when the oracle gave such a read
    // no ask (and without the arrivals, the overlap model, still).
    let e = errors("hp_c2490a", 8, "oltp_large", 1_500);
    let at = format!("hp_c2490a depth 8 oltp_large: {e:?}");
    assert!(e.count(Class::OverSegment) > 40, "{at}");
    assert_eq!(e.max_in(Model::Full, Class::OverSegment), 0, "{at}");
    assert_eq!(e.max_in(Model::ReadHolds, Class::OverSegment), 0, "{at}");
    assert!(
        e.max_in(Model::Overlap, Class::OverSegment) > 2_000_000,
        "{at}"
    );
    // The read-ahead hold: without it two of the Atlas 10K's 128-block reads at depth 8
    // were predicted a revolution early (it is inside `release`, so every model has it; the
    // case is asserted exact above and fails without it: 5.985 ms).
    // Each mechanism is met: the overlap on both drives with a long read overhead, the
    // bus hold on the HP's large reads, an arriving fast write's hold on both fast-write
    // drives (the OLTP mix sends commands at any time, so some reach the drive just before
    // a read miss asks for the bus back: the oracle without the write rule is late by up
    // to 0.158 ms on the Atlas 10K and 0.384 ms on the Cheetah 4LP).
    for drive in ["atlas10k", "cheetah4lp"] {
        let e = errors(drive, 8, "oltp", 1_500);
        let at = format!("{drive} depth 8 oltp: {e:?}");
        assert!(e.count(Class::WriteHold) > 3, "{at}");
        assert!(
            e.max_in(Model::ReadHolds, Class::WriteHold) > 100_000,
            "{at}"
        );
        // The reads a command reached the drive after asked for the bus back, in a gap
        // where the read waited for the media (1 on the Atlas 10K, 0.182 ms, and 3 on the
        // Cheetah 4LP, up to 0.406 ms, before the oracle followed the gap): exact.
        assert_eq!(e.count(Class::BusGap), 0, "{at}");
        assert_eq!(e.max_ns(Model::Full, &[]), 0, "{at}");
    }
    // The HP C2490A has no fast writes: its arriving writes hold nothing, and the OLTP mix
    // over a drive queue of 2 is exact.
    let e = errors("hp_c2490a", 2, "oltp", 1_500);
    assert_eq!(e.count(Class::WriteHold), 0, "{e:?}");
    assert_eq!(e.max_ns(Model::Full, &[]), 0, "{e:?}");
    assert!(errors("hp_c2490a", 2, "random", 600).count(Class::QueuedOverhead) > 100);
    assert!(errors("cheetah4lp", 2, "random", 600).count(Class::QueuedOverhead) > 0);
    assert!(errors("hp_c2490a", 2, "large", 600).count(Class::BusHold) > 0);
}

#[test]
#[ignore = "prints the table of docs/fidelity.md (run with --ignored --nocapture)"]
fn report_the_errors_by_mechanism() {
    if let Ok(v) = std::env::var("ORACLE_QUEUED_DEBUG") {
        let v: Vec<&str> = v.split(',').collect();
        let requests = v.get(3).map_or(60, |n| n.parse().unwrap());
        errors(v[0], v[1].parse().unwrap(), v[2], requests);
        return;
    }
    println!(
        "drive depth workload class count | max, mean |error| ms: before; overlap; read holds; full"
    );
    for drive in ["hp_c2490a", "atlas10k", "cheetah4lp"] {
        for depth in [2, 4, 8] {
            for kind in [
                "random",
                "sequential",
                "mixed",
                "large",
                "oltp",
                "oltp_large",
            ] {
                let e = errors(drive, depth, kind, 1_500);
                for (c, (n, m)) in &e.by_class {
                    let cell = |(max, sum): (u64, u64)| {
                        format!("{:.4} {:.4}", ms(max), ms(sum) / *n as f64)
                    };
                    println!(
                        "{drive} {depth} {kind} {c:?} {n} | {}; {}; {}; {}",
                        cell(m[0]),
                        cell(m[1]),
                        cell(m[2]),
                        cell(m[3])
                    );
                }
            }
        }
    }
}

/// A debugging aid, not a check: replays one run's commands through a bare `Drive` and
/// prints each step beside the recorded completion.
#[test]
#[ignore = "a debugging aid: ORACLE_REPLAY=drive,depth,workload,upto cargo test -p headway --test integration oracle_queued::debug_replay -- --ignored --nocapture"]
fn debug_replay() {
    let v = std::env::var("ORACLE_REPLAY")
        .expect("set ORACLE_REPLAY=drive,depth,workload,upto (e.g. hp_c2490a,8,random,20)");
    let v: Vec<&str> = v.split(',').collect();
    let (drive, depth, kind, upto): (&str, usize, &str, usize) =
        (v[0], v[1].parse().unwrap(), v[2], v[3].parse().unwrap());
    let rec = records(drive, depth, kind, 60);
    let mut idx: Vec<usize> = (0..rec.len()).collect();
    idx.sort_by_key(|&i| (rec.start_ns[i], rec.done_ns[i]));
    let spec = resolve_drive(drive, None).unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let mut d = headway::device::hdd::Drive::new(&spec, mech);
    for (k, &i) in idx.iter().enumerate().take(upto + 1) {
        println!("k {k} before: {}", d.describe(rec.start_ns[i]));
        let op = if rec.is_read[i] { Op::Read } else { Op::Write };
        let mut s = headway::device::hdd::Served::default();
        d.serve_queued(
            rec.start_ns[i],
            rec.dispatch_ns[i],
            rec.lbn[i],
            rec.sectors[i],
            op,
            &mut s,
        );
        println!(
            "k {k} served done {} (rec {}) phases {:?} head {:?}",
            s.done, rec.done_ns[i], s.phases, s.head
        );
        println!("   after at done: {}", d.describe(rec.done_ns[i]));
    }
}
