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

// SAFETY: a `Live` is not `Send` only because it shares its feed with the run inside it
// through an `Rc`, and a plug-in scheduler written in Python could hold interpreter
// objects. Every clone of that `Rc` lives inside the `Live` and moves with it, and the
// server touches the model from one thread at a time, behind its lock; a configuration
// file names only built-in (Rust) schedulers.
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
