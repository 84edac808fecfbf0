//! The state every thread of a server shares: the model with the requests in flight in it,
//! the pacing, the data, and the tallies the summary and the progress line read.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use super::backing::Backing;
use super::model::{Arrival, ServeModel};
use super::nbd::Export;
use super::pacing::{Clock, PacingError};
use super::reply_port::{Reply, ReplyPort};
use crate::error::{HeadwayError, Result};
use crate::request::Op;

/// A request inside the model, waiting for its completion.
pub(crate) struct InFlight {
    pub reply: Reply,
    pub port: Arc<ReplyPort>,
    /// The simulated arrival time (set when it enters the model).
    pub at_ns: u64,
}

pub(crate) struct Core {
    pub model: Box<dyn ServeModel>,
    pub pending: HashMap<u64, InFlight>,
    /// The simulated time the model was last advanced to; no arrival is earlier.
    pub now_ns: u64,
    arrivals: Option<(PathBuf, BufWriter<File>)>,
    pub completed: u64,
    pub response_ns_total: u64,
    /// The first error the model or the arrivals file raised; the server stops on it.
    pub failure: Option<HeadwayError>,
    /// The pacing error of the replies the engine sent itself.
    pub engine_pacing_error: PacingError,
}

pub(crate) struct Shared {
    pub core: Mutex<Core>,
    /// Wakes the engine: a new arrival, or the server stopping.
    pub wake: Condvar,
    pub clock: Clock,
    pub backing: Backing,
    pub exports: Vec<Export>,
    pub stop: AtomicBool,
    /// The pacing error of the replies the connections' writers sent.
    pub pacing_error: Mutex<PacingError>,
}

impl Shared {
    pub(crate) fn new(
        model: Box<dyn ServeModel>,
        clock: Clock,
        backing: Backing,
        exports: Vec<Export>,
        arrivals: Option<PathBuf>,
    ) -> Result<Shared> {
        let arrivals = match arrivals {
            Some(path) => {
                let f = File::create(&path).map_err(|e| HeadwayError::io(&path, e))?;
                Some((path, BufWriter::new(f)))
            }
            None => None,
        };
        Ok(Shared {
            core: Mutex::new(Core {
                model,
                pending: HashMap::new(),
                now_ns: 0,
                arrivals,
                completed: 0,
                response_ns_total: 0,
                failure: None,
                engine_pacing_error: PacingError::new(),
            }),
            wake: Condvar::new(),
            clock,
            backing,
            exports,
            stop: AtomicBool::new(false),
            pacing_error: Mutex::new(PacingError::new()),
        })
    }

    pub(crate) fn core(&self) -> MutexGuard<'_, Core> {
        self.core.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn stop(&self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _core = self.core();
        self.wake.notify_all();
    }

    pub(crate) fn stopping(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Core {
    /// Enters a request at the current simulated time (never before the model's own) and
    /// notes it in the arrivals file; its reply waits in `pending` for the completion.
    pub(crate) fn submit(
        &mut self,
        clock: &Clock,
        mut arrival: Arrival,
        in_flight: InFlight,
    ) -> Result<()> {
        let now = Instant::now();
        arrival.at_ns = clock.start(now).sim_ns_at(now).max(self.now_ns);
        let id = self.model.submit(&arrival)?;
        self.pending.insert(
            id,
            InFlight {
                at_ns: arrival.at_ns,
                ..in_flight
            },
        );
        if let Some((path, w)) = &mut self.arrivals {
            // The FIU trace format: integer nanoseconds and the process kept, so that
            // `headway replay` puts each request back at its time and in its stream.
            let op = if arrival.op == Op::Read { 'R' } else { 'W' };
            writeln!(
                w,
                "{} {} nbd-{} {} {} {} 0 {} -",
                arrival.at_ns,
                arrival.process,
                arrival.process,
                arrival.lbn,
                arrival.sectors,
                op,
                arrival.device
            )
            .map_err(|e| HeadwayError::io(path.clone(), e))?;
        }
        Ok(())
    }

    pub(crate) fn finish_arrivals(&mut self) -> Result<()> {
        if let Some((path, w)) = &mut self.arrivals {
            w.flush().map_err(|e| HeadwayError::io(path.clone(), e))?;
        }
        Ok(())
    }
}
