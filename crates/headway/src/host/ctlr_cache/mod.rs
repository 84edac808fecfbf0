//! A controller's memory cache in front of a device (`[[devices]] cache = {...}`, DiskSim's
//! `disksim_cachemem`): lines of `line_sectors` in least-recently-used order, each sector
//! valid or dirty; reads that hit cost no device time, misses fill what they lack, writes
//! go through, behind or back as the write policy says, and a line is reused only once its
//! dirty data is written. The cache sits between the host's scheduler and the device: its
//! fills and write-backs go through the device's scheduler as any request does.

mod front;
mod lines;
pub mod settings;

use crate::error::Result;
use crate::host::slots::Slots;
use crate::request::DeviceId;
use crate::sched::Scheduler;
use front::{CacheFront, DeviceCache};
use lines::LineTable;
use settings::CtlrCacheConfig;

/// `inner` with the caches of `caches` (device id, its cache, the key naming it in errors)
/// in front; `inner` as it is when there are none, so a run without a cache is unchanged.
pub fn front(
    inner: Box<dyn Scheduler>,
    caches: &[(DeviceId, &CtlrCacheConfig, String)],
) -> Result<Box<dyn Scheduler>> {
    if caches.is_empty() {
        return Ok(inner);
    }
    let mut built = Vec::with_capacity(caches.len());
    for (d, c, key) in caches {
        let lines = c.lines(key)?;
        built.push((
            *d,
            DeviceCache {
                table: LineTable::new(lines, c.line_sectors),
                policy: c.write_policy,
                cluster_lines: c.flush_cluster_lines,
                slots: Slots::new(c.max_requests),
            },
        ));
    }
    Ok(Box::new(CacheFront::new(inner, built)))
}
