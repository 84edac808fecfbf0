//! DiskSim's exclusive buses (`disksim_bus` `type = 1`: one owner at a time) as headway's
//! shared buses: the disks hanging off one such bus name it in `shared_bus`. An
//! interleaved bus (`type = 2`) carries every transfer at once, and a bus with one device
//! has no one to wait for: neither is shared.

use super::values::num_or;
use super::{component, Notes};
use crate::device::disksim::parse::{Document, TopoNode};
use crate::error::Result;

/// DiskSim's `type` of a bus that one device owns at a time.
const EXCLUSIVE: f64 = 1.0;

/// The shared bus each disk of `node`'s subtree hangs off: `(disk, bus)` pairs, in
/// topology order.
pub(super) fn shared_buses(
    doc: &Document,
    node: &TopoNode,
    notes: &mut Notes,
    out: &mut Vec<(String, String)>,
) -> Result<()> {
    if node.type_name == "disksim_bus" && node.children.len() > 1 {
        if let Some(b) = component(doc, &node.name) {
            if num_or(b, "type", EXCLUSIVE)? == EXCLUSIVE {
                if num_or(b, "Arbitration time", 0.0)? != 0.0 {
                    notes.warn(
                        b,
                        "Arbitration time",
                        format!(
                            "bus `{}`'s arbitration time is not modelled (its devices take \
                             turns at once)",
                            node.name
                        ),
                    );
                }
                for c in &node.children {
                    if c.type_name == "disksim_disk" {
                        out.push((c.name.clone(), node.name.clone()));
                    }
                }
            }
        }
    }
    for c in &node.children {
        shared_buses(doc, c, notes, out)?;
    }
    Ok(())
}
