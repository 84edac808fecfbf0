//! `kind = "sync"`: one synchronous process reading its own file (the entry's `region`) the
//! way the anticipatory-scheduling paper's microbenchmarks do. Each read is issued a think
//! time after the previous one is satisfied. Two file-system models (`fs`):
//!
//! * `"mmap"` (default): every read is a page fault, one synchronous disk read, no prefetch;
//! * `"read"`: the file system detects sequential access (after `2` consecutive sequential
//!   reads) and reads ahead asynchronously: a window of `readahead_sectors` (default 128,
//!   64 KiB) beyond the furthest block requested, doubling up to `readahead_max_sectors`
//!   (256, 128 KiB) [TEAM CHOICE, after FreeBSD's cluster read-ahead]. A read of a block
//!   already read ahead costs no disk access; one still in flight waits for it. Read-ahead
//!   requests come from the same process, so anticipation sees them as asynchronous.
//!
//! `requests` counts the application's reads, not the disk's.
//!
//! Keys: `requests`, `size_sectors` (default 8: a 4 KiB page), `pattern` ("seq": consecutive
//! blocks; "alter": every other block; "random": uniform over the file's blocks), the closed
//! workload's think keys (`think`, `think_ms`, `think_min_ms`, `think_max_ms`), and the
//! adversary: `burst = N` with `burst_pause_ms` (N reads with the configured think time, then
//! one pause of `burst_pause_ms`, repeated), or the adaptive adversary: `burst = N` with
//! `burst_pause_over_ms = ε` instead, whose pause is ε past the timeout the anticipation core
//! has set for it. The reader keeps the same decayed thinktime histogram of its own
//! thinktimes as the core keeps of it (the core's default range, bucket and decay; its
//! thinktimes are exact, since each read is issued its think time after the last one
//! completed), so it knows the core's 95th-percentile thinktime, which is the timeout; with
//! no timeout (fewer than 3 samples, or the 95th point off the histogram) it pauses ε.

use std::collections::BTreeSet;

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::Deserialize;

use super::closed::{ClosedConfig, ClosedKeys, Think};
use super::shape::ShapeConfig;
use super::{Arrivals, Workload};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::{Op, Request};
use crate::stats::ThinkHistogram;
use crate::table_keys::key_group;
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

/// The file-system model of a synchronous reader.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FsMode {
    #[default]
    Mmap,
    Read,
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
    pub burst_pause_over_ms: Option<f64>,
    pub fs: FsMode,
    pub readahead_sectors: Option<u32>,
    pub readahead_max_sectors: Option<u32>,
}

key_group! {
    /// The keys of a sync reader's table besides `requests`, `size_sectors` and the think
    /// keys.
    pub(crate) struct SyncKeys {
        pattern: SyncPattern,
        burst: u64,
        burst_pause_ms: f64,
        burst_pause_over_ms: f64,
        fs: FsMode,
        readahead_sectors: u32,
        readahead_max_sectors: u32,
    }
}

impl SyncConfig {
    pub(crate) fn from_keys(
        keys: SyncKeys,
        think: ClosedKeys,
        requests: Option<u64>,
        size_sectors: Option<u32>,
    ) -> Self {
        SyncConfig {
            closed: ClosedConfig {
                processes: 1,
                ..ClosedConfig::from_keys(think, requests, ShapeConfig::default())
            },
            size_sectors: size_sectors.unwrap_or(8),
            pattern: keys.pattern.unwrap_or_default(),
            burst: keys.burst,
            burst_pause_ms: keys.burst_pause_ms,
            burst_pause_over_ms: keys.burst_pause_over_ms,
            fs: keys.fs.unwrap_or_default(),
            readahead_sectors: keys.readahead_sectors,
            readahead_max_sectors: keys.readahead_max_sectors,
        }
    }
}

/// Sequential reads in a row that switch read-ahead on.
const SEQUENTIAL_TRIGGER: u32 = 2;

pub struct SyncReader {
    left: u64,
    issued: u64,
    think: Think,
    think_rng: Pcg64Mcg,
    place_rng: Pcg64Mcg,
    size: u32,
    blocks: u64,
    pattern: SyncPattern,
    burst: Option<(u64, Pause)>,
    fs: Option<ReadAhead>,
    /// The block the application is blocked on, and the time it asked for it.
    waiting: Option<(u64, SimTime)>,
}

/// The adversary's pause after each burst.
enum Pause {
    Fixed(SimTime),
    /// ε past the core's timeout, read off a copy of the core's histogram of this reader.
    PastTimeout {
        over_ns: SimTime,
        seen: Box<ThinkHistogram>,
    },
}

/// The anticipation core's default thinktime histogram (`histogram_range_ms`, `bucket_us`,
/// `decay`) and its cold start (`min_samples`): what the adaptive adversary mirrors.
const CORE_RANGE_NS: SimTime = 10_000_000;
const CORE_BUCKET_NS: SimTime = 100_000;
const CORE_DECAY: f64 = 0.9;
const CORE_MIN_SAMPLES: u64 = 3;

impl Pause {
    /// The pause before the next burst.
    fn ns(&self) -> SimTime {
        match self {
            Pause::Fixed(p) => *p,
            Pause::PastTimeout { over_ns, seen } => {
                let timeout = (seen.samples >= CORE_MIN_SAMPLES)
                    .then(|| seen.percentile_ns(0.95))
                    .flatten()
                    .unwrap_or(0);
                timeout + over_ns
            }
        }
    }

    /// The reader issued a read `think_ns` after its last one completed.
    fn saw(&mut self, think_ns: SimTime) {
        if let Pause::PastTimeout { seen, .. } = self {
            seen.record(think_ns);
        }
    }
}

/// The "read" mode's file-system state.
struct ReadAhead {
    min_blocks: u64,
    max_blocks: u64,
    window_blocks: u64,
    /// Blocks read ahead and arrived, not yet read by the application.
    cached: BTreeSet<u64>,
    /// Blocks of requests issued and not yet completed.
    in_flight: BTreeSet<u64>,
    /// One past the furthest block requested from the disk.
    frontier: u64,
    last_block: Option<u64>,
    sequential: u32,
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
        let burst =
            match (cfg.burst, cfg.burst_pause_ms, cfg.burst_pause_over_ms) {
                (_, Some(_), Some(_)) => return Err(HeadwayError::config(
                    "workload.burst_pause_over_ms",
                    "give either burst_pause_ms (a fixed pause) or burst_pause_over_ms (a pause \
                     that far past the anticipation timeout), not both",
                )),
                (Some(n), None, Some(e)) if n >= 1 && (0.0..=1e9).contains(&e) => Some((
                    n,
                    Pause::PastTimeout {
                        over_ns: ms_to_ns(e),
                        seen: Box::new(ThinkHistogram::new(
                            CORE_RANGE_NS,
                            CORE_BUCKET_NS,
                            CORE_DECAY,
                        )),
                    },
                )),
                (Some(n), None, Some(e)) if n >= 1 => {
                    return Err(HeadwayError::config(
                        "workload.burst_pause_over_ms",
                        format!("must be between 0 and 1e9 milliseconds, got {e}"),
                    ))
                }
                (None, None, Some(_)) => {
                    return Err(HeadwayError::config(
                        "workload.burst",
                        "burst_pause_over_ms needs burst (reads per burst)",
                    ))
                }
                (b, p, None) => match (b, p) {
                    (None, None) => None,
                    (Some(n), Some(p)) if n >= 1 && (0.0..=1e9).contains(&p) => {
                        Some((n, Pause::Fixed(ms_to_ns(p))))
                    }
                    (Some(0), _) => {
                        return Err(HeadwayError::config("workload.burst", "must be at least 1"))
                    }
                    (Some(_), None) => {
                        return Err(HeadwayError::config(
                            "workload.burst_pause_ms",
                            "burst needs burst_pause_ms (the pause after each burst) or \
                         burst_pause_over_ms (a pause past the anticipation timeout)",
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
                },
                (Some(_), None, Some(_)) => {
                    return Err(HeadwayError::config("workload.burst", "must be at least 1"))
                }
            };
        let fs = match cfg.fs {
            FsMode::Mmap => {
                for (k, v) in [
                    ("readahead_sectors", cfg.readahead_sectors),
                    ("readahead_max_sectors", cfg.readahead_max_sectors),
                ] {
                    if v.is_some() {
                        return Err(HeadwayError::config(
                            format!("workload.{k}"),
                            "is used only with fs = \"read\"",
                        ));
                    }
                }
                None
            }
            FsMode::Read => {
                let size = cfg.size_sectors as u64;
                let min = cfg.readahead_sectors.unwrap_or(128) as u64;
                let max = cfg.readahead_max_sectors.unwrap_or(256) as u64;
                if min < size || max < min {
                    return Err(HeadwayError::config(
                        "workload.readahead_sectors",
                        format!(
                            "the read-ahead window ({min} sectors, growing to {max}) must hold \
                             at least one read of size_sectors = {size} and not shrink"
                        ),
                    ));
                }
                Some(ReadAhead {
                    min_blocks: min / size,
                    max_blocks: max / size,
                    window_blocks: min / size,
                    cached: BTreeSet::new(),
                    in_flight: BTreeSet::new(),
                    frontier: 0,
                    last_block: None,
                    sequential: 0,
                })
            }
        };
        Ok(SyncReader {
            fs,
            waiting: None,
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

    /// The application's next read: its block and the time it asks for it.
    fn next_read(&mut self, now: SimTime, first: bool) -> Option<(u64, SimTime)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let k = self.issued;
        self.issued += 1;
        let think = match &self.burst {
            Some((n, pause)) if !first && k % n == 0 => pause.ns(),
            _ => self.think.sample(&mut self.think_rng),
        };
        if let (Some((_, pause)), false) = (self.burst.as_mut(), first) {
            pause.saw(think);
        }
        let block = match self.pattern {
            SyncPattern::Seq => k % self.blocks,
            SyncPattern::Alter => (2 * k) % self.blocks,
            SyncPattern::Random => self.place_rng.random_range(0..self.blocks),
        };
        Some((block, now.saturating_add(think)))
    }

    fn read_request(&self, at: SimTime, block: u64, blocks: u64) -> Request {
        let mut r = Request::new(
            at,
            block * self.size as u64,
            (blocks * self.size as u64) as u32,
            Op::Read,
        );
        r.process = 0;
        r
    }

    /// Run the application from `now` until it blocks on the disk (or is done).
    fn run_app(&mut self, mut now: SimTime, mut first: bool, out: &mut Arrivals) {
        while let Some((block, at)) = self.next_read(now, first) {
            first = false;
            let Some(fs) = self.fs.as_mut() else {
                out.push(self.read_request(at, block, 1));
                self.waiting = Some((block, at));
                return;
            };
            fs.sequential = match fs.last_block {
                Some(b) if b + 1 == block => fs.sequential + 1,
                _ => 0,
            };
            if fs.sequential == 0 {
                fs.window_blocks = fs.min_blocks;
            }
            fs.last_block = Some(block);
            let hit = fs.cached.remove(&block);
            let pending = !hit && fs.in_flight.contains(&block);
            if !hit && !pending {
                fs.in_flight.insert(block);
                fs.frontier = fs.frontier.max(block + 1);
                let r = self.read_request(at, block, 1);
                out.push(r);
            }
            self.read_ahead(at, block, out);
            if hit {
                now = at;
                continue;
            }
            self.waiting = Some((block, at));
            return;
        }
    }

    /// After `SEQUENTIAL_TRIGGER` sequential reads, keep a window read ahead of `block`.
    fn read_ahead(&mut self, at: SimTime, block: u64, out: &mut Arrivals) {
        let blocks = self.blocks;
        let Some(fs) = self.fs.as_mut() else { return };
        if fs.sequential < SEQUENTIAL_TRIGGER || fs.frontier > block + fs.window_blocks {
            return;
        }
        let start = fs.frontier.max(block + 1);
        let end = (start + fs.window_blocks).min(blocks);
        if start >= end {
            return;
        }
        for b in start..end {
            fs.in_flight.insert(b);
        }
        fs.frontier = end;
        fs.window_blocks = (fs.window_blocks * 2).min(fs.max_blocks);
        let r = self.read_request(at, start, end - start);
        out.push(r);
    }
}

impl Workload for SyncReader {
    fn name(&self) -> &str {
        "sync"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.run_app(0, true, out);
        Ok(())
    }
    fn on_arrival(&mut self, _req: &Request, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
    fn on_completion(&mut self, req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()> {
        let size = self.size as u64;
        let first = req.lbn / size;
        let last = first + (req.sectors as u64 / size).max(1);
        if let Some(fs) = self.fs.as_mut() {
            for b in first..last {
                if fs.in_flight.remove(&b) {
                    fs.cached.insert(b);
                }
            }
        }
        match self.waiting {
            Some((b, asked)) if (first..last).contains(&b) => {
                self.waiting = None;
                if let Some(fs) = self.fs.as_mut() {
                    fs.cached.remove(&b);
                }
                self.run_app(now.max(asked), false, out);
            }
            _ => {}
        }
        Ok(())
    }
}
