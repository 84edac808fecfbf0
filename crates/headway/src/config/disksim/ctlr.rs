//! DiskSim controllers (`disksim_ctlr`) as far as headway reads them: a controller's memory
//! cache (`disksim_cachemem`) becomes the controller cache of its disks; otherwise a
//! controller passes requests straight to its devices, so whatever else it adds to the
//! timing (its own queue, processing delays, a cache device) is named in one warning line
//! per parameter.

use super::values::{num_or, sub_block};
use super::{component, Notes};
use crate::device::disksim::parse::{Block, Document, TopoNode};
use crate::error::Result;
use crate::host::ctlr_cache::settings::{CtlrCacheConfig, WritePolicy};

/// DiskSim's `Write scheme` value for write-back (1 synchronous only, 2 write-through).
const WRITE_BACK: f64 = 3.0;
/// DiskSim's `Flush policy` value for flushing only when a dirty line is evicted.
const FLUSH_ON_DEMAND: f64 = 0.0;

/// Controllers that do more than pass requests through, each named in a warning.
pub(super) fn note_controllers(doc: &Document, node: &TopoNode, notes: &mut Notes) -> Result<()> {
    if node.type_name == "disksim_ctlr" {
        if let Some(b) = component(doc, &node.name) {
            note_controller(b, &node.name, notes)?;
        }
    }
    for c in &node.children {
        note_controllers(doc, c, notes)?;
    }
    Ok(())
}

fn note_controller(b: &Block, name: &str, notes: &mut Notes) -> Result<()> {
    // A cache device is built as a volume (cachedev.rs), which names what it leaves out.
    if let Some(cache) = sub_block(b, "Cache").filter(|c| c.type_name != "disksim_cachedev") {
        note_cache(cache, name, notes)?;
    }
    if sub_block(b, "Scheduler").is_some() {
        notes.warn(
            b,
            "Scheduler",
            format!(
                "controller `{name}`'s own queue is not modelled: the I/O driver's scheduler \
                 orders the requests"
            ),
        );
    }
    if let Some(p) = b.get("Max per-disk pending count") {
        notes.warn(
            b,
            &p.key,
            format!(
                "controller `{name}`'s limit on requests outstanding at each disk is not \
                 modelled"
            ),
        );
    }
    if num_or(b, "Scale for delays", 0.0)? != 0.0 {
        notes.warn(
            b,
            "Scale for delays",
            "controller processing delays are not modelled",
        );
    }
    Ok(())
}

/// One line per parameter of the controller's cache that headway does not model: every
/// parameter of a cache device (`disksim_cachedev`); those of a memory cache
/// (`disksim_cachemem`) whose value asks for something the controller cache of
/// `host::ctlr_cache` does not do.
fn note_cache(cache: &Block, ctlr: &str, notes: &mut Notes) -> Result<()> {
    if cache.type_name == "disksim_cachemem" {
        return note_cachemem(cache, ctlr, notes);
    }
    let what = match cache.type_name.as_str() {
        "disksim_cachedev" => "cache device",
        _ => "memory cache",
    };
    let write_back = num_or(cache, "Write scheme", 0.0)? == WRITE_BACK;
    let on_demand = num_or(cache, "Flush policy", FLUSH_ON_DEMAND)? == FLUSH_ON_DEMAND;
    for p in &cache.params {
        let msg = if p.key == "Write scheme" && write_back && on_demand {
            format!(
                "controller `{ctlr}`'s {what} is not modelled (requests go to the devices): \
                 in DiskSim this write-back cache, flushed only on eviction, makes a miss on a \
                 full cache wait for a dirty victim's write"
            )
        } else {
            format!("controller `{ctlr}`'s {what} is not modelled (requests go to the devices)")
        };
        notes.warn(cache, &p.key, msg);
    }
    if cache.params.is_empty() {
        notes.warn(
            cache,
            "Cache",
            format!("controller `{ctlr}`'s {what} is not modelled (requests go to the devices)"),
        );
    }
    Ok(())
}

/// The memory cache's parameters headway reads as they are; the others are modelled at
/// one value each (DiskSim's with `synthcachemem`'s), named here when they differ.
fn note_cachemem(cache: &Block, ctlr: &str, notes: &mut Notes) -> Result<()> {
    let line = num_or(cache, "Line size", 0.0)?;
    for p in &cache.params {
        let v = super::values::number(&p.value);
        let what = match (p.key.as_str(), v) {
            ("Cache size" | "Line size" | "Write scheme" | "Flush max line cluster", _) => None,
            // DiskSim's cache never reads it.
            ("Max gather", _) => None,
            ("SLRU segments", _) => match &p.value {
                crate::device::disksim::parse::Value::List(l) if l.len() <= 1 => None,
                _ => Some("segmented LRU: headway keeps one LRU list"),
            },
            ("Replacement policy", Some(r)) if r == 2.0 => None,
            ("Replacement policy", _) => Some("a replacement other than LRU"),
            ("Bit granularity", Some(b)) if b == 1.0 => None,
            ("Bit granularity", _) => Some("valid and dirty bits over several sectors"),
            ("Lock granularity", Some(l)) if l == line => None,
            ("Lock granularity", _) => Some("locks over part of a line: headway locks lines"),
            ("Shared read locks", Some(l)) if l != 0.0 => None,
            ("Shared read locks", _) => Some("exclusive read locks"),
            ("Allocation policy" | "Read prefetch type" | "Write prefetch type", Some(z))
            | ("Line-by-line fetches" | "Flush policy" | "Flush period", Some(z))
                if z == 0.0 =>
            {
                None
            }
            ("Flush idle delay", Some(d)) if d < 0.0 => None,
            ("Flush policy" | "Flush period" | "Flush idle delay", _) => {
                Some("flushes other than a victim's write-back")
            }
            ("Read prefetch type" | "Write prefetch type", _) => Some("prefetching"),
            ("Max request size", _) => Some("requests are not split at a maximum size"),
            _ => Some("not modelled"),
        };
        if let Some(what) = what {
            notes.warn(
                cache,
                &p.key,
                format!("controller `{ctlr}`'s memory cache: {what}"),
            );
        }
    }
    Ok(())
}

/// The controller memory cache DiskSim's `disksim_cachemem` block `cache` describes;
/// `None` for a cache of 0 sectors (DiskSim passes every request through).
pub(super) fn cachemem_config(cache: &Block) -> Result<Option<CtlrCacheConfig>> {
    let keyed = |key: &str, what: &str, v: f64| {
        let loc = cache.get(key).map_or(&cache.loc, |p| &p.loc);
        Err(loc.error(Some(key), format!("expected {what}, got {v}")))
    };
    let size = num_or(cache, "Cache size", 0.0)?;
    if !(size >= 0.0 && size.fract() == 0.0) {
        return keyed("Cache size", "a whole number of sectors", size);
    }
    if size == 0.0 {
        return Ok(None);
    }
    let line = num_or(cache, "Line size", 1.0)?;
    if !(line >= 1.0 && line.fract() == 0.0 && size % line == 0.0) {
        return keyed(
            "Line size",
            &format!("a whole number of sectors dividing the cache's {size}"),
            line,
        );
    }
    let write_policy = match num_or(cache, "Write scheme", WRITE_BACK)? {
        1.0 => WritePolicy::WriteThrough,
        2.0 => WritePolicy::WriteBehind,
        3.0 => WritePolicy::WriteBack,
        w => return keyed("Write scheme", "1, 2 or 3", w),
    };
    let cluster = num_or(cache, "Flush max line cluster", 1.0)?;
    if !(cluster.fract() == 0.0 && (0.0..=65536.0).contains(&cluster)) {
        return keyed("Flush max line cluster", "a count of lines", cluster);
    }
    Ok(Some(CtlrCacheConfig {
        size_sectors: size as u64,
        line_sectors: line as u64,
        write_policy,
        flush_cluster_lines: (cluster as u32).max(1),
        max_requests: None,
    }))
}

/// The memory cache of each disk below a controller that has one: `(disk name, cache)`.
pub(super) fn memory_caches(
    doc: &Document,
    node: &TopoNode,
    out: &mut Vec<(String, CtlrCacheConfig)>,
) -> Result<()> {
    if node.type_name == "disksim_ctlr" {
        let ctlr = component(doc, &node.name);
        let cache = ctlr.and_then(|b| sub_block(b, "Cache"));
        if let (Some(b), Some(c)) = (ctlr, cache.filter(|c| c.type_name == "disksim_cachemem")) {
            if let Some(mut cfg) = cachemem_config(c)? {
                // The I/O driver keeps at most this many requests at the controller.
                let queue = num_or(b, "Maximum queue length", 0.0)?;
                if !(queue.fract() == 0.0 && (0.0..=1e9).contains(&queue)) {
                    let loc = b.get("Maximum queue length").map_or(&b.loc, |p| &p.loc);
                    return Err(loc.error(
                        Some("Maximum queue length"),
                        format!("expected a count of requests, got {queue}"),
                    ));
                }
                cfg.max_requests = Some(queue as u32 + 1);
                let mut disks = Vec::new();
                super::device_nodes(node, &mut disks);
                out.extend(disks.iter().map(|d| (d.name.clone(), cfg.clone())));
            }
            return Ok(());
        }
    }
    for c in &node.children {
        memory_caches(doc, c, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const CTLR: &str = "
disksim_ctlr CTLR0 {
type = 3,
Scale for delays = 0.0,
Scheduler = disksim_ioqueue { Scheduling policy = 3 },
Cache = disksim_cachemem {
     Cache size = 8192,
     Line size = 64,
     Write scheme = 3,
     Flush policy = 0
},
Max per-disk pending count = 1
}
";

    fn warnings(text: &str) -> Vec<String> {
        let doc = crate::device::disksim::parse_experiment(text, Path::new("c.parv")).unwrap();
        let b = doc.block("CTLR0").unwrap();
        let mut notes = Notes::default();
        note_controller(b, "ctlr0", &mut notes).unwrap();
        notes.lines
    }

    #[test]
    fn a_memory_cache_warns_only_what_it_does_not_model() {
        let w = warnings(CTLR);
        let keyed = |line: usize, key: &str| {
            w.iter()
                .any(|l| l.starts_with(&format!("c.parv:{line}: `{key}`:")))
        };
        assert!(keyed(5, "Scheduler"), "{w:#?}");
        assert!(keyed(12, "Max per-disk pending count"), "{w:#?}");
        // Size, line, write scheme and flush policy are modelled; delays of 0 are not named.
        assert_eq!(w.len(), 2, "{w:#?}");
        let periodic = warnings(&CTLR.replace("Flush policy = 0", "Flush policy = 1"));
        assert!(
            periodic
                .iter()
                .any(|l| l.starts_with("c.parv:10: `Flush policy`:") && l.contains("memory cache")),
            "{periodic:#?}"
        );
    }

    fn cache_of(text: &str) -> Result<Option<CtlrCacheConfig>> {
        let doc = crate::device::disksim::parse_experiment(text, Path::new("c.parv")).unwrap();
        let b = doc.block("CTLR0").unwrap();
        cachemem_config(sub_block(b, "Cache").unwrap())
    }

    #[test]
    fn the_memory_cache_is_built_from_its_parameters() {
        let c = cache_of(CTLR).unwrap().unwrap();
        assert_eq!(c.size_sectors, 8192);
        assert_eq!(c.line_sectors, 64);
        assert_eq!(c.write_policy, WritePolicy::WriteBack);
        assert_eq!(c.flush_cluster_lines, 1);
        let through = cache_of(&CTLR.replace("Write scheme = 3", "Write scheme = 1"));
        assert_eq!(
            through.unwrap().unwrap().write_policy,
            WritePolicy::WriteThrough
        );
        let behind = cache_of(&CTLR.replace("Write scheme = 3", "Write scheme = 2"));
        assert_eq!(
            behind.unwrap().unwrap().write_policy,
            WritePolicy::WriteBehind
        );
        assert_eq!(
            cache_of(&CTLR.replace("Cache size = 8192", "Cache size = 0")).unwrap(),
            None
        );
    }

    #[test]
    fn bad_cache_parameters_name_their_key_and_line() {
        let e = cache_of(&CTLR.replace("Line size = 64", "Line size = 100"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("c.parv:8") && e.contains("Line size"), "{e}");
        let e = cache_of(&CTLR.replace("Write scheme = 3", "Write scheme = 7"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("c.parv:9") && e.contains("Write scheme"), "{e}");
    }

    #[test]
    fn a_cache_device_is_left_to_its_own_reader() {
        // `cachedev.rs` builds the cache-device volume and names what it does not model;
        // here only the controller's own queue and per-disk limit are named.
        let w = warnings(&CTLR.replace("disksim_cachemem", "disksim_cachedev"));
        assert_eq!(w.len(), 2, "{w:#?}");
        assert!(w.iter().any(|l| l.contains("`Scheduler`")), "{w:#?}");
        assert!(
            w.iter().any(|l| l.contains("`Max per-disk pending count`")),
            "{w:#?}"
        );
        assert!(!w.iter().any(|l| l.contains("cache")), "{w:#?}");
    }
}
