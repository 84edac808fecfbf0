//! What the server needs from a simulation: requests in at a simulated time, the time of the
//! next thing that happens, time moved forward with the completions it brings, and the
//! statistics. The live simulation implements it; so does [`FixedLatency`], a stand-in
//! the protocol's tests use.

use crate::error::Result;
use crate::request::Op;
use crate::stats::RequestRecords;

/// One request entering the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// Index of the configured device (the export).
    pub device: usize,
    pub op: Op,
    pub lbn: u64,
    pub sectors: u32,
    pub at_ns: u64,
    /// The host process it comes from (one per client connection).
    pub process: u32,
}

/// A request the model has completed: the id `submit` returned, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    pub id: u64,
    pub completion_ns: u64,
}

/// One exported device: its name and capacity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelDevice {
    pub name: String,
    pub capacity_sectors: u64,
}

pub trait ServeModel: Send {
    fn devices(&self) -> Vec<ModelDevice>;
    /// Enters a request; `arrival.at_ns` is never before the time last advanced to.
    fn submit(&mut self, arrival: &Arrival) -> Result<u64>;
    /// When the model next has something to do, if anything.
    fn next_event_ns(&self) -> Option<u64>;
    /// Runs everything due up to and including `ns`, appending the completions to `done`.
    fn advance_to(&mut self, ns: u64, done: &mut Vec<Done>) -> Result<()>;
    /// The run's summary as `headway run` writes it.
    fn summary(&self) -> Result<serde_json::Value>;
    /// One row per request completed so far, as a batch run keeps them, when the model
    /// keeps them.
    fn records(&self) -> Option<RequestRecords>;
}

/// Each device a single server with a fixed service time, first come first served.
pub struct FixedLatency {
    devices: Vec<ModelDevice>,
    service_ns: u64,
    busy_until_ns: Vec<u64>,
    /// (completion_ns, id, response_ns), in completion order per device.
    queued: Vec<(u64, u64, u64)>,
    next_id: u64,
    completed: u64,
    response_ns_total: u64,
}

impl FixedLatency {
    pub fn new(devices: Vec<ModelDevice>, service_ns: u64) -> FixedLatency {
        FixedLatency {
            busy_until_ns: vec![0; devices.len()],
            devices,
            service_ns,
            queued: Vec::new(),
            next_id: 0,
            completed: 0,
            response_ns_total: 0,
        }
    }
}

impl ServeModel for FixedLatency {
    fn devices(&self) -> Vec<ModelDevice> {
        self.devices.clone()
    }

    fn submit(&mut self, a: &Arrival) -> Result<u64> {
        let start = self.busy_until_ns[a.device].max(a.at_ns);
        let end = start + self.service_ns;
        self.busy_until_ns[a.device] = end;
        let id = self.next_id;
        self.next_id += 1;
        self.queued.push((end, id, end - a.at_ns));
        Ok(id)
    }

    fn next_event_ns(&self) -> Option<u64> {
        self.queued.iter().map(|q| q.0).min()
    }

    fn advance_to(&mut self, ns: u64, done: &mut Vec<Done>) -> Result<()> {
        let mut due: Vec<_> = self.queued.iter().copied().filter(|q| q.0 <= ns).collect();
        self.queued.retain(|q| q.0 > ns);
        due.sort_unstable();
        for (completion_ns, id, response_ns) in due {
            self.completed += 1;
            self.response_ns_total += response_ns;
            done.push(Done { id, completion_ns });
        }
        Ok(())
    }

    fn summary(&self) -> Result<serde_json::Value> {
        let mean_ms = if self.completed == 0 {
            0.0
        } else {
            self.response_ns_total as f64 / self.completed as f64 / 1e6
        };
        Ok(serde_json::json!({ "requests": self.completed, "mean_response_ms": mean_ms }))
    }

    fn records(&self) -> Option<RequestRecords> {
        None
    }
}
