//! What a drive-managed SMR drive did in a run: the summary's `smr` section.

use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SmrReport {
    /// The device's name in the run (set by the run loop).
    pub device: String,
    /// Write pieces appended to the media cache.
    pub cache_writes: u64,
    /// Read pieces served from the media cache.
    pub cache_reads: u64,
    /// Whole bands written in place by host writes that covered them.
    pub band_writes: u64,
    /// Bands cleaned in idle time.
    pub idle_cleanings: u64,
    /// Bands cleaned because a write found the cache (or its map) full.
    pub forced_cleanings: u64,
    /// Time spent cleaning, in ns.
    pub cleaning_ns: u64,
    /// Host commands that arrived while a cleaning held the mechanism, or that had to wait
    /// for a forced one.
    pub stalled_commands: u64,
    /// Most sectors the cache held at once.
    pub max_held_sectors: u64,
    /// Sectors the cache held at the end of the run.
    pub held_sectors: u64,
}
