//! Cello's CPU cost per insertion against the length of the scheduled queue (the paper's
//! Table 2 measured insert time on a 233 MHz Pentium II): one request of each class
//! inserted into a queue of R requests (half soft real time with a few distinct deadlines,
//! half best effort), with the Elite 3's oracle predictor estimating τ; and the slack of the
//! whole queue by segments against request by request.
//!
//! `cargo bench -p headway --bench cello_insert`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use headway::device::catalog;
use headway::device::hdd::{Mechanics, Overheads};
use headway::predict::{OraclePredictor, Predictor};
use headway::request::{Op, Request};
use headway::sched::cello::{
    Allocation, ClassKind, ClassSlot, Core, CoreOptions, Fit, Interactive, PredictorEstimator,
    RealTime, TauModel, Throughput,
};
use rand::Rng;

const LENGTHS: &[usize] = &[10, 50, 150, 500];
const S: u64 = 1_000_000_000;

fn slot(kind: ClassKind) -> ClassSlot {
    ClassSlot {
        name: format!("{kind:?}"),
        kind,
        weight: 1.0,
        pending: Default::default(),
        blocked: false,
        scheduler: match kind {
            ClassKind::RealTime => Box::new(RealTime),
            ClassKind::Interactive => Box::new(Interactive { fit: Fit::First }),
            ClassKind::Throughput => Box::new(Throughput),
        },
    }
}

fn setup(r: usize, p: &dyn Predictor, rng: &mut impl Rng) -> Core {
    let mut core = Core::new(
        vec![
            slot(ClassKind::RealTime),
            slot(ClassKind::Interactive),
            slot(ClassKind::Throughput),
        ],
        CoreOptions {
            // An interval long enough that allocation never stops an insertion.
            interval_ns: 1_000_000 * S,
            allocation: Allocation::Time,
            reallocate: true,
            realloc_priority: false,
            early_start: true,
            lazy: false,
        },
    );
    let est = PredictorEstimator::new(p, TauModel::MeanRotation);
    let cap = p.capacity_sectors() - 256;
    for i in 0..r as u64 {
        let mut q = Request::new(0, rng.random_range(0..cap), 16, Op::Read);
        q.id = i;
        let class = if i % 2 == 0 {
            q.deadline_ns = (1 + i % 4) * 1000 * S;
            0
        } else {
            1 + (i % 4 == 1) as usize
        };
        core.arrive(class, q);
        core.pump(0, &est).unwrap();
    }
    core
}

fn bench(c: &mut Criterion) {
    let spec = catalog::lookup("elite3").unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let p = OraclePredictor::new(mech, Overheads::from_spec(&spec), 0);
    let est = PredictorEstimator::new(&p, TauModel::MeanRotation);
    let mut rng = rand_pcg::Pcg64Mcg::new(7);
    let cap = p.capacity_sectors() - 256;
    let mut g = c.benchmark_group("cello_insert");
    for &r in LENGTHS {
        for (name, class) in [("realtime", 0usize), ("interactive", 1), ("throughput", 2)] {
            let mut core = setup(r, &p, &mut rng);
            let mut id = 1_000_000u64;
            g.bench_with_input(BenchmarkId::new(name, r), &r, |b, _| {
                b.iter(|| {
                    // Insert one, then take the head, so the queue stays R long.
                    let mut q = Request::new(0, rng.random_range(0..cap), 16, Op::Read);
                    id += 1;
                    q.id = id;
                    if class == 0 {
                        q.deadline_ns = 2500 * S;
                    }
                    core.arrive(class, q);
                    core.pump(0, &est).unwrap();
                    black_box(core.dispatch(0));
                    core.complete(0);
                })
            });
        }
        let core = setup(r, &p, &mut rng);
        g.bench_with_input(BenchmarkId::new("slack_by_segment", r), &r, |b, _| {
            b.iter(|| black_box(core.queue.slacks(0, 2000 * S).at(r / 2)))
        });
        g.bench_with_input(BenchmarkId::new("slack_per_request", r), &r, |b, _| {
            b.iter(|| black_box(core.queue.slacks_per_request(0, 2000 * S)[r / 2]))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
