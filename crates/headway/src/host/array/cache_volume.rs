//! A `cache-device` volume built from its settings: the cache device's state inside the
//! array layer's volume, with its summary.

use super::cache_dev::{CacheDev, CACHE, DISK};
use super::layout::Layout;
use super::plan::WriteRule;
use super::settings::{ArrayConfig, ParityRotation};
use super::volume::Volume;
use crate::error::{HeadwayError, Result};
use crate::request::DeviceId;
use crate::stats::{ArraySummary, CacheDeviceSummary, MemberSummary};
use crate::time::SimTime;

/// Build volume `i`, a `cache-device` over `devices` (the cache device, then the disk) of
/// `capacities` sectors, and its summary.
pub(crate) fn build(
    a: &ArrayConfig,
    i: usize,
    devices: Vec<DeviceId>,
    capacities: &[u64],
) -> Result<(Volume, ArraySummary)> {
    let cfg = a.cache.clone().unwrap_or_default();
    let cache_cap = capacities[devices[CACHE] as usize];
    let disk_cap = capacities[devices[DISK] as usize];
    let size = cfg.size_sectors.unwrap_or(cache_cap.min(disk_cap));
    if size > cache_cap {
        return Err(HeadwayError::config(
            format!("arrays[{i}].cache.size_sectors"),
            format!(
                "{size} sectors do not fit on the cache device `{}` ({cache_cap} sectors)",
                a.members[CACHE]
            ),
        ));
    }
    if size > disk_cap {
        return Err(HeadwayError::config(
            format!("arrays[{i}].cache.size_sectors"),
            format!(
                "{size} sectors is more than the cached disk `{}` holds ({disk_cap} sectors)",
                a.members[DISK]
            ),
        ));
    }
    let idle_ns = (cfg.destage_idle_ms * 1e6).round() as SimTime;
    let layout = Layout::new(a.level, 1, 1, disk_cap, ParityRotation::default(), 1);
    let summary = ArraySummary {
        name: a.name.clone(),
        level: a.level.name().into(),
        members: a
            .members
            .iter()
            .map(|d| MemberSummary {
                device: d.clone(),
                ..Default::default()
            })
            .collect(),
        cache: Some(CacheDeviceSummary::default()),
        ..Default::default()
    };
    let volume = Volume {
        cache: Some(CacheDev::new(size, cfg.write, idle_ns, cfg.max_outstanding)),
        ..Volume::new(
            a.name.clone(),
            layout,
            WriteRule::Fixed(a.small_write),
            a.sync_writes,
            a.mirror_read,
            devices,
        )
    };
    Ok((volume, summary))
}
