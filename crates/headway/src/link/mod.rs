//! The link between host and device: transport delay as the host sees it. Bus occupancy and
//! per-sector transfer belong to the device model (a drive's parameters carry them); this
//! layer holds what sits outside the drive: the host adapter's command latency and the
//! completion interrupt's latency.

mod shared_bus;

pub(crate) use shared_bus::{BusHold, BusSettings, SharedBuses};

use crate::time::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// From the host's dispatch to the device receiving the command.
    pub command_latency_ms: f64,
    /// From the device's completion to the host (and scheduler) hearing of it.
    pub completion_latency_ms: f64,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Link {
    pub(crate) command_ns: SimTime,
    pub completion_ns: SimTime,
}

impl Link {
    pub fn new(cfg: &LinkConfig) -> Self {
        Link {
            command_ns: crate::time::ms_to_ns(cfg.command_latency_ms),
            completion_ns: crate::time::ms_to_ns(cfg.completion_latency_ms),
        }
    }
}
