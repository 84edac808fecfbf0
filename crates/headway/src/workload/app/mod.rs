//! `kind = "app"`: the application stand-ins of the anticipatory-scheduling paper's
//! evaluation (Iyer and Druschel, SOSP 2001, §5.3), each one process of one `[[workloads]]`
//! entry working in the entry's `region` (several clients: several entries):
//!
//! * `app = "andrew"`: an Andrew-like client: copy, scan and compile phases over its own
//!   source repository ([`andrew`]); `"andrew-scan"`: the scan phase alone;
//! * `app = "web"`: a web-server process serving whole files of a heavy-tailed size
//!   ([`web`]), in `fs = "read"` (file-system clustered reads) or `"mmap"` (page faults);
//! * `app = "linker"`: a linker reading object files: a header, then small non-sequential
//!   reads separated by computation ([`linker`]);
//! * `app = "tpcb-update"` / `"tpcb-select"`: a TPC-B-like client doing random record reads
//!   (updates add a delayed asynchronous write) ([`tpcb`]); one database or one per client
//!   is a matter of the entries' regions.
//!
//! `requests` counts the application's operations (files, or transactions), not the disk's
//! requests. Each stand-in is a script of steps: a computation (think time), then one disk
//! request, which the process either waits for (synchronous reads) or not (writes,
//! asynchronous by default). Every stand-in's parameters are [TEAM CHOICE]s, documented in
//! its module and in `docs/anticipatory.md`.

pub mod andrew;
pub mod linker;
pub mod tpcb;
pub mod web;

use rand_pcg::Pcg64Mcg;
use serde::Deserialize;

use super::shape::DEFAULT_REQUESTS;
use super::sync_reader::FsMode;
use super::{Arrivals, Workload};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::{Op, Request};
use crate::table_keys::key_group;
use crate::time::SimTime;

/// `app = "..."`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AppKind {
    Andrew,
    AndrewScan,
    Web,
    Linker,
    TpcbUpdate,
    TpcbSelect,
}

impl AppKind {
    pub fn name(self) -> &'static str {
        match self {
            AppKind::Andrew => "andrew",
            AppKind::AndrewScan => "andrew-scan",
            AppKind::Web => "web",
            AppKind::Linker => "linker",
            AppKind::TpcbUpdate => "tpcb-update",
            AppKind::TpcbSelect => "tpcb-select",
        }
    }
}

/// `kind = "app"`.
#[derive(Clone, Debug, PartialEq)]
pub struct AppConfig {
    pub app: AppKind,
    /// Operations: files (Andrew, web server, linker) or transactions (TPC-B).
    pub requests: u64,
    /// Web server only: clustered reads (`"read"`) or page faults (`"mmap"`, default).
    pub fs: FsMode,
    /// Multiplies every think time (a faster CPU: below 1).
    pub think_scale: f64,
    /// Web server with `fs = "mmap"` only: files larger than this are read in read mode
    /// (Apache's default configuration mixes the two by file size); `None`: every file
    /// mapped.
    pub mmap_limit_bytes: Option<u64>,
}

key_group! {
    /// The keys of an application stand-in's table besides `requests` and `fs`.
    pub(crate) struct AppKeys {
        app: AppKind,
        think_scale: f64,
        mmap_limit_bytes: u64,
    }
}

impl AppConfig {
    pub(crate) fn from_keys(
        keys: AppKeys,
        requests: Option<u64>,
        fs: Option<FsMode>,
    ) -> std::result::Result<Self, String> {
        Ok(AppConfig {
            app: keys.app.ok_or(
                "missing field `app` (kind = \"app\" needs it: \"andrew\", \"andrew-scan\", \"web\", \
                 \"linker\", \"tpcb-update\" or \"tpcb-select\")",
            )?,
            requests: requests.unwrap_or(DEFAULT_REQUESTS),
            fs: fs.unwrap_or_default(),
            think_scale: keys.think_scale.unwrap_or(1.0),
            mmap_limit_bytes: keys.mmap_limit_bytes,
        })
    }

    /// The checks that need no drive (the region's size is checked when the run is built).
    pub fn validate(&self) -> Result<()> {
        AppWorkload::new(self, 1 << 40, &RngStreams::new(0)).map(drop)
    }
}

/// One step of a stand-in's script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Computation before the request is issued.
    pub think_ns: SimTime,
    /// Sector within the region.
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
    /// The process waits for this request before its next step.
    pub wait: bool,
    /// A later chunk of one large read (the request's `large_read_chunk` flag).
    pub chunk: bool,
}

impl Step {
    pub(crate) fn read(think_ns: SimTime, lbn: u64, sectors: u32) -> Step {
        Step {
            think_ns,
            lbn,
            sectors,
            op: Op::Read,
            wait: true,
            chunk: false,
        }
    }
    pub(crate) fn write(think_ns: SimTime, lbn: u64, sectors: u32) -> Step {
        Step {
            think_ns,
            lbn,
            sectors,
            op: Op::Write,
            wait: false,
            chunk: false,
        }
    }
}

pub const MAX_OPERATIONS: u64 = 1_000_000;

/// 4 KiB: the page and allocation unit of every stand-in.
pub const PAGE_SECTORS: u32 = 8;

pub struct AppWorkload {
    name: &'static str,
    steps: std::vec::IntoIter<Step>,
    /// The request the process is blocked on (a read, or a synchronous metadata write) and
    /// the time it asked for it.
    waiting: Option<(u64, Op, SimTime)>,
}

impl AppWorkload {
    /// Random streams: `workload.locality` (layout and order), `workload.think`.
    pub fn new(cfg: &AppConfig, capacity_sectors: u64, rng: &RngStreams) -> Result<Self> {
        // The script is built up front, so its length is bounded.
        if !(1..=MAX_OPERATIONS).contains(&cfg.requests) {
            return Err(HeadwayError::config(
                "workload.requests",
                format!(
                    "must be between 1 and {MAX_OPERATIONS}, got {}",
                    cfg.requests
                ),
            ));
        }
        if !(cfg.think_scale.is_finite() && cfg.think_scale >= 0.0 && cfg.think_scale <= 1e6) {
            return Err(HeadwayError::config(
                "workload.think_scale",
                format!("must be between 0 and 1e6, got {}", cfg.think_scale),
            ));
        }
        if cfg.fs != FsMode::Mmap && cfg.app != AppKind::Web {
            return Err(HeadwayError::config(
                "workload.fs",
                "is used only with app = \"web\"",
            ));
        }
        if cfg.mmap_limit_bytes.is_some() && (cfg.app != AppKind::Web || cfg.fs != FsMode::Mmap) {
            return Err(HeadwayError::config(
                "workload.mmap_limit_bytes",
                "is used only with app = \"web\" and fs = \"mmap\" (files above it are read in \
                 read mode)",
            ));
        }
        let mut place: Pcg64Mcg = rng.stream("workload.locality");
        let mut think: Pcg64Mcg = rng.stream("workload.think");
        let mut steps = match cfg.app {
            AppKind::Andrew => {
                andrew::script(cfg.requests, capacity_sectors, true, &mut place, &mut think)
            }
            AppKind::AndrewScan => andrew::script(
                cfg.requests,
                capacity_sectors,
                false,
                &mut place,
                &mut think,
            ),
            AppKind::Web => web::script(
                cfg.requests,
                capacity_sectors,
                web::Serving {
                    fs: cfg.fs,
                    mmap_limit_bytes: cfg.mmap_limit_bytes,
                },
                &mut place,
                &mut think,
            ),
            AppKind::Linker => {
                linker::script(cfg.requests, capacity_sectors, &mut place, &mut think)
            }
            AppKind::TpcbUpdate => {
                tpcb::script(cfg.requests, capacity_sectors, true, &mut place, &mut think)
            }
            AppKind::TpcbSelect => tpcb::script(
                cfg.requests,
                capacity_sectors,
                false,
                &mut place,
                &mut think,
            ),
        }
        .map_err(|m| HeadwayError::config("workload.region", m))?;
        for s in &mut steps {
            s.think_ns = (s.think_ns as f64 * cfg.think_scale).round() as SimTime;
        }
        Ok(AppWorkload {
            name: cfg.app.name(),
            steps: steps.into_iter(),
            waiting: None,
        })
    }

    /// Run the process from `now` until it blocks on a read (or its script ends).
    fn run(&mut self, mut now: SimTime, out: &mut Arrivals) {
        for s in self.steps.by_ref() {
            now = now.saturating_add(s.think_ns);
            let mut r = Request::new(now, s.lbn, s.sectors, s.op);
            r.process = 0;
            r.marks.set_large_read_chunk(s.chunk);
            out.push(r);
            if s.wait {
                self.waiting = Some((s.lbn, s.op, now));
                return;
            }
        }
    }
}

impl Workload for AppWorkload {
    fn name(&self) -> &str {
        self.name
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.run(0, out);
        Ok(())
    }
    fn on_arrival(&mut self, _req: &Request, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
    fn on_completion(&mut self, req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()> {
        match self.waiting {
            Some((lbn, op, asked)) if req.op == op && req.lbn == lbn => {
                self.waiting = None;
                self.run(now.max(asked), out);
            }
            _ => {}
        }
        Ok(())
    }
}

/// Files of the given sizes (sectors) laid out one after another from `start`, each aligned
/// to a page, with `gap` sectors after every `per_dir` files (a directory); `None` when they
/// do not fit below `end`.
pub(crate) fn lay_out(
    sizes: &[u32],
    start: u64,
    end: u64,
    per_dir: usize,
    gap: u64,
) -> std::result::Result<Vec<u64>, String> {
    let mut at = start;
    let mut starts = Vec::with_capacity(sizes.len());
    for (i, &s) in sizes.iter().enumerate() {
        if i > 0 && per_dir > 0 && i % per_dir == 0 {
            at += gap;
        }
        starts.push(at);
        at += s as u64;
    }
    if at > end {
        return Err(format!(
            "too small for the stand-in's files: they need {} sectors, the region holds {}",
            at - start,
            end - start
        ));
    }
    Ok(starts)
}

/// Sectors rounded up to whole pages.
pub(crate) fn pages(bytes: f64) -> u32 {
    let p = (bytes / (PAGE_SECTORS as f64 * 512.0)).ceil().max(1.0);
    p as u32 * PAGE_SECTORS
}

#[cfg(test)]
mod tests;
