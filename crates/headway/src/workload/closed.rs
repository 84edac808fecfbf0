//! Closed synthetic workload: N synchronous processes. Each issues a request, waits for it
//! to complete, thinks, and issues the next, so each has at most one request in the system.
//! Every request, the first included, is preceded by a think time, so processes with random
//! think times do not all start in lockstep at time 0.

use rand::Rng;
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
use crate::time::{ms_to_ns, SimTime, NS_PER_MS};

/// Enough for any disk experiment, and small enough that a typo cannot exhaust memory on
/// per-process state.
pub const MAX_PROCESSES: u32 = 1_000_000;

/// About 30 years: longer think times would saturate simulated time into "never".
const MAX_THINK_MS: f64 = 1e12;

pub(crate) const DEFAULT_PROCESSES: u32 = 1;

pub(super) enum Think {
    Fixed(SimTime),
    Exponential(Exp<f64>),
    Uniform { lo_ns: f64, hi_ns: f64 },
}

impl Think {
    pub(super) fn new(cfg: &ClosedConfig) -> Result<Self> {
        let key = |k: &str| format!("workload.{k}");
        let ms = |k: &str, v: f64| -> Result<f64> {
            if (0.0..=MAX_THINK_MS).contains(&v) {
                Ok(v)
            } else {
                Err(HeadwayError::config(
                    key(k),
                    format!("must be between 0 and {MAX_THINK_MS:e} milliseconds, got {v}"),
                ))
            }
        };
        let kind = cfg.think.name();
        // Reject keys the chosen distribution ignores: a user who wrote them meant something.
        let ignored: &[(&str, Option<f64>)] = match cfg.think {
            ThinkKind::Fixed | ThinkKind::Exponential => &[
                ("think_min_ms", cfg.think_min_ms),
                ("think_max_ms", cfg.think_max_ms),
            ],
            ThinkKind::Uniform => &[("think_ms", cfg.think_ms)],
        };
        if let Some((k, _)) = ignored.iter().find(|(_, v)| v.is_some()) {
            return Err(HeadwayError::config(
                key(k),
                format!("is not used by think = \"{kind}\""),
            ));
        }
        let required = |k: &str, v: Option<f64>| {
            v.ok_or_else(|| HeadwayError::config(key(k), format!("think = \"{kind}\" needs {k}")))
        };
        match cfg.think {
            ThinkKind::Fixed => Ok(Think::Fixed(ms_to_ns(ms(
                "think_ms",
                cfg.think_ms.unwrap_or(0.0),
            )?))),
            ThinkKind::Exponential => {
                let mean = ms("think_ms", required("think_ms", cfg.think_ms)?)?;
                if mean == 0.0 {
                    return Err(HeadwayError::config(
                        key("think_ms"),
                        "an exponential think time needs a positive mean (use think = \"fixed\" for none)",
                    ));
                }
                Exp::new(1.0 / (mean * NS_PER_MS as f64))
                    .map(Think::Exponential)
                    .map_err(|e| HeadwayError::config(key("think_ms"), e.to_string()))
            }
            ThinkKind::Uniform => {
                let lo = ms("think_min_ms", required("think_min_ms", cfg.think_min_ms)?)?;
                let hi = ms("think_max_ms", required("think_max_ms", cfg.think_max_ms)?)?;
                if hi < lo {
                    return Err(HeadwayError::config(
                        key("think_max_ms"),
                        format!("{hi} is below think_min_ms = {lo}"),
                    ));
                }
                Ok(Think::Uniform {
                    lo_ns: lo * NS_PER_MS as f64,
                    hi_ns: hi * NS_PER_MS as f64,
                })
            }
        }
    }

    #[inline]
    pub(super) fn sample(&self, rng: &mut Pcg64Mcg) -> SimTime {
        match *self {
            Think::Fixed(ns) => ns,
            Think::Exponential(ref exp) => exp.sample(rng).round() as SimTime,
            Think::Uniform { lo_ns, hi_ns } => rng.random_range(lo_ns..=hi_ns).round() as SimTime,
        }
    }
}

pub struct ClosedWorkload {
    /// Requests not yet issued, over all processes.
    left: u64,
    think: Think,
    think_rng: Pcg64Mcg,
    shape: RequestShape,
    /// One per process: each process keeps its own place on the disk.
    cursors: Vec<Cursor>,
}

impl ClosedWorkload {
    /// Random streams used: `workload.think`, `workload.size`, `workload.locality`,
    /// `workload.op`.
    pub fn new(cfg: &ClosedConfig, capacity_sectors: u64, rng: &RngStreams) -> Result<Self> {
        if cfg.requests == 0 {
            return Err(HeadwayError::config(
                "workload.requests",
                "must be at least 1",
            ));
        }
        if cfg.processes == 0 || cfg.processes > MAX_PROCESSES {
            return Err(HeadwayError::config(
                "workload.processes",
                format!(
                    "must be between 1 and {MAX_PROCESSES}, got {}",
                    cfg.processes
                ),
            ));
        }
        let think = Think::new(cfg)?;
        let shape = RequestShape::new(&cfg.shape, capacity_sectors, rng, "workload")?;
        Ok(ClosedWorkload {
            left: cfg.requests,
            think,
            think_rng: rng.stream("workload.think"),
            shape,
            cursors: vec![Cursor::default(); cfg.processes as usize],
        })
    }

    #[inline]
    fn issue(&mut self, process: u32, now: SimTime, out: &mut Arrivals) {
        if self.left == 0 {
            return;
        }
        self.left -= 1;
        let at = now.saturating_add(self.think.sample(&mut self.think_rng));
        let cursor = &mut self.cursors[process as usize];
        out.push(self.shape.make(cursor, at, process));
    }
}

impl Workload for ClosedWorkload {
    fn name(&self) -> &str {
        "closed"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        for p in 0..self.cursors.len() as u32 {
            self.issue(p, 0, out);
        }
        Ok(())
    }
    fn on_arrival(&mut self, _req: &Request, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
    fn on_completion(&mut self, req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()> {
        if req.process as usize >= self.cursors.len() {
            return Err(HeadwayError::Invariant(format!(
                "closed workload told of a completion for process {}, but it has {} processes",
                req.process,
                self.cursors.len()
            )));
        }
        self.issue(req.process, now, out);
        Ok(())
    }
}

/// How long a closed-loop process thinks between a completion and its next request.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ThinkKind {
    /// Exactly `think_ms`.
    #[default]
    Fixed,
    /// Exponential with mean `think_ms`.
    Exponential,
    /// Uniform between `think_min_ms` and `think_max_ms`.
    Uniform,
}

impl ThinkKind {
    pub fn name(self) -> &'static str {
        match self {
            ThinkKind::Fixed => "fixed",
            ThinkKind::Exponential => "exponential",
            ThinkKind::Uniform => "uniform",
        }
    }
}

/// `kind = "closed"`.
#[derive(Clone, Debug, PartialEq)]
pub struct ClosedConfig {
    /// Processes, each with at most one request outstanding; requests carry their process's
    /// index (0-based) in `process`. Default 1.
    pub processes: u32,
    /// Requests issued in total, over all processes. Default 10,000.
    pub requests: u64,
    /// Default `"fixed"`.
    pub think: ThinkKind,
    /// Think time (fixed) or its mean (exponential), milliseconds. Default 0 for fixed;
    /// required for exponential; not used by uniform.
    pub think_ms: Option<f64>,
    /// Lower bound of a uniform think time, milliseconds.
    pub think_min_ms: Option<f64>,
    /// Upper bound of a uniform think time, milliseconds.
    pub think_max_ms: Option<f64>,
    /// Size, direction and place of each request (keys at the top level of the table).
    /// Each process keeps its own position, so with `sequential` locality each reads its
    /// own runs.
    pub shape: ShapeConfig,
}

impl Default for ClosedConfig {
    fn default() -> Self {
        ClosedConfig {
            processes: DEFAULT_PROCESSES,
            requests: DEFAULT_REQUESTS,
            think: ThinkKind::Fixed,
            think_ms: None,
            think_min_ms: None,
            think_max_ms: None,
            shape: ShapeConfig::default(),
        }
    }
}

key_group! {
    /// The keys of a closed workload's table besides `requests` and the shape's.
    pub(crate) struct ClosedKeys {
        processes: u32,
        think: ThinkKind,
        think_ms: f64,
        think_min_ms: f64,
        think_max_ms: f64,
    }
}

impl ClosedConfig {
    pub(crate) fn from_keys(keys: ClosedKeys, requests: Option<u64>, shape: ShapeConfig) -> Self {
        ClosedConfig {
            processes: keys.processes.unwrap_or(DEFAULT_PROCESSES),
            requests: requests.unwrap_or(DEFAULT_REQUESTS),
            think: keys.think.unwrap_or_default(),
            think_ms: keys.think_ms,
            think_min_ms: keys.think_min_ms,
            think_max_ms: keys.think_max_ms,
            shape,
        }
    }
}
