//! Open-loop replay: each record arrives at its trace time (divided by `speed`), whatever
//! the simulated drive does. The next record is read when the previous one arrives, so one
//! record is held ahead of the clock: memory does not grow with the trace.

use std::path::PathBuf;

use super::feed::{Feed, FeedOptions};
use super::report::TraceReport;
use super::TraceConfig;
use super::TraceReader;
use crate::error::Result;
use crate::request::Request;
use crate::time::SimTime;
use crate::workload::{Arrivals, Workload};

/// Replays the records of `R` as requests to the simulated drive (device 0).
pub struct TraceWorkload<R> {
    feed: Feed<R>,
    /// `None` at speed 1, so the common case skips the float round trip.
    time_scale: Option<f64>,
}

impl<R: TraceReader> TraceWorkload<R> {
    /// `path` names the trace in errors found after parsing.
    pub fn new(reader: R, cfg: &TraceConfig, capacity_sectors: u64, path: PathBuf) -> Result<Self> {
        cfg.validate()?;
        let opts = FeedOptions::from_config(cfg, capacity_sectors);
        let feed = Feed::new(reader, opts, path, cfg.format);
        Ok(Self::from_feed(feed, cfg.speed))
    }

    pub(crate) fn from_feed(feed: Feed<R>, speed: f64) -> Self {
        TraceWorkload {
            feed,
            time_scale: (speed != 1.0).then(|| 1.0 / speed),
        }
    }

    #[inline(always)]
    fn next(&mut self, out: &mut Arrivals) -> Result<()> {
        if let Some(rec) = self.feed.next_record()? {
            let at = match self.time_scale {
                None => rec.time_ns,
                Some(k) => (rec.time_ns as f64 * k).round() as SimTime,
            };
            let mut req = Request::new(at, rec.lbn, rec.sectors, rec.op);
            if rec.zone_op.is_some() {
                req.marks.set_zone_op(rec.zone_op);
            }
            if rec.high_priority {
                req.marks.set_high_priority(true);
            }
            req.process = rec.process;
            out.push(req);
        }
        Ok(())
    }
}

impl<R: TraceReader> Workload for TraceWorkload<R> {
    fn name(&self) -> &str {
        "trace"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.next(out)
    }
    fn on_arrival(&mut self, _req: &Request, out: &mut Arrivals) -> Result<()> {
        self.next(out)
    }
    fn on_completion(&mut self, _req: &Request, _now: SimTime, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
    fn ignores_completions(&self) -> bool {
        true
    }
    fn trace_report(&self) -> Option<TraceReport> {
        Some(self.feed.report())
    }
}
