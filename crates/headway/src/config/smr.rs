//! The shingled-recording layer a rotating drive gets: drive-managed SMR (`[drive.smr]`, or
//! a `[[devices]]` entry's `smr`, else its drive file's `[smr]`) or host-managed zones
//! (`[drive.zoned]`, else the drive file's `[zoned]`), or neither.

use super::drive::DriveSettings;
use crate::device::hdd::HddSpec;
use crate::device::smr::{SmrDevice, SmrSpec};
use crate::device::zoned::{ZonedDevice, ZonedSpec};
use crate::device::Device;
use crate::error::{HeadwayError, Result};

/// The drive-managed SMR parameters in force and the table errors name.
pub(super) fn chosen(
    spec: &HddSpec,
    settings: &DriveSettings,
    table: &str,
) -> Option<(SmrSpec, String)> {
    match (&settings.smr, &spec.smr) {
        (Some(s), _) => Some((s.clone(), format!("{table}.smr"))),
        (None, Some(s)) => Some((s.clone(), format!("smr (drive `{}`)", spec.name))),
        (None, None) => None,
    }
}

fn chosen_zones(
    spec: &HddSpec,
    settings: &DriveSettings,
    table: &str,
) -> Option<(ZonedSpec, String)> {
    match (&settings.zoned, &spec.zoned) {
        (Some(z), _) => Some((z.clone(), format!("{table}.zoned"))),
        (None, Some(z)) => Some((z.clone(), format!("zoned (drive `{}`)", spec.name))),
        (None, None) => None,
    }
}

/// `device` behind the shingled layer chosen, if any. With drive-managed SMR, `device` must
/// accept one command at a time (the layer sequences its steps).
pub(super) fn with_shingling(
    device: Box<dyn Device>,
    spec: &HddSpec,
    settings: &DriveSettings,
    queue_depth: usize,
    table: &str,
) -> Result<Box<dyn Device>> {
    let capacity = device.info().capacity_sectors;
    match (
        chosen(spec, settings, table),
        chosen_zones(spec, settings, table),
    ) {
        (None, None) => Ok(device),
        (Some((smr, key)), None) => {
            smr.validate(capacity, &key)?;
            Ok(Box::new(SmrDevice::new(device, smr, queue_depth)))
        }
        (None, Some((zoned, key))) => {
            zoned.validate(capacity, &key)?;
            Ok(Box::new(ZonedDevice::new(device, zoned)))
        }
        (Some((_, smr_key)), Some((_, zoned_key))) => Err(HeadwayError::config(
            zoned_key,
            format!("a drive is either drive-managed ({smr_key}) or zoned, not both"),
        )),
    }
}
