use rand::Rng;
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;

use super::config::WorkloadConfig;
use super::{Arrivals, Workload};
use crate::error::Result;
use crate::request::{Op, Request};
use crate::time::{ms_to_ns, SimTime};

/// PLACEHOLDER: Poisson arrivals of fixed-size requests uniform over the disk.
pub struct OpenUniform {
    left: u64,
    t: f64,
    exp: Exp<f64>,
    size: u32,
    read_fraction: f64,
    blocks: u64,
    rng: Pcg64Mcg,
}

impl OpenUniform {
    pub fn new(cfg: &WorkloadConfig, capacity: u64, rng: Pcg64Mcg) -> Self {
        OpenUniform {
            left: cfg.requests,
            t: 0.0,
            exp: Exp::new(1.0 / ms_to_ns(cfg.interarrival_ms) as f64).unwrap(),
            size: cfg.size_sectors,
            read_fraction: cfg.read_fraction,
            blocks: capacity / cfg.size_sectors as u64,
            rng,
        }
    }
    fn next(&mut self, out: &mut Arrivals) {
        if self.left == 0 {
            return;
        }
        self.left -= 1;
        self.t += self.exp.sample(&mut self.rng);
        let lbn = self.rng.random_range(0..self.blocks) * self.size as u64;
        let op = if self.rng.random::<f64>() < self.read_fraction {
            Op::Read
        } else {
            Op::Write
        };
        out.push(Request::new(self.t as SimTime, lbn, self.size, op));
    }
}

impl Workload for OpenUniform {
    fn name(&self) -> &str {
        "open"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.next(out);
        Ok(())
    }
    fn on_arrival(&mut self, _req: &Request, out: &mut Arrivals) -> Result<()> {
        self.next(out);
        Ok(())
    }
    fn on_completion(&mut self, _req: &Request, _now: SimTime, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
}
