//! Closed-loop and validate-style replay: each process keeps at most one request in the
//! system, and issues its next one the trace's think time after the previous completes.
//!
//! The think time before a process's record k+1 is issue(k+1) − completion(k) in the trace,
//! where completion(k) = issue(k) + the recorded response time (formats that record one: MSR,
//! HP SRT, DiskSim validate), or issue(k) where the trace has none; negative gaps (the
//! process had several requests in flight) become 0. A process's first request arrives at
//! its trace time. `validate` mode treats the whole trace as one process, as DiskSim's
//! validate traces are replayed (for them the think time is exactly the `delay_us` column).
//!
//! Memory: records read ahead for processes that are still busy wait in per-process queues
//! holding at most [`MAX_READ_AHEAD`] records in all; when that is full, reading pauses
//! until a busy process takes one (so a replay never stalls for good, and never holds the
//! trace).

use std::collections::VecDeque;

use super::names::IntMap;

use super::feed::Feed;
use super::report::TraceReport;
use super::{TraceReader, TraceRecord};
use crate::error::Result;
use crate::request::Request;
use crate::time::SimTime;
use crate::workload::{Arrivals, Workload};

/// Records held ahead of their process (about 48 bytes each: 12 MiB).
pub(crate) const MAX_READ_AHEAD: usize = 1 << 18;

#[derive(Default)]
struct Proc {
    queue: VecDeque<TraceRecord>,
    /// A request of this process is scheduled or in the system.
    busy: bool,
    /// When the trace's previous request of this process completed (trace time).
    last_done_ns: u64,
}

pub struct ClosedTraceWorkload<R> {
    feed: Feed<R>,
    time_scale: f64,
    single: bool,
    procs: IntMap<u32, Proc>,
    /// Processes idle with nothing queued, waiting for the reader to find their next record.
    idle: usize,
    buffered: usize,
    /// Trace time (scaled) of the last record read.
    cursor_ns: SimTime,
    eof: bool,
    saw_process: bool,
}

impl<R: TraceReader> ClosedTraceWorkload<R> {
    /// `single`: one stream for the whole trace (validate mode).
    pub fn new(feed: Feed<R>, speed: f64, single: bool) -> Self {
        ClosedTraceWorkload {
            feed,
            time_scale: 1.0 / speed,
            single,
            procs: IntMap::default(),
            idle: 0,
            buffered: 0,
            cursor_ns: 0,
            eof: false,
            saw_process: false,
        }
    }

    fn scale(&self, ns: u64) -> SimTime {
        if self.time_scale == 1.0 {
            ns
        } else {
            (ns as f64 * self.time_scale).round() as SimTime
        }
    }

    fn key(&self, process: u32) -> u32 {
        if self.single {
            0
        } else {
            process
        }
    }

    /// Issue `rec` for its process at `now` plus its think time.
    fn issue(&mut self, rec: TraceRecord, now: SimTime, first: bool, out: &mut Arrivals) {
        let key = self.key(rec.process);
        let p = self.procs.get_mut(&key).expect("known process");
        let think = rec.time_ns.saturating_sub(p.last_done_ns);
        p.last_done_ns = rec.time_ns + rec.response_ns.unwrap_or(0);
        p.busy = true;
        let at = if first {
            now.max(self.scale(rec.time_ns))
        } else {
            now + self.scale(think)
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

    /// Read records while some process waits for one, or while the reader is behind `now`;
    /// new processes start at their trace times, others' records are queued.
    fn pump(&mut self, now: SimTime, out: &mut Arrivals) -> Result<()> {
        while !self.eof
            && (self.idle > 0 || self.cursor_ns <= now)
            && self.buffered < MAX_READ_AHEAD
        {
            let Some(rec) = self.feed.next_record()? else {
                self.eof = true;
                break;
            };
            self.saw_process |= rec.process != 0;
            self.cursor_ns = self.scale(rec.time_ns);
            let key = self.key(rec.process);
            match self.procs.get_mut(&key) {
                None => {
                    self.procs.insert(key, Proc::default());
                    self.issue(rec, now, true, out);
                }
                Some(p) if !p.busy => {
                    self.idle -= 1;
                    self.issue(rec, now, false, out);
                }
                Some(p) => {
                    p.queue.push_back(rec);
                    self.buffered += 1;
                }
            }
        }
        Ok(())
    }
}

impl<R: TraceReader> Workload for ClosedTraceWorkload<R> {
    fn name(&self) -> &str {
        if self.single {
            "trace (validate)"
        } else {
            "trace (closed)"
        }
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.pump(0, out)
    }
    fn on_arrival(&mut self, req: &Request, out: &mut Arrivals) -> Result<()> {
        self.pump(req.arrival_ns, out)
    }
    fn on_completion(&mut self, req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()> {
        let key = self.key(req.process);
        let p = self
            .procs
            .get_mut(&key)
            .expect("a completed request's process");
        p.busy = false;
        match p.queue.pop_front() {
            Some(rec) => {
                self.buffered -= 1;
                self.issue(rec, now, false, out);
            }
            None => self.idle += 1,
        }
        self.pump(now, out)
    }
    fn trace_report(&self) -> Option<TraceReport> {
        let mut r = self.feed.report();
        if !self.single && !self.saw_process {
            r.notes.push(
                "the trace names no processes, so closed mode replayed it as one serial stream"
                    .into(),
            );
        }
        Some(r)
    }
}
