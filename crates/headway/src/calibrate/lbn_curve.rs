//! The LBN-distance curve: the mean time of an access as a function of how far (in LBNs) it
//! is from the previous one, measured with random pairs. The cheapest model of a disk (the
//! anticipatory-scheduling paper's estimator): no geometry, no rotational position, so it
//! predicts the average rotational latency every time.

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::probe::Probe;
use crate::error::Result;
use crate::request::Op;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LbnCurve {
    /// (LBN distance, mean observed time of a one-sector access after a one-sector access
    /// of the same direction, ns), by distance; reads in `[0]`, writes in `[1]`.
    pub points: [Vec<(f64, f64)>; 2],
    /// Mean media time per sector over the disk (ns), for longer requests.
    pub sector_ns: f64,
}

impl LbnCurve {
    /// Linear interpolation in distance; flat beyond the ends.
    pub(crate) fn eval(&self, op: Op, distance: u64) -> f64 {
        let p = &self.points[op as usize];
        let x = distance as f64;
        let i = p.partition_point(|q| q.0 <= x);
        if i == 0 {
            return p[0].1;
        }
        if i == p.len() {
            return p[p.len() - 1].1;
        }
        let (x0, y0) = p[i - 1];
        let (x1, y1) = p[i];
        y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    }

    /// The least the curve gives at any distance of `distance` or more (both directions).
    pub(crate) fn floor(&self, distance: u64) -> f64 {
        let mut m = f64::INFINITY;
        for op in [Op::Read, Op::Write] {
            m = m.min(self.eval(op, distance));
            let p = &self.points[op as usize];
            let i = p.partition_point(|q| q.0 <= distance as f64);
            for q in &p[i..] {
                m = m.min(q.1);
            }
        }
        m
    }
}

/// Time `pairs` random pairs at each of a geometric series of distances.
pub(crate) fn measure_lbn_curve(
    probe: &mut Probe,
    pairs: usize,
    sector_ns: f64,
    rng: &mut Pcg64Mcg,
) -> Result<LbnCurve> {
    let cap = probe.capacity_sectors();
    let mut distances = vec![1u64];
    while *distances.last().unwrap() * 2 < cap {
        let d = *distances.last().unwrap();
        distances.push(d + (d / 2).max(1));
    }
    let mut curve = LbnCurve {
        sector_ns,
        ..Default::default()
    };
    for op in [Op::Read, Op::Write] {
        for &d in &distances {
            let mut sum = 0.0;
            for _ in 0..pairs {
                let a = rng.random_range(0..cap - d);
                let (a, b) = if rng.random::<bool>() {
                    (a, a + d)
                } else {
                    (a + d, a)
                };
                let t0 = probe.access(op, a, 1)?;
                sum += (probe.access(op, b, 1)? - t0) as f64;
            }
            curve.points[op as usize].push((d as f64, sum / pairs as f64));
        }
    }
    Ok(curve)
}
