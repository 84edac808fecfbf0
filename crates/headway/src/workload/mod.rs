//! Workloads: when and what is requested. Open workloads (traces, Poisson) schedule their
//! next arrival when the previous one arrives, so only one future arrival per stream is ever
//! held (streaming, bounded memory); closed workloads react to completions.

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
    pub fn push(&mut self, req: Request) {
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
}

mod closed;
pub mod config;
mod list;
pub mod locality;
mod open;
mod shape;
pub mod size;
pub mod trace;

pub use closed::ClosedWorkload;
pub use config::{ArrivalKind, ClosedConfig, OpenConfig, ThinkKind, TraceConfig, WorkloadConfig};
pub use list::ListWorkload;
pub use locality::{HotRegion, LocalDistribution, LocalityConfig};
pub use open::OpenWorkload;
pub use size::SizeConfig;
pub use trace::{TraceFormat, TraceReader, TraceRecord, TraceWorkload};
