//! The live simulation against the batch run: a trace's requests submitted through
//! `headway::live::Live` complete at the same nanoseconds, in the same order, with the same
//! record rows as `headway run` of the trace, on every built-in scheduler, however the
//! submissions and the clock's steps interleave.

use headway::config::{build_simulation, ExperimentConfig};
use headway::live::{Live, LiveRequest};
use headway::request::HOST_ORIGIN_BASE;
use headway::sched::{SchedulerInfo, SCHEDULERS};
use headway::stats::RequestRecords;
use headway::Op;
use proptest::prelude::*;

use crate::common::scratch;

/// A DiskSim ASCII trace of `n` requests: random places and sizes, reads and writes,
/// arrivals about 4 ms apart with one in five at the same microsecond as the one before
/// (ties between arrivals and the drive's events are where an order could differ).
fn trace_text(n: usize, seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9e3779b97f4a7c15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut t_us = 0u64;
    let mut text = String::new();
    for _ in 0..n {
        if next() % 5 != 0 {
            t_us += next() % 8000;
        }
        let lbn = next() % 1_500_000;
        let sectors = [1, 8, 16, 64][(next() % 4) as usize];
        let read = next() % 3 != 0;
        text += &format!(
            "{}.{:03} 0 {lbn} {sectors} {}\n",
            t_us / 1000,
            t_us % 1000,
            read as u8
        );
    }
    text
}

/// The configuration replaying `trace` under `sched` (a wrapper around SPTF; the
/// flash-backed host on a platter and its flash).
fn config(sched: &SchedulerInfo, trace: &std::path::Path) -> String {
    let host = if sched.wraps {
        format!(
            "[host]\nscheduler = \"{}\"\n[host.inner]\nscheduler = \"{}\"\n",
            sched.name,
            if sched.spans_devices { "clook" } else { "sptf" }
        )
    } else {
        format!("[host]\nscheduler = \"{}\"\n", sched.name)
    };
    let (devices, device_key) = if sched.spans_devices {
        (
            "[[devices]]\nname = \"platter\"\ndrive = \"ek1000\"\nqueue_depth = 1\n\
             [[devices]]\nname = \"nvcache\"\ndrive = \"flash\"\nqueue_depth = 1\n\
             flash = { logical_bytes = 134217728 }\n",
            "device = \"platter\"\n",
        )
    } else if sched.name == "freeblock" {
        // Its background read waits at the drive beside the foreground's command.
        (
            "[[devices]]\nname = \"disk\"\ndrive = \"elite3\"\nqueue_depth = 2\n\
             max_outstanding = 2\n",
            "",
        )
    } else {
        ("[[devices]]\nname = \"disk\"\ndrive = \"elite3\"\n", "")
    };
    format!(
        "seed = 11\n{devices}\n[[workloads]]\nkind = \"trace\"\npath = \"{}\"\n\
         format = \"disksim-ascii\"\n{device_key}\n{host}\n[output]\nrecords = true\n",
        trace.display()
    )
}

fn batch(cfg: &ExperimentConfig) -> RequestRecords {
    build_simulation(cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
        .records
        .unwrap()
}

/// The workload's requests of a run, in arrival order, as a co-simulator submits them
/// (tagged with their place in that order).
fn submissions(rec: &RequestRecords) -> Vec<LiveRequest> {
    let mut rows: Vec<usize> = (0..rec.len())
        .filter(|&i| rec.origin[i] < HOST_ORIGIN_BASE)
        .collect();
    rows.sort_unstable_by_key(|&i| rec.id[i]);
    rows.iter()
        .enumerate()
        .map(|(k, &i)| {
            let op = if rec.is_read[i] { Op::Read } else { Op::Write };
            LiveRequest::new(op, rec.lbn[i], rec.sectors[i], rec.arrival_ns[i])
                .device(0)
                .process(rec.process[i])
                .class(rec.class[i])
                .tag(k as u64)
        })
        .collect()
}

/// How a co-simulator drives the live run: `steps[k]` is how far the clock moves at step
/// k (cycled; 0: to the next arrival not yet reached), and `ahead` how many requests are
/// submitted beyond those arriving by then.
struct Pattern {
    steps_ns: Vec<u64>,
    ahead: usize,
}

/// Drive a live run of `cfg` with `reqs`; its records, and the tags completed, in order.
fn live(cfg: &ExperimentConfig, reqs: &[LiveRequest], p: &Pattern) -> (RequestRecords, usize) {
    let mut live = Live::from_config(cfg).unwrap();
    let mut submitted = 0;
    let mut completed = Vec::new();
    let mut step = 0;
    while submitted < reqs.len() {
        let to = match p.steps_ns[step % p.steps_ns.len()] {
            0 => reqs
                .iter()
                .map(|r| r.at_ns)
                .find(|&t| t > live.now_ns())
                .unwrap_or(live.now_ns()),
            ns => live.now_ns() + ns,
        };
        step += 1;
        // Everything arriving by `to` is submitted before the clock gets there.
        let due = reqs.iter().take_while(|r| r.at_ns <= to).count();
        let upto = (due + p.ahead).min(reqs.len()).max(submitted);
        for r in &reqs[submitted..upto] {
            live.submit(*r).unwrap();
        }
        submitted = upto;
        if submitted == reqs.len() {
            live.close();
        }
        completed.extend(live.advance_to(to).unwrap());
    }
    completed.extend(live.finish().unwrap());
    assert_eq!(live.outstanding(), 0);
    for c in &completed {
        let r = &reqs[c.tag as usize];
        assert_eq!((c.id, c.lbn, c.arrival_ns), (c.tag, r.lbn, r.at_ns));
        assert_eq!(c.response_ns(), c.completion_ns - c.arrival_ns);
    }
    let n = completed.len();
    (live.records(), n)
}

fn assert_same(sched: &str, batch: &RequestRecords, live: &RequestRecords) {
    assert_eq!(batch.len(), live.len(), "{sched}: rows");
    let cols = |r: &RequestRecords, i: usize| {
        (
            r.id[i],
            r.arrival_ns[i],
            r.dispatch_ns[i],
            r.start_ns[i],
            r.done_ns[i],
            r.lbn[i],
            r.device[i],
            r.origin[i],
            r.cache_hit[i],
        )
    };
    for i in 0..batch.len() {
        assert_eq!(cols(batch, i), cols(live, i), "{sched}: row {i}");
    }
    assert_eq!(batch, live, "{sched}");
}

/// The patterns every scheduler is checked with: the clock to each arrival in turn, in
/// strides of several lengths, and every request submitted at the start.
fn patterns() -> Vec<Pattern> {
    vec![
        Pattern {
            steps_ns: vec![0],
            ahead: 0,
        },
        Pattern {
            steps_ns: vec![25_000_000, 3_000_001, 700_000],
            ahead: 2,
        },
        Pattern {
            steps_ns: vec![50_000_000],
            ahead: usize::MAX / 2,
        },
    ]
}

#[test]
fn every_scheduler_completes_a_trace_as_the_batch_run_does() {
    let dir = scratch("live");
    let trace = dir.join("trace.txt");
    std::fs::write(&trace, trace_text(120, 5)).unwrap();
    assert!(SCHEDULERS.len() >= 30, "the registry lists the built-ins");
    let mut failed = Vec::new();
    for sched in SCHEDULERS {
        let cfg = ExperimentConfig::from_toml_str(&config(sched, &trace), None)
            .unwrap_or_else(|e| panic!("{}: {e}", sched.name));
        if let Err(e) = build_simulation(&cfg, None) {
            failed.push(format!("{}: {e}", sched.name));
            continue;
        }
        let want = batch(&cfg);
        let reqs = submissions(&want);
        assert_eq!(reqs.len(), 120, "{}", sched.name);
        for p in patterns() {
            let (got, completed) = live(&cfg, &reqs, &p);
            assert_eq!(completed, 120, "{}", sched.name);
            assert_same(sched.name, &want, &got);
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// Two drives in one clock: each request is served by the device it names, and however
/// the clock steps, the records are the same.
#[test]
fn two_devices_serve_their_own_requests_whatever_the_steps() {
    let cfg = ExperimentConfig::from_toml_str(
        "seed = 2\n[[devices]]\nname = \"a\"\ndrive = \"elite3\"\n\
         [[devices]]\nname = \"b\"\ndrive = \"ek1000\"\n[host]\nscheduler = \"sptf\"\n",
        None,
    )
    .unwrap();
    let dir = scratch("live-two");
    let trace = dir.join("trace.txt");
    std::fs::write(&trace, trace_text(90, 9)).unwrap();
    let sched = SCHEDULERS.iter().find(|s| s.name == "fcfs").unwrap();
    let one = ExperimentConfig::from_toml_str(&config(sched, &trace), None).unwrap();
    let reqs: Vec<LiveRequest> = submissions(&batch(&one))
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.device((i % 3 % 2) as u16))
        .collect();
    let mut first = None;
    for p in patterns() {
        let (got, n) = live(&cfg, &reqs, &p);
        assert_eq!(n, reqs.len());
        for i in 0..got.len() {
            let want = reqs
                .iter()
                .find(|r| r.at_ns == got.arrival_ns[i] && r.lbn == got.lbn[i]);
            assert_eq!(want.map(|r| r.device), Some(got.device[i]), "row {i}");
        }
        match &first {
            None => first = Some(got),
            Some(f) => assert_same("two devices", f, &got),
        }
    }
    let f = first.unwrap();
    assert!(f.device.contains(&0) && f.device.contains(&1));
}

#[test]
fn refuses_the_past_a_missing_device_and_a_request_beyond_the_drive() {
    let cfg = ExperimentConfig::from_toml_str("[drive]\nname = \"elite3\"\n", None).unwrap();
    let mut live = Live::from_config(&cfg).unwrap();
    live.advance_to(1_000).unwrap();
    let past = live
        .submit(LiveRequest::new(Op::Read, 0, 8, 999))
        .unwrap_err();
    assert!(past.to_string().contains("before now"), "{past}");
    let dev = live
        .submit(LiveRequest::new(Op::Read, 0, 8, 2_000).device(1))
        .unwrap_err();
    assert!(dev.to_string().contains("device 1"), "{dev}");
    let beyond = live
        .submit(LiveRequest::new(Op::Read, u64::MAX / 2, 8, 2_000))
        .unwrap_err();
    assert!(beyond.to_string().contains("does not fit"), "{beyond}");
    let back = live.advance_to(10).unwrap_err();
    assert!(back.to_string().contains("only goes forward"), "{back}");
    // Nothing was submitted by the refusals.
    assert_eq!(live.next_event_ns(), None);
    assert!(live.finish().unwrap().is_empty());
}

#[test]
fn out_of_order_submissions_arrive_in_time_order() {
    let cfg = ExperimentConfig::from_toml_str("[drive]\nname = \"elite3\"\n", None).unwrap();
    let mut live = Live::from_config(&cfg).unwrap();
    let late = live
        .submit(LiveRequest::new(Op::Read, 5_000, 8, 50_000_000))
        .unwrap();
    let early = live
        .submit(LiveRequest::new(Op::Read, 900_000, 8, 0))
        .unwrap();
    assert_eq!(live.next_event_ns(), Some(0));
    let done = live.finish().unwrap();
    let ids: Vec<u64> = done.iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![early, late]);
    assert_eq!(done[1].arrival_ns, 50_000_000);
    assert_eq!(live.summary().requests, 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// However the clock's steps and the submissions interleave, the completions are the
    /// batch run's.
    #[test]
    fn any_interleaving_gives_the_batch_completions(
        steps in proptest::collection::vec(0u64..40_000_000, 1..6),
        ahead in 0usize..5,
        seed in 1u64..1000,
        which in 0usize..4,
    ) {
        let dir = scratch("live-prop");
        let trace = dir.join("trace.txt");
        std::fs::write(&trace, trace_text(60, seed)).unwrap();
        let name = ["sptf", "anticipatory", "freeblock", "flash-backed"][which];
        let sched = SCHEDULERS.iter().find(|s| s.name == name).unwrap();
        let cfg = ExperimentConfig::from_toml_str(&config(sched, &trace), None).unwrap();
        let want = batch(&cfg);
        let reqs = submissions(&want);
        let (got, _) = live(&cfg, &reqs, &Pattern { steps_ns: steps, ahead });
        assert_same(name, &want, &got);
    }
}

/// A trace per device of a two-device configuration, each workload naming its device: the
/// workload's requests submitted through the live run, each to the device the batch run
/// served it on, complete at the batch run's nanoseconds, in its order, row for row. Two
/// columns differ by design: a live run's requests all come from its feed, its one
/// workload, so their origin is 0 where the batch run names the second trace 1, and the
/// batch run reads one record ahead in each of its two traces, so it numbers its requests
/// in another order than a single feed does.
#[test]
fn a_two_device_trace_replay_equals_the_batch_run() {
    let dir = scratch("live-two-batch");
    let (ta, tb) = (dir.join("a.txt"), dir.join("b.txt"));
    std::fs::write(&ta, trace_text(60, 21)).unwrap();
    std::fs::write(&tb, trace_text(60, 22)).unwrap();
    let text = format!(
        "seed = 4\n[[devices]]\nname = \"a\"\ndrive = \"elite3\"\n\
         [[devices]]\nname = \"b\"\ndrive = \"ek1000\"\n\
         [[workloads]]\nkind = \"trace\"\npath = \"{}\"\nformat = \"disksim-ascii\"\n\
         device = \"a\"\nclass = \"ca\"\n\
         [[workloads]]\nkind = \"trace\"\npath = \"{}\"\nformat = \"disksim-ascii\"\n\
         device = \"b\"\nclass = \"cb\"\n\
         [host]\nscheduler = \"sptf\"\n[output]\nrecords = true\n",
        ta.display(),
        tb.display()
    );
    let cfg = ExperimentConfig::from_toml_str(&text, None).unwrap();
    let want = batch(&cfg);
    assert!(want.origin.contains(&1), "both traces ran");
    // In arrival order (the batch ids interleave the two traces by their read-ahead).
    let mut rows: Vec<usize> = (0..want.len()).collect();
    rows.sort_by_key(|&i| (want.arrival_ns[i], want.origin[i], want.id[i]));
    let reqs: Vec<LiveRequest> = rows
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let op = if want.is_read[i] { Op::Read } else { Op::Write };
            LiveRequest::new(op, want.lbn[i], want.sectors[i], want.arrival_ns[i])
                .device(want.device[i])
                .process(want.process[i])
                .class(want.class[i])
                .tag(k as u64)
        })
        .collect();
    assert_eq!(reqs.len(), 120);
    assert!(want.device.contains(&0) && want.device.contains(&1));
    let cols = |r: &RequestRecords, i: usize| {
        (
            r.arrival_ns[i],
            r.dispatch_ns[i],
            r.start_ns[i],
            r.done_ns[i],
            r.lbn[i],
            r.sectors[i],
            r.is_read[i],
            r.device[i],
            r.class[i],
            r.process[i],
            r.cache_hit[i],
        )
    };
    for p in patterns() {
        let (got, completed) = live(&cfg, &reqs, &p);
        assert_eq!(completed, 120);
        assert_eq!(got.len(), want.len());
        for i in 0..want.len() {
            assert_eq!(cols(&want, i), cols(&got, i), "row {i}");
            assert_eq!(got.origin[i], 0, "row {i}");
        }
    }
}
