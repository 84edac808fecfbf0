//! The zone layout of a host-managed (or host-aware) zoned drive: `[drive.zoned]` over any
//! rotating drive.

use serde::{Deserialize, Serialize};

use crate::error::{HeadwayError, Result};
use crate::time::{SimTime, NS_PER_MS};

/// What the zones past the conventional ones require of writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZonedKind {
    /// ZBC host-managed: sequential-write-required zones; a write not at the write pointer
    /// is refused.
    #[default]
    HostManaged,
    /// ZBC host-aware: sequential-write-preferred zones; any write is served and the write
    /// pointer moves to the end of the furthest one.
    HostAware,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZonedSpec {
    /// Sectors per zone; must divide the drive's capacity.
    pub zone_size_sectors: u64,
    /// Zones at the start of the LBA space that take writes anywhere (ZBC conventional).
    #[serde(default)]
    pub conventional_zones: u64,
    #[serde(default)]
    pub kind: ZonedKind,
    /// Most zones open at once (implicitly by a write or explicitly); opening one more
    /// implicitly closes the least recently written implicitly opened zone, and an explicit
    /// open beyond it fails. `None`: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_open_zones: Option<u64>,
    /// What a zone reset costs the drive, in ms (the drive's own bookkeeping; no media
    /// access). Default 0.
    #[serde(default)]
    pub zone_reset_ms: f64,
}

impl ZonedSpec {
    /// Check against a drive of `capacity_sectors`; errors are keyed under `table`.
    pub fn validate(&self, capacity_sectors: u64, table: &str) -> Result<()> {
        let err = |key: &str, msg: String| HeadwayError::config(format!("{table}.{key}"), msg);
        if self.zone_size_sectors == 0 || capacity_sectors % self.zone_size_sectors != 0 {
            return Err(err(
                "zone_size_sectors",
                format!(
                    "must divide the drive's {capacity_sectors} sectors, got {}",
                    self.zone_size_sectors
                ),
            ));
        }
        let zones = capacity_sectors / self.zone_size_sectors;
        if self.conventional_zones > zones {
            return Err(err(
                "conventional_zones",
                format!(
                    "the drive has {zones} zones, got {}",
                    self.conventional_zones
                ),
            ));
        }
        if self.max_open_zones == Some(0) {
            return Err(err("max_open_zones", "must be at least 1".into()));
        }
        if !self.zone_reset_ms.is_finite() || self.zone_reset_ms < 0.0 {
            return Err(err(
                "zone_reset_ms",
                format!("must be a time in ms >= 0, got {}", self.zone_reset_ms),
            ));
        }
        Ok(())
    }

    pub(crate) fn zone_reset_ns(&self) -> SimTime {
        (self.zone_reset_ms * NS_PER_MS as f64).round() as SimTime
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_name_their_key() {
        let good = ZonedSpec {
            zone_size_sectors: 100,
            conventional_zones: 2,
            kind: ZonedKind::HostManaged,
            max_open_zones: Some(4),
            zone_reset_ms: 1.0,
        };
        good.validate(1000, "drive.zoned").unwrap();
        let cases: [(fn(&mut ZonedSpec), &str); 5] = [
            (
                |s| s.zone_size_sectors = 300,
                "drive.zoned.zone_size_sectors",
            ),
            (|s| s.zone_size_sectors = 0, "drive.zoned.zone_size_sectors"),
            (
                |s| s.conventional_zones = 11,
                "drive.zoned.conventional_zones",
            ),
            (|s| s.max_open_zones = Some(0), "drive.zoned.max_open_zones"),
            (|s| s.zone_reset_ms = f64::NAN, "drive.zoned.zone_reset_ms"),
        ];
        for (edit, key) in cases {
            let mut s = good.clone();
            edit(&mut s);
            let e = s.validate(1000, "drive.zoned").unwrap_err().to_string();
            assert!(e.contains(key), "{key}: {e}");
        }
    }
}
