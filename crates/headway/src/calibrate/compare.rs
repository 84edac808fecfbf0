//! The extraction beside the truth: what `headway extract` prints. Only this file looks at
//! the drive's real description; calibration itself never does.

use std::fmt;

use serde::Serialize;

use super::phases::frac;
use super::ExtractedDrive;
use crate::device::hdd::{HddSpec, Mechanics};
use crate::error::Result;
use crate::request::Op;

/// One true zone and what the extraction made of the same cylinders.
#[derive(Clone, Debug, Serialize)]
pub struct ZoneRow {
    pub zone: usize,
    pub first_cylinder: u32,
    pub last_cylinder: u32,
    pub true_spt: u32,
    pub extracted_spt: u32,
    /// Spare slots (holding no LBN) of the zone's commonest cylinder.
    pub true_spares: u64,
    pub extracted_spares: u64,
    /// Extracted zones overlapping these cylinders (1 when the boundaries agree).
    pub extracted_zones: usize,
    /// The truth's slipped sectors in the zone, and the gaps GeoExtraction found there.
    pub true_slips: usize,
    pub found_gaps: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub drive: String,
    pub true_period_ns: f64,
    pub extracted_period_ns: f64,
    pub period_error_ppm: f64,
    pub true_zones: usize,
    pub extracted_zones: usize,
    pub zones: Vec<ZoneRow>,
    pub true_track_boundaries: u64,
    pub found_track_boundaries: u64,
    /// Found boundaries that are not true track starts.
    pub wrong_track_boundaries: u64,
    /// Found boundaries that left no mark on the timing and were inferred from the track
    /// length around them.
    pub inferred_track_boundaries: u64,
    /// Places where the count of empty cylinders before a cylinder was extrapolated from the
    /// seek curve rather than matched.
    pub inferred_cylinder_gaps: u64,
    /// LBNs checked (every `stride`-th) and how many the extracted table puts on the wrong
    /// cylinder.
    pub lbns_checked: u64,
    pub wrong_cylinder: u64,
    /// The first sampled LBN on the wrong cylinder, with its true and extracted cylinder.
    pub first_wrong_cylinder: Option<(u64, u32, u32)>,
    /// Largest and 99th-percentile angular error of the extracted sector positions (track
    /// phase + slot) against the truth, in sectors, after removing the constant offset of
    /// the host's frame.
    pub angle_max_error_sectors: f64,
    pub angle_p99_error_sectors: f64,
    pub min_distance_sectors: u32,
    pub delta_sectors: f64,
    /// The shape of the extracted seek lag against the true seek curve: the largest
    /// difference, over the sampled distances, between lag(d) − lag(1) and
    /// seek(d) − seek(1) (µs). Constant parts (overheads, bus transfer, settle) cancel.
    pub seek_max_error_us: f64,
    /// lag(1) − seek(1) for writes after writes: the command processing and settling the
    /// lag carries besides the seek (µs).
    pub seek_lag_offset_us: f64,
    /// Paper-form MinOffset: per-zone single-line fit quality (sectors), if it was run.
    pub offset_fit_rms_sectors: Vec<f64>,
    pub offset_fit_max_sectors: Vec<f64>,
    pub offset_model_max_error_sectors: Vec<f64>,
    pub commands: u64,
    pub simulated_s: f64,
}

/// Compare `drive` with the truth `spec`, checking every `stride`-th LBN.
pub fn compare(drive: &ExtractedDrive, spec: &HddSpec, stride: u64) -> Result<Comparison> {
    let mech = Mechanics::new(spec)?;
    let layout = &mech.layout;
    let table = &drive.table;
    let true_period = mech.period_ns;
    let cap = layout.capacity_sectors();
    // Timing can only count cylinders from the one holding LBN 0, and that need not be
    // cylinder 0: drives keep reserved space before it (the DEC RZ26's first 29 cylinders,
    // the HP C2247A's first 17 tracks). Extracted cylinder c is true cylinder c + c0.
    let c0 = layout.locate(0).cylinder;
    // One pass over every LBN: the true track starts, and the LBNs on each cylinder.
    let mut true_starts = 0u64;
    let mut prev = layout.track_of(0);
    let mut found = drive.scan.boundaries.iter().map(|b| b.lbn).peekable();
    let mut wrong = 0u64;
    let mut per_cylinder = vec![0u64; spec.cylinders as usize];
    per_cylinder[prev.0 as usize] += 1;
    for lbn in 1..cap {
        let t = layout.track_of(lbn);
        per_cylinder[t.0 as usize] += 1;
        let is_start = t != prev;
        prev = t;
        true_starts += is_start as u64;
        if found.peek() == Some(&lbn) {
            found.next();
            wrong += (!is_start) as u64;
        }
    }
    // Zones.
    let mut rows = vec![];
    for (i, z) in spec.layout.zones.iter().enumerate() {
        let overlapping: Vec<_> = table
            .zones
            .iter()
            .filter(|e| {
                e.last_cylinder + c0 >= z.first_cylinder && e.first_cylinder + c0 <= z.last_cylinder
            })
            .collect();
        // The extracted zone covering most of these cylinders speaks for them.
        let main = overlapping.iter().max_by_key(|e| {
            (e.last_cylinder + c0).min(z.last_cylinder)
                - (e.first_cylinder + c0).max(z.first_cylinder)
        });
        // The spec's spare count is per sparing unit (a track, a cylinder, a range of
        // cylinders, a zone, or whole tracks per zone, by scheme), so it is not comparable as
        // it stands. What the extraction reports is the spare slots of the zone's commonest
        // cylinder; the truth's is counted the same way from where its LBNs really are.
        let mut spares: Vec<u64> = (z.first_cylinder..=z.last_cylinder)
            .map(|c| per_cylinder[c as usize])
            .filter(|&n| n > 0)
            .map(|n| (spec.surfaces as u64 * z.sectors_per_track as u64).saturating_sub(n))
            .collect();
        spares.sort_unstable();
        let true_spares = mode(&spares);
        // The zone's LBNs end where the next cylinder holding any begins (cylinders between
        // zones may hold none).
        let zone_lbns = (
            layout.first_lbn_on_cylinder(z.first_cylinder).unwrap_or(0),
            (z.last_cylinder + 1..spec.cylinders)
                .find_map(|c| layout.first_lbn_on_cylinder(c))
                .unwrap_or(layout.capacity_sectors()),
        );
        rows.push(ZoneRow {
            zone: i,
            first_cylinder: z.first_cylinder,
            last_cylinder: z.last_cylinder,
            true_spt: z.sectors_per_track,
            extracted_spt: main.map_or(0, |e| e.sectors_per_track),
            true_spares,
            extracted_spares: main.map_or(0, |e| e.spares_per_cylinder()),
            extracted_zones: overlapping.len(),
            true_slips: z.slips.len(),
            found_gaps: table
                .gaps
                .iter()
                .filter(|g| g.0 >= zone_lbns.0 && g.0 < zone_lbns.1)
                .count(),
        });
    }
    // Addresses and angles, sampled.
    let stride = stride.max(1);
    let (mut checked, mut wrong_cyl) = (0u64, 0u64);
    let mut first_wrong = None;
    let mut diffs = vec![];
    let mut lbn = 0;
    while lbn < cap {
        let t = layout.locate(lbn);
        let e = table.locate(lbn);
        checked += 1;
        if t.cylinder != e.cylinder + c0 {
            wrong_cyl += 1;
            first_wrong.get_or_insert((lbn, t.cylinder, e.cylinder + c0));
        }
        let extracted = table.angle(&e);
        diffs.push((frac(extracted - t.angle), e.spt));
        lbn += stride;
    }
    // Remove the frame's constant offset (circular median), then measure the spread.
    let first = diffs[0].0;
    let mut centred: Vec<f64> = diffs
        .iter()
        .map(|d| first + (frac(d.0 - first + 0.5) - 0.5))
        .collect();
    centred.sort_by(f64::total_cmp);
    let offset = centred[centred.len() / 2];
    let mut errs: Vec<f64> = diffs
        .iter()
        .map(|&(d, spt)| (frac(d - offset + 0.5) - 0.5).abs() * spt as f64)
        .collect();
    errs.sort_by(f64::total_cmp);
    // The seek lag's shape against the true seek curve.
    let lag = |d: u32| drive.lags.seek_ns(d, Op::Write, Op::Write);
    let seek = |d: u32| mech.seek.seek_ns(d) as f64;
    let seek_err = drive
        .lags
        .seek_samples
        .iter()
        .map(|&(d, _)| {
            let d = d as u32;
            ((lag(d) - lag(1)) - (seek(d) - seek(1))).abs() / 1e3
        })
        .fold(0.0, f64::max);
    Ok(Comparison {
        drive: drive.name.clone(),
        true_period_ns: true_period,
        extracted_period_ns: drive.period_ns,
        period_error_ppm: (drive.period_ns - true_period) / true_period * 1e6,
        true_zones: spec.layout.zones.len(),
        extracted_zones: table.zones.len(),
        zones: rows,
        true_track_boundaries: true_starts,
        found_track_boundaries: drive.scan.boundaries.len() as u64,
        wrong_track_boundaries: wrong,
        inferred_track_boundaries: drive.scan.boundaries.iter().filter(|b| b.inferred).count()
            as u64,
        inferred_cylinder_gaps: table.inferred_gaps.len() as u64,
        lbns_checked: checked,
        wrong_cylinder: wrong_cyl,
        first_wrong_cylinder: first_wrong,
        angle_max_error_sectors: *errs.last().unwrap_or(&0.0),
        angle_p99_error_sectors: errs[(errs.len() * 99 / 100).min(errs.len() - 1)],
        min_distance_sectors: drive.min_distance_sectors,
        delta_sectors: drive.delta_sectors,
        seek_max_error_us: seek_err,
        seek_lag_offset_us: (lag(1) - seek(1)) / 1e3,
        offset_fit_rms_sectors: drive.offset_fits.iter().map(|f| f.rms_sectors).collect(),
        offset_fit_max_sectors: drive.offset_fits.iter().map(|f| f.max_sectors).collect(),
        offset_model_max_error_sectors: drive
            .offset_fits
            .iter()
            .map(|f| f.model_max_error_sectors)
            .collect(),
        commands: drive.commands,
        simulated_s: drive.simulated_s,
    })
}

/// The commonest value of a sorted slice (0 when empty).
fn mode(v: &[u64]) -> u64 {
    let (mut best, mut n_best, mut i) = (0, 0, 0);
    while i < v.len() {
        let n = v[i..].iter().take_while(|&&x| x == v[i]).count();
        if n > n_best {
            (best, n_best) = (v[i], n);
        }
        i += n;
    }
    best
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "drive {}: {} timed commands, {:.0} s of drive time",
            self.drive, self.commands, self.simulated_s
        )?;
        writeln!(
            f,
            "rotation period   {:.4} ms (true {:.4} ms, error {:+.2} ppm)",
            self.extracted_period_ns / 1e6,
            self.true_period_ns / 1e6,
            self.period_error_ppm
        )?;
        writeln!(f, "MINDISTANCE       {} sectors", self.min_distance_sectors)?;
        writeln!(f, "delta             {:.2} sectors", self.delta_sectors)?;
        writeln!(
            f,
            "track boundaries  {} found, {} true, {} found that are not true",
            self.found_track_boundaries, self.true_track_boundaries, self.wrong_track_boundaries
        )?;
        writeln!(
            f,
            "inferred          {} track boundaries that left no mark\n                  \
             {} empty-cylinder counts from the seek curve",
            self.inferred_track_boundaries, self.inferred_cylinder_gaps
        )?;
        writeln!(
            f,
            "zones             {} extracted, {} true",
            self.extracted_zones, self.true_zones
        )?;
        // Narrow enough for an 80-column terminal; the legend spells out the abbreviations.
        writeln!(
            f,
            "  {:>4}  {:<11}  {:^9}  {:^9}   {:^9}  extracted zones",
            "zone", "cylinders", "SPT t/x", "spare t/x", "slip/gap"
        )?;
        for r in &self.zones {
            writeln!(
                f,
                "  {:>4}  {:>4}..{:<5}  {:>4}/{:<4}  {:>4}/{:<4}   {:>4}/{:<4}  {}",
                r.zone,
                r.first_cylinder,
                r.last_cylinder,
                r.true_spt,
                r.extracted_spt,
                r.true_spares,
                r.extracted_spares,
                r.true_slips,
                r.found_gaps,
                r.extracted_zones
            )?;
        }
        writeln!(
            f,
            "  (t/x: true / extracted; slip/gap: true slips / gaps found)"
        )?;
        writeln!(
            f,
            "addresses         {} of {} sampled LBNs on the wrong cylinder",
            self.wrong_cylinder, self.lbns_checked
        )?;
        if let Some((lbn, t, x)) = self.first_wrong_cylinder {
            writeln!(
                f,
                "                  the first at LBN {lbn}: cylinder {t}, extracted {x}"
            )?;
        }
        writeln!(
            f,
            "sector angles     max error {:.2} sectors, 99th percentile {:.2}",
            self.angle_max_error_sectors, self.angle_p99_error_sectors
        )?;
        writeln!(
            f,
            "seek lags         shape within {:.1} us of the true seek curve\n                  plus {:.0} us of overheads on top",
            self.seek_max_error_us, self.seek_lag_offset_us
        )?;
        if !self.offset_fit_rms_sectors.is_empty() {
            writeln!(
                f,
                "MinOffset, one line per zone (the paper's form), in sectors:"
            )?;
            writeln!(f, "  zone  residual rms / max  model max error")?;
            for (i, ((rms, max), m)) in self
                .offset_fit_rms_sectors
                .iter()
                .zip(&self.offset_fit_max_sectors)
                .zip(&self.offset_model_max_error_sectors)
                .enumerate()
            {
                writeln!(f, "  {i:>4}  {rms:>8.2} / {max:<8.2}  {m:>15.2}")?;
            }
        }
        Ok(())
    }
}
