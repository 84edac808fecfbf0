//! A live simulation: the run of a configuration, driven from outside one request and one
//! step at a time (a co-simulator embedding the disk, or a block-device server).
//!
//! The caller submits requests at or after the live clock, asks when the next event is due,
//! and advances the clock; each step returns the submitted requests completed in it. The
//! host's schedulers, predictors, every configured device and the host's own work (freeblock
//! reads, write-backs, idle scans) run as in a batch run of the same configuration: a
//! trace's requests submitted before the clock passes their arrival complete at the same
//! nanoseconds as `headway run` of the trace (the configuration's own workload is not run).
//!
//! ```
//! use headway::live::{Live, LiveRequest};
//! use headway::Op;
//! let mut live = Live::from_toml_str("[drive]\nname = \"elite3\"", None).unwrap();
//! let a = live.submit(LiveRequest::new(Op::Read, 1000, 8, 0).tag(7)).unwrap();
//! let mut done = Vec::new();
//! while let Some(t) = live.next_event_ns() {
//!     done.extend(live.advance_to(t).unwrap());
//! }
//! assert_eq!((done[0].id, done[0].tag), (a, 7));
//! assert!(done[0].response_ns() > 0);
//! assert_eq!(live.summary().requests, 1);
//! ```

mod completion;
mod feed;
mod request;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

pub use completion::LiveCompletion;
pub use request::LiveRequest;

use crate::config::{build_simulation, ExperimentConfig};
use crate::device::DeviceIo;
use crate::error::{HeadwayError, Result};
use crate::sim::{RunResult, Simulation};
use crate::stats::{RequestRecords, Summary};
use crate::time::{SimTime, NEVER};
use feed::{is_stand_in, Feed, FeedWorkload};

/// A simulation that runs as far as it is told, fed requests as it goes.
pub struct Live {
    sim: Simulation,
    feed: Rc<RefCell<Feed>>,
    io: DeviceIo,
    /// Tag by submission id, for the submissions not yet completed.
    tags: HashMap<u64, u64>,
    next_id: u64,
    /// Record rows already looked at for completions.
    seen_rows: usize,
}

impl Live {
    /// The live run of `cfg` (its devices, host, link and seed; its workloads only name
    /// the classes and processes). Per-request records are always kept.
    pub fn from_config(cfg: &ExperimentConfig) -> Result<Live> {
        let mut cfg = cfg.clone();
        cfg.output.records = true;
        let feed = Rc::new(RefCell::new(Feed::default()));
        let mut sim = build_simulation(&cfg, None)?
            .simulation
            .with_workload(Box::new(FeedWorkload(feed.clone())));
        sim.start()?;
        Ok(Live {
            sim,
            feed,
            io: DeviceIo::default(),
            tags: HashMap::new(),
            next_id: 0,
            seen_rows: 0,
        })
    }

    /// [`Live::from_config`] of a configuration's TOML text (`origin`: the file it came
    /// from, against which relative paths resolve).
    pub fn from_toml_str(text: &str, origin: Option<&Path>) -> Result<Live> {
        Live::from_config(&ExperimentConfig::from_toml_str(text, origin)?)
    }

    /// [`Live::from_config`] of a configuration file.
    pub fn from_toml_file(path: &Path) -> Result<Live> {
        Live::from_config(&ExperimentConfig::from_toml_file(path)?)
    }

    /// The live clock: every event up to it has been processed.
    pub fn now_ns(&self) -> SimTime {
        self.sim.now_ns()
    }

    /// Submit `req`, to arrive at `req.at_ns` (not before the clock), and return its id.
    /// Refused, with nothing submitted, if it lies in the past, names a device the
    /// configuration lacks, or does not fit its device.
    pub fn submit(&mut self, req: LiveRequest) -> Result<u64> {
        if req.at_ns < self.now_ns() {
            return Err(HeadwayError::config(
                "at_ns",
                format!(
                    "a request arriving at {} ns is before now ({} ns)",
                    req.at_ns,
                    self.now_ns()
                ),
            ));
        }
        let r = req.to_request();
        self.sim.check_request(&r)?;
        let id = self.next_id;
        let mut feed = self.feed.borrow_mut();
        if feed.closed {
            return Err(HeadwayError::config(
                "submit",
                "the live run was closed to submissions",
            ));
        }
        let first = match self.sim.lane_arrival() {
            Some(held) => is_stand_in(held) || r.arrival_ns < held.arrival_ns,
            None => {
                return Err(HeadwayError::Invariant(
                    "the live run holds no next arrival".into(),
                ))
            }
        };
        if first {
            let replaced = self.sim.replace_lane_arrival(r)?;
            if let Some(before) = feed.scheduled.replace(id) {
                feed.waiting.insert((replaced.arrival_ns, before), replaced);
            }
        } else {
            feed.waiting.insert((r.arrival_ns, id), r);
        }
        self.next_id += 1;
        self.tags.insert(id, req.tag);
        Ok(id)
    }

    /// Say that nothing more will be submitted. Until then the run keeps a place for a next
    /// arrival, and that place takes a request id; a run closed before the clock reaches
    /// its last submission's arrival gives its host-made requests the ids a batch run
    /// gives them (the times are the same either way).
    pub fn close(&mut self) {
        self.feed.borrow_mut().closed = true;
    }

    /// When the next event is due (an arrival, a device's progress, a host timer), or
    /// `None` when nothing is pending.
    pub fn next_event_ns(&self) -> Option<SimTime> {
        self.sim.next_event_ns().filter(|&t| t != NEVER)
    }

    /// Process every event at or before `ns`, move the clock to `ns`, and return the
    /// submitted requests completed meanwhile, in completion order.
    pub fn advance_to(&mut self, ns: SimTime) -> Result<Vec<LiveCompletion>> {
        if ns < self.now_ns() || ns == NEVER {
            return Err(HeadwayError::config(
                "advance_to",
                format!(
                    "cannot move the clock from {} ns to {ns} ns: it only goes forward, \
                     and stops short of {NEVER} ns",
                    self.now_ns()
                ),
            ));
        }
        self.sim.step_until(ns, &mut self.io)?;
        Ok(self.take_completions())
    }

    /// Process every pending event (the clock stops at the last), and return the submitted
    /// requests completed meanwhile. An error if a submitted request is still not complete
    /// (a scheduler stopped dispatching).
    pub fn finish(&mut self) -> Result<Vec<LiveCompletion>> {
        let mut done = Vec::new();
        while let Some(t) = self.next_event_ns() {
            done.extend(self.advance_to(t)?);
        }
        if !self.tags.is_empty() {
            return Err(HeadwayError::Invariant(format!(
                "no event is left but {} submitted requests are not complete: a scheduler stopped dispatching",
                self.tags.len()
            )));
        }
        Ok(done)
    }

    /// Submitted requests not yet completed.
    pub fn outstanding(&self) -> usize {
        self.tags.len()
    }

    /// The run's summary so far (energy, reported only at the end, is in
    /// [`Live::into_result`]'s). It does not copy the records, so the cost of a call does
    /// not grow with the run.
    pub fn summary(&self) -> Summary {
        self.sim.summary_so_far()
    }

    /// One row per request completed so far, host-made work included, as in a batch run.
    pub fn records(&self) -> RequestRecords {
        self.sim.records().cloned().unwrap_or_default()
    }

    /// The run's result as a batch run returns it (call [`Live::finish`] first for a run
    /// with nothing left in it).
    pub fn into_result(self) -> Result<RunResult> {
        self.sim.into_result()
    }

    /// The submitted requests among the record rows added since the last look.
    fn take_completions(&mut self) -> Vec<LiveCompletion> {
        let Some(records) = self.sim.records() else {
            return Vec::new();
        };
        let mut feed = self.feed.borrow_mut();
        let mut done = Vec::new();
        for i in self.seen_rows..records.len() {
            let Some(id) = feed.arrived.remove(&records.id[i]) else {
                continue; // made by the host
            };
            let tag = self.tags.remove(&id).unwrap_or_default();
            done.push(LiveCompletion::from_record(records, i, id, tag));
        }
        self.seen_rows = records.len();
        done
    }
}
