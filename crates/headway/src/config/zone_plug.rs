//! `[host] zone_write_plugging` and `zone_append`: whether the host's scheduler is wrapped in
//! zone write plugging, built from each zoned device's zone report (`docs/smr.md`).

use super::ExperimentConfig;
use crate::device::Device;
use crate::error::{HeadwayError, Result};
use crate::sched::{SchedSpec, Scheduler, ZoneAppend, ZonePlug};

/// `scheduler`, wrapped in zone write plugging when the experiment asks for it.
pub(super) fn wrap(
    cfg: &ExperimentConfig,
    scheduler: Box<dyn Scheduler>,
    devices: &[Box<dyn Device>],
) -> Result<Box<dyn Scheduler>> {
    let append = cfg.host.zone_append.unwrap_or_default();
    let emulated = append == ZoneAppend::Emulated;
    if emulated && cfg.host.zone_write_plugging == Some(false) {
        return Err(HeadwayError::config(
            "host.zone_append",
            "`emulated` appends need zone write plugging (the host places one append per \
             zone at a time, at the write pointer it tracks); drop `zone_write_plugging = false`",
        ));
    }
    let key = if cfg.host.zone_write_plugging.is_some() {
        "host.zone_write_plugging"
    } else {
        "host.zone_append"
    };
    if !cfg.host.zone_write_plugging.unwrap_or(emulated) {
        return Ok(scheduler);
    }
    if !cfg.arrays.is_empty() {
        return Err(HeadwayError::config(
            key,
            "zone write plugging is for zoned drives the host addresses directly, not for \
             runs with `[[arrays]]`",
        ));
    }
    let reports: Vec<_> = devices.iter().map(|d| d.report_zones()).collect();
    if reports.iter().all(Option::is_none) {
        return Err(HeadwayError::config(
            key,
            "no device is a zoned drive (`[drive.zoned]`, or a drive file's `[zoned]`): \
             there are no zones to plug",
        ));
    }
    if let Some(table) = zone_locking_mq_deadline(&cfg.host.sched_spec(), "host") {
        return Err(HeadwayError::config(
            format!("{table}.options.zone_size_sectors"),
            "zone write plugging already keeps one write per sequential zone in flight; \
             mq-deadline's own zone locking would lock each zone twice (drop \
             `zone_size_sectors` and `conventional_zones`, or `zone_write_plugging`)",
        ));
    }
    Ok(Box::new(ZonePlug::new(scheduler, &reports, append)))
}

/// The table of an mq-deadline in the scheduler stack configured with zone locking.
fn zone_locking_mq_deadline(spec: &SchedSpec, table: &str) -> Option<String> {
    let locks = spec.scheduler == "mq-deadline"
        && spec
            .options
            .get("zone_size_sectors")
            .is_some_and(|v| v.as_integer() != Some(0));
    if locks {
        return Some(table.to_string());
    }
    let inner = spec.inner.as_deref()?;
    zone_locking_mq_deadline(inner, &format!("{table}.inner"))
}
