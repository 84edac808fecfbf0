//! From DiskSim's parse tree to an [`HddSpec`]: the `disksim_disk` block (overheads, bus,
//! cache, firmware queue) and the `dm_disk` model it sources (geometry, `dm_layout_g1` zones,
//! `dm_mech_g1` mechanics and seek curve).
//!
//! Every key DiskSim 4.0 defines for these blocks is either mapped or listed as known to be
//! unused; any other key is an error, as it is in DiskSim. Choices made where DiskSim's
//! parameters and headway's model differ are written into the spec's description.

use super::parse::{Block, Item, Param, Value};
use super::seek_file::parse_seek;
use super::Resolver;
use crate::device::hdd::layout::Layout;
use crate::device::hdd::spec::{
    BusSpec, CacheSpec, HddSpec, LayoutSpec, OverheadSpec, QueueSpec, SeekSpec, Sparing, ZoneSpec,
};
use crate::error::{HeadwayError, Result};

/// Per-sector transfer times of the bus a disk hangs off (DiskSim `disksim_bus` "Read/Write
/// block transfer time").
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BusTiming {
    pub read_ms: f64,
    pub write_ms: f64,
}

const MAX_CYLINDERS: i64 = crate::device::hdd::spec::MAX_CYLINDERS as i64;
const MAX_SURFACES: i64 = crate::device::hdd::spec::MAX_SURFACES as i64;

/// Keys of a `disksim_disk` block headway reads nothing from.
const DISK_UNUSED: &[&str] = &["Print stats", "Avg sectors per cylinder"];
/// Keys of a `disksim_ioqueue` other than the policy: host-side queue tuning the firmware
/// queue model does not have.
const IOQUEUE_UNUSED: &[&str] = &[
    "Cylinder mapping strategy",
    "Write initiation delay",
    "Read initiation delay",
    "Sequential stream scheme",
    "Maximum concat size",
    "Overlapping request scheme",
    "Sequential stream diff maximum",
    "Scheduling timeout scheme",
    "Timeout time/weight",
    "Timeout scheduling",
    "Scheduling priority scheme",
    "Priority scheduling",
];
/// `dm_mech_g1` keys that only serve seek types headway maps from other keys (DiskSim itself
/// ignores the HPL and first-ten values unless the seek type uses them).
const MECH_UNUSED: &[&str] = &[
    "Average seek time",
    "Full strobe seek time",
    "Single cylinder seek time",
    "Constant access time",
];

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        // "6.000000" is a whole number written the way DiskSim's extractors print doubles.
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(*f as i64),
        _ => None,
    }
}

/// A block's parameters, handed out one key at a time so leftovers can be reported.
struct Fields<'a> {
    block: &'a Block,
    used: Vec<bool>,
}

impl<'a> Fields<'a> {
    fn new(block: &'a Block, type_name: &str) -> Result<Self> {
        if block.type_name != type_name {
            return Err(block.loc.error(
                None,
                format!(
                    "expected a `{type_name}` block, found a `{}` block",
                    block.type_name
                ),
            ));
        }
        Ok(Fields {
            block,
            used: vec![false; block.params.len()],
        })
    }

    fn take(&mut self, key: &str) -> Option<&'a Param> {
        let i = self.block.params.iter().position(|p| p.key == key)?;
        self.used[i] = true;
        Some(&self.block.params[i])
    }

    fn req(&mut self, key: &str) -> Result<&'a Param> {
        self.take(key).ok_or_else(|| {
            self.block.loc.error(
                Some(key),
                format!("required in a `{}` block but missing", self.block.type_name),
            )
        })
    }

    fn f64_of(p: &Param) -> Result<f64> {
        number(&p.value).ok_or_else(|| {
            p.loc.error(
                Some(&p.key),
                format!("expected a number, found {}", p.value.kind()),
            )
        })
    }

    fn i64_of(p: &Param) -> Result<i64> {
        integer(&p.value).ok_or_else(|| {
            p.loc.error(
                Some(&p.key),
                format!("expected a whole number, found {}", p.value.kind()),
            )
        })
    }

    fn f64(&mut self, key: &str) -> Result<f64> {
        Self::f64_of(self.req(key)?)
    }

    fn f64_or(&mut self, key: &str, default: f64) -> Result<f64> {
        self.take(key).map_or(Ok(default), Self::f64_of)
    }

    fn non_negative_f64_or(&mut self, key: &str) -> Result<f64> {
        match self.take(key) {
            None => Ok(0.0),
            Some(p) => {
                let v = Self::f64_of(p)?;
                if v < 0.0 {
                    return Err(p
                        .loc
                        .error(Some(key), format!("must not be negative, got {v}")));
                }
                Ok(v)
            }
        }
    }

    /// A whole number in `lo..=hi`.
    fn int_in(p: &Param, lo: i64, hi: i64) -> Result<i64> {
        let v = Self::i64_of(p)?;
        if v < lo || v > hi {
            return Err(p
                .loc
                .error(Some(&p.key), format!("must be in {lo}..={hi}, got {v}")));
        }
        Ok(v)
    }

    fn u32(&mut self, key: &str, min: u32) -> Result<u32> {
        let p = self.req(key)?;
        Ok(Self::int_in(p, min as i64, u32::MAX as i64)? as u32)
    }

    fn u32_or(&mut self, key: &str, default: u32) -> Result<u32> {
        match self.take(key) {
            None => Ok(default),
            Some(p) => Ok(Self::int_in(p, 0, u32::MAX as i64)? as u32),
        }
    }

    fn bool_or(&mut self, key: &str, default: bool) -> Result<bool> {
        match self.take(key) {
            None => Ok(default),
            // DiskSim keeps these flags as C ints: any nonzero value is on (hp_c2490a enables
            // its cache with 2).
            Some(p) => match &p.value {
                Value::Int(i) => Ok(*i != 0),
                v => Err(p.loc.error(
                    Some(key),
                    format!(
                        "expected a whole number (0 off, else on), found {}",
                        v.kind()
                    ),
                )),
            },
        }
    }

    fn word(&mut self, key: &str) -> Result<(String, &'a Param)> {
        let p = self.req(key)?;
        match &p.value {
            Value::Word(w) => Ok((w.clone(), p)),
            v => Err(p
                .loc
                .error(Some(key), format!("expected a name, found {}", v.kind()))),
        }
    }

    fn block(&mut self, key: &str, type_name: &str) -> Result<&'a Block> {
        let p = self.req(key)?;
        match &p.value {
            Value::Block(b) if b.type_name == type_name => Ok(b),
            Value::Block(b) => Err(p.loc.error(
                Some(key),
                format!(
                    "expected a `{type_name}` block, found a `{}` block (headway reads only \
                     `{type_name}`)",
                    b.type_name
                ),
            )),
            v => Err(p.loc.error(
                Some(key),
                format!("expected a `{type_name}` block, found {}", v.kind()),
            )),
        }
    }

    fn list(&mut self, key: &str) -> Result<(&'a [Item], &'a Param)> {
        let p = self.req(key)?;
        match &p.value {
            Value::List(items) => Ok((items, p)),
            v => Err(p.loc.error(
                Some(key),
                format!("expected a list `[ ... ]`, found {}", v.kind()),
            )),
        }
    }

    /// Numbers of a list, checked to be `count` long when given.
    fn numbers(&mut self, key: &str, count: Option<usize>) -> Result<Vec<f64>> {
        let (items, p) = self.list(key)?;
        if let Some(n) = count {
            if items.len() != n {
                return Err(p.loc.error(
                    Some(key),
                    format!("expected {n} values, found {}", items.len()),
                ));
            }
        }
        items
            .iter()
            .map(|it| {
                number(&it.value).ok_or_else(|| {
                    it.loc.error(
                        Some(key),
                        format!("expected a number, found {}", it.value.kind()),
                    )
                })
            })
            .collect()
    }

    /// Non-negative whole numbers of a list.
    fn counts(&mut self, key: &str) -> Result<Vec<u64>> {
        let (items, _) = self.list(key)?;
        items
            .iter()
            .map(|it| match integer(&it.value) {
                Some(v) if v >= 0 => Ok(v as u64),
                _ => Err(it.loc.error(
                    Some(key),
                    format!(
                        "expected a non-negative whole number, found {}",
                        it.value.kind()
                    ),
                )),
            })
            .collect()
    }

    /// Every parameter not taken must be one headway knows to be unused.
    fn finish(self, known_unused: &[&str]) -> Result<()> {
        for (p, used) in self.block.params.iter().zip(&self.used) {
            if !used && !known_unused.contains(&p.key.as_str()) {
                return Err(p.loc.error(
                    Some(&p.key),
                    format!(
                        "not a parameter of a DiskSim 4.0 `{}` block that headway knows",
                        self.block.type_name
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The drive described by the `disksim_disk` block `disk`. `name` becomes the spec's name,
/// `origin` is named in its description, `bus` is the timing of the bus it sits on (if the
/// run configuration says).
pub(crate) fn disk_spec(
    disk: &Block,
    name: &str,
    origin: &str,
    bus: Option<BusTiming>,
    resolver: &dyn Resolver,
) -> Result<HddSpec> {
    let mut notes: Vec<String> = Vec::new();
    let mut f = Fields::new(disk, "disksim_disk")?;
    let model = f.block("Model", "dm_disk")?;
    let overheads = overheads(&mut f)?;
    let bulk_ms = f.non_negative_f64_or("Bulk sector transfer time")?;
    // DiskSim moves each sector at the slower of the disk's own rate and its bus's.
    let (read_ms, write_ms) = match bus {
        Some(b) => (bulk_ms.max(b.read_ms), bulk_ms.max(b.write_ms)),
        None => (bulk_ms, bulk_ms),
    };
    let bus = BusSpec {
        sector_transfer_ms: read_ms,
        write_sector_transfer_ms: (write_ms != read_ms).then_some(write_ms),
        hold_bus_entire_read: f.bool_or("Hold bus entire read xfer", false)?,
        hold_bus_entire_write: f.bool_or("Hold bus entire write xfer", false)?,
        overlap: false,
    };
    let cache = cache(&mut f)?;
    let queue = queue(&mut f)?;
    f.finish(DISK_UNUSED)?;

    let mut m = Fields::new(model, "dm_disk")?;
    let (declared_blocks, declared_at) = {
        let p = m.req("Block count")?;
        (Fields::int_in(p, 1, i64::MAX)? as u64, p.loc.clone())
    };
    let surfaces = {
        let p = m.req("Number of data surfaces")?;
        Fields::int_in(p, 1, MAX_SURFACES)? as u32
    };
    // Seek tables are dense in the cylinder count; keep a typo from asking for gigabytes.
    let mut cylinders = {
        let p = m.req("Number of cylinders")?;
        Fields::int_in(p, 1, MAX_CYLINDERS)? as u32
    };
    let layout_block = m.block("Layout Model", "dm_layout_g1")?;
    let mech_block = m.block("Mechanical Model", "dm_mech_g1")?;
    m.finish(&[])?;

    let (layout, zone_blocks) = layout_spec(layout_block)?;
    let max_cyl = layout
        .zones
        .iter()
        .map(|z| z.last_cylinder)
        .max()
        .unwrap_or(0);
    // Zones beyond the cap stay out of range and fail in the layout with their own message.
    if max_cyl >= cylinders && (max_cyl as i64) < MAX_CYLINDERS {
        notes.push(format!(
            "its zones reach cylinder {max_cyl}, so the drive has {} cylinders, not the {cylinders} \
             it declares",
            max_cyl + 1
        ));
        cylinders = max_cyl + 1;
    }
    let probe = Layout::new(&layout, surfaces, cylinders)
        .map_err(|e| layout_error(e, layout_block, &zone_blocks))?;
    // DiskSim's dm_layout_g1 loader replaces the declared "Block count" with the sum of its
    // zones' blocks, silently (diskmodel's checknumblocks); headway does the same, aloud.
    let block_count = probe.capacity_sectors();
    let mut reader_warnings = Vec::new();
    if block_count != declared_blocks {
        let w = format!(
            "{}:{}: `Block count` = {declared_blocks}, but its zones map {block_count} \
             sectors; like DiskSim 4.0, the drive exports {block_count}",
            declared_at.file.display(),
            declared_at.line
        );
        notes.push(w.clone());
        reader_warnings.push(w);
    }

    let mech = mechanics(mech_block, resolver, &mut notes)?;
    let description = if notes.is_empty() {
        format!(
            "DiskSim 4.0 model `{}` from {origin}",
            disk.name.as_deref().unwrap_or("(anonymous)")
        )
    } else {
        format!(
            "DiskSim 4.0 model `{}` from {origin}; {}",
            disk.name.as_deref().unwrap_or("(anonymous)"),
            notes.join("; ")
        )
    };
    Ok(HddSpec {
        name: name.to_string(),
        description,
        rpm: mech.rpm,
        surfaces,
        cylinders,
        block_count,
        layout,
        seek: mech.seek,
        head_switch_ms: mech.head_switch_ms,
        write_settle_ms: mech.write_settle_ms,
        overheads,
        bus,
        cache: Some(cache),
        queue,
        actuators: 1,
        smr: None,
        zoned: None,
        reader_warnings,
    })
}

fn overheads(f: &mut Fields) -> Result<OverheadSpec> {
    let mut ms = |key: &str| f.f64_or(key, 0.0);
    Ok(OverheadSpec {
        read_hit_after_read_ms: ms("Read hit over. after read")?,
        read_hit_after_write_ms: ms("Read hit over. after write")?,
        read_miss_after_read_ms: ms("Read miss over. after read")?,
        read_miss_after_write_ms: ms("Read miss over. after write")?,
        write_hit_after_read_ms: ms("Write hit over. after read")?,
        write_hit_after_write_ms: ms("Write hit over. after write")?,
        write_miss_after_read_ms: ms("Write miss over. after read")?,
        write_miss_after_write_ms: ms("Write miss over. after write")?,
        read_completion_ms: ms("Read completion overhead")?,
        write_completion_ms: ms("Write completion overhead")?,
        data_preparation_ms: ms("Data preparation overhead")?,
        first_reselect_ms: ms("First reselect overhead")?,
        other_reselect_ms: ms("Other reselect overhead")?,
        read_disconnect_after_read_ms: ms("Read disconnect afterread")?,
        read_disconnect_after_write_ms: ms("Read disconnect afterwrite")?,
        write_disconnect_ms: ms("Write disconnect overhead")?,
        extradisc_command_ms: ms("Extradisc command overhead")?,
        extradisc_disconnect_ms: ms("Extradisc disconnect overhead")?,
        extradisc_inter_disconnect_ms: ms("Extradisc inter-disconnect delay")?,
        extradisc_second_disconnect_ms: ms("Extradisc 2nd disconnect overhead")?,
        extradisc_seek_delta_ms: ms("Extradisc seek delta")?,
        minimum_seek_delay_ms: ms("Minimum seek delay")?,
        per_request_ms: ms("Per-request overhead time")?,
        time_scale: f.f64_or("Time scale for overheads", 1.0)?,
        extra_write_disconnect: f.bool_or("Extra write disconnect", false)?,
    })
}

fn cache(f: &mut Fields) -> Result<CacheSpec> {
    Ok(CacheSpec {
        enabled: f.bool_or("Enable caching in buffer", false)?,
        segments: f.u32_or("Number of buffer segments", 0)?,
        segment_sectors: f.u32_or("Segment size (in blks)", 0)?,
        max_write_segments: f.u32_or("Maximum number of write segments", 0)?,
        separate_write_segment: f.bool_or("Use separate write segment", false)?,
        low_water_mark: f.f64_or("Low (write) water mark", 0.0)?,
        high_water_mark: f.f64_or("High (read) water mark", 0.0)?,
        watermark_by_request_size: f.bool_or("Set watermark by reqsize", false)?,
        calc_sector_by_sector: f.bool_or("Calc sector by sector", false)?,
        buffer_continuous_read: f.u32_or("Buffer continuous read", 0)?,
        min_read_ahead_sectors: f.u32_or("Minimum read-ahead (blks)", 0)?,
        max_read_ahead_sectors: f.u32_or("Maximum read-ahead (blks)", 0)?,
        read_ahead_over_requested: match f.take("Read-ahead over requested") {
            None => 0,
            Some(p) => Fields::int_in(p, i32::MIN as i64, i32::MAX as i64)? as i32,
        },
        read_ahead_on_idle_hit: f.bool_or("Read-ahead on idle hit", false)?,
        read_any_free_blocks: f.bool_or("Read any free blocks", false)?,
        fast_write_level: f.u32_or("Fast write level", 0)?,
        immediate_buffer_read: f.bool_or("Immediate buffer read", false)?,
        immediate_buffer_write: f.bool_or("Immediate buffer write", false)?,
        combine_sequential_writes: f.bool_or("Combine seq writes", false)?,
        stop_prefetch_in_sector: f.bool_or("Stop prefetch in sector", false)?,
        disconnect_write_if_seek: f.bool_or("Disconnect write if seek", false)?,
        write_hit_stop_prefetch: f.bool_or("Write hit stop prefetch", false)?,
        read_directly_to_buffer: f.bool_or("Read directly to buffer", false)?,
        immediate_transfer_partial_hit: f.bool_or("Immed transfer partial hit", false)?,
        allow_almost_read_hits: f.bool_or("Allow almost read hits", false)?,
        allow_sneaky_full_read_hits: f.bool_or("Allow sneaky full read hits", false)?,
        allow_sneaky_partial_read_hits: f.bool_or("Allow sneaky partial read hits", false)?,
        allow_sneaky_intermediate_read_hits: f
            .bool_or("Allow sneaky intermediate read hits", false)?,
        allow_read_hits_on_write_data: f.bool_or("Allow read hits on write data", false)?,
        allow_write_prebuffering: f.bool_or("Allow write prebuffering", false)?,
        preseeking_level: f.u32_or("Preseeking level", 0)?,
        never_disconnect: f.bool_or("Never disconnect", false)?,
    })
}

fn queue(f: &mut Fields) -> Result<QueueSpec> {
    let mut q = QueueSpec::default();
    if let Some(p) = f.take("Max queue length") {
        q.max_queue_length = Fields::int_in(p, 1, u32::MAX as i64)? as u32;
    }
    if f.block.get("Scheduler").is_some() {
        let s = f.block("Scheduler", "disksim_ioqueue")?;
        let mut sf = Fields::new(s, "disksim_ioqueue")?;
        q.policy = sf.u32("Scheduling policy", 1)?;
        sf.finish(IOQUEUE_UNUSED)?;
    }
    Ok(q)
}

/// DiskSim reads a skew given in sectors as a whole number of sectors (it truncates), and a
/// skew in revolutions as a fraction of the track.
fn skew_sectors(value: f64, revolutions: bool, spt: u32) -> f64 {
    if revolutions {
        value * spt as f64
    } else {
        value.trunc()
    }
}

fn skew_units(f: &mut Fields, default: bool) -> Result<bool> {
    match f.take("Skew units") {
        None => Ok(default),
        Some(p) => match &p.value {
            Value::Word(w) if w == "revolutions" => Ok(true),
            Value::Word(w) if w == "sectors" => Ok(false),
            v => Err(p.loc.error(
                Some("Skew units"),
                format!("expected `sectors` or `revolutions`, found {}", v.kind()),
            )),
        },
    }
}

fn layout_spec(block: &Block) -> Result<(LayoutSpec, Vec<&Block>)> {
    let mut f = Fields::new(block, "dm_layout_g1")?;
    let mapping_scheme = {
        let p = f.req("LBN-to-PBN mapping scheme")?;
        Fields::int_in(p, 0, 2)? as u32
    };
    let sparing = {
        let p = f.req("Sparing scheme used")?;
        let n = Fields::i64_of(p)?;
        Sparing::from_disksim(n).ok_or_else(|| {
            p.loc.error(
                Some(&p.key),
                format!("DiskSim 4.0 sparing schemes are 0..=10, got {n}"),
            )
        })?
    };
    let range_size = f.u32("Rangesize for sparing", 1)?;
    let revolutions = skew_units(&mut f, false)?;
    let (items, _) = f.list("Zones")?;
    f.finish(&[])?;
    let mut zones = Vec::with_capacity(items.len());
    let mut blocks = Vec::with_capacity(items.len());
    for it in items {
        let Value::Block(z) = &it.value else {
            return Err(it.loc.error(
                Some("Zones"),
                format!(
                    "expected a `dm_layout_g1_zone` block, found {}",
                    it.value.kind()
                ),
            ));
        };
        zones.push(zone_spec(z, revolutions)?);
        blocks.push(z);
    }
    Ok((
        LayoutSpec {
            mapping_scheme,
            sparing,
            range_size,
            zones,
            exported_sectors: None,
        },
        blocks,
    ))
}

fn zone_spec(block: &Block, layout_revolutions: bool) -> Result<ZoneSpec> {
    let mut f = Fields::new(block, "dm_layout_g1_zone")?;
    let first_cylinder = f.u32("First cylinder number", 0)?;
    let last_cylinder = f.u32("Last cylinder number", 0)?;
    let spt = f.u32("Blocks per track", 1)?;
    let revolutions = skew_units(&mut f, layout_revolutions)?;
    let offset = f.f64("Offset of first block")?;
    let empty_space_front = f.u32("Empty space at zone front", 0)?;
    let track_skew = f.f64_or("Skew for track switch", 0.0)?;
    let cylinder_skew = f.f64_or("Skew for cylinder switch", 0.0)?;
    let spares = f.u32("Number of spares", 0)?;
    let slips = f.counts("slips")?;
    let defect_values = f.counts("defects")?;
    if defect_values.len() % 2 != 0 {
        let p = block.get("defects").expect("read above");
        return Err(p.loc.error(
            Some("defects"),
            format!(
                "defects come in (bad, replacement) pairs; found {} numbers",
                defect_values.len()
            ),
        ));
    }
    f.finish(&[])?;
    Ok(ZoneSpec {
        first_cylinder,
        last_cylinder,
        sectors_per_track: spt,
        first_block_offset: skew_sectors(offset, revolutions, spt),
        empty_space_front,
        track_skew: skew_sectors(track_skew, revolutions, spt),
        cylinder_skew: skew_sectors(cylinder_skew, revolutions, spt),
        spares,
        slips,
        defects: defect_values.chunks(2).map(|c| (c[0], c[1])).collect(),
    })
}

/// Point a layout error at the DiskSim zone and key it came from.
fn layout_error(e: HeadwayError, layout: &Block, zones: &[&Block]) -> HeadwayError {
    let HeadwayError::Params {
        key: Some(key),
        msg,
        ..
    } = &e
    else {
        return e;
    };
    let field_key = |field: &str| match field {
        "first_cylinder" => "First cylinder number",
        "last_cylinder" => "Last cylinder number",
        "sectors_per_track" => "Blocks per track",
        "first_block_offset" => "Offset of first block",
        "empty_space_front" => "Empty space at zone front",
        "track_skew" => "Skew for track switch",
        "cylinder_skew" => "Skew for cylinder switch",
        "spares" => "Number of spares",
        "slips" => "slips",
        "defects" => "defects",
        "mapping_scheme" => "LBN-to-PBN mapping scheme",
        "range_size" => "Rangesize for sparing",
        _ => "Zones",
    };
    let zone = key
        .strip_prefix("layout.zones[")
        .and_then(|r| r.split_once("]."))
        .and_then(|(i, field)| Some((i.parse::<usize>().ok()?, field)));
    match zone {
        Some((i, field)) if i < zones.len() => {
            let k = field_key(field);
            let loc = zones[i].get(k).map_or(&zones[i].loc, |p| &p.loc);
            loc.error(Some(k), format!("zone {i}: {msg}"))
        }
        _ => {
            let k = field_key(key.strip_prefix("layout.").unwrap_or(key));
            let loc = layout.get(k).map_or(&layout.loc, |p| &p.loc);
            loc.error(Some(k), msg.clone())
        }
    }
}

struct Mech {
    rpm: f64,
    seek: SeekSpec,
    head_switch_ms: f64,
    write_settle_ms: f64,
}

fn mechanics(block: &Block, resolver: &dyn Resolver, notes: &mut Vec<String>) -> Result<Mech> {
    let mut f = Fields::new(block, "dm_mech_g1")?;
    let (access, p) = f.word("Access time type")?;
    if access != "trackSwitchPlusRotation" {
        return Err(p.loc.error(
            Some(&p.key),
            format!(
                "headway models seeks and rotation (`trackSwitchPlusRotation`); `{access}` is \
                 not supported"
            ),
        ));
    }
    let (seek_type, seek_param) = f.word("Seek type")?;
    let mut unused: Vec<&str> = MECH_UNUSED.to_vec();
    let seek = match seek_type.as_str() {
        "extracted" => {
            let (file, p) = f.word("Full seek curve")?;
            let path = super::sourced_path(&p.loc.file, &file)
                .map_err(|msg| p.loc.error(Some(&p.key), msg))?;
            let text = resolver.read(&path).map_err(|e| {
                p.loc.error(
                    Some(&p.key),
                    format!("cannot read `{}`: {e}", path.display()),
                )
            })?;
            unused.extend([
                "HPL seek equation values",
                "First ten seek times",
                "Constant seek time",
            ]);
            SeekSpec::Table {
                points: parse_seek(&text, &path)?,
            }
        }
        "hpl" | "hplplus10" => {
            let v = f.numbers("HPL seek equation values", Some(6))?;
            let p = f.take("HPL seek equation values").expect("read above");
            if v[0] < 0.0 || v[0].fract() != 0.0 {
                return Err(p.loc.error(
                    Some(&p.key),
                    format!("V1 is a whole number of cylinders, got {}", v[0]),
                ));
            }
            if v[1..5].iter().any(|x| *x < 0.0) {
                return Err(p.loc.error(Some(&p.key), "V2..V5 must not be negative"));
            }
            unused.extend(["Full seek curve", "Constant seek time"]);
            if seek_type == "hpl" {
                unused.push("First ten seek times");
                SeekSpec::Hpl {
                    values: [v[0], v[1], v[2], v[3], v[4], v[5]],
                }
            } else {
                let first = f.numbers("First ten seek times", Some(10))?;
                if first.iter().any(|x| *x < 0.0) {
                    let p = f.take("First ten seek times").expect("read above");
                    return Err(p.loc.error(Some(&p.key), "seek times must not be negative"));
                }
                // DiskSim: d <= 10 from the list, d < V1 on the root curve, else linear.
                SeekSpec::SqrtLinear {
                    threshold: (v[0] as u32).saturating_sub(1),
                    c1_ms: v[1],
                    c2_ms: v[2],
                    c3_ms: v[3],
                    c4_ms: v[4],
                    first_ms: first,
                }
            }
        }
        "constant" => {
            let p = f.req("Constant seek time")?;
            let ms = Fields::f64_of(p)?;
            unused.extend([
                "HPL seek equation values",
                "First ten seek times",
                "Full seek curve",
            ]);
            SeekSpec::Table {
                points: vec![(1, ms)],
            }
        }
        other => {
            return Err(seek_param.loc.error(
                Some("Seek type"),
                format!(
                    "headway reads seek types `extracted`, `hpl`, `hplplus10` and `constant`; \
                     `{other}` is not supported"
                ),
            ))
        }
    };
    // Taken as DiskSim takes it, sign included: the seek curve is measured with reads and this
    // is what a write adds to it, negative on dec_rz26 (-0.483) and hp_c2490a (-0.642). The
    // real traces agree: hp_c2490a's (0.247 with the sign, 1.067 with the magnitude, by
    // DiskSim's formula; DiskSim 0.254) and dec_rz26's writes outside 100-500-cylinder seeks (demerit 0.25 with the
    // sign, 0.32 with the magnitude); DiskSim's synthetic workloads (114 of 138 within tolerance
    // with the sign, 110 with the magnitude); docs/fidelity.md, "The sign of a negative write
    // settle" and "The RZ26's medium-seek writes, binned".
    let write_settle_ms = f.f64("Add. write settling delay")?;
    let head_switch_ms = {
        let p = f.req("Head switch time")?;
        let v = Fields::f64_of(p)?;
        if v < 0.0 {
            return Err(p
                .loc
                .error(Some(&p.key), format!("must not be negative, got {v}")));
        }
        v
    };
    let rpm = {
        let p = f.req("Rotation speed (in rpms)")?;
        Fields::int_in(p, 1, 1_000_000)? as f64
    };
    let rpm_error = f.f64_or("Percent error in rpms", 0.0)?;
    if rpm_error != 0.0 {
        notes.push(format!(
            "DiskSim would draw its speed within {rpm_error}% of {rpm} RPM; headway uses {rpm}"
        ));
    }
    f.finish(&unused)?;
    Ok(Mech {
        rpm,
        seek,
        head_switch_ms,
        write_settle_ms,
    })
}
