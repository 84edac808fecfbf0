//! Open-loop replay: each record arrives at its trace time (divided by `speed`), whatever
//! the simulated drive does. The next record is read when the previous one arrives, so one
//! record is held ahead of the clock: memory does not grow with the trace.

use std::path::PathBuf;

use super::ahead::Stream;
use super::feed::{Feed, FeedOptions};
use super::report::{TraceCounts, TraceReport};
use super::{TraceReader, TraceRecord};
use crate::error::Result;
use crate::request::Request;
use crate::time::SimTime;
use crate::workload::config::TraceConfig;
use crate::workload::{Arrivals, Workload};

/// Replays the requests of `S` (a [`Requests`] over a feed, run ahead on the reader's
/// thread or not) to the simulated drive (device 0).
pub struct TraceWorkload<S> {
    requests: S,
}

/// A feed's records as requests arriving at their trace times divided by the speed.
pub struct Requests<F> {
    feed: F,
    /// `None` at speed 1, so the common case skips the float round trip.
    time_scale: Option<f64>,
}

impl<F: Stream<Item = TraceRecord>> Requests<F> {
    pub fn new(feed: F, speed: f64) -> Self {
        Requests {
            feed,
            time_scale: (speed != 1.0).then(|| 1.0 / speed),
        }
    }
}

impl<F: Stream<Item = TraceRecord>> Stream for Requests<F> {
    type Item = Request;
    #[inline(always)]
    fn next_item(&mut self) -> Result<Option<Request>> {
        let Some(rec) = self.feed.next_item()? else {
            return Ok(None);
        };
        let at = match self.time_scale {
            None => rec.time_ns,
            Some(k) => (rec.time_ns as f64 * k).round() as SimTime,
        };
        let mut req = Request::new(at, rec.lbn, rec.sectors, rec.op);
        req.process = rec.process;
        Ok(Some(req))
    }
    fn report(&self) -> TraceReport {
        self.feed.report()
    }
    #[inline]
    fn counts(&self) -> TraceCounts {
        self.feed.counts()
    }
    fn bad_examples(&self) -> &[String] {
        self.feed.bad_examples()
    }
}

impl<R: TraceReader> TraceWorkload<Requests<Feed<R>>> {
    /// `path` names the trace in errors found after parsing.
    pub fn new(reader: R, cfg: &TraceConfig, capacity_sectors: u64, path: PathBuf) -> Result<Self> {
        cfg.validate()?;
        let opts = FeedOptions::from_config(cfg, capacity_sectors);
        let feed = Feed::new(reader, opts, path, cfg.format);
        Ok(Self::from_feed(feed, cfg.speed))
    }

    pub fn from_feed(feed: Feed<R>, speed: f64) -> Self {
        TraceWorkload {
            requests: Requests::new(feed, speed),
        }
    }
}

impl<S: Stream<Item = Request>> TraceWorkload<S> {
    pub fn from_requests(requests: S) -> Self {
        TraceWorkload { requests }
    }

    #[inline]
    fn next(&mut self, out: &mut Arrivals) -> Result<()> {
        if let Some(req) = self.requests.next_item()? {
            out.push(req);
        }
        Ok(())
    }
}

impl<S: Stream<Item = Request>> Workload for TraceWorkload<S> {
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
    fn trace_report(&self) -> Option<TraceReport> {
        Some(self.requests.report())
    }
}
