//! Finding the drive in a run configuration: the `disksim_disk` a `.parv` instantiates and
//! places in its topology, and the bus it hangs off.

use super::parse::{Block, Document, Loc, TopoNode};
use super::to_spec::BusTiming;
use crate::error::Result;

/// The first disk the configuration instantiates (in topology order when there is a
/// topology), or the one named `want`, and the transfer timing of its bus.
pub(crate) fn find_disk<'a>(
    doc: &'a Document,
    file_loc: &Loc,
    want: Option<&str>,
) -> Result<(&'a Block, Option<BusTiming>)> {
    let mut disks = Vec::new();
    for root in &doc.topology {
        collect_disks(root, None, &mut disks);
    }
    let candidates: Vec<(&str, Option<&TopoNode>, &Loc)> = if disks.is_empty() {
        doc.instantiations
            .iter()
            .flat_map(|i| i.names.iter().map(move |n| (n.as_str(), None, &i.loc)))
            .collect()
    } else {
        disks
            .iter()
            .map(|(node, bus)| (node.name.as_str(), *bus, &node.loc))
            .collect()
    };
    let topology_given = !disks.is_empty();
    for (name, bus, loc) in candidates {
        if want.is_some_and(|w| w != name) {
            continue;
        }
        let Some(inst) = doc
            .instantiations
            .iter()
            .find(|i| i.names.iter().any(|n| n == name))
        else {
            return Err(loc.error(
                Some("topology"),
                format!("disk `{name}` is placed in the topology but never instantiated"),
            ));
        };
        let Some(block) = doc.block(&inst.type_name) else {
            return Err(inst.loc.error(
                Some("instantiate"),
                format!(
                    "`{name}` is instantiated as `{}`, which no block defines",
                    inst.type_name
                ),
            ));
        };
        if block.type_name != "disksim_disk" {
            if topology_given {
                return Err(inst.loc.error(
                    Some("instantiate"),
                    format!(
                        "disk `{name}` is instantiated as `{}`, a `{}` block; a `disksim_disk` \
                         block is expected",
                        inst.type_name, block.type_name
                    ),
                ));
            }
            continue;
        }
        return Ok((block, bus.and_then(|b| bus_timing(doc, b))));
    }
    match want {
        Some(w) => Err(file_loc.error(
            None,
            format!("the configuration places no `disksim_disk` named `{w}`"),
        )),
        None => Err(file_loc.error(None, "the configuration instantiates no `disksim_disk`")),
    }
}

fn collect_disks<'a>(
    node: &'a TopoNode,
    parent_bus: Option<&'a TopoNode>,
    out: &mut Vec<(&'a TopoNode, Option<&'a TopoNode>)>,
) {
    if node.type_name == "disksim_disk" {
        out.push((node, parent_bus));
    }
    let bus = (node.type_name == "disksim_bus").then_some(node);
    for c in &node.children {
        collect_disks(c, bus, out);
    }
}

/// Block transfer times of the bus component `bus` (absent or unreadable values: none).
pub(crate) fn bus_timing(doc: &Document, bus: &TopoNode) -> Option<BusTiming> {
    let inst = doc
        .instantiations
        .iter()
        .find(|i| i.names.contains(&bus.name))?;
    let block = doc.block(&inst.type_name)?;
    let ms = |key: &str| match block.get(key).map(|p| &p.value) {
        Some(super::parse::Value::Int(i)) => *i as f64,
        Some(super::parse::Value::Float(f)) => *f,
        _ => 0.0,
    };
    Some(BusTiming {
        read_ms: ms("Read block transfer time").max(0.0),
        write_ms: ms("Write block transfer time").max(0.0),
    })
}
