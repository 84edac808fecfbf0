//! Bursty open workload: a two-state Markov-modulated Poisson process (ON/OFF). The source
//! alternates between an ON state (arrivals at `on_rate_iops`) and an OFF state (arrivals at
//! `off_rate_iops`, often 0), each lasting an exponentially distributed time. Desktop and
//! lab-machine disk traffic looks like this: long quiet spells, then bursts that build deep
//! queues. It stands in for the rotational-scheduling paper's lab traces, which are lost.

use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;

use super::locality::Cursor;
use super::shape::{RequestShape, ShapeConfig, DEFAULT_REQUESTS};
use super::{Arrivals, Workload};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::Request;
use crate::table_keys::key_group;
use crate::time::{SimTime, NS_PER_MS, NS_PER_S};

/// `kind = "bursty"`.
#[derive(Clone, Debug, PartialEq)]
pub struct BurstyConfig {
    /// Requests issued in total.
    pub requests: u64,
    /// Arrival rate while ON, requests per second.
    pub on_rate_iops: f64,
    /// Arrival rate while OFF (default 0).
    pub off_rate_iops: f64,
    /// Mean length of an ON period, milliseconds.
    pub on_mean_ms: f64,
    /// Mean length of an OFF period, milliseconds.
    pub off_mean_ms: f64,
    /// Size, direction and place of each request (keys at the top level of the table).
    pub shape: ShapeConfig,
}

key_group! {
    /// The keys of a bursty workload's table besides `requests` and the shape's.
    pub(crate) struct BurstyKeys {
        on_rate_iops: f64,
        off_rate_iops: f64,
        on_mean_ms: f64,
        off_mean_ms: f64,
    }
}

impl BurstyConfig {
    pub(crate) fn from_keys(
        keys: BurstyKeys,
        requests: Option<u64>,
        shape: ShapeConfig,
    ) -> std::result::Result<Self, String> {
        let need = |k: &str, v: Option<f64>| {
            v.ok_or_else(|| format!("missing field `{k}` (kind = \"bursty\" needs it)"))
        };
        Ok(BurstyConfig {
            requests: requests.unwrap_or(DEFAULT_REQUESTS),
            on_rate_iops: need("on_rate_iops", keys.on_rate_iops)?,
            off_rate_iops: keys.off_rate_iops.unwrap_or(0.0),
            on_mean_ms: need("on_mean_ms", keys.on_mean_ms)?,
            off_mean_ms: need("off_mean_ms", keys.off_mean_ms)?,
            shape,
        })
    }

    /// Long-run mean arrival rate (requests per second).
    pub(crate) fn mean_rate_iops(&self) -> f64 {
        (self.on_rate_iops * self.on_mean_ms + self.off_rate_iops * self.off_mean_ms)
            / (self.on_mean_ms + self.off_mean_ms)
    }
}

struct State {
    /// Exponential gaps at this state's rate (ns), or none when the rate is 0.
    gap: Option<Exp<f64>>,
    length: Exp<f64>,
}

pub struct BurstyWorkload {
    requests: u64,
    issued: u64,
    states: [State; 2],
    on: bool,
    /// Exact time of the last arrival, and of the end of the current state.
    t_ns: f64,
    state_end_ns: f64,
    arrival_rng: Pcg64Mcg,
    state_rng: Pcg64Mcg,
    shape: RequestShape,
    cursor: Cursor,
}

/// Simulated time must stay well inside u64 nanoseconds.
const MAX_EXPECTED_END_NS: f64 = 1e18;

impl BurstyWorkload {
    /// Random streams used: `workload.arrival`, `workload.state`, `workload.size`,
    /// `workload.locality`, `workload.op`. The source starts ON at time 0.
    pub fn new(cfg: &BurstyConfig, capacity_sectors: u64, rng: &RngStreams) -> Result<Self> {
        let key = |k: &str| format!("workload.{k}");
        if cfg.requests == 0 {
            return Err(HeadwayError::config(key("requests"), "must be at least 1"));
        }
        let positive = |k: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(v)
            } else {
                Err(HeadwayError::config(
                    key(k),
                    format!("must be a positive number, got {v}"),
                ))
            }
        };
        positive("on_rate_iops", cfg.on_rate_iops)?;
        positive("on_mean_ms", cfg.on_mean_ms)?;
        positive("off_mean_ms", cfg.off_mean_ms)?;
        if !(cfg.off_rate_iops >= 0.0 && cfg.off_rate_iops.is_finite()) {
            return Err(HeadwayError::config(
                key("off_rate_iops"),
                format!("must be zero or a positive rate, got {}", cfg.off_rate_iops),
            ));
        }
        let mean_gap_ns = NS_PER_S as f64 / cfg.mean_rate_iops();
        if mean_gap_ns * cfg.requests as f64 > MAX_EXPECTED_END_NS {
            return Err(HeadwayError::config(
                key("on_rate_iops"),
                format!(
                    "{} requests at a mean of {:.3e} per second would outlast simulated time",
                    cfg.requests,
                    cfg.mean_rate_iops()
                ),
            ));
        }
        let exp = |mean_ns: f64, k: &str| {
            Exp::new(1.0 / mean_ns).map_err(|e| HeadwayError::config(key(k), e.to_string()))
        };
        let gap = |rate: f64, k: &str| -> Result<Option<Exp<f64>>> {
            if rate == 0.0 {
                Ok(None)
            } else {
                exp(NS_PER_S as f64 / rate, k).map(Some)
            }
        };
        let states = [
            State {
                gap: gap(cfg.off_rate_iops, "off_rate_iops")?,
                length: exp(cfg.off_mean_ms * NS_PER_MS as f64, "off_mean_ms")?,
            },
            State {
                gap: gap(cfg.on_rate_iops, "on_rate_iops")?,
                length: exp(cfg.on_mean_ms * NS_PER_MS as f64, "on_mean_ms")?,
            },
        ];
        let mut state_rng = rng.stream("workload.state");
        let state_end_ns = states[1].length.sample(&mut state_rng);
        Ok(BurstyWorkload {
            requests: cfg.requests,
            issued: 0,
            states,
            on: true,
            t_ns: 0.0,
            state_end_ns,
            arrival_rng: rng.stream("workload.arrival"),
            state_rng,
            shape: RequestShape::new(&cfg.shape, capacity_sectors, rng, "workload")?,
            cursor: Cursor::default(),
        })
    }

    fn next(&mut self, out: &mut Arrivals) {
        if self.issued == self.requests {
            return;
        }
        // Exponential gaps are memoryless: a gap that would cross into the next state is
        // dropped at the switch and drawn afresh at the new state's rate.
        loop {
            let s = &self.states[self.on as usize];
            if let Some(gap) = &s.gap {
                let t = self.t_ns + gap.sample(&mut self.arrival_rng);
                if t < self.state_end_ns {
                    self.t_ns = t;
                    break;
                }
            }
            self.t_ns = self.state_end_ns;
            self.on = !self.on;
            let len = self.states[self.on as usize]
                .length
                .sample(&mut self.state_rng);
            self.state_end_ns = self.t_ns + len;
        }
        self.issued += 1;
        let at = self.t_ns.round() as SimTime;
        out.push(self.shape.make(&mut self.cursor, at, 0));
    }
}

impl Workload for BurstyWorkload {
    fn name(&self) -> &str {
        "bursty"
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
