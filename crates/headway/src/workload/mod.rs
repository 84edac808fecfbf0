//! Workloads: when and what is requested. Open workloads (traces, Poisson) schedule their
//! next arrival when the previous one arrives, so only one future arrival per stream is ever
//! held (streaming, bounded memory); closed workloads react to completions.
//!
//! In an experiment file, `[workload]` takes one of three kinds (see [`WorkloadConfig`]):
//!
//! ```toml
//! [workload]                 # kind = "open" is the default
//! requests = 100000
//! arrival = "poisson"        # or "fixed"
//! interarrival_ms = 5.0      # or rate_iops = 200.0
//! size = { kind = "exponential", mean_sectors = 16 }   # or size_sectors = 8
//! align_sectors = 8
//! read_fraction = 0.67
//! locality = { kind = "hot", regions = [
//!     { start_fraction = 0.25, size_fraction = 0.05, access_fraction = 0.8 } ] }
//! ```
//!
//! ```toml
//! [workload]
//! kind = "closed"
//! processes = 2              # each with one request outstanding at a time
//! requests = 20000           # in total, over all processes
//! think = "uniform"          # "fixed" (think_ms), "exponential" (think_ms = mean)
//! think_min_ms = 0.0
//! think_max_ms = 4.0
//! size_sectors = 128
//! locality = { kind = "sequential", run_length = 64 }   # each process its own runs
//! ```
//!
//! ```toml
//! [workload]
//! kind = "trace"
//! path = "traces/msn.trace.gz"   # relative to the experiment file; .gz/.zst/.xz read on the fly
//! format = "disksim-ascii"       # default "auto": detected from the content
//! mode = "open"                  # or "closed" (per-process think times) or "validate"
//! speed = 2.0                    # arrivals (and think times) at trace time / 2
//! limit = 100000                 # first N requests replayed
//! device = 5                     # only this trace device (or devices = [5, 6],
//!                                # or merge_devices = true)
//! op = "read"                    # only reads (or "write")
//! start_s = 10.0                 # time window, seconds from the trace's first record
//! end_s = 70.0
//! fit = "fail"                   # or "wrap", "scale", "truncate" for a trace larger than the drive
//! skip_bad = false               # true: skip and count bad records instead of failing
//! blkparse_event = "Q"           # blkparse only: "Q" (queued) or "D" (dispatched)
//! # format = "csv" takes a column mapping:
//! # csv = { time = 0, address = 2, size = 3, op = 4, time_unit = "ms" }
//! ```
//!
//! See `docs/traces.md` for every format and option.
//!
//! ```toml
//! [workload]
//! kind = "bursty"            # ON/OFF Markov-modulated Poisson arrivals
//! requests = 100000
//! on_rate_iops = 120.0       # while ON
//! off_rate_iops = 2.0        # while OFF (default 0)
//! on_mean_ms = 800.0         # mean ON period (exponential)
//! off_mean_ms = 4000.0       # mean OFF period (exponential)
//! read_fraction = 0.33       # and the other synthetic keys
//! ```
//!
//! ```toml
//! [[workloads]]              # one process per entry; see workload/app/
//! kind = "app"               # the anticipatory paper's application stand-ins
//! app = "web"                # "andrew", "andrew-scan", "linker", "tpcb-update", "tpcb-select"
//! fs = "mmap"                # web only: "read" (64 KiB clustered chunks) or "mmap" (page faults)
//! requests = 400             # files (transactions for TPC-B)
//! think_scale = 0.5          # a faster CPU
//! mmap_limit_bytes = 65536   # web, mmap only: larger files in read mode (Apache's mix)
//! ```
//!
//! Other localities: `{ kind = "uniform" }` (the default) and `{ kind = "local",
//! mean_distance_sectors = 2000, distribution = "normal" }` (or `"exponential"`).
//!
//! Synthetic workloads draw from the named random streams `workload.arrival`,
//! `workload.state` (bursty ON/OFF periods), `workload.think`, `workload.size`, `workload.locality` and `workload.op`, one per
//! property, so changing one knob leaves the other properties' sequences unchanged.

use crate::error::Result;
use crate::request::Request;
use crate::time::SimTime;

/// Arrivals a workload wants scheduled. The engine drains it after every workload call and
/// assigns request ids in order.
#[derive(Default, Debug)]
pub struct Arrivals {
    pub(crate) pending: Vec<Request>,
}

impl Arrivals {
    /// Schedule `req` to arrive at `req.arrival_ns` (must not be in the past).
    #[inline]
    pub(crate) fn push(&mut self, req: Request) {
        self.pending.push(req);
    }
    pub fn len(&self) -> usize {
        self.pending.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
    pub fn drain(&mut self) -> std::vec::Drain<'_, Request> {
        self.pending.drain(..)
    }
}

/// A source of requests.
pub trait Workload {
    fn name(&self) -> &str;
    /// Called once at time 0: schedule the first arrivals.
    fn start(&mut self, out: &mut Arrivals) -> Result<()>;
    /// One of this workload's requests has just arrived at the host.
    fn on_arrival(&mut self, req: &Request, out: &mut Arrivals) -> Result<()>;
    /// One of this workload's requests has completed at `now`.
    fn on_completion(&mut self, req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()>;
    /// Whether `on_completion` does nothing, ever (an open-loop replay): the engine then
    /// skips the call.
    fn ignores_completions(&self) -> bool {
        false
    }
    /// For trace replays: what was skipped, filtered or fitted (read at the end of a run).
    fn trace_report(&self) -> Option<TraceReport> {
        None
    }
}

pub mod app;
mod bursty;
mod closed;
pub mod config;
mod list;
pub mod locality;
mod multi;
mod open;
mod shape;
pub mod size;
mod sync_reader;
pub mod synthgen;
pub mod text;
pub mod trace;
pub mod video;
pub mod zoned_writers;

pub use bursty::{BurstyConfig, BurstyWorkload};
pub use closed::{ClosedConfig, ClosedWorkload, ThinkKind};
pub use config::{Region, WorkloadCommon, WorkloadConfig, WorkloadEntry};
pub use list::ListWorkload;
pub use locality::{HotRegion, LocalDistribution, LocalityConfig};
pub use multi::{Member, MultiWorkload};
pub use open::{ArrivalKind, OpenConfig, OpenWorkload};
pub use shape::ShapeConfig;
pub use size::SizeConfig;
pub use sync_reader::{FsMode, SyncConfig, SyncPattern, SyncReader};
pub use synthgen::{SynthDist, SynthGenerator, SynthgenConfig, SynthgenWorkload};
pub use trace::{
    ReplayMode, TraceConfig, TraceFormat, TraceReader, TraceRecord, TraceReport, TraceSource,
    TraceWorkload,
};
pub use zoned_writers::{ZonedWriters, ZonedWritersConfig};
