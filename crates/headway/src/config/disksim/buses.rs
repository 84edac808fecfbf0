//! DiskSim's exclusive buses (`disksim_bus` `type = 1`: one owner at a time) as headway's
//! shared buses: the disks hanging off one such bus name it in `shared_bus`, and the bus's
//! `Arbitration time` becomes its `[[buses]]` entry's (reads' data holds the bus, as
//! DiskSim's disks hold it from reconnection to completion). An interleaved bus (`type =
//! 2`) carries every transfer at once, and a bus with one device has no one to wait for:
//! neither is shared.

use super::component;
use super::values::num_or;
use crate::config::BusConfig;
use crate::device::disksim::parse::{Document, TopoNode};
use crate::error::Result;

/// DiskSim's `type` of a bus that one device owns at a time.
const EXCLUSIVE: f64 = 1.0;

/// The shared bus each disk of `node`'s subtree hangs off: `(disk, bus)` pairs in `out`, in
/// topology order, and each such bus's settings in `buses`.
pub(super) fn shared_buses(
    doc: &Document,
    node: &TopoNode,
    out: &mut Vec<(String, String)>,
    buses: &mut Vec<BusConfig>,
) -> Result<()> {
    if node.type_name == "disksim_bus" && node.children.len() > 1 {
        if let Some(b) = component(doc, &node.name) {
            if num_or(b, "type", EXCLUSIVE)? == EXCLUSIVE {
                let arbitration_ms = num_or(b, "Arbitration time", 0.0)?;
                if !(arbitration_ms.is_finite() && arbitration_ms >= 0.0) {
                    let loc = b.get("Arbitration time").map_or(&b.loc, |p| &p.loc);
                    return Err(loc.error(
                        Some("Arbitration time"),
                        format!("must be a duration of 0 or more, got {arbitration_ms}"),
                    ));
                }
                let before = out.len();
                for c in &node.children {
                    if c.type_name == "disksim_disk" {
                        out.push((c.name.clone(), node.name.clone()));
                    }
                }
                if out.len() > before {
                    buses.push(BusConfig {
                        arbitration_ms,
                        ..BusConfig::named(&node.name)
                    });
                }
            }
        }
    }
    for c in &node.children {
        shared_buses(doc, c, out, buses)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The shared buses of a driver over the buses `buses` (bus0, bus1, ... each of the
    /// block EXCL of type `bus_type`), each bus holding the components its entry lists.
    fn shared(bus_type: u32, buses: &[&str]) -> (Vec<(String, String)>, Vec<BusConfig>) {
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
        let mut out = Vec::new();
        let mut settings = Vec::new();
        for root in &doc.topology {
            shared_buses(&doc, root, &mut out, &mut settings).unwrap();
        }
        (out, settings)
    }

    const TWO: &str = "disksim_disk disk0 [], disksim_disk disk1 []";

    #[test]
    fn the_disks_of_an_exclusive_bus_share_it_with_its_arbitration_time() {
        let (out, settings) = shared(1, &[TWO, "disksim_disk disk2 [], disksim_disk disk3 []"]);
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
        // One entry per bus instantiated, each with the block's arbitration time; reads'
        // data holds it, as on DiskSim's buses.
        let names: Vec<&str> = settings.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["bus0", "bus1"]);
        assert!(settings
            .iter()
            .all(|b| b.arbitration_ms == 0.5 && b.hold_read_data));
    }

    #[test]
    fn an_interleaved_bus_or_a_bus_of_one_is_not_shared() {
        let (out, settings) = shared(2, &[TWO]);
        assert!(out.is_empty() && settings.is_empty(), "{out:?}");
        let (out, settings) = shared(1, &["disksim_disk disk0 []"]);
        assert!(
            out.is_empty() && settings.is_empty(),
            "{out:?} {settings:?}"
        );
    }
}
