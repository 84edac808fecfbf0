//! `[host] zone_write_plugging`, `zone_append`, `zone_plug_merge` and
//! `zone_plug_max_merge_sectors`: whether the host's scheduler is wrapped in zone write
//! plugging, built from each zoned device's zone report, and whether the plug merges the
//! writes waiting in it (`docs/smr.md`).

use super::ExperimentConfig;
use crate::device::Device;
use crate::error::{HeadwayError, Result};
use crate::sched::{PlugSettings, SchedSpec, Scheduler, ZoneAppend, ZonePlug};

/// Linux's default `max_sectors_kb` cap (1,280 KiB) in sectors: the largest merged write.
const DEFAULT_MAX_MERGE_SECTORS: u32 = 2560;

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
    let plugging = cfg.host.zone_write_plugging.unwrap_or(emulated);
    let merge_max_sectors = merging(cfg, plugging)?;
    if !plugging {
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
    let settings = PlugSettings {
        append,
        merge_max_sectors,
    };
    Ok(Box::new(ZonePlug::new(scheduler, &reports, settings)))
}

/// The largest command a plug's merge builds, or `None` for no merging; the merge keys are
/// refused where they would change nothing.
fn merging(cfg: &ExperimentConfig, plugging: bool) -> Result<Option<u32>> {
    let merge = cfg.host.zone_plug_merge;
    let max = cfg.host.zone_plug_max_merge_sectors;
    if !plugging && merge.is_some() {
        return Err(HeadwayError::config(
            "host.zone_plug_merge",
            "merging joins the writes waiting in a zone's plug, and there are no plugs: \
             set `zone_write_plugging = true` or drop this key",
        ));
    }
    let key = "host.zone_plug_max_merge_sectors";
    if max.is_some() && !(plugging && merge != Some(false)) {
        return Err(HeadwayError::config(
            key,
            "a merge limit with no merging (zone write plugging off, or \
             `zone_plug_merge = false`): drop this key",
        ));
    }
    if max == Some(0) {
        return Err(HeadwayError::config(
            key,
            "must be at least 1 (sectors); Linux's default is 2560 (max_sectors_kb 1280)",
        ));
    }
    Ok(merge
        .unwrap_or(true)
        .then(|| max.unwrap_or(DEFAULT_MAX_MERGE_SECTORS)))
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
