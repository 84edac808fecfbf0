//! Cello's core against hand-made service times: the paper's two examples, the slack
//! guarantee, allocation shares, reallocation, conservation and determinism.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use proptest::prelude::*;

use super::*;
use crate::request::Op;
use crate::sched::options::SchedOptions;

const MS: SimTime = NS_PER_MS;

/// τ = base + per_cyl × cylinder distance, independent of the start time (so estimates
/// are exact when service takes exactly τ); a request's cylinder is lbn / 1000.
struct Linear {
    base: SimTime,
    per_cyl: SimTime,
}

fn cyl(r: &Request) -> u32 {
    (r.lbn / 1000) as u32
}

impl Estimator for Linear {
    fn tau(&self, from: HeadPosition, _start: SimTime, r: &Request) -> (SimTime, HeadPosition) {
        let c = cyl(r);
        (
            self.base + self.per_cyl * from.cylinder.abs_diff(c) as SimTime,
            HeadPosition {
                cylinder: c,
                surface: 0,
            },
        )
    }
    fn head(&self, _r: &Request) -> HeadPosition {
        HeadPosition::default()
    }
    fn cylinder(&self, r: &Request) -> u32 {
        cyl(r)
    }
}

fn req(id: u64, at: SimTime, lbn: u64, deadline: Option<SimTime>) -> Request {
    let mut r = Request::new(at, lbn, 16, Op::Read);
    r.id = id;
    if let Some(d) = deadline {
        r.deadline_ns = d;
    }
    r
}

fn slot(name: &str, kind: ClassKind, weight: f64, fit: Fit) -> ClassSlot {
    ClassSlot {
        name: name.into(),
        kind,
        weight,
        pending: Default::default(),
        blocked: false,
        scheduler: match kind {
            ClassKind::RealTime => Box::new(RealTime),
            ClassKind::Interactive => Box::new(Interactive { fit }),
            ClassKind::Throughput => Box::new(Throughput),
        },
    }
}

fn opts(p_ms: u64) -> CoreOptions {
    CoreOptions {
        interval_ns: p_ms * MS,
        allocation: Allocation::Time,
        reallocate: true,
        realloc_priority: false,
        early_start: true,
        lazy: false,
    }
}

/// Run `core` over `arrivals` (time-ordered (class, request)) with service exactly τ, one
/// request at the device at a time; returns (request, class, completion time) in
/// completion order. Stops at `until`.
fn drive(
    core: &mut Core,
    est: &dyn Estimator,
    arrivals: &[(usize, Request)],
    until: SimTime,
) -> Vec<(Request, usize, SimTime)> {
    let mut done = Vec::new();
    let mut next = 0;
    let mut busy: Option<(Entry, SimTime)> = None;
    let mut now = 0;
    loop {
        let t_arr = arrivals.get(next).map(|a| a.1.arrival_ns);
        let t_done = busy.as_ref().map(|b| b.1);
        let t_wake = if busy.is_none() { core.wake_at() } else { None };
        let Some(t) = [t_arr, t_done, t_wake].into_iter().flatten().min() else {
            break;
        };
        if t > until {
            break;
        }
        now = now.max(t);
        if t_done == Some(t) {
            let (e, at) = busy.take().unwrap();
            core.complete(at);
            done.push((e.req, e.class, at));
        }
        while next < arrivals.len() && arrivals[next].1.arrival_ns == t {
            core.arrive(arrivals[next].0, arrivals[next].1);
            next += 1;
        }
        core.pump(now, est).unwrap();
        if busy.is_none() {
            if let Some(e) = core.dispatch(now) {
                let at = now + e.tau_ns;
                busy = Some((e, at));
            }
        }
    }
    done
}

/// Example 1: real-time a and b (deadline 20 ms) and best-effort c, 10 ms each, at t = 0.
/// Strictest first gives a, b, c and meets both deadlines; best effort first gives c, a, b
/// and b is late.
#[test]
fn example_1_invocation_order() {
    let est = Linear {
        base: 10 * MS,
        per_cyl: 0,
    };
    let run = |order: Vec<usize>| {
        let mut core = Core::new(
            vec![
                slot("rt", ClassKind::RealTime, 1.0, Fit::First),
                slot("be", ClassKind::Interactive, 1.0, Fit::First),
            ],
            opts(1000),
        );
        core.order = order;
        let arrivals = [
            (0, req(1, 0, 1000, Some(20 * MS))),
            (0, req(2, 0, 2000, Some(20 * MS))),
            (1, req(3, 0, 500, None)),
        ];
        for (c, r) in arrivals {
            core.arrive(c, r);
        }
        core.pump(0, &est).unwrap();
        core.queue.iter().map(|e| e.req.id).collect::<Vec<_>>()
    };
    assert_eq!(run(vec![0, 1]), vec![1, 2, 3], "real time first: a, b, c");
    assert_eq!(run(vec![1, 0]), vec![3, 1, 2], "best effort first: c, a, b");
    // And the strictest-first order is what Core picks by itself.
    let core = Core::new(
        vec![
            slot("be", ClassKind::Interactive, 1.0, Fit::First),
            slot("rt", ClassKind::RealTime, 1.0, Fit::First),
        ],
        opts(1000),
    );
    assert_eq!(core.order, vec![1, 0]);
    // c, a, b: b would complete at 30 ms, past its 20 ms deadline.
    let mut core = Core::new(
        vec![
            slot("rt", ClassKind::RealTime, 1.0, Fit::First),
            slot("be", ClassKind::Interactive, 1.0, Fit::First),
        ],
        opts(1000),
    );
    core.order = vec![1, 0];
    let arrivals = [
        (1, req(3, 0, 500, None)),
        (0, req(1, 0, 1000, Some(20 * MS))),
        (0, req(2, 0, 2000, Some(20 * MS))),
    ];
    let done = drive(&mut core, &est, &arrivals, 10_000 * MS);
    let b = done.iter().find(|d| d.0.id == 2).unwrap();
    assert_eq!(b.2, 30 * MS);
}

/// Example 2: aggressive insertion of late-deadline requests uses up the allocation, and
/// an early-deadline request arriving just after misses (it waits for the next interval).
#[test]
fn example_2_aggressive_insertion() {
    let est = Linear {
        base: 10 * MS,
        per_cyl: 0,
    };
    let mut core = Core::new(
        vec![
            slot("rt", ClassKind::RealTime, 1.0, Fit::First),
            slot("be", ClassKind::Interactive, 1.0, Fit::First),
        ],
        CoreOptions {
            reallocate: false,
            early_start: false,
            ..opts(200)
        },
    );
    // Ten requests due at 1 s fill class rt's 100 ms share of the 200 ms interval.
    let mut arrivals: Vec<(usize, Request)> = (0..10)
        .map(|i| (0, req(i, 0, 1000 * i, Some(1000 * MS))))
        .collect();
    arrivals.push((0, req(99, MS, 50_000, Some(40 * MS))));
    let done = drive(&mut core, &est, &arrivals, 10_000 * MS);
    let urgent = done.iter().find(|d| d.0.id == 99).unwrap();
    assert!(
        urgent.2 > 40 * MS && urgent.2 >= 200 * MS,
        "the urgent request waits for the next interval: done at {} ms",
        urgent.2 / MS
    );
    // Every aggressively inserted request was on time.
    assert!(done
        .iter()
        .filter(|d| d.0.id < 10)
        .all(|d| d.2 <= 1000 * MS));
}

/// Example 2 under lazy insertion: the requests due at 1 s wait until one interval before
/// their deadline, so the urgent request arriving later is inserted at once and meets its
/// deadline, and every held request is still on time.
#[test]
fn lazy_insertion_keeps_late_deadlines_from_starving_an_early_one() {
    let est = Linear {
        base: 10 * MS,
        per_cyl: 0,
    };
    let mut core = Core::new(
        vec![
            slot("rt", ClassKind::RealTime, 1.0, Fit::First),
            slot("be", ClassKind::Interactive, 1.0, Fit::First),
        ],
        CoreOptions {
            reallocate: false,
            early_start: false,
            lazy: true,
            ..opts(200)
        },
    );
    let mut arrivals: Vec<(usize, Request)> = (0..10)
        .map(|i| (0, req(i, 0, 1000 * i, Some(1000 * MS))))
        .collect();
    arrivals.push((0, req(99, MS, 50_000, Some(40 * MS))));
    let done = drive(&mut core, &est, &arrivals, 10_000 * MS);
    assert_eq!(done.len(), 11);
    let urgent = done.iter().find(|d| d.0.id == 99).unwrap();
    assert_eq!(urgent.2, 11 * MS, "inserted on arrival, served at once");
    for d in done.iter().filter(|d| d.0.id < 10) {
        // Held until the interval [600, 800) ms, then served just in time.
        assert!(
            (600 * MS..=1000 * MS).contains(&d.2),
            "request {} done at {} ms",
            d.0.id,
            d.2 / MS
        );
    }
}

/// Lazy insertion hands a held class's time to a blocked best-effort class (reallocation),
/// and an idle disk with only held requests waits for the next interval instead of
/// starting one early.
#[test]
fn lazy_insertion_reallocates_the_held_time_and_does_not_start_intervals_early() {
    let est = Linear {
        base: 5 * MS,
        per_cyl: 0,
    };
    let mut core = Core::new(
        vec![
            slot("rt", ClassKind::RealTime, 1.0, Fit::First),
            slot("be", ClassKind::Interactive, 1.0, Fit::First),
        ],
        CoreOptions {
            lazy: true,
            ..opts(1000)
        },
    );
    let log: IntervalLog = Rc::new(RefCell::new(Vec::new()));
    core.log = Some(log.clone());
    // A real-time request due in the fourth interval, and 150 best-effort requests (750 ms).
    let mut arrivals = vec![(0, req(0, 0, 0, Some(3500 * MS)))];
    arrivals.extend((1..=150u64).map(|i| (1, req(i, 0, i * 10, None))));
    let done = drive(&mut core, &est, &arrivals, 10_000 * MS);
    assert_eq!(done.len(), 151);
    // Best effort took the whole first 750 ms (its 500 ms share plus the held class's).
    let be_last = done.iter().filter(|d| d.1 == 1).map(|d| d.2).max().unwrap();
    assert_eq!(be_last, 750 * MS);
    let rt = done.iter().find(|d| d.1 == 0).unwrap();
    assert!(
        (2000 * MS..=3500 * MS).contains(&rt.2),
        "held until its interval: done at {} ms",
        rt.2 / MS
    );
    let starts: Vec<SimTime> = log.borrow().iter().map(|r| r.start_ns / MS).collect();
    assert_eq!(&starts[..2], &[0, 1000], "no early start for held requests");
}

proptest! {
    /// Under exact estimates, no insertion makes a queued real-time request late: a
    /// request on time before a pump is on time after it (whatever was inserted ahead).
    #[test]
    fn no_insertion_makes_a_queued_deadline_late(
        reqs in proptest::collection::vec((0usize..3, 0u64..400, 0u64..40, 10u64..120), 1..80),
        fit in 0u8..3,
    ) {
        let est = Linear { base: 2 * MS, per_cyl: 20_000 };
        let f = match fit { 0 => Fit::First, 1 => Fit::Best, _ => Fit::Hybrid(0.5) };
        let mut core = Core::new(
            vec![
                slot("rt", ClassKind::RealTime, 2.0, f),
                slot("int", ClassKind::Interactive, 1.0, f),
                slot("thr", ClassKind::Throughput, 1.0, f),
            ],
            opts(1000),
        );
        let mut t = 0;
        let mut busy_until = 0;
        let mut in_flight = false;
        for (i, (class, cylinder, gap_ms, dl_ms)) in reqs.iter().enumerate() {
            t += gap_ms * MS / 4;
            // Serve the queue up to t, one request at a time, each taking exactly τ.
            loop {
                if in_flight {
                    if busy_until > t { break; }
                    core.complete(busy_until);
                    in_flight = false;
                }
                let Some(h) = core.queue.front() else { break };
                let tau = h.tau_ns;
                core.dispatch(busy_until);
                busy_until += tau;
                in_flight = true;
            }
            if !in_flight {
                busy_until = busy_until.max(t);
            }
            let on_time = |core: &Core, now: SimTime| -> HashMap<u64, bool> {
                let mut s = if in_flight { busy_until.max(now) } else { now };
                core.queue.iter().map(|e| {
                    s += e.tau_ns;
                    (e.req.id, !e.realtime || s <= e.req.deadline_ns)
                }).collect()
            };
            let before = on_time(&core, t);
            let d = if *class == 0 { Some(t + dl_ms * MS) } else { None };
            core.arrive(*class, req(i as u64, t, cylinder * 1000, d));
            core.pump(t, &est).unwrap();
            let after = on_time(&core, t);
            for (id, ok) in before {
                if ok {
                    prop_assert!(after.get(&id).copied().unwrap_or(true),
                        "request {} became late", id);
                }
            }
        }
    }
}

/// Two saturated classes 1:1: every interval each gets its half of P, within one
/// request's service time (the estimated τ charged, U_i + X_i).
#[test]
fn saturated_allocations_follow_the_weights() {
    let est = Linear {
        base: 5 * MS,
        per_cyl: 10_000,
    };
    for weights in [[1.0, 1.0], [1.0, 3.0]] {
        let mut core = Core::new(
            vec![
                slot("a", ClassKind::Interactive, weights[0], Fit::First),
                slot("b", ClassKind::Throughput, weights[1], Fit::First),
            ],
            CoreOptions {
                early_start: false,
                ..opts(1000)
            },
        );
        let log: IntervalLog = Rc::new(RefCell::new(Vec::new()));
        core.log = Some(log.clone());
        // Far more than the disk can serve in 10 s, all there at t = 0.
        let arrivals: Vec<(usize, Request)> = (0..6000u64)
            .map(|i| ((i % 2) as usize, req(i, 0, (i * 7919 % 500) * 1000, None)))
            .collect();
        drive(&mut core, &est, &arrivals, 10_000 * MS);
        let log = log.borrow();
        assert!(log.len() >= 8);
        let max_tau = (5 * MS + 10_000 * 500) as f64;
        for rec in log.iter() {
            let wsum: f64 = weights.iter().sum();
            for i in 0..2 {
                let got = (rec.used_ns[i] + rec.realloc_ns[i]) as f64;
                let want = weights[i] / wsum * 1000.0 * MS as f64;
                assert!(
                    (got - want).abs() <= max_tau,
                    "weights {weights:?}, interval at {} ms: class {i} got {} ms, share {} ms",
                    rec.start_ns / MS,
                    got / 1e6,
                    want / 1e6
                );
            }
        }
    }
}

/// Reallocation: when one class is silent the other gets the whole interval; without
/// reallocation it gets only its share.
#[test]
fn reallocation_gives_a_silent_class_time_away() {
    let est = Linear {
        base: 5 * MS,
        per_cyl: 0,
    };
    for reallocate in [true, false] {
        let mut core = Core::new(
            vec![
                slot("rt", ClassKind::RealTime, 1.0, Fit::First),
                slot("be", ClassKind::Interactive, 1.0, Fit::First),
            ],
            CoreOptions {
                reallocate,
                early_start: false,
                ..opts(1000)
            },
        );
        let arrivals: Vec<(usize, Request)> =
            (0..2000u64).map(|i| (1, req(i, 0, i * 10, None))).collect();
        let done = drive(&mut core, &est, &arrivals, 3000 * MS - 1);
        let served_ms = done.len() as u64 * 5;
        if reallocate {
            assert_eq!(served_ms, 3000 - 5, "work conserving: the disk never idles");
        } else {
            assert!((1500 - 10..=1500).contains(&served_ms), "{served_ms} ms");
        }
    }
}

/// Every request completes exactly once, and two runs are identical.
#[test]
fn conservation_and_determinism() {
    let est = Linear {
        base: 3 * MS,
        per_cyl: 30_000,
    };
    let make = || {
        Core::new(
            vec![
                slot("rt", ClassKind::RealTime, 1.0, Fit::First),
                slot("int", ClassKind::Interactive, 1.0, Fit::Hybrid(0.3)),
                slot("thr", ClassKind::Throughput, 1.0, Fit::First),
            ],
            opts(500),
        )
    };
    let mut s = 12345u64;
    let mut rnd = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s >> 33
    };
    let mut t = 0;
    let arrivals: Vec<(usize, Request)> = (0..3000u64)
        .map(|i| {
            t += rnd() % (6 * MS);
            let c = (rnd() % 3) as usize;
            let d = (c == 0).then_some(t + 300 * MS);
            (c, req(i, t, (rnd() % 800) * 1000, d))
        })
        .collect();
    let a = drive(&mut make(), &est, &arrivals, SimTime::MAX / 2);
    let b = drive(&mut make(), &est, &arrivals, SimTime::MAX / 2);
    assert_eq!(a, b);
    let mut ids: Vec<u64> = a.iter().map(|d| d.0.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..3000).collect::<Vec<_>>());
}

#[test]
fn the_reallocation_option_reads_priority_and_refuses_others() {
    let o = options("reallocation = \"priority\"");
    let c = CelloConfig::from_options(&OptionReader::new("cello", &o), false).unwrap();
    assert!(c.realloc_priority);
    let o = options("");
    let c = CelloConfig::from_options(&OptionReader::new("cello", &o), false).unwrap();
    assert!(!c.realloc_priority);
    let o = options("reallocation = \"fair\"");
    let e = CelloConfig::from_options(&OptionReader::new("cello", &o), false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("host.options.reallocation"), "{e}");
}

fn options(text: &str) -> SchedOptions {
    toml::from_str(text).unwrap()
}

#[test]
fn keyed_errors() {
    let o = options("weights = [0.0, 0.0]");
    let e = CelloConfig::from_options(&OptionReader::new("cello", &o), false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("host.options.weights") && e.contains("positive"),
        "{e}"
    );

    let names = vec!["video".to_string(), "text".to_string()];
    let o = options("realtime = [\"video\"]");
    let c = CelloConfig::from_options(&OptionReader::new("cello", &o), false).unwrap();
    let e = c.classes(&names, &[1.0, 1.0]).err().unwrap().to_string();
    assert!(
        e.contains("host.options") && e.contains("`text` has no class scheduler"),
        "{e}"
    );

    let o = options("realtime = [\"vidoe\"]\ninteractive = [\"text\"]");
    let c = CelloConfig::from_options(&OptionReader::new("cello", &o), false).unwrap();
    let e = c.classes(&names, &[1.0, 1.0]).err().unwrap().to_string();
    assert!(
        e.contains("host.options.realtime") && e.contains("vidoe"),
        "{e}"
    );

    // An interval shorter than one request's service time.
    let mut core = Core::new(
        vec![slot("be", ClassKind::Interactive, 1.0, Fit::First)],
        opts(1),
    );
    core.arrive(0, req(1, 0, 0, None));
    let e = core
        .pump(
            0,
            &Linear {
                base: 5 * MS,
                per_cyl: 0,
            },
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("host.options.interval_ms"), "{e}");
}

/// With an estimator that does not depend on when a request starts (headway's default
/// mean-rotation τ), re-estimating the queue after a dispatch changes nothing: τ fixed at
/// insertion is already right.
#[test]
fn recomputing_tau_after_dispatch_changes_nothing_for_a_start_independent_estimator() {
    let est = Linear {
        base: 2 * MS,
        per_cyl: 25_000,
    };
    let mut core = Core::new(
        vec![
            slot("rt", ClassKind::RealTime, 1.0, Fit::First),
            slot("be", ClassKind::Interactive, 1.0, Fit::First),
        ],
        opts(1000),
    );
    for i in 0..40u64 {
        let d = (i % 3 == 0).then_some(900 * MS);
        core.arrive((i % 3 != 0) as usize, req(i, 0, (i * 7919 % 400) * 1000, d));
    }
    core.pump(0, &est).unwrap();
    let e = core.dispatch(0).unwrap();
    let before: Vec<(u64, SimTime)> = core.queue.iter().map(|e| (e.req.id, e.tau_ns)).collect();
    core.refresh_taus(e.tau_ns / 2, &est);
    let after: Vec<(u64, SimTime)> = core.queue.iter().map(|e| (e.req.id, e.tau_ns)).collect();
    assert_eq!(before, after);
    assert!(before.len() > 30);
}

/// Run `core` over `arrivals` with each dispatched request taking `num/den` of its τ (an
/// estimator that overstates service, as the mean-rotation τ does in a saturated SCAN-ordered
/// queue); returns (class, completion time) in completion order and the device's busy time
/// in each interval of `interval_ns` up to `until`.
fn drive_scaled(
    core: &mut Core,
    est: &dyn Estimator,
    arrivals: &[(usize, Request)],
    (num, den): (SimTime, SimTime),
    interval_ns: SimTime,
    until: SimTime,
) -> (Vec<(usize, SimTime)>, Vec<SimTime>) {
    let mut done = Vec::new();
    let mut busy_ns = vec![0; until.div_ceil(interval_ns) as usize];
    let mut next = 0;
    let mut busy: Option<(Entry, SimTime)> = None;
    let mut now = 0;
    loop {
        let t_arr = arrivals.get(next).map(|a| a.1.arrival_ns);
        let t_done = busy.as_ref().map(|b| b.1);
        let t_wake = if busy.is_none() { core.wake_at() } else { None };
        let Some(t) = [t_arr, t_done, t_wake].into_iter().flatten().min() else {
            break;
        };
        if t >= until {
            break;
        }
        now = now.max(t);
        if t_done == Some(t) {
            let (e, at) = busy.take().unwrap();
            core.complete(at);
            done.push((e.class, at));
        }
        while next < arrivals.len() && arrivals[next].1.arrival_ns == t {
            core.arrive(arrivals[next].0, arrivals[next].1);
            next += 1;
        }
        core.pump(now, est).unwrap();
        if busy.is_none() {
            if let Some(e) = core.dispatch(now) {
                let end = now + e.tau_ns * num / den;
                // Spread the service over the intervals it spans.
                let mut t = now;
                while t < end.min(until) {
                    let k = t / interval_ns;
                    let stop = ((k + 1) * interval_ns).min(end);
                    busy_ns[k as usize] += stop - t;
                    t = stop;
                }
                busy = Some((e, end));
            }
        }
    }
    (done, busy_ns)
}

/// A silent real-time class and two saturated best-effort classes (interactive and
/// throughput), 1:1:1, every request there at t = 0.
fn silent_realtime_core(priority: bool, early_start: bool) -> (Core, Vec<(usize, Request)>) {
    let core = Core::new(
        vec![
            slot("rt", ClassKind::RealTime, 1.0, Fit::First),
            slot("int", ClassKind::Interactive, 1.0, Fit::First),
            slot("thr", ClassKind::Throughput, 1.0, Fit::First),
        ],
        CoreOptions {
            realloc_priority: priority,
            early_start,
            ..opts(1000)
        },
    );
    let arrivals = (0..3000u64)
        .map(|i| {
            (
                1 + (i % 2) as usize,
                req(i, 0, (i * 7919 % 500) * 1000, None),
            )
        })
        .collect();
    (core, arrivals)
}

/// Work conservation (the paper: the disk never idles while requests are pending). With
/// estimates that overstate service by two thirds, the charges of (8) fill P well before
/// the interval's end; the disk must still be busy to within one request of every
/// interval, with early start off and under both reallocation rules.
#[test]
fn a_saturated_disk_does_not_idle_when_estimates_overstate_service() {
    let est = Linear {
        base: 5 * MS,
        per_cyl: 10_000,
    };
    let max_tau = 5 * MS + 10_000 * 500;
    for priority in [false, true] {
        let (mut core, arrivals) = silent_realtime_core(priority, false);
        let (_, busy) = drive_scaled(&mut core, &est, &arrivals, (6, 10), 1000 * MS, 3000 * MS);
        for (k, b) in busy.iter().enumerate() {
            assert!(
                *b + max_tau >= 1000 * MS,
                "priority {priority}: interval {k} busy only {} ms of 1000 with requests pending",
                b / MS
            );
        }
    }
}

/// Priority reallocation: the silent real-time class's third goes to the interactive class
/// (the stricter of the two blocked ones); weight-proportional reallocation splits it.
#[test]
fn priority_reallocation_gives_unused_time_to_the_stricter_class_first() {
    let est = Linear {
        base: 5 * MS,
        per_cyl: 0,
    };
    for priority in [false, true] {
        let (mut core, arrivals) = silent_realtime_core(priority, true);
        let (done, busy) =
            drive_scaled(&mut core, &est, &arrivals, (1, 1), 1000 * MS, 1000 * MS + 1);
        assert_eq!(busy[0], 1000 * MS, "work conserving");
        let served_ms = |c: usize| done.iter().filter(|d| d.0 == c).count() as u64 * 5;
        let (int, thr) = (served_ms(1), served_ms(2));
        assert_eq!(int + thr, 1000, "priority {priority}");
        if priority {
            // Its own third (330 ms of 5 ms requests) plus all of the real-time third.
            assert!(int >= 660, "interactive {int} ms, throughput {thr} ms");
            assert!(thr <= 340, "interactive {int} ms, throughput {thr} ms");
        } else {
            assert!(
                int.abs_diff(thr) <= 10,
                "interactive {int} ms, throughput {thr} ms"
            );
        }
    }
}
