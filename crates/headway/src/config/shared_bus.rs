//! `shared_bus = "name"` on `[[devices]]`: the devices naming one bus take turns on it
//! (`link/shared_bus.rs` says which phases hold it).

use super::DeviceConfig;
use crate::device::hdd::overheads::Overheads;
use crate::device::hdd::HddSpec;
use crate::error::{HeadwayError, Result};
use crate::link::{BusHold, SharedBuses};

/// What each disk drive holds a shared bus for, from its parameters.
pub(super) fn bus_hold(spec: &HddSpec) -> BusHold {
    let write_sector_ms = spec
        .bus
        .write_sector_transfer_ms
        .unwrap_or(spec.bus.sector_transfer_ms);
    BusHold::new(&Overheads::from_spec(spec), write_sector_ms)
}

/// The shared buses of `devices`, whose drives hold a bus as `holds` says (`None`: a
/// device with no drive model of its bus phases, a flash device).
pub(super) fn shared_buses(
    devices: &[DeviceConfig],
    holds: &[Option<BusHold>],
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
    Ok(SharedBuses::new(&seats))
}
