//! Open synthetic workload: arrivals on their own clock (Poisson or evenly spaced), one
//! future arrival held at a time.

use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;
use serde::Deserialize;

use super::locality::Cursor;
use super::shape::{RequestShape, ShapeConfig, DEFAULT_REQUESTS};
use super::{Arrivals, Workload};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::Request;
use crate::table_keys::key_group;
use crate::time::{SimTime, NS_PER_MS, NS_PER_S};

const DEFAULT_INTERARRIVAL_MS: f64 = 10.0;
const MAX_EXPECTED_END_NS: f64 = 1e18;

enum Gaps {
    Poisson(Exp<f64>),
    /// Arrival k (from 1) is at k * gap, computed afresh each time so rounding never drifts.
    Fixed,
}

pub struct OpenWorkload {
    requests: u64,
    issued: u64,
    gaps: Gaps,
    mean_gap_ns: f64,
    /// Exact (unrounded) time of the last arrival; arrivals are this rounded to the nearest ns.
    t_ns: f64,
    arrival_rng: Pcg64Mcg,
    shape: RequestShape,
    cursor: Cursor,
}

impl OpenWorkload {
    /// Random streams used: `workload.arrival`, `workload.size`, `workload.locality`,
    /// `workload.op`.
    pub fn new(cfg: &OpenConfig, capacity_sectors: u64, rng: &RngStreams) -> Result<Self> {
        if cfg.requests == 0 {
            return Err(HeadwayError::config(
                "workload.requests",
                "must be at least 1",
            ));
        }
        let mean_gap_ns = match (cfg.interarrival_ms, cfg.rate_iops) {
            (Some(_), Some(_)) => {
                return Err(HeadwayError::config(
                    "workload.rate_iops",
                    "give either interarrival_ms or rate_iops, not both",
                ))
            }
            (Some(ms), None) => {
                if !(ms > 0.0 && ms.is_finite()) {
                    return Err(HeadwayError::config(
                        "workload.interarrival_ms",
                        format!("must be a positive number of milliseconds, got {ms}"),
                    ));
                }
                ms * NS_PER_MS as f64
            }
            (None, Some(iops)) => {
                if !(iops > 0.0 && iops.is_finite()) {
                    return Err(HeadwayError::config(
                        "workload.rate_iops",
                        format!("must be a positive number of requests per second, got {iops}"),
                    ));
                }
                NS_PER_S as f64 / iops
            }
            (None, None) => DEFAULT_INTERARRIVAL_MS * NS_PER_MS as f64,
        };
        // Keep the expected end well inside u64 nanoseconds (about 585 years), where arrival
        // times would otherwise saturate into "never".
        if mean_gap_ns * cfg.requests as f64 > MAX_EXPECTED_END_NS {
            let key = if cfg.rate_iops.is_some() {
                "workload.rate_iops"
            } else {
                "workload.interarrival_ms"
            };
            return Err(HeadwayError::config(
                key,
                format!(
                    "{} requests this far apart would last over {:.0} years of simulated time",
                    cfg.requests,
                    MAX_EXPECTED_END_NS / NS_PER_S as f64 / 3.156e7
                ),
            ));
        }
        let gaps = match cfg.arrival {
            ArrivalKind::Poisson => Gaps::Poisson(
                Exp::new(1.0 / mean_gap_ns)
                    .map_err(|e| HeadwayError::config("workload.interarrival_ms", e.to_string()))?,
            ),
            ArrivalKind::Fixed => Gaps::Fixed,
        };
        Ok(OpenWorkload {
            requests: cfg.requests,
            issued: 0,
            gaps,
            mean_gap_ns,
            t_ns: 0.0,
            arrival_rng: rng.stream("workload.arrival"),
            shape: RequestShape::new(&cfg.shape, capacity_sectors, rng, "workload")?,
            cursor: Cursor::default(),
        })
    }

    #[inline]
    fn next(&mut self, out: &mut Arrivals) {
        if self.issued == self.requests {
            return;
        }
        self.issued += 1;
        self.t_ns = match &self.gaps {
            Gaps::Poisson(exp) => self.t_ns + exp.sample(&mut self.arrival_rng),
            Gaps::Fixed => self.issued as f64 * self.mean_gap_ns,
        };
        let at = self.t_ns.round() as SimTime;
        out.push(self.shape.make(&mut self.cursor, at, 0));
    }
}

impl Workload for OpenWorkload {
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

/// How an open workload spaces its arrivals.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ArrivalKind {
    /// Exponential inter-arrival times (a Poisson process started at time 0).
    #[default]
    Poisson,
    /// Exactly `interarrival_ms` apart: request k (from 1) arrives at k × interarrival_ms,
    /// computed afresh each time so that rounding to nanoseconds never accumulates.
    Fixed,
}

/// `kind = "open"`.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenConfig {
    /// Requests issued in total. Default 10,000.
    pub requests: u64,
    /// Default `"poisson"`.
    pub arrival: ArrivalKind,
    /// Mean (poisson) or exact (fixed) time between arrivals, milliseconds. Give this or
    /// `rate_iops`, not both; with neither, 10 ms.
    pub interarrival_ms: Option<f64>,
    /// Arrivals per second, the alternative to `interarrival_ms`.
    pub rate_iops: Option<f64>,
    /// Size, direction and place of each request (keys at the top level of the table).
    pub shape: ShapeConfig,
}

impl Default for OpenConfig {
    fn default() -> Self {
        OpenConfig {
            requests: DEFAULT_REQUESTS,
            arrival: ArrivalKind::Poisson,
            interarrival_ms: None,
            rate_iops: None,
            shape: ShapeConfig::default(),
        }
    }
}

key_group! {
    /// The keys of an open workload's table besides `requests` and the shape's.
    pub(crate) struct OpenKeys {
        arrival: ArrivalKind,
        interarrival_ms: f64,
        rate_iops: f64,
    }
}

impl OpenConfig {
    pub(crate) fn from_keys(keys: OpenKeys, requests: Option<u64>, shape: ShapeConfig) -> Self {
        OpenConfig {
            requests: requests.unwrap_or(DEFAULT_REQUESTS),
            arrival: keys.arrival.unwrap_or_default(),
            interarrival_ms: keys.interarrival_ms,
            rate_iops: keys.rate_iops,
            shape,
        }
    }
}
