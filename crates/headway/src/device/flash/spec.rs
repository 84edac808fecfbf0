//! Flash geometry and access times.
//!
//! The access-time model is the one the flash-backed paper (Bisson and Brandt, MASCOTS 2007)
//! measured: constant with respect to address, growing with request size. The default numbers
//! are the project's stand-in for the SanDisk Ultra II CompactFlash card
//! (`spec/disks.md` section 5, [TEAM CHOICE]): read = 0.3 ms + size / 10 MB/s,
//! write = 1.0 ms + size / 9 MB/s (MB = 10^6 bytes), 128 KiB erase blocks.

use serde::{Deserialize, Serialize};

use crate::error::{HeadwayError, Result};
use crate::request::Op;
use crate::time::{ms_to_ns, SimTime};

/// Bytes in a sector, the unit of every command.
pub(crate) const SECTOR_BYTES: u64 = 512;

/// A flash device: geometry and latencies. Every field is a stand-in unless a caller gives
/// measured values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlashSpec {
    pub name: String,
    /// Program/read unit.
    pub page_bytes: u64,
    /// Erase unit, a whole number of pages.
    pub erase_block_bytes: u64,
    /// Capacity the host sees.
    pub logical_bytes: u64,
    /// Physical space beyond the logical capacity, as a fraction of it (room for garbage
    /// collection). [TEAM CHOICE] 7%, a common consumer figure.
    pub overprovision: f64,
    /// Fixed part of a read (command, lookup, first page).
    pub read_fixed_ms: f64,
    /// Sustained read rate, MB/s with MB = 10^6 bytes.
    pub read_mb_s: f64,
    pub write_fixed_ms: f64,
    pub write_mb_s: f64,
    /// Block erase time, charged only when `gc_time_counted`.
    pub erase_ms: f64,
    /// The paper's "flash write performance factor" (Fig. 11): divides the write time.
    pub write_speed_factor: f64,
    /// Add garbage-collection work (page copies and erases) to a write's service time.
    /// [TEAM CHOICE] off: the measured stand-in already averages the card's internal
    /// housekeeping into its per-size times.
    pub gc_time_counted: bool,
    /// Erase cycles a block survives (the paper's 100,000).
    pub endurance_cycles: u64,
}

impl Default for FlashSpec {
    fn default() -> Self {
        FlashSpec::ultra2_cf(64 << 20)
    }
}

impl FlashSpec {
    /// The SanDisk Ultra II CF stand-in with `logical_bytes` of capacity.
    pub fn ultra2_cf(logical_bytes: u64) -> Self {
        FlashSpec {
            name: "ultra2-cf".into(),
            page_bytes: 2048,
            erase_block_bytes: 128 << 10,
            logical_bytes,
            overprovision: 0.07,
            read_fixed_ms: 0.3,
            read_mb_s: 10.0,
            write_fixed_ms: 1.0,
            write_mb_s: 9.0,
            erase_ms: 1.5,
            write_speed_factor: 1.0,
            gc_time_counted: false,
            endurance_cycles: 100_000,
        }
    }

    /// Reject impossible geometry or timing, naming the key.
    pub fn validate(&self) -> Result<()> {
        let bad = |key: &str, msg: String| Err(HeadwayError::config(format!("flash.{key}"), msg));
        if self.page_bytes == 0 || self.page_bytes % SECTOR_BYTES != 0 {
            return bad(
                "page_bytes",
                format!("{} is not a positive multiple of 512", self.page_bytes),
            );
        }
        if self.erase_block_bytes == 0 || self.erase_block_bytes % self.page_bytes != 0 {
            return bad(
                "erase_block_bytes",
                format!(
                    "{} is not a positive multiple of page_bytes ({})",
                    self.erase_block_bytes, self.page_bytes
                ),
            );
        }
        if self.logical_bytes < self.erase_block_bytes {
            return bad(
                "logical_bytes",
                format!("{} is smaller than one erase block", self.logical_bytes),
            );
        }
        if !(self.overprovision.is_finite() && self.overprovision >= 0.0) {
            return bad(
                "overprovision",
                format!("{} is not >= 0", self.overprovision),
            );
        }
        for (key, v) in [
            ("read_fixed_ms", self.read_fixed_ms),
            ("write_fixed_ms", self.write_fixed_ms),
            ("erase_ms", self.erase_ms),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(key, format!("{v} is not a time >= 0"));
            }
        }
        for (key, v) in [
            ("read_mb_s", self.read_mb_s),
            ("write_mb_s", self.write_mb_s),
            ("write_speed_factor", self.write_speed_factor),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return bad(key, format!("{v} is not > 0"));
            }
        }
        if self.endurance_cycles == 0 {
            return bad("endurance_cycles", "must be > 0".into());
        }
        Ok(())
    }

    pub fn pages_per_block(&self) -> u64 {
        self.erase_block_bytes / self.page_bytes
    }

    pub(crate) fn logical_pages(&self) -> u64 {
        self.logical_bytes.div_ceil(self.page_bytes)
    }

    /// Physical erase blocks: the logical space rounded up to blocks, plus overprovisioning,
    /// and never fewer than two spare blocks (garbage collection needs somewhere to copy to).
    pub fn physical_blocks(&self) -> u64 {
        let logical_blocks = self.logical_pages().div_ceil(self.pages_per_block());
        let spare = ((logical_blocks as f64) * self.overprovision).ceil() as u64;
        logical_blocks + spare.max(2)
    }

    pub fn capacity_sectors(&self) -> u64 {
        self.logical_bytes / SECTOR_BYTES
    }

    /// Access time for `bytes` (size-dependent, address-independent).
    pub fn access_ms(&self, bytes: u64, op: Op) -> f64 {
        let mb = bytes as f64 / 1e6;
        match op {
            Op::Read => self.read_fixed_ms + mb / self.read_mb_s * 1e3,
            Op::Write => {
                (self.write_fixed_ms + mb / self.write_mb_s * 1e3) / self.write_speed_factor
            }
        }
    }

    pub fn access_ns(&self, sectors: u32, op: Op) -> SimTime {
        ms_to_ns(self.access_ms(sectors as u64 * SECTOR_BYTES, op))
    }
}
