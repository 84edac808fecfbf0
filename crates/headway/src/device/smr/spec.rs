//! The parameters of a drive-managed shingled drive: where its media cache is, how large its
//! bands are, and when it cleans. A drive file's `[smr]` table, or `[drive.smr]` over any
//! rotating drive.

use serde::{Deserialize, Serialize};

use crate::error::{HeadwayError, Result};
use crate::time::{SimTime, NS_PER_MS};

/// Drive-managed SMR: a persistent media cache absorbing writes that do not cover whole
/// bands, cleaned band by band (read the band, merge its cached sectors, write the band).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmrSpec {
    /// Sectors of the persistent media cache (the platter area set aside, not exported).
    pub media_cache_sectors: u64,
    /// Where the media cache starts on the platter, as a physical LBN of the mechanical
    /// model (0: the outer diameter). Must be a multiple of `band_sectors`.
    #[serde(default)]
    pub media_cache_start_lbn: u64,
    /// Sectors of one shingled band (the unit a cleaning rewrites).
    pub band_sectors: u64,
    /// Idle time after the last host command before the drive starts cleaning, in ms.
    #[serde(default = "default_idle_clean_delay_ms")]
    pub idle_clean_delay_ms: f64,
    /// Most separately mapped extents the cache's map holds; a write needing more forces a
    /// cleaning, as a full cache does. `None`: only the cache's size limits it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cache_extents: Option<u64>,
}

fn default_idle_clean_delay_ms() -> f64 {
    1000.0
}

impl SmrSpec {
    /// Check the parameters against a mechanical model of `capacity_sectors`; errors are
    /// keyed under `table` (`drive.smr`, `smr` in a drive file).
    pub fn validate(&self, capacity_sectors: u64, table: &str) -> Result<()> {
        let err = |key: &str, msg: String| HeadwayError::config(format!("{table}.{key}"), msg);
        if self.band_sectors == 0 {
            return Err(err("band_sectors", "must be at least 1 sector".into()));
        }
        if self.media_cache_sectors == 0 {
            return Err(err(
                "media_cache_sectors",
                "must be at least 1 sector".into(),
            ));
        }
        let cache_end = self
            .media_cache_start_lbn
            .checked_add(self.media_cache_sectors)
            .unwrap_or(u64::MAX);
        if cache_end >= capacity_sectors {
            return Err(err(
                "media_cache_sectors",
                format!(
                    "the media cache ({} sectors from LBN {}) must leave room for data on a drive of {capacity_sectors} sectors",
                    self.media_cache_sectors, self.media_cache_start_lbn
                ),
            ));
        }
        if self.band_sectors >= capacity_sectors - self.media_cache_sectors {
            return Err(err(
                "band_sectors",
                format!(
                    "a band of {} sectors does not fit the {} data sectors",
                    self.band_sectors,
                    capacity_sectors - self.media_cache_sectors
                ),
            ));
        }
        if self.media_cache_start_lbn % self.band_sectors != 0 {
            return Err(err(
                "media_cache_start_lbn",
                format!(
                    "must be a multiple of band_sectors ({}) so that no band straddles the cache, got {}",
                    self.band_sectors, self.media_cache_start_lbn
                ),
            ));
        }
        if !self.idle_clean_delay_ms.is_finite() || self.idle_clean_delay_ms < 0.0 {
            return Err(err(
                "idle_clean_delay_ms",
                format!(
                    "must be a time in ms >= 0, got {}",
                    self.idle_clean_delay_ms
                ),
            ));
        }
        if self.max_cache_extents == Some(0) {
            return Err(err("max_cache_extents", "must be at least 1".into()));
        }
        Ok(())
    }

    pub(crate) fn idle_clean_delay_ns(&self) -> SimTime {
        (self.idle_clean_delay_ms * NS_PER_MS as f64).round() as SimTime
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SmrSpec {
        SmrSpec {
            media_cache_sectors: 1000,
            media_cache_start_lbn: 0,
            band_sectors: 100,
            idle_clean_delay_ms: 1000.0,
            max_cache_extents: None,
        }
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let cases: [(fn(&mut SmrSpec), &str); 5] = [
            (|s| s.band_sectors = 0, "drive.smr.band_sectors"),
            (
                |s| s.media_cache_sectors = 20_000,
                "drive.smr.media_cache_sectors",
            ),
            (
                |s| s.media_cache_start_lbn = 150,
                "drive.smr.media_cache_start_lbn",
            ),
            (
                |s| s.idle_clean_delay_ms = -1.0,
                "drive.smr.idle_clean_delay_ms",
            ),
            (
                |s| s.max_cache_extents = Some(0),
                "drive.smr.max_cache_extents",
            ),
        ];
        for (edit, key) in cases {
            let mut s = spec();
            edit(&mut s);
            let e = s.validate(10_000, "drive.smr").unwrap_err().to_string();
            assert!(e.contains(key), "{key}: {e}");
        }
        spec().validate(10_000, "drive.smr").unwrap();
    }
}
