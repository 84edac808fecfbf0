//! DiskSim's `disksim_simpledisk`: a device that takes a fixed time per request (its command
//! overhead and access time) plus a fixed time per block moved, whatever the address. headway
//! runs it as its flash device, whose access time is exactly that shape (a fixed part plus
//! size over a rate, independent of address) and which serves one command at a time in
//! arrival order, as the simple disk's media does; garbage collection stays out of the time.

use super::values::{num_or, sub_block};
use super::Notes;
use crate::device::disksim::parse::{Block, Document, TopoNode};
use crate::device::disksim::parv::bus_timing;
use crate::device::flash::FlashSpec;
use crate::error::Result;

/// Bytes in one DiskSim block.
const BLOCK_BYTES: u64 = 512;

/// A transfer rate so high that moving any request takes no time: DiskSim's simple disk with
/// no bus or bulk transfer time moves its data instantly.
const INSTANT_MB_S: f64 = f64::MAX;

/// The flash device standing for the simple disk `block`, which sits on the bus `bus` (the
/// nearest bus above it in the topology), and the commands it holds at once.
pub(super) fn flash_spec(
    doc: &Document,
    block: &Block,
    name: &str,
    bus: Option<&TopoNode>,
    notes: &mut Notes,
) -> Result<(FlashSpec, usize)> {
    let count = num_or(block, "Block count", 0.0)?;
    if !(count.is_finite() && count >= 1.0) {
        let loc = block.get("Block count").map_or(&block.loc, |p| &p.loc);
        return Err(loc.error(
            Some("Block count"),
            format!("`{name}` needs a block count of at least 1, got {count}"),
        ));
    }
    let blocks = count as u64;
    let mut fixed_ms = 0.0;
    for key in ["Access time", "Command overhead"] {
        let ms = num_or(block, key, 0.0)?;
        if !(ms.is_finite() && ms >= 0.0) {
            let p = block.get(key).expect("a value was read");
            return Err(p
                .loc
                .error(Some(key), format!("expected a time >= 0 ms, got {ms}")));
        }
        fixed_ms += ms;
    }
    // DiskSim moves each block in the larger of the bus's block time and the device's own.
    let bulk_ms = num_or(block, "Bulk sector transfer time", 0.0)?.max(0.0);
    let timing = bus.and_then(|b| bus_timing(doc, b));
    let per_block = |bus_ms: f64| bus_ms.max(bulk_ms);
    let rate = |ms_per_block: f64| {
        if ms_per_block > 0.0 {
            BLOCK_BYTES as f64 / 1e3 / ms_per_block
        } else {
            INSTANT_MB_S
        }
    };
    let read_mb_s = rate(per_block(timing.map_or(0.0, |t| t.read_ms)));
    let write_mb_s = rate(per_block(timing.map_or(0.0, |t| t.write_ms)));

    if num_or(block, "Bus transaction latency", 0.0)? != 0.0 {
        notes.warn(
            block,
            "Bus transaction latency",
            format!("`{name}`: the per-message bus latency of a simple disk is not modelled"),
        );
    }
    let depth = num_or(block, "Max queue length", 1.0)?.max(1.0) as usize;
    if depth > 1 {
        if let Some(queue) = sub_block(block, "Scheduler") {
            if num_or(queue, "Scheduling policy", 1.0)? != 1.0 {
                notes.warn(
                    queue,
                    "Scheduling policy",
                    format!("`{name}` serves its queue in arrival order in headway"),
                );
            }
        }
    }
    let page_bytes = BLOCK_BYTES;
    let erase_block_bytes = page_bytes * blocks.min(128);
    let spec = FlashSpec {
        name: name.to_string(),
        page_bytes,
        erase_block_bytes,
        logical_bytes: blocks * BLOCK_BYTES,
        read_fixed_ms: fixed_ms,
        read_mb_s,
        write_fixed_ms: fixed_ms,
        write_mb_s,
        write_speed_factor: 1.0,
        gc_time_counted: false,
        ..FlashSpec::default()
    };
    spec.validate()
        .map_err(|e| block.loc.error(None, format!("`{name}`: {e}")))?;
    Ok((spec, depth))
}

/// The bus directly above the component `name` in the topology under `node`.
pub(super) fn parent_bus<'a>(node: &'a TopoNode, name: &str) -> Option<&'a TopoNode> {
    for c in &node.children {
        if c.name == name {
            return (node.type_name == "disksim_bus").then_some(node);
        }
        if let Some(b) = parent_bus(c, name) {
            return Some(b);
        }
    }
    None
}
