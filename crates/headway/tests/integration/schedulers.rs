//! Scheduler orders on hand-built queues, against a toy drive whose cylinder of an LBN is
//! simply lbn / 400.

use crate::common;

use std::sync::Arc;

use common::*;
use headway::device::hdd::{Mechanics, Overheads};
use headway::predict::{OraclePredictor, Predictor};
use headway::request::{Command, Completion, HeadPosition, Op, Phases, Request};
use headway::sched::{
    scheduler_by_name, scheduler_with_options, Decision, SchedCtx, Scheduler, SCHEDULER_NAMES,
};

fn predictor_at(cyl: u32) -> Vec<Box<dyn Predictor>> {
    let spec = toy_spec(0.0, 0.0);
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let mut p = OraclePredictor::new(mech, Overheads::from_spec(&spec), 0);
    let lbn = cyl as u64 * TOY_CYL;
    let cmd = Command::single(Request::new(0, lbn, 1, Op::Read));
    p.observe(&Completion {
        command: cmd,
        done_ns: 0,
        phases: Phases::default(),
        cache_hit: false,
        head: HeadPosition {
            cylinder: cyl,
            surface: 0,
        },
        head_lbn: lbn + 1,
    });
    vec![Box::new(p)]
}

/// Feed requests on the given cylinders (ids in that order), then drain the scheduler,
/// returning the cylinder of each dispatched command; a pure seek shows as `seek:<cyl>`.
fn order(name: &str, head_cyl: u32, cylinders: &[u32]) -> Vec<String> {
    let preds = predictor_at(head_cyl);
    let mut s = scheduler_by_name(name).unwrap();
    let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
    for (i, &c) in cylinders.iter().enumerate() {
        let mut r = Request::new(0, c as u64 * TOY_CYL + 7, 8, Op::Read);
        r.id = i as u64;
        s.on_arrival(r, &ctx);
    }
    let mut out = vec![];
    for _ in 0..(cylinders.len() * 3) {
        match s.decide(&ctx) {
            Decision::Dispatch(cmd) => {
                let cyl = cmd.lbn / TOY_CYL;
                out.push(if cmd.requests.is_empty() {
                    format!("seek:{cyl}")
                } else {
                    cyl.to_string()
                });
            }
            Decision::Idle => break,
            Decision::WaitUntil(_) => panic!("{name} should be work-conserving"),
            Decision::Serve(_) => panic!("{name} has no host memory to serve from"),
        }
    }
    assert_eq!(s.pending(), 0, "{name} left requests behind");
    out
}

const Q: [u32; 5] = [10, 45, 60, 90, 52];

#[test]
fn fcfs_serves_in_arrival_order() {
    assert_eq!(order("fcfs", 50, &Q), ["10", "45", "60", "90", "52"]);
}

#[test]
fn sstf_serves_nearest_cylinder_from_the_last_dispatched() {
    assert_eq!(order("sstf", 50, &Q), ["52", "45", "60", "90", "10"]);
}

#[test]
fn look_reverses_when_nothing_lies_ahead() {
    assert_eq!(order("look", 50, &Q), ["52", "60", "90", "45", "10"]);
}

#[test]
fn scan_travels_to_the_edge_before_reversing() {
    // The toy drive's last cylinder is 999 (LBN 399_999 lives there).
    assert_eq!(
        order("scan", 50, &Q),
        ["52", "60", "90", "seek:999", "45", "10"]
    );
}

#[test]
fn cscan_returns_to_the_first_cylinder_without_serving() {
    assert_eq!(
        order("cscan", 50, &Q),
        ["52", "60", "90", "seek:999", "seek:0", "10", "45"]
    );
}

#[test]
fn clook_jumps_back_to_the_lowest_request() {
    assert_eq!(order("clook", 50, &Q), ["52", "60", "90", "10", "45"]);
}

#[test]
fn equal_cylinders_are_served_oldest_first() {
    for name in ["sstf", "look", "clook", "scan", "cscan", "vscan", "fscan"] {
        let preds = predictor_at(0);
        let mut s = scheduler_by_name(name).unwrap();
        let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
        for id in [5u64, 3, 9] {
            let mut r = Request::new(0, 20 * TOY_CYL + id, 1, Op::Read);
            r.id = id;
            s.on_arrival(r, &ctx);
        }
        let ids: Vec<u64> = std::iter::from_fn(|| match s.decide(&ctx) {
            Decision::Dispatch(c) => Some(c.requests.first().map(|r| r.id).unwrap_or(u64::MAX)),
            _ => None,
        })
        .filter(|&id| id != u64::MAX)
        .collect();
        assert_eq!(ids, [3, 5, 9], "{name}");
    }
}

#[test]
fn no_dispatch_without_a_free_slot() {
    let preds = predictor_at(0);
    for &name in SCHEDULER_NAMES {
        let mut s: Box<dyn Scheduler> = scheduler_by_name(name).unwrap();
        let busy = SchedCtx::new(0, &preds, &[1], &[1]);
        s.on_arrival(Request::new(0, 100, 8, Op::Read), &busy);
        assert_eq!(s.decide(&busy), Decision::Idle, "{name}");
        assert_eq!(s.pending(), 1);
    }
}

#[test]
fn unknown_scheduler_names_the_known_ones() {
    let err = scheduler_by_name("elevator9000").err().unwrap().to_string();
    assert!(
        err.contains("elevator9000") && err.contains("sptf") && err.contains("clook"),
        "{err}"
    );
}

/// Dispatch one request on `first` alone (to set the host's view of the arm), then feed
/// requests on `cylinders` and drain; returns the cylinders in dispatch order.
fn order_after(s: &mut dyn Scheduler, first: u32, cylinders: &[u32]) -> Vec<u32> {
    let preds = predictor_at(0);
    let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
    let mut id = 0u64;
    let mut feed = |s: &mut dyn Scheduler, c: u32| {
        let mut r = Request::new(0, c as u64 * TOY_CYL + 7, 8, Op::Read);
        r.id = id;
        id += 1;
        s.on_arrival(r, &ctx);
    };
    feed(s, first);
    let mut out = vec![];
    let next = |s: &mut dyn Scheduler| match s.decide(&ctx) {
        Decision::Dispatch(cmd) => Some((cmd.lbn / TOY_CYL) as u32),
        _ => None,
    };
    out.extend(next(s));
    for &c in cylinders {
        feed(s, c);
    }
    while let Some(c) = next(s) {
        out.push(c);
    }
    out
}

#[test]
fn lbn_schedulers_order_by_block_number_from_the_last_request() {
    let run = |name: &str| order_after(&mut *scheduler_by_name(name).unwrap(), 50, &Q);
    assert_eq!(run("sstf-lbn"), [50, 52, 45, 60, 90, 10]);
    assert_eq!(run("look-lbn"), [50, 52, 60, 90, 45, 10]);
    assert_eq!(run("clook-lbn"), [50, 52, 60, 90, 10, 45]);
}

/// `sweep_from = "start"` (DiskSim's `CYCLE_LBN`): a request at the first LBN of the one
/// just dispatched is next in the sweep; from its end (the default) it waits a cycle.
#[test]
fn clook_lbn_sweeps_from_the_last_request_start_when_asked() {
    let run = |opts: &str| {
        let opts = toml::from_str(opts).unwrap();
        order_after(
            &mut *scheduler_with_options("clook-lbn", &opts).unwrap(),
            50,
            &[60, 50, 10],
        )
    };
    assert_eq!(run(""), [50, 60, 10, 50]);
    assert_eq!(run("sweep_from = \"end\""), [50, 60, 10, 50]);
    assert_eq!(run("sweep_from = \"start\""), [50, 50, 60, 10]);
    let e = scheduler_with_options(
        "clook-lbn",
        &toml::from_str("sweep_from = \"middle\"").unwrap(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("sweep_from") && e.contains("\"start\""), "{e}");
}

/// `look-lbn` takes `sweep_from` as `clook-lbn` does (DiskSim's `ELEVATOR_LBN` keeps the
/// last request's first LBN): from the start, a request at the LBN just dispatched is
/// next in either direction; from the end (the default), going down it waits for the
/// sweep to come back up.
#[test]
fn look_lbn_sweeps_from_the_last_request_start_when_asked() {
    let run = |opts: &str, queue: &[u32]| {
        let opts = toml::from_str(opts).unwrap();
        order_after(
            &mut *scheduler_with_options("look-lbn", &opts).unwrap(),
            50,
            queue,
        )
    };
    assert_eq!(run("", &[60, 50, 10]), [50, 60, 50, 10]);
    assert_eq!(run("sweep_from = \"end\"", &[60, 50, 10]), [50, 60, 50, 10]);
    assert_eq!(
        run("sweep_from = \"start\"", &[60, 50, 10]),
        [50, 50, 60, 10]
    );
    // Going down: 60, then the older 30; from its end the other 30 is behind the arm.
    assert_eq!(run("", &[60, 30, 30, 10]), [50, 60, 30, 10, 30]);
    assert_eq!(
        run("sweep_from = \"start\"", &[60, 30, 30, 10]),
        [50, 60, 30, 30, 10]
    );
}

/// `sstf-lbn`'s `sweep_from` names where distances are measured from. Requests are 8
/// sectors at cylinder × 400 + 7: after the one on 50, from its end (50·400 + 15) the
/// request on 51 is 392 sectors away and the one on 49 is 408; from its start
/// (50·400 + 7) both are 400 away and the tie goes to the lower LBN.
#[test]
fn sstf_lbn_measures_from_the_last_request_start_when_asked() {
    let run = |opts: &str| {
        let opts = toml::from_str(opts).unwrap();
        order_after(
            &mut *scheduler_with_options("sstf-lbn", &opts).unwrap(),
            50,
            &[49, 51],
        )
    };
    assert_eq!(run(""), [50, 51, 49]);
    assert_eq!(run("sweep_from = \"end\""), [50, 51, 49]);
    assert_eq!(run("sweep_from = \"start\""), [50, 49, 51]);
    for name in ["sstf-lbn", "look-lbn"] {
        let e = scheduler_with_options(name, &toml::from_str("sweep_from = 3").unwrap())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("sweep_from"), "{name}: {e}");
    }
}

#[test]
fn vscan_spans_sstf_to_look() {
    let with_r = |r: f64| {
        let opts = toml::from_str(&format!("r = {r}")).unwrap();
        order_after(
            &mut *scheduler_with_options("vscan", &opts).unwrap(),
            50,
            &Q,
        )
    };
    assert_eq!(with_r(0.0), [50, 52, 45, 60, 90, 10]);
    assert_eq!(with_r(1.0), [50, 52, 60, 90, 45, 10]);
    // R = 0.2 of 1000 cylinders = 200: reversing never pays on this queue.
    assert_eq!(with_r(0.2), [50, 52, 60, 90, 45, 10]);
    let e = scheduler_with_options("vscan", &toml::from_str("r = 3").unwrap())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("host.options.r"), "{e}");
}

#[test]
fn fscan_freezes_each_batch() {
    let preds = predictor_at(50);
    let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
    let mut s = scheduler_by_name("fscan").unwrap();
    let mut id = 0;
    let mut feed = |s: &mut Box<dyn Scheduler>, c: u64| {
        let mut r = Request::new(0, c * TOY_CYL + 7, 8, Op::Read);
        r.id = id;
        id += 1;
        s.on_arrival(r, &ctx);
    };
    let next = |s: &mut Box<dyn Scheduler>| match s.decide(&ctx) {
        Decision::Dispatch(cmd) => Some(cmd.lbn / TOY_CYL),
        _ => None,
    };
    feed(&mut s, 10);
    feed(&mut s, 90);
    assert_eq!(next(&mut s), Some(90));
    // Arrivals while the first batch is served wait for the next batch, even one just
    // ahead of the arm (plain LOOK would take 95 before turning back for 10).
    feed(&mut s, 95);
    feed(&mut s, 60);
    let rest: Vec<_> = std::iter::from_fn(|| next(&mut s)).collect();
    assert_eq!(rest, [10, 60, 95]);
}
