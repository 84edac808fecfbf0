//! DiskSim controllers (`disksim_ctlr`) as far as headway reads them: a controller passes
//! requests straight to its devices, so whatever a controller adds to the timing (its
//! own queue, processing delays, a cache) is named in one warning line per parameter.

use super::values::{num_or, sub_block};
use super::{component, Notes};
use crate::device::disksim::parse::{Block, Document, TopoNode};
use crate::error::Result;

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

/// One line per parameter of the controller's cache (`disksim_cachemem` in controller
/// memory, `disksim_cachedev` on a second device); the write policy's line says what the
/// cache would do to the timing.
fn note_cache(cache: &Block, ctlr: &str, notes: &mut Notes) -> Result<()> {
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
    fn each_cache_parameter_is_one_keyed_line() {
        let w = warnings(CTLR);
        let keyed = |line: usize, key: &str| {
            w.iter()
                .any(|l| l.starts_with(&format!("c.parv:{line}: `{key}`:")))
        };
        assert!(keyed(7, "Cache size"), "{w:#?}");
        assert!(keyed(8, "Line size"), "{w:#?}");
        assert!(keyed(9, "Write scheme"), "{w:#?}");
        assert!(keyed(10, "Flush policy"), "{w:#?}");
        assert!(keyed(5, "Scheduler"), "{w:#?}");
        assert!(keyed(12, "Max per-disk pending count"), "{w:#?}");
        // Four cache parameters, the queue and its limit: delays of 0 are not named.
        assert_eq!(w.len(), 6, "{w:#?}");
        let scheme = w.iter().find(|l| l.contains("`Write scheme`")).unwrap();
        assert!(scheme.contains("dirty victim's write"), "{scheme}");
    }

    #[test]
    fn a_write_through_cache_names_no_victim_writes() {
        let w = warnings(&CTLR.replace("Write scheme = 3", "Write scheme = 2"));
        assert!(w.iter().all(|l| !l.contains("victim")), "{w:#?}");
        assert!(w.iter().any(|l| l.contains("memory cache")), "{w:#?}");
    }
}
