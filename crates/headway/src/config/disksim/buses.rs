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
                // One line per bus block, however many buses it is instantiated as.
                let mut once = Notes::default();
                if num_or(b, "Arbitration time", 0.0)? != 0.0 {
                    once.warn(
                        b,
                        "Arbitration time",
                        "a shared bus's arbitration time is not modelled (its devices take \
                         turns at once)",
                    );
                }
                once.warn(
                    b,
                    "type",
                    "a shared bus is held through each command phase; a read's data \
                     transfer back to the host does not hold it",
                );
                for line in once.lines {
                    if !notes.lines.contains(&line) {
                        notes.lines.push(line);
                    }
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

    /// The shared buses of a driver over the buses `buses` (bus0, bus1, ... each of the
    /// block EXCL of type `bus_type`), each bus holding the components its entry lists.
    fn shared(bus_type: u32, buses: &[&str]) -> (Vec<(String, String)>, Vec<String>) {
        let tree: Vec<String> = buses
            .iter()
            .enumerate()
            .map(|(i, d)| format!("disksim_bus bus{i} [ {d} ]"))
            .collect();
        let text = format!(
            "disksim_bus EXCL {{ type = {bus_type}, Arbitration time = 0.5 }}\n\
             instantiate [ bus0 .. bus{} ] as EXCL\n\
             topology disksim_iodriver driver0 [ {} ]\n",
            buses.len() - 1,
            tree.join(", ")
        );
        let doc = crate::device::disksim::parse_experiment(&text, Path::new("b.parv")).unwrap();
        let mut notes = Notes::default();
        let mut out = Vec::new();
        for root in &doc.topology {
            shared_buses(&doc, root, &mut notes, &mut out).unwrap();
        }
        (out, notes.lines)
    }

    const TWO: &str = "disksim_disk disk0 [], disksim_disk disk1 []";

    #[test]
    fn the_disks_of_an_exclusive_bus_share_it() {
        let (out, notes) = shared(1, &[TWO, "disksim_disk disk2 [], disksim_disk disk3 []"]);
        let on = |d: &str, b: &str| (d.to_string(), b.to_string());
        assert_eq!(
            out,
            vec![
                on("disk0", "bus0"),
                on("disk1", "bus0"),
                on("disk2", "bus1"),
                on("disk3", "bus1")
            ]
        );
        // One line per parameter of the bus block, not one per bus.
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("b.parv:1: `Arbitration time`:"),
            "{notes:?}"
        );
        assert!(notes[1].contains("data transfer"), "{notes:?}");
    }

    #[test]
    fn an_interleaved_bus_or_a_bus_of_one_is_not_shared() {
        let (out, _) = shared(2, &[TWO]);
        assert!(out.is_empty(), "{out:?}");
        let (out, notes) = shared(1, &["disksim_disk disk0 []"]);
        assert!(out.is_empty() && notes.is_empty(), "{out:?} {notes:?}");
    }
}
