//! The bus settings of `[drive]` / `[[devices]]` put into the drive's parameters: a named
//! interface's time per sector, and bus overlap.

use super::DriveSettings;
use crate::device::hdd::HddSpec;
use crate::error::{HeadwayError, Result};

/// Put `settings`' interface (if any) and bus overlap into `spec`, the drive of `table`.
/// An interface and an explicit `bus_sector_transfer_ms` are two answers to one question,
/// so both is an error naming both keys.
pub(super) fn apply_interface(
    spec: &mut HddSpec,
    settings: &DriveSettings,
    table: &str,
) -> Result<()> {
    if let Some(choice) = settings.interface {
        if settings.bus_sector_transfer_ms.is_some() {
            return Err(HeadwayError::config(
                format!("{table}.interface"),
                format!(
                    "give either {table}.interface or {table}.bus_sector_transfer_ms, not both \
                     (the interface `{}` sets the bus time per sector)",
                    choice.0.name
                ),
            ));
        }
        if let Some(ms) = choice.0.sector_transfer_ms() {
            spec.bus.sector_transfer_ms = ms;
            spec.bus.write_sector_transfer_ms = None;
        }
    }
    spec.bus.overlap |= settings.bus_overlap;
    Ok(())
}
