//! `[[devices]] cache = { ... }`: a controller's memory cache in front of one device, with
//! DiskSim's `disksim_cachemem` parameters (cache size, line size, write scheme, flush
//! cluster) as keys.

use serde::Deserialize;

use crate::error::{HeadwayError, Result};

/// A memory cache in the device's controller.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CtlrCacheConfig {
    /// Sectors the cache holds (DiskSim's `Cache size`).
    pub size_sectors: u64,
    /// Sectors of one line, the unit of allocation and replacement (`Line size`); it must
    /// divide `size_sectors`. Validity and dirtiness are kept per sector.
    #[serde(default = "default_line_sectors")]
    pub line_sectors: u64,
    /// When a write reaches the device (`Write scheme` 1, 2, 3).
    #[serde(default, deserialize_with = "write_policy")]
    pub write_policy: WritePolicy,
    /// Lines a victim's write-back may take with it: dirty data in the lines next to the
    /// victim's is written in the same command (`Flush max line cluster`).
    #[serde(default = "default_flush_cluster_lines")]
    pub flush_cluster_lines: u32,
    /// Host requests the controller serves at once (DiskSim's `Maximum queue length` + 1);
    /// the others wait at the host, taken in C-LOOK order by LBN. Default: no limit.
    #[serde(default)]
    pub max_requests: Option<u32>,
}

/// When a write reaches the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WritePolicy {
    /// The write completes when the device has written it (DiskSim's scheme 1).
    WriteThrough,
    /// The write completes once in the cache and goes to the device at once behind it
    /// (scheme 2).
    WriteBehind,
    /// The write completes once in the cache; the dirty data goes to the device only when
    /// its line is evicted (scheme 3, flushed on demand).
    #[default]
    WriteBack,
}

impl WritePolicy {
    pub const NAMES: [&'static str; 3] = ["write-through", "write-behind", "write-back"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "write-through" => Some(WritePolicy::WriteThrough),
            "write-behind" => Some(WritePolicy::WriteBehind),
            "write-back" => Some(WritePolicy::WriteBack),
            _ => None,
        }
    }
}

/// The policy by name; an unknown one is refused naming the key, since the table's own
/// error would name only the table.
fn write_policy<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<WritePolicy, D::Error> {
    let name = String::deserialize(d)?;
    WritePolicy::from_name(&name).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "`write_policy` must be one of {}, got `{name}`",
            WritePolicy::NAMES.map(|n| format!("`{n}`")).join(", ")
        ))
    })
}

fn default_line_sectors() -> u64 {
    64
}

fn default_flush_cluster_lines() -> u32 {
    1
}

impl CtlrCacheConfig {
    /// The number of lines, once the sizes are checked; `key` names the table in errors
    /// (`devices[0].cache`).
    pub fn lines(&self, key: &str) -> Result<usize> {
        if self.size_sectors == 0 {
            return Err(HeadwayError::config(
                format!("{key}.size_sectors"),
                "a cache holds at least one line: got 0 sectors",
            ));
        }
        if self.line_sectors == 0 || self.size_sectors % self.line_sectors != 0 {
            return Err(HeadwayError::config(
                format!("{key}.line_sectors"),
                format!(
                    "a line of {} sectors does not divide the cache's {} sectors",
                    self.line_sectors, self.size_sectors
                ),
            ));
        }
        if self.max_requests == Some(0) {
            return Err(HeadwayError::config(
                format!("{key}.max_requests"),
                "the controller must take at least one request at a time: got 0",
            ));
        }
        if self.flush_cluster_lines == 0 {
            return Err(HeadwayError::config(
                format!("{key}.flush_cluster_lines"),
                "a victim's write-back takes at least its own line: got 0",
            ));
        }
        let lines = self.size_sectors / self.line_sectors;
        if lines > u32::MAX as u64 / 2 || self.line_sectors > u32::MAX as u64 {
            return Err(HeadwayError::config(
                format!("{key}.size_sectors"),
                format!("{} sectors is too large a cache", self.size_sectors),
            ));
        }
        Ok(lines as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(size: u64, line: u64) -> CtlrCacheConfig {
        CtlrCacheConfig {
            size_sectors: size,
            line_sectors: line,
            write_policy: WritePolicy::WriteBack,
            flush_cluster_lines: 1,
            max_requests: None,
        }
    }

    #[test]
    fn sizes_are_checked_by_key() {
        assert_eq!(cfg(8192, 64).lines("devices[0].cache").unwrap(), 128);
        let e = cfg(0, 64)
            .lines("devices[0].cache")
            .unwrap_err()
            .to_string();
        assert!(e.contains("devices[0].cache.size_sectors"), "{e}");
        let e = cfg(100, 64)
            .lines("devices[0].cache")
            .unwrap_err()
            .to_string();
        assert!(e.contains("devices[0].cache.line_sectors"), "{e}");
        assert!(e.contains("does not divide"), "{e}");
        let e = cfg(100, 0)
            .lines("devices[1].cache")
            .unwrap_err()
            .to_string();
        assert!(e.contains("devices[1].cache.line_sectors"), "{e}");
    }

    #[test]
    fn an_unknown_policy_names_the_key() {
        let e = toml::from_str::<CtlrCacheConfig>(
            "size_sectors = 64\nwrite_policy = \"write-sometimes\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("write_policy"), "{e}");
        assert!(e.contains("write-back"), "{e}");
    }
}
