//! Track phases: where each track's first slot sits on the platter, relative to the others.
//!
//! The spindle never stops, so the completion time of a one-sector write, taken modulo the
//! rotation period, tells where that sector ends on the platter (up to a constant: the
//! completion latency, the same for every write). One write to the first LBN of a track
//! therefore measures the track's phase; differences between tracks are the skews the paper
//! could not get for its drive ("we don't have accurate skew factors"). Together with the
//! MinOffset lags they give the paper's S_offset for any pair of tracks, across zones too.
//!
//! Per zone the model is linear, as a formatter lays skews out: a step per cylinder and a
//! step per track. Every cylinder's first track is measured, and where the measured phase
//! departs from the line (a slipped sector on an earlier cylinder turns all later ones) a
//! step is recorded.

use super::probe::Probe;
use super::zones::ZoneTable;
use crate::error::Result;

/// Wrap to [0, 1).
#[inline]
pub(crate) fn frac(x: f64) -> f64 {
    x - x.floor()
}

/// Wrap to (-0.5, 0.5].
#[inline]
fn centred(x: f64) -> f64 {
    let f = frac(x);
    if f > 0.5 {
        f - 1.0
    } else {
        f
    }
}

/// Median of circular differences, taken around the first one so wrapping cannot split
/// the values.
fn circular_median(diffs: &[f64]) -> f64 {
    let Some(&first) = diffs.first() else {
        return 0.0;
    };
    let mut v: Vec<f64> = diffs.iter().map(|d| first + centred(d - first)).collect();
    v.sort_by(f64::total_cmp);
    frac(v[v.len() / 2])
}

/// Phase (revolutions) of the first slot of the track holding `lbn` (at slot `slot` of a
/// track with `spt` slots), relative to the first slot of the reference track `(ref_lbn,
/// ref_slot, ref_spt)`. The reference is written just before, so that the spindle's speed
/// wander between the two writes is negligible however long the whole measurement takes.
fn phase_of(
    probe: &mut Probe,
    (ref_lbn, ref_slot, ref_spt): (u64, u32, u32),
    lbn: u64,
    slot: u32,
    spt: u32,
    period_ns: f64,
) -> Result<f64> {
    let t_ref = probe.write(ref_lbn)?;
    let done = probe.write(lbn)?;
    Ok(frac(
        (done - t_ref) as f64 / period_ns + (ref_slot + 1) as f64 / ref_spt as f64
            - (slot + 1) as f64 / spt as f64,
    ))
}

/// Measure and fill in every zone's phase model. Returns the writes used.
pub fn measure_phases(probe: &mut Probe, table: &mut ZoneTable, period_ns: f64) -> Result<u64> {
    let first_cmd = probe.commands;
    // Every phase is relative to the first slot of the disk's first track.
    let reference = {
        let (lbn, slot) = table.track_start(0, 0).expect("the disk has a first track");
        (lbn, slot, table.zones[0].sectors_per_track)
    };
    for zi in 0..table.zones.len() {
        let (first, last, tracks, spt) = {
            let z = &table.zones[zi];
            (
                z.first_cylinder,
                z.last_cylinder,
                z.tracks_per_cylinder,
                z.sectors_per_track,
            )
        };
        // Track step, from the tracks of the zone's first cylinder (and its second, if any).
        let mut track_diffs = vec![];
        for c in first..=last.min(first + 1) {
            let mut prev: Option<f64> = None;
            for h in 0..tracks {
                let Some((lbn, slot)) = table.track_start(c, h) else {
                    prev = None;
                    continue;
                };
                let p = phase_of(probe, reference, lbn, slot, spt, period_ns)?;
                if let Some(q) = prev {
                    track_diffs.push(frac(p - q));
                }
                prev = Some(p);
            }
        }
        // Cylinder phases: the first track of every cylinder.
        let mut cyl_phase = Vec::with_capacity((last - first + 1) as usize);
        for c in first..=last {
            let (lbn, slot) = table
                .track_start(c, 0)
                .expect("every cylinder has a track 0");
            cyl_phase.push(phase_of(probe, reference, lbn, slot, spt, period_ns)?);
        }
        let cyl_diffs: Vec<f64> = cyl_phase.windows(2).map(|w| frac(w[1] - w[0])).collect();
        let z = &mut table.zones[zi];
        z.track_step = circular_median(&track_diffs);
        z.cylinder_step = circular_median(&cyl_diffs);
        z.phase0 = cyl_phase[0];
        // Departures from the line, as steps; a step persists until the next one.
        let tolerance = 0.25 / spt as f64;
        let mut current = 0.0;
        z.phase_steps.clear();
        for (i, &p) in cyl_phase.iter().enumerate() {
            let line = z.phase0 + i as f64 * z.cylinder_step;
            let r = centred(p - line);
            if (r - current).abs() > tolerance {
                z.phase_steps.push((first + i as u32, r));
                current = r;
            }
        }
    }
    Ok(probe.commands - first_cmd)
}
