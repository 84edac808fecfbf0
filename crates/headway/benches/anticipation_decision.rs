//! The anticipation core's CPU cost per decision point (the paper's overhead: timer and
//! statistics work, visible as a slightly slower CPU-bound phase): P synchronous sequential
//! readers in far-apart regions, one read each outstanding, wrapped around aged SPTF with the
//! cost-benefit heuristic and the IBM 18ES's oracle predictor. One iteration is one decision
//! point: a read completes (statistics, timeout armed), the core decides with the other
//! readers' requests pending (the cost-benefit test: positioning estimates), the reader's
//! next read arrives 100 µs later (histogram and seek-distance update) and is dispatched.
//! With `heuristic = "off"` the same cycle costs the wrapper's pass-through alone.
//!
//! `cargo bench -p headway --bench anticipation_decision`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use headway::device::catalog;
use headway::device::hdd::{Mechanics, Overheads};
use headway::predict::{OraclePredictor, Predictor};
use headway::request::{Command, Completion, HeadPosition, Op, Phases, Request};
use headway::sched::{build_scheduler, Decision, ProcessInfo, RunInfo, SchedCtx, SchedSpec};

const PROCESSES: &[u32] = &[2, 8, 32];
const THINK_NS: u64 = 100_000;
const SERVICE_NS: u64 = 2_000_000;

/// The closed loop of P readers around one scheduler.
struct Loop {
    sched: Box<dyn headway::sched::Scheduler>,
    preds: Vec<Box<dyn Predictor>>,
    info: RunInfo,
    next_lbn: Vec<u64>,
    in_flight: Option<Command>,
    now: u64,
    next_id: u64,
}

impl Loop {
    fn new(heuristic: &str, processes: u32, p: OraclePredictor) -> Self {
        let spec: SchedSpec = toml::from_str(&format!(
            "scheduler = \"anticipatory\"\n[options]\nheuristic = \"{heuristic}\"\n\
             [inner]\nscheduler = \"aged-sptf\"\n"
        ))
        .unwrap();
        let cap = p.capacity_sectors();
        let proc_info = ProcessInfo {
            workload: 0,
            class: 0,
            share: 1.0,
            synchronous: true,
        };
        let mut l = Loop {
            sched: build_scheduler(&spec).unwrap(),
            preds: vec![Box::new(p)],
            info: RunInfo {
                devices: vec!["disk".into()],
                classes: vec!["default".into()],
                workloads: vec!["readers".into()],
                processes: vec![proc_info; processes as usize],
            },
            next_lbn: (0..processes as u64)
                .map(|i| cap / 8 + i * (cap / 2 / processes as u64))
                .collect(),
            in_flight: None,
            now: 0,
            next_id: 0,
        };
        for p in 0..processes {
            l.arrive(p);
        }
        l.decide();
        // Teach every reader's statistics (the cold start needs 3 samples).
        for _ in 0..64 * processes {
            l.cycle();
        }
        l
    }

    fn ctx<T>(&mut self, f: impl FnOnce(&mut dyn headway::sched::Scheduler, &SchedCtx) -> T) -> T {
        let outstanding = [self.in_flight.is_some() as usize];
        let mut ctx = SchedCtx::new(self.now, &self.preds, &outstanding, &[1]);
        ctx.info = &self.info;
        f(self.sched.as_mut(), &ctx)
    }

    fn arrive(&mut self, process: u32) {
        let lbn = &mut self.next_lbn[process as usize];
        let mut r = Request::new(self.now, *lbn, 8, Op::Read);
        *lbn += 8;
        r.process = process;
        r.id = self.next_id;
        self.next_id += 1;
        self.ctx(|s, ctx| s.on_arrival(r, ctx));
    }

    fn decide(&mut self) {
        if self.in_flight.is_none() {
            if let Decision::Dispatch(cmd) = self.ctx(|s, ctx| s.decide(ctx)) {
                self.in_flight = Some(cmd);
            }
        }
    }

    /// One decision point.
    fn cycle(&mut self) {
        self.now += SERVICE_NS;
        let Some(cmd) = self.in_flight.take() else {
            self.decide();
            return;
        };
        let process = cmd.requests[0].process;
        let head_lbn = cmd.end_lbn();
        let done = Completion {
            command: cmd,
            done_ns: self.now,
            phases: Phases {
                start_ns: self.now - SERVICE_NS,
                ..Phases::default()
            },
            cache_hit: false,
            head: HeadPosition::default(),
            head_lbn,
        };
        self.ctx(|s, ctx| s.on_completion(&done, ctx));
        self.decide();
        self.now += THINK_NS;
        self.arrive(process);
        self.decide();
    }
}

fn bench(c: &mut Criterion) {
    let spec = catalog::lookup("ibm18es").unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let oracle = || OraclePredictor::new(mech.clone(), Overheads::from_spec(&spec), 0);
    let mut g = c.benchmark_group("anticipation_decision");
    for &n in PROCESSES {
        for heuristic in ["cost-benefit", "off"] {
            let mut l = Loop::new(heuristic, n, oracle());
            g.bench_with_input(BenchmarkId::new(heuristic, n), &n, |b, _| {
                b.iter(|| {
                    l.cycle();
                    black_box(l.now)
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
