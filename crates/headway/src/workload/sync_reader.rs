//! `kind = "sync"`: one synchronous process reading its own file (the entry's `region`) the
//! way the anticipatory-scheduling paper's microbenchmarks do, with no file-system prefetch
//! (the paper's "mmap" mode: one page-sized fault at a time). Each read is issued a think
//! time after the previous one completes.
//!
//! Keys: `requests`, `size_sectors` (default 8: a 4 KiB page), `pattern` ("seq": consecutive
//! blocks; "alter": every other block; "random": uniform over the file's blocks), the closed
//! workload's think keys (`think`, `think_ms`, `think_min_ms`, `think_max_ms`), and the
//! adversary: `burst = N` with `burst_pause_ms` (N reads with the configured think time, then
//! one pause of `burst_pause_ms`, repeated).

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::Deserialize;

use super::closed::Think;
use super::config::ClosedConfig;
use super::{Arrivals, Workload};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::{Op, Request};
use crate::time::{ms_to_ns, SimTime};

/// How a synchronous reader walks its file.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SyncPattern {
    #[default]
    Seq,
    Alter,
    Random,
}

/// `kind = "sync"`.
#[derive(Clone, Debug, PartialEq)]
pub struct SyncConfig {
    /// `requests` and the think-time keys (`processes` is always 1).
    pub closed: ClosedConfig,
    pub size_sectors: u32,
    pub pattern: SyncPattern,
    pub burst: Option<u64>,
    pub burst_pause_ms: Option<f64>,
}

pub struct SyncReader {
    left: u64,
    issued: u64,
    think: Think,
    think_rng: Pcg64Mcg,
    place_rng: Pcg64Mcg,
    size: u32,
    blocks: u64,
    pattern: SyncPattern,
    burst: Option<(u64, SimTime)>,
}

impl SyncReader {
    /// Random streams: `workload.think`, `workload.locality`.
    pub fn new(cfg: &SyncConfig, capacity_sectors: u64, rng: &RngStreams) -> Result<Self> {
        if cfg.closed.requests == 0 {
            return Err(HeadwayError::config(
                "workload.requests",
                "must be at least 1",
            ));
        }
        if cfg.size_sectors == 0 {
            return Err(HeadwayError::config(
                "workload.size_sectors",
                "must be at least 1",
            ));
        }
        let burst = match (cfg.burst, cfg.burst_pause_ms) {
            (None, None) => None,
            (Some(n), Some(p)) if n >= 1 && (0.0..=1e9).contains(&p) => Some((n, ms_to_ns(p))),
            (Some(0), _) => {
                return Err(HeadwayError::config("workload.burst", "must be at least 1"))
            }
            (Some(_), None) => {
                return Err(HeadwayError::config(
                    "workload.burst_pause_ms",
                    "burst needs burst_pause_ms (the pause after each burst)",
                ))
            }
            (None, Some(_)) => {
                return Err(HeadwayError::config(
                    "workload.burst",
                    "burst_pause_ms needs burst (reads per burst)",
                ))
            }
            (Some(_), Some(p)) => {
                return Err(HeadwayError::config(
                    "workload.burst_pause_ms",
                    format!("must be between 0 and 1e9 milliseconds, got {p}"),
                ))
            }
        };
        Ok(SyncReader {
            left: cfg.closed.requests,
            issued: 0,
            think: Think::new(&cfg.closed)?,
            think_rng: rng.stream("workload.think"),
            place_rng: rng.stream("workload.locality"),
            size: cfg.size_sectors,
            blocks: (capacity_sectors / cfg.size_sectors as u64).max(1),
            pattern: cfg.pattern,
            burst,
        })
    }

    fn issue(&mut self, now: SimTime, first: bool, out: &mut Arrivals) {
        if self.left == 0 {
            return;
        }
        self.left -= 1;
        let k = self.issued;
        self.issued += 1;
        let think = match self.burst {
            Some((n, pause)) if !first && k % n == 0 => pause,
            _ => self.think.sample(&mut self.think_rng),
        };
        let block = match self.pattern {
            SyncPattern::Seq => k % self.blocks,
            SyncPattern::Alter => (2 * k) % self.blocks,
            SyncPattern::Random => self.place_rng.random_range(0..self.blocks),
        };
        let mut r = Request::new(
            now.saturating_add(think),
            block * self.size as u64,
            self.size,
            Op::Read,
        );
        r.process = 0;
        out.push(r);
    }
}

impl Workload for SyncReader {
    fn name(&self) -> &str {
        "sync"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.issue(0, true, out);
        Ok(())
    }
    fn on_arrival(&mut self, _req: &Request, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
    fn on_completion(&mut self, _req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()> {
        self.issue(now, false, out);
        Ok(())
    }
}
