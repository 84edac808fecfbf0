//! Track phases: where each track's first LBN sits on the platter, relative to LBN 0.
//!
//! The spindle never stops, so the completion time of a one-sector write, taken modulo the
//! rotation period, tells where that sector ends on the platter (up to a constant: the
//! completion latency, the same for every write). One write to the first LBN of a track
//! therefore measures the track's phase; differences between tracks are the skews the paper
//! could not get for its drive ("we don't have accurate skew factors"). Together with the
//! MinOffset lags they give the paper's S_offset for any pair of tracks, across zones too.
//!
//! Every track is measured, rather than a few per zone fitted to a line: formatters turn
//! tracks by slipped sectors, skip slipped tracks and put spares at either end, and one write
//! pair per track costs little next to GeoExtraction. A write waits for its sector however
//! late the head arrives, so a slow seek or the drive's own head movement cannot spoil it.

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

/// Phase (revolutions) of the start of `lbn` (on a track of `spt` slots) relative to the
/// start of `ref_lbn` (`ref_spt`). A write completes as its sector ends, hence the sector
/// lengths. The reference is written just before, so that the spindle's speed wander
/// between the two writes is negligible however long the whole measurement takes.
fn phase_of(
    probe: &mut Probe,
    (ref_lbn, ref_spt): (u64, u32),
    lbn: u64,
    spt: u32,
    period_ns: f64,
) -> Result<f64> {
    let t_ref = probe.write(ref_lbn)?;
    let done = probe.write(lbn)?;
    Ok(frac(
        (done - t_ref) as f64 / period_ns + 1.0 / ref_spt as f64 - 1.0 / spt as f64,
    ))
}

/// Measure every track's phase. Returns the writes used.
///
/// With `jittery` (a round trip that delays some completions by much of a turn), each
/// phase is measured until [`AGREEING`] measurements agree within [`AGREE_SECTORS`] of the
/// track's sector and their circular mean is taken: a single measurement is the difference
/// of two hearings, either of which may be late.
pub(crate) fn measure_phases(
    probe: &mut Probe,
    table: &mut ZoneTable,
    period_ns: f64,
    jittery: bool,
) -> Result<u64> {
    let first_cmd = probe.commands;
    let reference = (0, table.locate(0).spt);
    for i in 1..table.tracks.len() {
        let lbn = table.tracks[i].first_lbn;
        let spt = table.locate(lbn).spt;
        let mut measure = || phase_of(probe, reference, lbn, spt, period_ns);
        table.tracks[i].phase = if jittery {
            agreed_phase(&mut measure, AGREE_SECTORS / spt as f64)?
        } else {
            measure()?
        };
    }
    Ok(probe.commands - first_cmd)
}

/// Phase measurements within this many sectors of each other agree.
pub(crate) const AGREE_SECTORS: f64 = 0.3;

/// Measurements that must agree before a phase stands. Each measurement is the difference
/// of two hearings, so a late hearing spoils one in roughly twice the round trip's tail
/// rate; two spoiled measurements that happen to agree (two references each heard about
/// equally late) are then only a thousand times rarer than one spoiled, too often over
/// hundreds of tracks on a loaded machine. Three agreeing are not.
const AGREEING: usize = 3;

/// Measurements of one phase at most, where they keep disagreeing: past this the tightest
/// group found stands.
const MAX_MEASUREMENTS: usize = 12;

/// Measure until [`AGREEING`] measurements lie within `tolerance` (revolutions) of each
/// other; their circular mean. Where none do within [`MAX_MEASUREMENTS`], the closest pair's.
fn agreed_phase(measure: &mut dyn FnMut() -> Result<f64>, tolerance: f64) -> Result<f64> {
    let mut seen = vec![measure()?];
    let mut pair = (f64::INFINITY, seen[0]);
    while seen.len() < MAX_MEASUREMENTS {
        let new = measure()?;
        for &old in &seen {
            let d = centred(new - old);
            if d.abs() < pair.0 {
                pair = (d.abs(), frac(old + d / 2.0));
            }
        }
        seen.push(new);
        // Those within the tolerance on the new one's later side, and on its earlier side:
        // a group whose spread is within the tolerance lies on one side or spans it.
        for side in [1.0, -1.0] {
            let group: Vec<f64> = seen
                .iter()
                .map(|&x| centred(x - new) * side)
                .filter(|d| (0.0..=tolerance).contains(d))
                .map(|d| d * side)
                .collect();
            if group.len() >= AGREEING {
                let mean = group.iter().sum::<f64>() / group.len() as f64;
                return Ok(frac(new + mean));
            }
        }
    }
    Ok(pair.1)
}

/// The usual phase step from one cylinder's first track to the next one's in `zone`
/// (revolutions): the circular median over the zone.
pub(crate) fn cylinder_step(table: &ZoneTable, zone: usize) -> f64 {
    let z = &table.zones[zone];
    let diffs: Vec<f64> = (z.first_cylinder..z.last_cylinder)
        .filter_map(|c| {
            Some(frac(
                table.track_phase(c + 1, 0)? - table.track_phase(c, 0)?,
            ))
        })
        .collect();
    circular_median(&diffs)
}
