//! `shared_bus = "name"` on `[[devices]]`: the devices naming one bus take turns on it
//! (`link/shared_bus.rs` says which phases hold it); `[[buses]]` sets a named bus's
//! arbitration time and whether reads' data holds it.

use serde::Deserialize;

use super::DeviceConfig;
use crate::device::hdd::overheads::Overheads;
use crate::device::hdd::HddSpec;
use crate::error::{HeadwayError, Result};
use crate::link::{BusHold, BusSettings, SharedBuses};
use crate::time::ms_to_ns;

/// One `[[buses]]` entry: the settings of the shared bus the devices name `name`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BusConfig {
    pub name: String,
    /// What each grant of the bus costs before its new owner may use it (DiskSim's
    /// `Arbitration time`).
    #[serde(default)]
    pub arbitration_ms: f64,
    /// A read's data, from the drive's reconnection through its completion message, holds
    /// the bus (DiskSim's disks always send it over the bus); `false` leaves only the
    /// command phases on it.
    #[serde(default = "yes")]
    pub hold_read_data: bool,
}

fn yes() -> bool {
    true
}

impl BusConfig {
    /// A bus named `name` with the defaults.
    pub fn named(name: &str) -> Self {
        BusConfig {
            name: name.to_string(),
            arbitration_ms: 0.0,
            hold_read_data: true,
        }
    }
}

/// The settings of `buses`, checked: each names a bus some device shares, once, with an
/// arbitration time that is a finite duration.
fn bus_settings(buses: &[BusConfig], names: &[&str]) -> Result<Vec<BusSettings>> {
    let mut settings = vec![BusSettings::default(); names.len()];
    for (i, b) in buses.iter().enumerate() {
        let key = |k: &str| format!("buses[{i}].{k}");
        let Some(n) = names.iter().position(|n| *n == b.name) else {
            return Err(HeadwayError::config(
                key("name"),
                format!(
                    "no device names the bus `{}` in `shared_bus` (buses named: {})",
                    b.name,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        };
        if buses[..i].iter().any(|o| o.name == b.name) {
            return Err(HeadwayError::config(
                key("name"),
                format!("the bus `{}` has two `[[buses]]` entries", b.name),
            ));
        }
        if !(b.arbitration_ms.is_finite() && b.arbitration_ms >= 0.0) {
            return Err(HeadwayError::config(
                key("arbitration_ms"),
                format!("must be a duration of 0 or more, got {}", b.arbitration_ms),
            ));
        }
        settings[n] = BusSettings {
            arbitration_ns: ms_to_ns(b.arbitration_ms),
            hold_read_data: b.hold_read_data,
        };
    }
    Ok(settings)
}

/// What each disk drive holds a shared bus for, from its parameters.
pub(super) fn bus_hold(spec: &HddSpec) -> BusHold {
    let write_sector_ms = spec
        .bus
        .write_sector_transfer_ms
        .unwrap_or(spec.bus.sector_transfer_ms);
    BusHold::new(&Overheads::from_spec(spec), write_sector_ms)
}

/// The shared buses of `devices`, whose drives hold a bus as `holds` says (`None`: a
/// device with no drive model of its bus phases, a flash device), set as `buses` says.
pub(super) fn shared_buses(
    devices: &[DeviceConfig],
    holds: &[Option<BusHold>],
    buses: &[BusConfig],
) -> Result<SharedBuses> {
    let mut names: Vec<&str> = Vec::new();
    let mut seats = Vec::with_capacity(devices.len());
    for (i, (d, hold)) in devices.iter().zip(holds).enumerate() {
        let Some(name) = d.shared_bus.as_deref() else {
            seats.push(None);
            continue;
        };
        let key = format!("devices[{i}].shared_bus");
        if name.trim().is_empty() {
            return Err(HeadwayError::config(
                key,
                "a shared bus needs a name (devices naming the same bus share it)",
            ));
        }
        let Some(hold) = hold else {
            return Err(HeadwayError::config(
                key,
                format!(
                    "device `{}` (drive `{}`) cannot share a bus: only disk drives model the \
                     phases that hold one",
                    d.name, d.drive
                ),
            ));
        };
        let bus = match names.iter().position(|n| *n == name) {
            Some(b) => b,
            None => {
                names.push(name);
                names.len() - 1
            }
        };
        seats.push(Some((bus, *hold)));
    }
    let settings = bus_settings(buses, &names)?;
    Ok(SharedBuses::new(&seats, &settings))
}
