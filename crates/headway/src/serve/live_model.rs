//! The live simulation as the server's model: each connection's requests are a process of
//! the configured host, on the device its export names.

use crate::config::{build_simulation, ExperimentConfig};
use crate::error::Result;
use crate::live::{Live, LiveRequest};
use crate::stats::RequestRecords;

use super::model::{Arrival, Done, ModelDevice, ServeModel};

pub struct LiveModel {
    live: Live,
    devices: Vec<ModelDevice>,
}

// SAFETY: `Send` moves the whole `LiveModel` to another thread; it is unsound only if some
// part of it stays reachable from the thread it left, or is tied to that thread. The
// compiler cannot see this because the run's parts are trait objects without a `Send`
// bound; what they hold, case by case:
// - The `Rc<RefCell<Feed>>` of `Live::feed`: its only other clone is the `FeedWorkload`
//   inside `Live::sim` (`Live::from_config` makes both and hands out neither), so every
//   count of that `Rc` moves together and no thread is left touching it. `RefCell` and
//   `Cell` (the schedulers' context) are `Send`.
// - Schedulers, predictors, devices and host components: `Live::from_config` builds them
//   with `build_simulation(cfg, None)`, i.e. only the built-in (Rust) ones a configuration
//   file can name. A scheduler written in Python (whose objects belong to the
//   interpreter's thread state) enters only through that `None`, which is never passed
//   here; the cello interval log, the one other `Rc` in a run, is attached only by the
//   cello experiment, not by a configuration.
// - Nothing holds a thread-local or a raw pointer.
// The server keeps the model inside a `Mutex`, so it is also used by one thread at a time.
unsafe impl Send for LiveModel {}

impl LiveModel {
    pub fn from_config(cfg: &ExperimentConfig) -> Result<LiveModel> {
        // The devices' names and sizes, from the same build the live run makes.
        let built = build_simulation(cfg, None)?;
        let sim = &built.simulation;
        let devices = sim
            .info()
            .devices
            .iter()
            .zip(sim.capacity_sectors())
            .map(|(name, &capacity_sectors)| ModelDevice {
                name: name.clone(),
                capacity_sectors,
            })
            .collect();
        Ok(LiveModel {
            live: Live::from_config(cfg)?,
            devices,
        })
    }
}

impl ServeModel for LiveModel {
    fn devices(&self) -> Vec<ModelDevice> {
        self.devices.clone()
    }

    fn submit(&mut self, a: &Arrival) -> Result<u64> {
        let device = u16::try_from(a.device).unwrap_or(u16::MAX);
        self.live.submit(
            LiveRequest::new(a.op, a.lbn, a.sectors, a.at_ns)
                .device(device)
                .process(a.process),
        )
    }

    fn next_event_ns(&self) -> Option<u64> {
        self.live.next_event_ns()
    }

    fn advance_to(&mut self, ns: u64, done: &mut Vec<Done>) -> Result<()> {
        done.extend(self.live.advance_to(ns)?.into_iter().map(|c| Done {
            id: c.id,
            completion_ns: c.completion_ns,
        }));
        Ok(())
    }

    fn summary(&self) -> Result<serde_json::Value> {
        Ok(self.live.summary().to_flat_json())
    }

    fn records(&self) -> Option<RequestRecords> {
        Some(self.live.records())
    }
}
