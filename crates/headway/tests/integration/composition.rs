//! The composition layer: propose/commit on every built-in scheduler, host-made work, several
//! devices and workloads, statistics by dimension, and the composed example end to end.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use headway::config::{build_simulation, ExperimentConfig};
use headway::device::hdd::{Mechanics, Overheads};
use headway::predict::{OraclePredictor, Predictor};
use headway::request::{Op, Request};
use headway::sched::{
    build_scheduler, Decision, HostWork, Placement, SchedCtx, SchedSpec, Scheduler, SCHEDULER_NAMES,
};
use proptest::prelude::*;

fn toy_predictors() -> Vec<Box<dyn Predictor>> {
    let spec = toy_spec(0.0, 0.0);
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    vec![Box::new(OraclePredictor::new(
        mech,
        Overheads::from_spec(&spec),
        0,
    ))]
}

/// A scheduler by name; wrappers wrap SPTF.
fn build(name: &str, options: &str) -> Box<dyn Scheduler> {
    let mut spec = SchedSpec::named(name);
    spec.options = toml::from_str(options).unwrap();
    if headway::sched::scheduler_info(name).unwrap().wraps {
        spec.inner = Some(Box::new(SchedSpec::named("sptf")));
    }
    build_scheduler(&spec).unwrap()
}

#[derive(Clone, Debug)]
enum Step {
    Arrive {
        lbn: u64,
        sectors: u32,
        write: bool,
    },
    /// Ask for a proposal and decline it.
    Probe,
    /// Take what the scheduler does now (A: propose twice, commit; B: decide).
    Take,
    Advance(u64),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        4 => (0u64..TOY_CYL * 200 - 64, 1u32..64, any::<bool>())
            .prop_map(|(lbn, sectors, write)| Step::Arrive { lbn, sectors, write }),
        2 => Just(Step::Probe),
        4 => Just(Step::Take),
        1 => (1u64..50_000_000).prop_map(Step::Advance),
    ];
    prop::collection::vec(step, 1..80)
}

/// Run the steps on two copies of a scheduler: one through propose/commit, with declined
/// probes and double asks, the other through decide only. Returns the first difference.
fn compare(name: &str, options: &str, steps: &[Step]) -> std::result::Result<(), String> {
    let preds = toy_predictors();
    let (work_a, work_b) = (HostWork::new(), HostWork::new());
    let mut a = build(name, options);
    let mut b = build(name, options);
    let mut now = 1_000_000u64;
    let mut id = 0u64;
    let take = |a: &mut Box<dyn Scheduler>, b: &mut Box<dyn Scheduler>, now: u64| {
        let ca = SchedCtx::new(now, &preds, &[0], &[1]).with_work(&work_a);
        let cb = SchedCtx::new(now, &preds, &[0], &[1]).with_work(&work_b);
        let first = a.propose(&ca);
        let second = a.propose(&ca);
        if first != second {
            return Err(format!(
                "{name}: asked twice, proposed {first:?} then {second:?}"
            ));
        }
        match &first {
            Decision::Dispatch(c) => a
                .commit(c, Placement::Device, &ca)
                .map_err(|e| e.to_string())?,
            Decision::Serve(r) => a
                .commit(&headway::sched::serve_command(r), Placement::Diverted, &ca)
                .map_err(|e| e.to_string())?,
            _ => {}
        }
        let decided = b.decide(&cb);
        if first != decided {
            return Err(format!(
                "{name}: propose+commit gave {first:?}, decide gave {decided:?}"
            ));
        }
        Ok(first)
    };
    for s in steps {
        match s {
            Step::Arrive {
                lbn,
                sectors,
                write,
            } => {
                let op = if *write { Op::Write } else { Op::Read };
                let mut r = Request::new(now, *lbn, *sectors, op);
                r.id = id;
                // Every third request is one its issuer waits on (`priority` serves it first).
                r.marks.set_high_priority(id % 3 == 0);
                id += 1;
                let ca = SchedCtx::new(now, &preds, &[0], &[1]).with_work(&work_a);
                let cb = SchedCtx::new(now, &preds, &[0], &[1]).with_work(&work_b);
                a.on_arrival(r, &ca);
                b.on_arrival(r, &cb);
            }
            Step::Probe => {
                let ca = SchedCtx::new(now, &preds, &[0], &[1]).with_work(&work_a);
                if let Decision::Dispatch(c) = a.propose(&ca) {
                    a.declined(&c, &ca);
                }
            }
            Step::Take => {
                take(&mut a, &mut b, now)?;
            }
            Step::Advance(dt) => now += dt,
        }
        if a.pending() != b.pending() {
            return Err(format!(
                "{name}: pending {} vs {}",
                a.pending(),
                b.pending()
            ));
        }
    }
    // Drain: both must serve everything, identically.
    for _ in 0..10_000 {
        match take(&mut a, &mut b, now)? {
            Decision::Idle => break,
            Decision::WaitUntil(t) => now = t,
            _ => {}
        }
    }
    if a.pending() != 0 {
        return Err(format!("{name}: {} requests never left", a.pending()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// Proposals have no side effects: asking twice gives the same candidate, a declined
    /// proposal changes nothing, and proposing then committing is exactly `decide`.
    #[test]
    fn propose_then_commit_is_decide_for_every_scheduler(steps in steps()) {
        for &name in SCHEDULER_NAMES {
            prop_assert_eq!(compare(name, "", &steps), Ok(()));
        }
        prop_assert_eq!(compare("gstf", "group_requests = 3", &steps), Ok(()));
        prop_assert_eq!(compare("idle-scan", "sectors = 4000\nchunk_sectors = 300", &steps), Ok(()));
        prop_assert_eq!(compare("priority", "", &steps), Ok(()));
    }
}

fn config(text: &str) -> ExperimentConfig {
    ExperimentConfig::from_toml_str(text, None).unwrap()
}

fn config_error(text: &str) -> String {
    ExperimentConfig::from_toml_str(text, None)
        .expect_err("config should be refused")
        .to_string()
}

#[test]
fn host_made_work_never_reaches_a_workload_and_is_counted_once() {
    // A closed workload issues its next request on each completion: if a host-made read's
    // completion reached it, it would issue more than it was told to.
    let cfg = config(
        "seed = 3\n[drive]\nname = \"elite3\"\n[host]\nscheduler = \"idle-scan\"\n\
         [host.options]\nsectors = 20000\nchunk_sectors = 100\n[host.inner]\nscheduler = \"sptf\"\n\
         [workload]\nkind = \"closed\"\nprocesses = 3\nrequests = 600\nthink_ms = 15.0\n\
         [output]\nrecords = true\n",
    );
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let s = &r.summary;
    assert_eq!(s.requests, 600);
    assert_eq!(
        s.background_requests, 200,
        "20,000 sectors in 100-sector reads"
    );
    assert_eq!(s.host_made_requests, 200);
    let rec = r.records.unwrap();
    assert_eq!(rec.len(), 800);
    let mut ids = rec.id.clone();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 800, "every request, workload or host-made, once");
    let host = (0..rec.len()).filter(|&i| rec.origin[i] >= 0x8000).count();
    assert_eq!(host, 200);
    // The scanned sectors are exactly the region, each once.
    let mut scanned: Vec<(u64, u32)> = (0..rec.len())
        .filter(|&i| rec.origin[i] >= 0x8000)
        .map(|i| (rec.lbn[i], rec.sectors[i]))
        .collect();
    scanned.sort_unstable();
    let mut next = 0;
    for (lbn, n) in scanned {
        assert_eq!(lbn, next);
        next += n as u64;
    }
    assert_eq!(next, 20_000);
    let origins: Vec<(&str, u64)> = s
        .by_origin
        .iter()
        .map(|g| (g.name.as_str(), g.requests))
        .collect();
    assert_eq!(origins, [("workload", 600), ("idle-scan", 200)]);
    assert_eq!(r.host_origins, ["idle-scan"]);
}

#[test]
fn background_reads_only_use_idle_time() {
    // With the scan, the foreground's response times may grow by at most one background
    // read (non-preemptive), never more.
    let base = "seed = 5\n[drive]\nname = \"atlas10k\"\n[workload]\nrequests = 400\ninterarrival_ms = 12.0\n";
    let plain = config(&format!("{base}[host]\nscheduler = \"sptf\"\n"));
    let scan = config(&format!(
        "{base}[host]\nscheduler = \"idle-scan\"\n[host.options]\nsectors = 100000\n[host.inner]\nscheduler = \"sptf\"\n"
    ));
    let run = |c: &ExperimentConfig| build_simulation(c, None).unwrap().simulation.run().unwrap();
    let (p, s) = (run(&plain), run(&scan));
    assert_eq!(p.summary.requests, s.summary.requests);
    assert!(s.summary.background_requests > 0);
    assert!(s.summary.response.mean_ms >= p.summary.response.mean_ms);
    // Per request (not by the largest response, which SPTF's reordering of a different
    // history can move either way): no background read is dispatched while a foreground
    // request waits, so a foreground request waits behind at most the one background read
    // in service when it arrived (a 128-sector read over this drive's bus, about 26 ms).
    let with_records = config(&format!(
        "{base}[host]\nscheduler = \"idle-scan\"\n[host.options]\nsectors = 100000\n[host.inner]\nscheduler = \"sptf\"\n[output]\nrecords = true\n"
    ));
    let rec = run(&with_records).records.unwrap();
    let (bg, fg): (Vec<usize>, Vec<usize>) = (0..rec.len()).partition(|&i| rec.origin[i] >= 0x8000);
    assert!(!bg.is_empty());
    for &b in &bg {
        let at = rec.dispatch_ns[b];
        for &f in &fg {
            assert!(
                !(rec.arrival_ns[f] < at && at < rec.dispatch_ns[f]),
                "background read {} dispatched at {at} ns while request {} waited",
                rec.id[b],
                rec.id[f]
            );
        }
    }
}

#[test]
fn bad_compositions_are_keyed_errors() {
    let two = "[[devices]]\nname = \"a\"\n[[devices]]\nname = \"b\"\n";
    let e = config_error(&format!("{two}[[workloads]]\ndevice = \"c\"\n"));
    assert!(
        e.contains("workloads[0].device") && e.contains("no device is named `c`"),
        "{e}"
    );
    let e = config_error("[[devices]]\nname = \"a\"\n[[devices]]\nname = \"a\"\n");
    assert!(
        e.contains("devices[1].name") && e.contains("two devices"),
        "{e}"
    );
    let e = config_error("[host]\nscheduler = \"sptf\"\n[host.inner]\nscheduler = \"fcfs\"\n");
    assert!(
        e.contains("host.inner") && e.contains("does not wrap"),
        "{e}"
    );
    let e = config_error("[host]\nscheduler = \"idle-scan\"\n");
    assert!(
        e.contains("host.inner") && e.contains("wraps another"),
        "{e}"
    );
    let e = config_error("[[workloads]]\nrequests = 5\ndeadline_ms = 10.0\n");
    assert!(
        e.contains("workloads[0].deadline_ms") && e.contains("class"),
        "{e}"
    );
    let e = config_error("[drive]\nname = \"elite3\"\n[[devices]]\nname = \"a\"\n");
    assert!(e.contains("config: drive") || e.contains("[drive]"), "{e}");
    let e = config_error("[workload]\nrequests = 3\n[[workloads]]\nrequests = 4\n");
    assert!(e.contains("not both"), "{e}");
    let e = config_error("[workload]\nrequests = 3\nclass = \"x\"\n");
    assert!(e.contains("class") && e.contains("[[workloads]]"), "{e}");
    let e = config_error(&format!("{two}[host]\npredictor = \"calibrated\"\n"));
    assert!(e.contains("host.predictor"), "{e}");
    let e = config_error("[[workloads]]\nrequests = 3\nshare = 0\n");
    assert!(e.contains("share"), "{e}");
    let e = config_error(
        "[host]\nscheduler = \"idle-scan\"\n[host.inner]\nscheduler = \"aged-sptf\"\n[host.inner.options]\nage_weigth = 1\n",
    );
    assert!(e.contains("host.inner.options.age_weigth"), "{e}");
}

fn composed() -> ExperimentConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/composed.toml");
    ExperimentConfig::from_toml_file(&path).unwrap()
}

#[test]
fn the_composed_example_adds_up_in_every_section() {
    let r = build_simulation(&composed(), None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let s = &r.summary;
    assert_eq!(s.requests, 3000);
    let sum = |v: &[headway::stats::GroupSummary]| v.iter().map(|g| g.requests).sum::<u64>();
    assert_eq!(sum(&s.by_class), s.requests);
    assert_eq!(sum(&s.by_process), s.requests);
    assert_eq!(sum(&s.by_origin), s.requests + s.background_requests);
    assert_eq!(
        sum(&s.by_device),
        s.requests + s.background_requests - s.host_served_requests
    );
    let names =
        |v: &[headway::stats::GroupSummary]| v.iter().map(|g| g.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&s.by_class), ["interactive", "deadline"]);
    assert_eq!(names(&s.by_process), ["0", "1", "2", "3", "4"]);
    assert_eq!(names(&s.by_device), ["fast", "archive"]);
    assert_eq!(names(&s.by_origin), ["oltp", "logger", "idle-scan"]);
    // 400,000 sectors scanned on each device in 256-sector reads.
    assert_eq!(s.background_requests, 2 * 400_000u64.div_ceil(256));
    let class = |n: &str| s.by_class.iter().find(|g| g.name == n).unwrap();
    assert_eq!(class("interactive").requests, 2000);
    assert_eq!(class("deadline").requests, 1000);
    assert_eq!(
        class("interactive").deadline_misses,
        Some(0),
        "no deadlines there"
    );
    assert_eq!(class("deadline").deadline_misses, Some(s.deadline_misses));
    for d in &s.by_device {
        let u = d.utilisation.unwrap();
        assert!(u > 0.0 && u <= 1.0, "{}: {u}", d.name);
    }
    // The series covers both classes and accounts for every workload byte.
    let bytes: u64 = r.series.iter().map(|row| row.bytes).sum();
    assert_eq!(bytes, s.sectors * 512);
    assert!(r.series.iter().any(|row| row.class == "deadline"));
    // The JSON summary carries every section.
    let json = s.to_flat_json();
    for key in ["by_class", "by_process", "by_device", "by_origin"] {
        assert!(json[key].is_object(), "{key}");
    }
    assert_eq!(
        json["by_device"]["archive"]["requests"],
        s.by_device[1].requests
    );
}

#[test]
fn the_composed_example_is_deterministic() {
    let run = || {
        let r = build_simulation(&composed(), None)
            .unwrap()
            .simulation
            .run()
            .unwrap();
        r.summary.to_flat_json().to_string()
    };
    assert_eq!(run(), run());
}

#[test]
fn built_ins_that_only_act_with_a_free_slot_are_idle_when_the_device_is_full() {
    // The host skips asking such a scheduler while every device is full: it must then have
    // nothing to say, however many requests it holds.
    let preds = toy_predictors();
    let work = HostWork::new();
    let mut names: Vec<&str> = SCHEDULER_NAMES.to_vec();
    names.push("idle-scan");
    for name in names {
        let mut s = build(name, "");
        assert!(s.hints().acts_only_with_a_free_slot, "{name}");
        let full = SchedCtx::new(5_000_000, &preds, &[1], &[1]).with_work(&work);
        for i in 0..20u64 {
            let mut r = Request::new(0, i * 7919 % (TOY_CYL * 200), 8, Op::Read);
            r.id = i;
            s.on_arrival(r, &full);
        }
        assert_eq!(s.propose(&full), Decision::Idle, "{name}");
    }
}

#[test]
fn built_ins_that_promise_idle_when_empty_have_nothing_to_do_when_empty() {
    // The host skips asking such a scheduler while it holds no request: it must then have
    // nothing to say, before it has held any and after it has dispatched all it held.
    let preds = toy_predictors();
    let work = HostWork::new();
    for name in [
        "sptf",
        "stf",
        "satf",
        "gstf",
        "wstf",
        "aged-sptf",
        "sptf-sw",
    ] {
        assert!(build(name, "").hints().idle_when_empty, "{name}");
    }
    let cases = SCHEDULER_NAMES
        .iter()
        .map(|&n| (n, ""))
        .chain([("gstf", "group_requests = 3")]);
    for (name, options) in cases {
        let mut s = build(name, options);
        if !s.hints().idle_when_empty {
            continue;
        }
        let ctx = SchedCtx::new(5_000_000, &preds, &[0], &[1]).with_work(&work);
        assert_eq!(s.propose(&ctx), Decision::Idle, "{name}");
        for i in 0..10u64 {
            let mut r = Request::new(0, i * 7919 % (TOY_CYL * 200), 8, Op::Read);
            r.id = i;
            s.on_arrival(r, &ctx);
        }
        let mut dispatched = 0;
        while s.pending() > 0 {
            match s.decide(&ctx) {
                Decision::Dispatch(_) => dispatched += 1,
                d => panic!("{name}: {d:?} with {} pending", s.pending()),
            }
        }
        assert_eq!(dispatched, 10, "{name}");
        assert_eq!(s.propose(&ctx), Decision::Idle, "{name}");
    }
}

#[test]
fn thousands_of_processes_are_reported_together() {
    let many = config(
        "[drive]\nname = \"elite3\"\n[workload]\nkind = \"closed\"\nprocesses = 2000\nrequests = 4000\nthink_ms = 50.0\n",
    );
    let s = build_simulation(&many, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
        .summary;
    assert_eq!(s.by_process.len(), 1);
    assert_eq!(
        (s.by_process[0].name.as_str(), s.by_process[0].requests),
        ("all", 4000)
    );
    let few = config(
        "[drive]\nname = \"elite3\"\n[workload]\nkind = \"closed\"\nprocesses = 3\nrequests = 30\nthink_ms = 5.0\n",
    );
    let s = build_simulation(&few, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
        .summary;
    assert_eq!(s.by_process.len(), 3);
}
