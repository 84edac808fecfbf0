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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn shared(bus_type: u32, disks: &str) -> (Vec<(String, String)>, Vec<String>) {
        let text = format!(
            "disksim_bus EXCL {{ type = {bus_type}, Arbitration time = 0.5 }}\n\
             instantiate [ bus0 ] as EXCL\n\
             topology disksim_iodriver driver0 [ disksim_bus bus0 [ {disks} ] ]\n"
        );
        let doc = crate::device::disksim::parse_experiment(&text, Path::new("b.parv")).unwrap();
        let mut notes = Notes::default();
        let mut out = Vec::new();
        for root in &doc.topology {
            shared_buses(&doc, root, &mut notes, &mut out).unwrap();
        }
        (out, notes.lines)
    }

    #[test]
    fn the_disks_of_an_exclusive_bus_share_it() {
        let (out, notes) = shared(1, "disksim_disk disk0 [], disksim_disk disk1 []");
        let bus = |d: &str| (d.to_string(), "bus0".to_string());
        assert_eq!(out, vec![bus("disk0"), bus("disk1")]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("b.parv:1: `Arbitration time`:"),
            "{notes:?}"
        );
    }

    #[test]
    fn an_interleaved_bus_or_a_bus_of_one_is_not_shared() {
        let (out, _) = shared(2, "disksim_disk disk0 [], disksim_disk disk1 []");
        assert!(out.is_empty(), "{out:?}");
        let (out, notes) = shared(1, "disksim_disk disk0 []");
        assert!(out.is_empty() && notes.is_empty(), "{out:?} {notes:?}");
    }
}
