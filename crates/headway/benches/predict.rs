//! The cost of one prediction (the paper: under 1 µs for the head position, about 8 µs per
//! access-time estimate on a 300 MHz Pentium II): each predictor's positioning estimate to a
//! prepared target (what SPTF's search calls) and its full estimate from an LBN.
//!
//! `cargo bench -p headway --bench predict`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use headway::calibrate::extract_cached;
use headway::device::catalog;
use headway::device::hdd::{Mechanics, Overheads};
use headway::engine::RngStreams;
use headway::link::Link;
use headway::predict::{
    Access, CalibratedPredictor, LbnCurvePredictor, Moment, Needs, OraclePredictor, Predictor,
    PredictorOptions,
};
use headway::request::{Command, Completion, HeadPosition, Op, Phases, Request};
use rand::Rng;

const N: usize = 1024;

fn predictors() -> Vec<(&'static str, Box<dyn Predictor>)> {
    let spec = catalog::lookup("st41601n").unwrap();
    let drive = extract_cached(&spec, Link::default(), &Default::default()).unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let mut v: Vec<(&'static str, Box<dyn Predictor>)> = vec![
        (
            "oracle",
            Box::new(OraclePredictor::new(mech, Overheads::from_spec(&spec), 0)),
        ),
        (
            "calibrated",
            Box::new(CalibratedPredictor::new(
                drive.clone(),
                &PredictorOptions::default(),
                0,
            )),
        ),
        ("lbn-curve", Box::new(LbnCurvePredictor::new(drive))),
    ];
    for (_, p) in &mut v {
        p.observe(&Completion {
            command: Command::single(Request::new(0, 1_000_000, 8, Op::Write)),
            done_ns: 5_000_000,
            phases: Phases::default(),
            cache_hit: false,
            head: HeadPosition {
                cylinder: 700,
                surface: 3,
            },
            head_lbn: 1_000_008,
        });
    }
    v
}

fn predict(c: &mut Criterion) {
    let mut rng = RngStreams::new(1).stream("bench");
    let reqs: Vec<(u64, Op)> = (0..N)
        .map(|_| {
            let op = if rng.random::<bool>() {
                Op::Read
            } else {
                Op::Write
            };
            (rng.random_range(0..2_600_000), op)
        })
        .collect();
    let mut g = c.benchmark_group("predict");
    g.throughput(Throughput::Elements(N as u64));
    for (name, p) in predictors() {
        let head = p.head();
        let targets: Vec<_> = reqs
            .iter()
            .map(|&(l, op)| p.target(Access::new(l, 8, op), Needs::Service))
            .collect();
        g.bench_function(format!("{name}/positioning_to"), |b| {
            b.iter(|| {
                let mut sum = 0u64;
                for (i, t) in targets.iter().enumerate() {
                    sum = sum.wrapping_add(p.positioning_to(head, 7_000_000 + i as u64, t));
                }
                black_box(sum)
            })
        });
        g.bench_function(format!("{name}/estimate"), |b| {
            b.iter(|| {
                let mut sum = 0u64;
                for (i, &(l, op)) in reqs.iter().enumerate() {
                    sum = sum.wrapping_add(
                        p.estimate(
                            Moment::new(head, 7_000_000 + i as u64),
                            Access::new(l, 8, op),
                        )
                        .service_ns(),
                    );
                }
                black_box(sum)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, predict);
criterion_main!(benches);
