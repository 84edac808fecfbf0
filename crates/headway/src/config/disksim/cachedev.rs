//! A controller's `disksim_cachedev` -> a `cache-device` volume over its cache device and
//! the disk it caches; the generator's requests for that disk go to the volume.

use super::values::{num_or, sub_block, word};
use super::{component, Notes};
use crate::config::ArrayConfig;
use crate::device::disksim::parse::{Block, Document, TopoNode};
use crate::error::Result;
use crate::host::array::cache_settings::{CacheDeviceConfig, CacheWrite};
use crate::host::array::settings::ArrayLevel;

/// DiskSim's `Write scheme` for write-through (1 synchronous-only and 3 write-back leave
/// writes dirty on the cache device alike).
const WRITE_THROUGH: f64 = 2.0;
/// DiskSim's `Flush policy` for periodic flushing (0 flushes in idle time only).
const FLUSH_PERIODIC: f64 = 1.0;

/// The cache-device volumes of the controllers under `node`, each with the disk it caches.
pub(super) fn volumes(
    doc: &Document,
    node: &TopoNode,
    disks: &[&str],
    notes: &mut Notes,
    out: &mut Vec<ArrayConfig>,
) -> Result<()> {
    if node.type_name == "disksim_ctlr" {
        let ctlr = component(doc, &node.name);
        let cache = ctlr
            .and_then(|b| sub_block(b, "Cache"))
            .filter(|c| c.type_name == "disksim_cachedev");
        if let (Some(b), Some(c)) = (ctlr, cache) {
            let mut a = volume(c, &node.name, disks, notes)?;
            // DiskSim's I/O driver keeps at most `Maximum queue length + 1` requests at the
            // controller; the rest wait in the driver's queue.
            let queue = num_or(b, "Maximum queue length", 0.0)?;
            if !(queue >= 0.0 && queue < u32::MAX as f64) {
                return Err(b
                    .get("Maximum queue length")
                    .map_or(&b.loc, |p| &p.loc)
                    .error(
                        Some("Maximum queue length"),
                        format!("expected a count of 0 or more, got {queue}"),
                    ));
            }
            if let Some(cfg) = a.cache.as_mut() {
                cfg.max_outstanding = Some(queue as u32 + 1);
            }
            out.push(a);
        }
    }
    for c in &node.children {
        volumes(doc, c, disks, notes, out)?;
    }
    Ok(())
}

fn volume(c: &Block, ctlr: &str, disks: &[&str], notes: &mut Notes) -> Result<ArrayConfig> {
    let member = |key: &str| -> Result<String> {
        let Some(name) = word(c, key) else {
            return Err(c.get(key).map_or(&c.loc, |p| &p.loc).error(
                Some(key),
                format!("controller `{ctlr}`'s cache device needs `{key}` (a disk's name)"),
            ));
        };
        if !disks.contains(&name) {
            let p = c.get(key).expect("a word was read");
            return Err(p
                .loc
                .error(Some(key), format!("`{name}` is not a disk of the topology")));
        }
        Ok(name.to_string())
    };
    let cache = member("Cache device")?;
    let cached = member("Cached device")?;
    if cache == cached {
        let p = c.get("Cached device").expect("read above");
        return Err(p.loc.error(
            Some("Cached device"),
            format!("`{cached}` cannot cache itself"),
        ));
    }
    let size = num_or(c, "Cache size", 0.0)?;
    if !(size >= 1.0 && size.is_finite()) {
        return Err(c.get("Cache size").map_or(&c.loc, |p| &p.loc).error(
            Some("Cache size"),
            format!("expected a count of blocks of at least 1, got {size}"),
        ));
    }
    let write = match num_or(c, "Write scheme", 3.0)? {
        WRITE_THROUGH => CacheWrite::Through,
        _ => CacheWrite::Back,
    };
    if num_or(c, "Flush policy", 0.0)? == FLUSH_PERIODIC {
        notes.warn(
            c,
            "Flush policy",
            "periodic flushing is not modelled (DiskSim 4.0 itself stops on it): dirty data \
             is destaged in idle time",
        );
    }
    let idle_ms = num_or(c, "Flush idle delay", 0.0)?;
    if idle_ms <= 0.0 {
        notes.warn(
            c,
            "Flush idle delay",
            "DiskSim never destages without an idle delay; headway destages as soon as both \
             devices are idle",
        );
    }
    if c.get("Max request size").is_some() {
        notes.warn(
            c,
            "Max request size",
            "requests are not split at the cache device's largest request",
        );
    }
    Ok(ArrayConfig {
        name: format!("{ctlr}.cache"),
        level: ArrayLevel::CacheDevice,
        members: vec![cache, cached],
        stripe_unit_sectors: 1,
        member_sectors: None,
        parity_stripe_unit_sectors: None,
        parity_rotation: Default::default(),
        small_write: Default::default(),
        rmw_fraction: None,
        disksim_small_writes: false,
        sync_writes: true,
        copies: None,
        mirror_read: Default::default(),
        spare: None,
        failure: None,
        rebuild: None,
        scrub: None,
        cache: Some(CacheDeviceConfig {
            size_sectors: Some(size as u64),
            write,
            destage_idle_ms: idle_ms.max(0.0),
            max_outstanding: None,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const CTLR: &str = "
disksim_ctlr CTLR0 {
type = 3,
Maximum queue length = 2,
Cache = disksim_cachedev {
     Cache size = 4096,
     Cache device = cache_disk,
     Cached device = disk,
     Max request size = 512,
     Write scheme = 2,
     Flush policy = 0,
     Flush idle delay = 30.0
}
}
";

    fn build(text: &str) -> (Result<ArrayConfig>, Vec<String>) {
        let doc = crate::device::disksim::parse_experiment(text, Path::new("c.parv")).unwrap();
        let cache = sub_block(doc.block("CTLR0").unwrap(), "Cache").unwrap();
        let mut notes = Notes::default();
        let a = volume(cache, "ctlr0", &["disk", "cache_disk"], &mut notes);
        (a, notes.lines)
    }

    #[test]
    fn a_cachedev_becomes_a_cache_device_volume() {
        let (a, warnings) = build(CTLR);
        let a = a.unwrap();
        assert_eq!(a.level, ArrayLevel::CacheDevice);
        assert_eq!(a.members, ["cache_disk", "disk"]);
        let c = a.cache.unwrap();
        assert_eq!(
            (c.size_sectors, c.write, c.destage_idle_ms),
            (Some(4096), CacheWrite::Through, 30.0)
        );
        // Only what is not modelled is named.
        assert_eq!(warnings.len(), 1, "{warnings:#?}");
        assert!(
            warnings[0].starts_with("c.parv:9: `Max request size`"),
            "{warnings:#?}"
        );
    }

    #[test]
    fn a_cache_device_naming_no_disk_is_a_keyed_error() {
        let (a, _) = build(&CTLR.replace("Cached device = disk", "Cached device = disk9"));
        let e = a.unwrap_err().to_string();
        assert!(e.contains("c.parv") && e.contains("Cached device"), "{e}");
        assert!(e.contains("`disk9` is not a disk"), "{e}");
        let (a, _) = build(&CTLR.replace("Cache size = 4096", "Cache size = 0"));
        assert!(a.unwrap_err().to_string().contains("Cache size"));
    }
}
