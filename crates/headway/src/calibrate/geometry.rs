//! GeoExtraction (the paper's Figure 1): write every sector in MINDISTANCE interleaved
//! passes, `for i in 0..MD { for dest = i; dest < MAX; dest += MD { write(dest) } }`, and
//! time each write from the completion of the one before it (MD sectors earlier).
//!
//! On one track that time is exactly MD sector times (MD − 1 sectors pass while the command
//! is processed, then one is written), so it also measures the local sector time. When a
//! track boundary lies between the two writes the head must switch tracks and wait for the
//! skew; the first write after the boundary is late by the skew (track switch) or by the
//! spares plus the cylinder skew (cylinder switch), and so are the next MD − 1 writes, each
//! in a different pass. "The very first point of the jump is the starting point of the next
//! track." A lateness of about one sector that is not a track boundary is a slipped sector:
//! the following LBNs sit one slot further on.
//!
//! From the boundaries: tracks, cylinders (the boundaries with a cylinder-sized jump), the
//! physical sectors per track (the rotation period over the measured sector time), spares
//! per cylinder (physical slots not holding LBNs), and zones (runs of cylinders built
//! alike).

use serde::Serialize;

use super::probe::Probe;
use crate::error::{HeadwayError, Result};
use crate::request::Op;

/// A lateness in the GeoExtraction curve.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Jump {
    /// First LBN after the boundary or gap.
    pub lbn: u64,
    /// How late the write was, in local sector times.
    pub sectors: f64,
    /// The local sector time (ns).
    pub sector_ns: f64,
    /// No lateness marked this boundary: it was inferred from the track length around it
    /// (`unmarked.rs`).
    pub inferred: bool,
}

/// The raw result of GeoExtraction over a range of LBNs.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GeoScan {
    pub min_distance: u32,
    pub start_lbn: u64,
    pub end_lbn: u64,
    /// Track boundaries (lateness of at least 1.5 sectors), in LBN order.
    pub boundaries: Vec<Jump>,
    /// Slipped sectors (lateness between 0.5 and 1.5 sectors).
    pub gaps: Vec<Jump>,
    pub writes: u64,
    /// Each boundary's and gap's `sector_ns` is its track's own (the phase scan,
    /// `phase_scan.rs`), short tracks included, rather than its on-track neighbours' in the
    /// same pass.
    pub per_track_sector_times: bool,
}

/// A lateness of this many sectors or more is a track boundary; from 0.5 up to it, a slipped
/// sector.
pub(crate) const BOUNDARY_SECTORS: f64 = 1.5;

impl GeoScan {
    /// Keep a lateness found by either scan as a boundary or a slipped sector, by its size.
    pub(crate) fn record(&mut self, j: Jump) {
        if j.sectors >= BOUNDARY_SECTORS {
            self.boundaries.push(j);
        } else {
            self.gaps.push(j);
        }
    }
}

/// MINDISTANCE: the smallest stride at which a write that many sectors past the previous
/// one does not lose a rotation, over several places on the disk, plus one for margin, plus
/// the sectors that pass in `margin_ns` (a round trip's jitter: the stride found is the one
/// the quickest of three round trips made, and GeoExtraction needs every one to make it).
/// (Where a stride becomes reachable the time per pair drops by about a rotation; a stride
/// of one sector is reachable only on a drive with no command overhead.)
pub(crate) fn find_min_distance(
    probe: &mut Probe,
    period_ns: f64,
    places: &[u64],
    margin_ns: f64,
) -> Result<u32> {
    let cap = probe.capacity_sectors();
    let mut worst = 0u32;
    for &x in places {
        let mut prev: Option<f64> = None;
        let mut found = None;
        for m in 1..=2048u64 {
            if x + m >= cap {
                break;
            }
            // The least of three, so that the drive's own activity cannot fake a drop.
            let mut e = f64::INFINITY;
            for _ in 0..3 {
                let t0 = probe.write(x)?;
                e = e.min((probe.write(x + m)? - t0) as f64);
            }
            // Reachable: a rotation less than the stride before, or (a drive that processes
            // commands in no time) well under a rotation at the very first stride.
            let reached = match prev {
                Some(p) => e < p - period_ns / 2.0,
                None => e < period_ns / 2.0,
            };
            if reached {
                // Reached, the pair took m sector times.
                let sector_ns = e / m as f64;
                let extra = if margin_ns > 0.0 {
                    (margin_ns / sector_ns).ceil() as u32
                } else {
                    0
                };
                found = Some(m as u32 + extra);
                break;
            }
            prev = Some(e);
        }
        let m = found.ok_or_else(|| {
            HeadwayError::Invariant(format!(
                "GeoExtraction: no stride up to 2048 sectors avoids a lost rotation at LBN {x}"
            ))
        })?;
        worst = worst.max(m);
    }
    Ok(worst + 1)
}

/// LBNs timed per batch of passes: bounds memory, not results.
const CHUNK: u64 = 1 << 16;

/// Run GeoExtraction over `start..end` with stride `md`.
pub(crate) fn scan(probe: &mut Probe, start: u64, end: u64, md: u32) -> Result<GeoScan> {
    let md64 = md as u64;
    if md == 0 || end <= start || end > probe.capacity_sectors() {
        return Err(HeadwayError::Invariant(format!(
            "GeoExtraction over {start}..{end} with stride {md} on a drive of {} sectors",
            probe.capacity_sectors()
        )));
    }
    let mut out = GeoScan {
        min_distance: md,
        start_lbn: start,
        end_lbn: end,
        ..Default::default()
    };
    let first_cmd = probe.commands;
    let mut prev_late = 0.0;
    let mut a = start;
    while a < end {
        let b = (a + CHUNK).min(end);
        // Time of each write since the completion of the write MD sectors before it; NaN
        // where there was no such write.
        let mut e = vec![f64::NAN; (b - a) as usize];
        for i in 0..md64.min(b - a) {
            let first = a + i;
            let mut valid = false;
            if first >= start + md64 {
                probe.access(Op::Write, first - md64, 1)?;
                valid = true;
            }
            let mut dest = first;
            while dest < b {
                let t0 = probe.now();
                probe.access(Op::Write, dest, 1)?;
                if valid {
                    e[(dest - a) as usize] = (probe.now() - t0) as f64;
                }
                valid = true;
                dest += md64;
            }
        }
        classify(probe, &mut e, a, md64, &mut prev_late, &mut out)?;
        a = b;
    }
    out.writes = probe.commands - first_cmd;
    Ok(out)
}

/// Find where lateness starts in one chunk. Each write is compared with its neighbours in
/// the same pass (MD before and after), on-track writes since tracks are longer than 2 MD.
/// A boundary or gap makes the MD writes from its first LBN on late by its size; when two
/// are closer than MD their windows overlap and the lateness adds, so an event is a rise in
/// lateness from one LBN to the next, and its size is the rise. The drive's own activity
/// (a recalibration, a jittery seek) can delay a single write too, so every rise is timed
/// twice more and the median of the three decides.
fn classify(
    probe: &mut Probe,
    e: &mut [f64],
    base: u64,
    md: u64,
    prev_late: &mut f64,
    out: &mut GeoScan,
) -> Result<()> {
    let late_at = |e: &[f64], i: usize| -> Option<(f64, f64)> {
        let at = |i: Option<usize>| i.and_then(|i| e.get(i)).copied().filter(|v| !v.is_nan());
        let here = at(Some(i))?;
        let normal = match (at(i.checked_sub(md as usize)), at(Some(i + md as usize))) {
            (Some(x), Some(y)) => x.min(y),
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => return None,
        };
        let sector_ns = normal / md as f64;
        Some((((here - normal) / sector_ns).max(0.0), sector_ns))
    };
    for i in 0..e.len() {
        let Some((mut late, sector_ns)) = late_at(e, i) else {
            continue;
        };
        if late - *prev_late >= 0.5 {
            let lbn = base + i as u64;
            let mut v = vec![e[i]];
            for _ in 0..2 {
                let t0 = probe.access(Op::Write, lbn - md, 1)?;
                v.push((probe.access(Op::Write, lbn, 1)? - t0) as f64);
            }
            v.sort_by(f64::total_cmp);
            e[i] = v[1];
            late = late_at(e, i).map_or(late, |l| l.0);
        }
        let rise = late - *prev_late;
        *prev_late = late;
        if rise < 0.5 {
            continue;
        }
        out.record(Jump {
            lbn: base + i as u64,
            sectors: rise,
            sector_ns,
            inferred: false,
        });
    }
    Ok(())
}
