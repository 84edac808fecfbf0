//! The drive file an extraction writes: what timing revealed, in headway's own drive form
//! ([`HddSpec`]), so that the measured device can be simulated (`[drive] file = ...`) and the
//! calibrated predictor can calibrate the simulation of it.
//!
//! What goes in, and how:
//! * rotation: the measured period;
//! * zones: the extracted zone table (cylinders counted from the one holding LBN 0, the empty
//!   cylinders between zones kept as gaps), each zone's sectors per track, and the slots per
//!   cylinder that hold no LBN as spares at each cylinder's end;
//! * skews: from the measured phase of a zone's first two tracks and its second cylinder's
//!   first track, in the layout's skew model (every head switch one track skew, every
//!   cylinder switch a cylinder skew instead);
//! * seek: the write-after-write lag at the sampled distances, as a table. The lag holds the
//!   drive's command processing and settling besides the seek, so the overheads, the head
//!   switch time and the write settle are all 0, as in the rotational paper's ST41601N table.
//!
//! Slipped sectors are not carried over (the zones export exactly the measured capacity, so
//! a slip shifts the later LBNs of its zone by its length); the drive has no cache and a
//! one-command queue, the state calibration measures it in.

use super::ExtractedDrive;
use crate::device::hdd::spec::{
    BusSpec, HddSpec, LayoutSpec, OverheadSpec, QueueSpec, SeekSpec, Sparing, ZoneSpec,
};
use crate::error::{HeadwayError, Result};
use crate::request::Op;

/// The extraction as a drive description.
pub fn drive_spec(d: &ExtractedDrive) -> Result<HddSpec> {
    let table = &d.table;
    let surfaces = table
        .zones
        .iter()
        .map(|z| z.tracks_per_cylinder)
        .max()
        .unwrap_or(0);
    if surfaces == 0 || table.zones.is_empty() {
        return Err(HeadwayError::Invariant(
            "the extraction found no zone with tracks".into(),
        ));
    }
    let cylinders = table
        .zones
        .iter()
        .map(|z| z.last_cylinder)
        .max()
        .unwrap_or(0)
        + 1;
    let mut zones = Vec::with_capacity(table.zones.len());
    for z in &table.zones {
        let spt = z.sectors_per_track;
        let phase_of = |cyl: u32, track: u32| -> Option<f64> {
            let start = *table.cylinder_tracks.get(cyl as usize)? as usize;
            let end = *table.cylinder_tracks.get(cyl as usize + 1)? as usize;
            table.tracks[start..end]
                .iter()
                .find(|t| t.track == track)
                .map(|t| t.phase)
        };
        let frac = |x: f64| x - x.floor();
        let p0 = phase_of(z.first_cylinder, 0).unwrap_or(0.0);
        let track_skew = phase_of(z.first_cylinder, 1)
            .map(|p1| frac(p1 - p0) * spt as f64)
            .unwrap_or(0.0);
        let cylinder_skew = if z.last_cylinder > z.first_cylinder {
            phase_of(z.first_cylinder + 1, 0)
                .map(|pc| {
                    let whole = frac(pc - p0) * spt as f64;
                    let turned = whole - (z.tracks_per_cylinder - 1) as f64 * track_skew;
                    turned.rem_euclid(spt as f64)
                })
                .unwrap_or(0.0)
        } else {
            0.0
        };
        zones.push(ZoneSpec {
            first_cylinder: z.first_cylinder,
            last_cylinder: z.last_cylinder,
            sectors_per_track: spt,
            first_block_offset: frac(p0) * spt as f64,
            empty_space_front: 0,
            track_skew,
            cylinder_skew,
            spares: z.spares_per_cylinder() as u32,
            slips: vec![],
            defects: vec![],
        });
    }
    let mut distances: Vec<u32> = d
        .lags
        .seek_samples
        .iter()
        .map(|&(dist, _)| dist as u32)
        .filter(|&dist| dist >= 1 && dist < cylinders)
        .collect();
    distances.push(1);
    distances.push(cylinders.saturating_sub(1).max(1));
    distances.sort_unstable();
    distances.dedup();
    let points = distances
        .iter()
        .map(|&dist| {
            let ms = d.lags.seek_ns(dist, Op::Write, Op::Write) / 1e6;
            (dist, ms.max(0.0))
        })
        .collect();
    let rpm = 60e9 / d.period_ns;
    let mapped: u64 = zones
        .iter()
        .zip(&table.zones)
        .map(|(z, e)| {
            (z.last_cylinder - z.first_cylinder + 1) as u64
                * (e.tracks_per_cylinder as u64 * z.sectors_per_track as u64 - z.spares as u64)
        })
        .sum();
    // A zone's cylinders are written with its commonest track count; a cylinder timing
    // found holding more (a cylinder switch it could not see) leaves LBNs no zone maps, and
    // a drive file that fails to load is worse than no file.
    if mapped < table.capacity_sectors {
        return Err(HeadwayError::Invariant(format!(
            "calibration: the extracted zones map {mapped} of the device's {} sectors: some \
             cylinder holds more tracks than its zone's others, a cylinder switch timing could \
             not find",
            table.capacity_sectors
        )));
    }
    let exported = (mapped != table.capacity_sectors).then_some(table.capacity_sectors);
    Ok(HddSpec {
        name: d.name.clone(),
        description: format!(
            "extracted by timing from {}: {rpm:.1} RPM, {} zones, {} commands",
            d.name,
            zones.len(),
            d.commands
        ),
        rpm,
        surfaces,
        cylinders,
        block_count: table.capacity_sectors,
        layout: LayoutSpec {
            mapping_scheme: 0,
            sparing: if zones.iter().any(|z| z.spares > 0) {
                Sparing::CylinderEnd
            } else {
                Sparing::None
            },
            range_size: 1,
            zones,
            exported_sectors: exported,
        },
        seek: SeekSpec::Table { points },
        head_switch_ms: 0.0,
        write_settle_ms: 0.0,
        overheads: OverheadSpec {
            time_scale: 1.0,
            ..OverheadSpec::default()
        },
        bus: BusSpec::default(),
        cache: None,
        queue: QueueSpec::default(),
        actuators: 1,
        smr: None,
        zoned: None,
        reader_warnings: vec![],
    })
}
