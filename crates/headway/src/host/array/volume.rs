//! One volume's state during a run: its layout and rules, which member failed and how far
//! the rebuild has come, its rebuild and scrub, and the member operations in flight.

use super::background::Background;
use super::cache_dev::CacheDev;
use super::free_rows::FreeRows;
use super::layout::Layout;
use super::plan::WriteRule;
use super::settings::MirrorRead;
use crate::request::DeviceId;
use crate::time::SimTime;

/// A volume as the array layer runs it.
pub(crate) struct Volume {
    pub name: String,
    pub layout: Layout,
    pub rule: WriteRule,
    pub sync_writes: bool,
    pub mirror_read: MirrorRead,
    /// Member index to device.
    pub devices: Vec<DeviceId>,
    pub spare: Option<DeviceId>,
    /// The failed member and when it fails.
    pub failure: Option<(usize, SimTime)>,
    pub rebuild: Option<Background>,
    pub scrub: Option<Background>,
    /// The rows the members' freeblock schedulers still read for a `freeblock` rebuild
    /// and scrub (built when the work begins).
    pub free_rebuild: Option<FreeRows>,
    pub free_scrub: Option<FreeRows>,
    /// Array operations queued or outstanding per member (the spare last).
    pub inflight: Vec<u32>,
    /// Foreground member operations queued or outstanding, and when the last one came or
    /// went (the idle policy's clock).
    pub fg_inflight: u32,
    pub fg_last_ns: SimTime,
    /// The same for the spare's foreground alone (rows already rebuilt): held spare
    /// writes wait for it.
    pub spare_fg_inflight: u32,
    pub spare_fg_last_ns: SimTime,
    /// The next copy a round-robin mirrored read takes.
    pub next_copy: usize,
    /// A `cache-device` volume's map and destaging.
    pub cache: Option<CacheDev>,
}

impl Volume {
    /// A volume over `devices` with no failure, spare, background work or cache, and nothing
    /// in flight; the builders set what their level has.
    pub(crate) fn new(
        name: String,
        layout: Layout,
        rule: WriteRule,
        sync_writes: bool,
        mirror_read: MirrorRead,
        devices: Vec<DeviceId>,
    ) -> Volume {
        Volume {
            name,
            layout,
            rule,
            sync_writes,
            mirror_read,
            // One slot per member and one for the spare.
            inflight: vec![0; devices.len() + 1],
            devices,
            spare: None,
            failure: None,
            rebuild: None,
            scrub: None,
            free_rebuild: None,
            free_scrub: None,
            fg_inflight: 0,
            fg_last_ns: 0,
            spare_fg_inflight: 0,
            spare_fg_last_ns: 0,
            next_copy: 0,
            cache: None,
        }
    }

    /// The member whose contents are lost in `row` at `now`: the failed one, in rows the
    /// rebuild has not yet written onto the spare.
    #[inline]
    pub(crate) fn lost(&self, now: SimTime, row: u64) -> Option<usize> {
        match self.failure {
            Some((m, at)) if now >= at && !self.rebuilt(row) => Some(m),
            _ => None,
        }
    }

    /// Whether the rebuild has written `row`'s lost unit onto the spare.
    #[inline]
    pub(crate) fn rebuilt(&self, row: u64) -> bool {
        self.rebuild
            .as_ref()
            .is_some_and(|b| b.row_done(row, self.layout.unit_sectors))
    }

    /// The device serving member `m` in `row` (the spare, once the rebuild has passed it).
    #[inline]
    pub(crate) fn device_of(&self, m: usize, row: u64) -> DeviceId {
        match (self.failure, self.spare) {
            (Some((f, _)), Some(spare)) if f == m && self.rebuilt(row) => spare,
            _ => self.devices[m],
        }
    }

    /// A foreground operation on inflight slot `k` was issued (`+1`) or completed (`-1`)
    /// at `now`: the spare's quiet-time clock follows its own foreground.
    #[inline]
    pub(crate) fn spare_foreground(&mut self, k: usize, issued: bool, now: SimTime) {
        if k == self.devices.len() {
            if issued {
                self.spare_fg_inflight += 1;
            } else {
                self.spare_fg_inflight = self.spare_fg_inflight.saturating_sub(1);
            }
            self.spare_fg_last_ns = now;
        }
    }

    /// The inflight slot of device `dev` (a member, or the spare).
    pub(crate) fn slot_of(&self, dev: DeviceId) -> usize {
        self.devices
            .iter()
            .position(|&d| d == dev)
            .unwrap_or(self.devices.len())
    }
}
