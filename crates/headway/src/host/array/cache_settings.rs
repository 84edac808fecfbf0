//! `[arrays.cache]`: the keys of a `level = "cache-device"` volume, where the first member
//! caches the second (DiskSim's `disksim_cachedev`), and their defaults; `settings.rs`
//! checks them against the volume's level and members.

use serde::Deserialize;

/// How a cache device keeps the disk it caches.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CacheDeviceConfig {
    /// Sectors of the cached disk that the cache holds, from sector 0 (DiskSim's `Cache
    /// size`): sector `s` of the disk is cached at sector `s` of the cache device. Default:
    /// the smaller of the two members.
    #[serde(default)]
    pub size_sectors: Option<u64>,
    /// When a write reaches the disk.
    #[serde(default)]
    pub write: CacheWrite,
    /// Dirty data is destaged once the cached disk has been idle this long (milliseconds;
    /// DiskSim's `Flush idle delay`), while the cache device is idle too. Default 100.
    #[serde(default = "default_destage_idle_ms")]
    pub destage_idle_ms: f64,
    /// Logical requests in progress at once (DiskSim: its controller's `Maximum queue
    /// length` plus one); later ones wait at the volume, first come first served. Default:
    /// no limit.
    #[serde(default)]
    pub max_outstanding: Option<u32>,
}

impl Default for CacheDeviceConfig {
    fn default() -> Self {
        CacheDeviceConfig {
            size_sectors: None,
            write: CacheWrite::default(),
            destage_idle_ms: default_destage_idle_ms(),
            max_outstanding: None,
        }
    }
}

fn default_destage_idle_ms() -> f64 {
    100.0
}

/// The write policy of a cache device.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CacheWrite {
    /// A write completes once on the cache device; the disk gets it when it is destaged.
    #[default]
    Back,
    /// A write completes once on the cache device and is written to the disk right after
    /// (the request does not wait for the disk).
    Through,
}
