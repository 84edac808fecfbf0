//! A DiskSim 4.0 experiment file (`.parv`) read as a headway experiment: the I/O driver's
//! scheduler becomes the host's, every disk of the topology a `[[devices]]` entry (its
//! drive read from the same file, with the timing of the bus it sits on:
//! `FILE.parv#disk0`), logical organisations `[[arrays]]` volumes, and the synthetic
//! generator the workload. What headway does not model is one warning line per parameter
//! (file, line, key), carried into the run's warnings; output-only blocks (statistics) are
//! read and left alone.

mod buses;
mod cachedev;
mod ctlr;
mod driver;
mod logorg;
mod replay;
mod simpledisk;
mod synthio;
mod values;

use std::path::Path;

use super::{DeviceConfig, ExperimentConfig};
use crate::device::disksim::parse::{Block, Document, Loc, TopoNode};
use crate::error::Result;
use crate::request::DeviceId;
use crate::workload::WorkloadConfig;
use ctlr::note_controllers;
use values::num_or;

/// Warning lines, one per parameter headway reads but does not model.
#[derive(Default)]
pub(crate) struct Notes {
    lines: Vec<String>,
}

impl Notes {
    /// `key` of `block` (at its own line when present) is not modelled as DiskSim does.
    fn warn(&mut self, block: &Block, key: &str, msg: impl AsRef<str>) {
        let loc = block.get(key).map_or(&block.loc, |p| &p.loc);
        self.at(loc, key, msg);
    }

    fn at(&mut self, loc: &Loc, key: &str, msg: impl AsRef<str>) {
        let file = loc
            .file
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.lines
            .push(format!("{file}:{}: `{key}`: {}", loc.line, msg.as_ref()));
    }
}

/// Device components of the topology, in topology order.
fn device_nodes<'a>(node: &'a TopoNode, out: &mut Vec<&'a TopoNode>) {
    if matches!(
        node.type_name.as_str(),
        "disksim_disk" | "disksim_simpledisk"
    ) {
        out.push(node);
    }
    for c in &node.children {
        device_nodes(c, out);
    }
}

/// The block a component `name` is instantiated from.
fn component<'a>(doc: &'a Document, name: &str) -> Option<&'a Block> {
    let inst = doc
        .instantiations
        .iter()
        .find(|i| i.names.iter().any(|n| n == name))?;
    doc.block(&inst.type_name)
}

/// The experiment in the DiskSim file `origin` (its text already read).
pub(crate) fn experiment(text: &str, origin: &Path) -> Result<ExperimentConfig> {
    let doc = crate::device::disksim::parse_experiment(text, origin)?;
    let top = Loc {
        file: std::sync::Arc::new(origin.to_path_buf()),
        line: 1,
    };
    let mut notes = Notes::default();
    let mut cfg = ExperimentConfig::default();
    let file = origin
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();

    let mut nodes = Vec::new();
    let mut bus_of = Vec::new();
    for root in &doc.topology {
        device_nodes(root, &mut nodes);
        note_controllers(&doc, root, &mut notes)?;
        buses::shared_buses(&doc, root, &mut bus_of, &mut cfg.buses)?;
    }
    if nodes.is_empty() {
        return Err(top.error(
            Some("topology"),
            "the experiment places no disk in its topology",
        ));
    }
    for node in &nodes {
        if node.type_name == "disksim_simpledisk" {
            let Some(block) = component(&doc, &node.name) else {
                return Err(node.loc.error(
                    Some("topology"),
                    format!(
                        "`{}` is placed in the topology but never instantiated",
                        node.name
                    ),
                ));
            };
            let bus = doc
                .topology
                .iter()
                .find_map(|r| simpledisk::parent_bus(r, &node.name));
            let (flash, depth) = simpledisk::flash_spec(&doc, block, &node.name, bus, &mut notes)?;
            let mut d = cfg.device_list().remove(0);
            d.name = node.name.clone();
            d.drive = "flash".into();
            d.flash = Some(flash);
            d.settings.queue_depth = depth;
            cfg.devices.push(d);
            continue;
        }
        cfg.devices.push(DeviceConfig {
            name: node.name.clone(),
            drive: format!("{file}#{}", node.name),
            shared_bus: bus_of
                .iter()
                .find(|(disk, _)| *disk == node.name)
                .map(|(_, bus)| bus.clone()),
            ..cfg.device_list().remove(0)
        });
    }

    let mut caches = Vec::new();
    for root in &doc.topology {
        ctlr::memory_caches(&doc, root, &mut caches)?;
    }
    for (disk, cache) in caches {
        if let Some(d) = cfg.devices.iter_mut().find(|d| d.name == disk) {
            d.cache = Some(cache);
        }
    }

    if let Some(driver) = doc
        .topology
        .iter()
        .find(|r| r.type_name == "disksim_iodriver")
    {
        if let Some(b) = component(&doc, &driver.name) {
            let spec = driver::host_scheduler(b, &mut notes)?;
            (cfg.host.scheduler, cfg.host.options) = (spec.scheduler, spec.options);
            cfg.host.inner = spec.inner;
        }
    }

    // What each logical organisation addresses, in their order: a volume, or its disk.
    let mut org_names: Vec<String> = Vec::new();
    let mut org_targets: Vec<DeviceId> = Vec::new();
    // Whether each organisation is a volume (addressed by its own number), and the disks
    // of the plain ones (addressed by each disk's number, passed on as they are).
    let mut org_is_volume: Vec<bool> = Vec::new();
    let mut plain_disks: Vec<usize> = Vec::new();
    for b in doc
        .blocks
        .iter()
        .filter(|b| b.type_name == "disksim_logorg")
    {
        let name = b.name.clone().unwrap_or_default();
        let (org, members) = logorg::logorg(b, &name, &mut notes)?;
        let mut first = None;
        let mut disks = Vec::new();
        for m in &members {
            let Some(i) = nodes.iter().position(|n| &n.name == m) else {
                let p = b.get("devices").expect("read by logorg");
                return Err(p.loc.error(
                    Some("devices"),
                    format!("`{m}` is not a disk of the topology"),
                ));
            };
            first = first.or(Some(i as DeviceId));
            disks.push(i);
        }
        let target = match org {
            logorg::Org::Volume(a) => {
                cfg.arrays.push(*a);
                org_is_volume.push(true);
                // A volume's id follows the devices'.
                (nodes.len() + cfg.arrays.len() - 1) as DeviceId
            }
            logorg::Org::Plain => {
                org_is_volume.push(false);
                plain_disks.extend(disks);
                first.unwrap_or(0)
            }
        };
        org_names.push(name);
        org_targets.push(target);
    }

    // A controller's cache device becomes a volume, which takes the cached disk's requests.
    let disk_names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    let mut caches = Vec::new();
    for root in &doc.topology {
        cachedev::volumes(&doc, root, &disk_names, &mut notes, &mut caches)?;
    }
    let mut cached_by: Vec<(DeviceId, DeviceId)> = Vec::new();
    for a in caches {
        let disk = disk_names.iter().position(|n| *n == a.members[1]);
        cfg.arrays.push(a);
        let volume = (nodes.len() + cfg.arrays.len() - 1) as DeviceId;
        cached_by.extend(disk.map(|d| (d as DeviceId, volume)));
    }

    // The generators compute on the processors of the process-flow block, handed out as
    // DiskSim 4.0's dispatcher does (workload/synthgen says how).
    let mut processors = 1;
    if let Some(pf) = doc.blocks.iter().find(|b| b.type_name == "disksim_pf") {
        let n = num_or(pf, "Number of processors", 1.0)?;
        if !(n.is_finite() && (1.0..=65536.0).contains(&n)) {
            let loc = pf.get("Number of processors").map_or(&pf.loc, |p| &p.loc);
            return Err(loc.error(
                Some("Number of processors"),
                format!("expected a count from 1 to 65536, got {n}"),
            ));
        }
        processors = n as u32;
    }
    if let Some(g) = doc.blocks.iter().find(|b| b.type_name == "disksim_global") {
        if let Some(seed) = g.get("Init Seed") {
            cfg.seed = values::num_param(seed)?.max(0.0) as u64;
        }
    }
    // DiskSim resolves a generator's device name to a number (a disk's place among the
    // disks, or a logical organisation's among the organisations) and, when the experiment
    // has logical organisations, sends the request to the organisation of that number: on
    // its syntharrays experiment the generator names disk0 .. disk3 and the four
    // organisations (over disk0-3, disk4-7, disk8-11, disk12-15) each receive a quarter of
    // the requests.
    let device_of_disk = |n: &str| -> Option<DeviceId> {
        let number = nodes
            .iter()
            .position(|d| d.name == n)
            .or_else(|| org_names.iter().position(|o| o == n))?;
        if org_targets.is_empty() {
            return Some(number as DeviceId);
        }
        if org_is_volume.get(number) == Some(&true) {
            return org_targets.get(number).copied();
        }
        // DiskSim's ascii experiment: one plain organisation over eighteen disks, and its
        // generator's requests for disk N go to disk N.
        if plain_disks.contains(&number) {
            return Some(number as DeviceId);
        }
        org_targets.get(number).copied()
    };
    let device_of =
        |n: &str| device_of_disk(n).map(|d| cached_by.iter().find(|c| c.0 == d).map_or(d, |c| c.1));
    if let Some(s) = doc.blocks.iter().find(|b| b.type_name == "disksim_synthio") {
        cfg.workload =
            WorkloadConfig::Synthgen(synthio::synthgen(s, processors, &device_of, &mut notes)?);
    } else {
        cfg.workload = WorkloadConfig::Synthgen(crate::workload::SynthgenConfig {
            generators: Vec::new(),
            total_requests: 0,
            end_ms: 0.0,
            processors,
        });
    }
    cfg.name = origin.file_stem().map(|s| s.to_string_lossy().into_owned());
    cfg.base_dir = origin.parent().map(Path::to_path_buf);
    cfg.source_file = Some(origin.to_path_buf());
    cfg.reader_warnings = notes.lines;
    Ok(cfg)
}
