//! The core on hand-built states: when it waits, how long, and what ends a wait.

use super::*;
use crate::predict::Predictor;
use crate::request::{HeadPosition, Phases};
use crate::sched::testkit::{options, predictor, CAPACITY};
use crate::sched::{scheduler_by_name, ProcessInfo, RunInfo};
use crate::time::NS_PER_US;

const US: SimTime = NS_PER_US;

struct Bench {
    s: Anticipatory,
    preds: Vec<Box<dyn Predictor>>,
    info: RunInfo,
    next_id: u64,
}

impl Bench {
    fn new(inner: &str, opts: &str, synchronous: bool) -> Self {
        let o = options(opts);
        let s = Anticipatory::from_options(
            &OptionReader::new("anticipatory", &o),
            scheduler_by_name(inner).unwrap(),
        )
        .unwrap();
        let p = ProcessInfo {
            workload: 0,
            class: 0,
            share: 1.0,
            synchronous,
        };
        Bench {
            s,
            preds: predictor(HeadPosition::default()),
            info: RunInfo {
                processes: vec![p.clone(), p],
                ..RunInfo::single()
            },
            next_id: 0,
        }
    }
    fn at<T>(&mut self, now: SimTime, f: impl FnOnce(&mut Anticipatory, &SchedCtx) -> T) -> T {
        let mut ctx = SchedCtx::new(now, &self.preds, &[0], &[1]);
        ctx.info = &self.info;
        f(&mut self.s, &ctx)
    }
    fn arrive(&mut self, now: SimTime, process: u32, lbn: u64) {
        let mut r = Request::new(now, lbn, 8, Op::Read);
        r.process = process;
        r.id = self.next_id;
        self.next_id += 1;
        self.at(now, |s, ctx| s.on_arrival(r, ctx));
    }
    fn decide(&mut self, now: SimTime) -> Decision {
        self.at(now, |s, ctx| s.decide(ctx))
    }
    fn complete(&mut self, now: SimTime, cmd: Command) {
        let end = cmd.end_lbn();
        let done = Completion {
            command: cmd,
            done_ns: now,
            // Every command takes 300 µs at the device (the virtual clocks charge this).
            phases: Phases {
                start_ns: now.saturating_sub(300 * US),
                ..Phases::default()
            },
            cache_hit: false,
            head: HeadPosition::default(),
            head_lbn: end,
        };
        self.at(now, |s, ctx| s.on_completion(&done, ctx));
    }
    /// Process 0 reads sequentially near LBN 0 with 200 µs thinktimes, `n` times; returns
    /// the last completion time.
    fn train(&mut self, n: u64) -> SimTime {
        self.train_from(0, n)
    }
    fn train_from(&mut self, start: SimTime, n: u64) -> SimTime {
        let mut now = start;
        for k in 0..n {
            self.arrive(now, 0, 8 * k);
            let Decision::Dispatch(cmd) = self.decide(now) else {
                panic!("expected a dispatch")
            };
            now += 300 * US;
            self.complete(now, cmd);
            if k + 1 < n {
                now += 200 * US;
            }
        }
        now
    }
}

fn far() -> u64 {
    CAPACITY - 1000
}

#[test]
fn waits_for_the_last_process_until_its_t95_and_arrivals_never_extend_it() {
    let mut b = Bench::new("sptf", "", true);
    let done = b.train(6);
    // Thinktime 200 µs: bucket [200, 300) µs, so T50 = T95 = 300 µs (upper edges).
    b.arrive(done + 10 * US, 1, far());
    let deadline = done + 300 * US;
    assert_eq!(b.decide(done + 10 * US), Decision::WaitUntil(deadline));
    b.arrive(done + 100 * US, 1, far() + 16);
    assert_eq!(
        b.decide(done + 100 * US),
        Decision::WaitUntil(deadline),
        "a re-evaluation keeps the original timeout"
    );
    // The anticipated read arrives: SPTF picks it, no wait.
    b.arrive(done + 200 * US, 0, 48);
    match b.decide(done + 200 * US) {
        Decision::Dispatch(c) => assert_eq!(c.requests[0].process, 0),
        d => panic!("expected LP's read, got {d:?}"),
    }
}

#[test]
fn the_timeout_dispatches_the_candidate() {
    let mut b = Bench::new("sptf", "", true);
    let done = b.train(6);
    b.arrive(done + 10 * US, 1, far());
    assert_eq!(
        b.decide(done + 10 * US),
        Decision::WaitUntil(done + 300 * US)
    );
    match b.decide(done + 300 * US) {
        Decision::Dispatch(c) => assert_eq!(c.requests[0].process, 1),
        d => panic!("expected the candidate at the timeout, got {d:?}"),
    }
}

#[test]
fn no_wait_before_min_samples_for_non_synchronous_processes_or_when_off() {
    let mut cold = Bench::new("sptf", "", true);
    let done = cold.train(3); // 2 thinktime samples < 3
    cold.arrive(done, 1, far());
    assert!(matches!(cold.decide(done), Decision::Dispatch(_)));

    let mut async_ = Bench::new("sptf", "", false);
    let done = async_.train(8);
    async_.arrive(done, 1, far());
    assert!(
        matches!(async_.decide(done), Decision::Dispatch(_)),
        "short-circuit: the process can issue without our completion"
    );

    let mut off = Bench::new("sptf", "heuristic = \"off\"", true);
    let done = off.train(8);
    off.arrive(done, 1, far());
    assert!(matches!(off.decide(done), Decision::Dispatch(_)));
}

#[test]
fn timer_granularity_rounds_the_timeout_up() {
    let mut b = Bench::new("sptf", "timer_granularity_us = 1000", true);
    let done = b.train(6);
    b.arrive(done, 1, far());
    let want = (done + 300 * US).div_ceil(1_000 * US) * 1_000 * US;
    assert_eq!(b.decide(done), Decision::WaitUntil(want));
}

#[test]
fn slice_idle_and_linux_as_wait_their_fixed_windows() {
    let mut b = Bench::new(
        "sptf",
        "heuristic = \"slice-idle\"\nslice_idle_ms = 2",
        true,
    );
    let done = b.train(2);
    b.arrive(done, 1, far());
    assert_eq!(b.decide(done), Decision::WaitUntil(done + 2_000 * US));

    let mut b = Bench::new("sptf", "heuristic = \"linux-as\"", true);
    let done = b.train(4);
    b.arrive(done, 1, far());
    assert_eq!(b.decide(done), Decision::WaitUntil(done + 6_000 * US));
    // A candidate within LP's mean seek distance is close: no anticipation.
    let mut b = Bench::new("sptf", "heuristic = \"linux-as\"", true);
    let done = b.train(4);
    b.arrive(done, 1, 8 * 4);
    assert!(matches!(b.decide(done), Decision::Dispatch(_)));
}

#[test]
fn stride_heuristic_waits_only_for_a_process_whose_clock_lags() {
    for (share, waits) in [(8.0, true), (2.0, false)] {
        let mut b = Bench::new("stride", "heuristic = \"stride\"", true);
        b.info.processes[0].share = share;
        // P1 (share 1) gets one 300 µs service first: its clock is 300 µs.
        b.arrive(0, 1, far());
        let Decision::Dispatch(cmd) = b.decide(0) else {
            panic!("expected a dispatch")
        };
        b.complete(300 * US, cmd);
        // P0: six 300 µs services, clock 1800 / share µs.
        let done = b.train_from(1_000 * US, 6);
        b.arrive(done, 1, far());
        let d = b.decide(done);
        assert_eq!(
            matches!(d, Decision::WaitUntil(_)),
            waits,
            "share {share}: {d:?}"
        );
    }
    // A thinktime above the threshold (3 ms) is never waited for.
    let mut b = Bench::new(
        "stride",
        "heuristic = \"stride\"\nthink_threshold_ms = 0.1",
        true,
    );
    b.info.processes[0].share = 8.0;
    let done = b.train(6);
    b.arrive(done, 1, far());
    assert!(matches!(b.decide(done), Decision::Dispatch(_)));
}

#[test]
fn combination_does_not_wait_for_a_process_beyond_the_relaxation() {
    // P0 alone has run up a 1.8 ms clock; P1 arrives with clock 0. Within R_v = 10 ms the
    // SPTF part waits for sequential P0; with R_v = 1 ms correction (b) forbids it.
    for (relax, waits) in [(10.0, true), (1.0, false)] {
        let mut b = Bench::new(
            "stride",
            &format!("heuristic = \"combination\"\nrelax_ms = {relax:?}"),
            true,
        );
        let done = b.train(6);
        b.arrive(done, 1, far());
        let d = b.decide(done);
        assert_eq!(
            matches!(d, Decision::WaitUntil(_)),
            waits,
            "R_v {relax}: {d:?}"
        );
    }
}

#[test]
fn bad_options_are_keyed_errors() {
    let err = |text: &str| {
        let o = options(text);
        Anticipatory::from_options(
            &OptionReader::new("anticipatory", &o),
            scheduler_by_name("sptf").unwrap(),
        )
        .err()
        .expect("refused")
        .to_string()
    };
    assert!(err("decay = -0.5").contains("host.options.decay"));
    assert!(err("histogram_range_ms = 0.05\nbucket_us = 100")
        .contains("host.options.histogram_range_ms"));
    assert!(err("seek_weight = 0").contains("host.options.seek_weight"));
    assert!(err("histogram_range_ms = 1e6\nbucket_us = 1").contains("host.options.bucket_us"));
    assert!(err("heuristic = \"sometimes\"").contains("host.options.heuristic"));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Random thinktimes, random interleaved arrivals of a far process: every wait ends
        /// by LP's completion + T95 (as the histogram says at the completion), and within
        /// one decision point every wait names the same time.
        #[test]
        fn a_wait_never_outlives_its_timeout(
            thinks_us in prop::collection::vec(0u64..3_000, 4..20),
            others_us in prop::collection::vec(0u64..4_000, 1..6),
            granularity in prop_oneof![Just(0u64), Just(500u64)],
        ) {
            let mut b = Bench::new("aged-sptf", &format!("timer_granularity_us = {granularity}"), true);
            let mut now = 0;
            let mut lbn = 0;
            for t in &thinks_us {
                b.arrive(now, 0, lbn);
                let Decision::Dispatch(cmd) = b.decide(now) else { panic!("expected a dispatch") };
                now += 300 * US;
                b.complete(now, cmd);
                let done = now;
                let t95 = b.s.process_stats(0).unwrap().think.percentile_ns(0.95);
                let mut first_wait = None;
                let mut offs: Vec<u64> = others_us.iter().map(|o| o * US).collect();
                offs.sort_unstable();
                for off in offs.iter().filter(|o| **o < t * US) {
                    b.arrive(done + off, 1, far());
                    match b.decide(done + off) {
                        Decision::WaitUntil(w) => {
                            let t95 = t95.expect("waits only with a T95");
                            let g = granularity * US;
                            let bound = if g == 0 { done + t95 } else { (done + t95).div_ceil(g) * g };
                            prop_assert!(w <= bound, "wait until {w} past {bound}");
                            prop_assert!(w > done + off);
                            prop_assert_eq!(*first_wait.get_or_insert(w), w);
                        }
                        Decision::Dispatch(cmd) => {
                            // The disk got other work: serve it, the decision point is over.
                            now = done + off + 300 * US;
                            b.complete(now, cmd);
                            first_wait = None;
                        }
                        d => prop_assert!(false, "unexpected {d:?}"),
                    }
                }
                now = now.max(done + t * US);
                lbn += 8;
            }
        }
    }
}
