//! Delta, the paper's compensation in the head-position formula
//! `S_1 = ((T_1 - T_0) mod RotateTime) / RotateTime * SPT + S_0 + delta`: try a range of
//! deltas; for each, write to the sector the formula predicts under the head and count the
//! write as correctly predicted when it costs less than half a rotation; take the smallest
//! delta for which the trials are correct (all but one: the drive's own activity may spoil
//! a trial; all but a tenth on a device whose round trip jitters,
//! [`super::ExtractOptions::for_jitter_ns`]). A delta below it loses a whole rotation on most writes; a little
//! above costs a sector or two.

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use super::phases::frac;
use super::probe::Probe;
use super::zones::ZoneTable;
use crate::error::{HeadwayError, Result};

#[derive(Clone, Debug, Serialize)]
pub struct DeltaSearch {
    pub delta_sectors: f64,
    /// (delta, fraction of trials predicted correctly), for every delta tried.
    pub curve: Vec<(f64, f64)>,
    pub trials_per_delta: usize,
}

/// The sector the head-position formula names: the first whole sector at or after the
/// predicted (fractional) position, as an LBN on the reference track, or `None` when that
/// slot holds no LBN (spares at the end of a cylinder's last track).
pub(crate) fn predicted_lbn(
    table: &ZoneTable,
    ref_lbn: u64,
    t0_ns: u64,
    t1_ns: u64,
    period_ns: f64,
    delta_sectors: f64,
) -> Option<u64> {
    // Reference: the head is at the end of sector `ref_lbn` (S_0 = its slot + 1) at T_0.
    let l = table.locate(ref_lbn);
    let spt = l.spt as f64;
    let s0 = (l.slot + 1) as f64;
    let s1 = (frac((t1_ns - t0_ns) as f64 / period_ns) * spt + s0 + delta_sectors) % spt;
    let slot = (s1.ceil() as u32) % l.spt;
    let cand = (ref_lbn + slot as u64).checked_sub(l.slot as u64)?;
    if cand >= table.capacity_sectors {
        return None;
    }
    let c = table.locate(cand);
    (c.cylinder == l.cylinder && c.track == l.track && c.slot == slot).then_some(cand)
}

/// Deltas tried are this many sectors apart.
const DELTA_STEP_SECTORS: f64 = 0.25;

/// Run the delta search: `trials` writes per delta, deltas from 0 in quarter-sector steps up
/// to half a track of the outermost zone; the first delta at which no more than `misses`
/// trials lose the rotation is taken.
pub(crate) fn search_delta(
    probe: &mut Probe,
    table: &ZoneTable,
    period_ns: f64,
    trials: usize,
    misses: usize,
    rng: &mut Pcg64Mcg,
) -> Result<DeltaSearch> {
    let step = DELTA_STEP_SECTORS;
    let max_spt = table
        .zones
        .iter()
        .map(|z| z.sectors_per_track)
        .max()
        .unwrap_or(1) as f64;
    let mut curve = vec![];
    let mut found = None;
    let mut delta = 0.0;
    while delta <= max_spt / 2.0 {
        let mut ok = 0usize;
        let mut done = 0usize;
        while done < trials {
            let lbn = rng.random_range(0..table.capacity_sectors);
            let t0 = probe.write(lbn)?;
            // The host asks at some later moment within the next rotation.
            probe.wait_until(t0 + rng.random_range(0..period_ns as u64));
            let t1 = probe.now();
            let Some(target) = predicted_lbn(table, lbn, t0, t1, period_ns, delta) else {
                continue;
            };
            done += 1;
            let end = probe.write(target)?;
            if ((end - t1) as f64) < period_ns / 2.0 {
                ok += 1;
            }
        }
        let rate = ok as f64 / trials as f64;
        curve.push((delta, rate));
        if ok + misses >= trials && found.is_none() {
            found = Some(delta);
        }
        // Past the minimum, a few more points show the plateau; then stop.
        if found.is_some_and(|f| delta >= f + 4.0) {
            break;
        }
        delta += step;
    }
    let delta_sectors = found.ok_or_else(|| {
        let (d, rate) = curve
            .iter()
            .copied()
            .fold((0.0, -1.0), |b, c| if c.1 > b.1 { c } else { b });
        HeadwayError::Invariant(format!(
            "delta search: no delta up to half a track predicted the head in all but {misses} \
             of {trials} trials (best: {:.0}% at {d} sectors); a device whose round trip \
             jitters needs a larger allowance",
            rate * 100.0
        ))
    })?;
    Ok(DeltaSearch {
        delta_sectors,
        curve,
        trials_per_delta: trials,
    })
}
