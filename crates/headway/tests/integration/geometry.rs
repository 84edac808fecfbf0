//! The predictor's geometry (what freeblock scheduling asks) agrees with the drive model for
//! every catalog drive under the oracle, and with the extracted table under the calibrated
//! predictor; a predictor without geometry says so.

use std::collections::BTreeSet;
use std::sync::Arc;

use headway::calibrate;
use headway::device::catalog;
use headway::device::hdd::{Mechanics, Overheads};
use headway::device::imperfect::Imperfections;
use headway::link::{Link, LinkConfig};
use headway::predict::{
    estimate_with_margin, require_geometry, Access, CalibratedPredictor, Geometry,
    LbnCurvePredictor, Moment, OraclePredictor, Predictor, PredictorOptions,
};
use headway::request::HeadPosition;

/// LBNs spread over the whole drive (first, last and a deterministic sample between).
fn sample(capacity: u64, n: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (0..n)
        .map(|i| i * (capacity / n) + (i * 7919) % 1000)
        .collect();
    v.push(capacity - 1);
    v.retain(|&l| l < capacity);
    v
}

#[test]
fn oracle_geometry_agrees_with_the_drive_model_on_every_catalog_drive() {
    for name in catalog::names() {
        let spec = catalog::lookup(&name).unwrap();
        let mech = Arc::new(Mechanics::new(&spec).unwrap());
        let p = OraclePredictor::new(mech.clone(), Overheads::from_spec(&spec), 0);
        let layout = &mech.layout;
        assert!(p.geometry().is_some());
        let period = p.period_ns();
        for lbn in sample(layout.capacity_sectors(), 60) {
            let t = p.track_of(lbn);
            assert_eq!(
                (t.cylinder, t.surface),
                layout.track_of(lbn),
                "{name} {lbn}"
            );
            let info = p.track_info(t).expect("a track holding an LBN has info");
            assert!(
                info.first_lbn <= lbn && lbn < info.first_lbn + info.lbns as u64,
                "{name}: {lbn} outside its track {info:?}"
            );
            let loc = layout.locate(lbn);
            assert_eq!(info.slots, loc.spt);
            assert_eq!(p.slot_lbn(t, loc.sector), Some(lbn), "{name} {lbn}");
            // The slot's angle as the track info puts it is where the model puts the sector.
            let a = info.slot0_angle + loc.sector as f64 / info.slots as f64;
            let d = (a - a.floor() - loc.angle).abs();
            assert!(
                d.min(1.0 - d) < 1e-9,
                "{name} {lbn}: angle {a} vs {}",
                loc.angle
            );
            // Over a whole revolution, every LBN of the track passes exactly once.
            let on_track: BTreeSet<u64> = (info.first_lbn..info.first_lbn + info.lbns as u64)
                .filter(|&l| layout.track_of(l) == (t.cylinder, t.surface))
                .collect();
            let start = 1_000_000_000 + lbn % 7_000_000;
            let revolution = (period + 2.0 * info.sector_ns) as u64;
            let runs = p.passing(t, start, start + revolution);
            let mut seen = BTreeSet::new();
            for r in &runs {
                for l in r.lbn..r.end_lbn() {
                    assert!(seen.insert(l), "{name}: {l} passed twice");
                }
            }
            assert_eq!(seen, on_track, "{name}: a revolution on {t:?}");
            // Over part of a revolution: exactly the sectors that start and end inside it.
            let end = start + (period * 0.37) as u64;
            let got: BTreeSet<u64> = p
                .passing(t, start, end)
                .iter()
                .flat_map(|r| r.lbn..r.end_lbn())
                .collect();
            let want: BTreeSet<u64> = on_track
                .iter()
                .copied()
                .filter(|&l| {
                    let a = layout.locate(l).angle;
                    let wait = mech.wait_for(start as f64, a);
                    start as f64 + wait + info.sector_ns <= end as f64 + 1e-3
                })
                .collect();
            // Sectors whose start is within rounding of the window's edge may go either way.
            let diff: Vec<u64> = got.symmetric_difference(&want).copied().collect();
            assert!(diff.len() <= 2, "{name} {t:?}: differ on {diff:?}");
        }
    }
}

#[test]
fn calibrated_geometry_follows_the_extracted_table() {
    let spec = catalog::lookup("st41601n").unwrap();
    let link = Link::new(&LinkConfig::default());
    let drive = calibrate::extract_cached(&spec, link, &Imperfections::default()).unwrap();
    let table = drive.table.clone();
    let p = CalibratedPredictor::new(drive, &PredictorOptions::default(), link.completion_ns);
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let oracle = OraclePredictor::new(mech, Overheads::from_spec(&spec), 0);
    let period = p.period_ns();
    for lbn in sample(table.capacity_sectors, 200) {
        let t = p.track_of(lbn);
        let info = p.track_info(t).unwrap();
        let l = table.locate(lbn);
        assert_eq!(p.slot_lbn(t, l.slot), Some(lbn));
        // Calibration of this drive is exact: the same tracks as the drive has.
        let truth = oracle.track_info(oracle.track_of(lbn)).unwrap();
        assert_eq!(
            (info.first_lbn, info.lbns),
            (truth.first_lbn, truth.lbns),
            "{lbn}"
        );
        let revolution = (period + 2.0 * info.sector_ns) as u64;
        let total: u64 = p
            .passing(t, 5_000_000, 5_000_000 + revolution)
            .iter()
            .map(|r| r.sectors as u64)
            .sum();
        assert_eq!(total, info.lbns as u64);
    }
}

#[test]
fn a_predictor_without_geometry_says_so() {
    let spec = catalog::lookup("st41601n").unwrap();
    let link = Link::new(&LinkConfig::default());
    let drive = calibrate::extract_cached(&spec, link, &Imperfections::default()).unwrap();
    let p = LbnCurvePredictor::new(drive);
    assert!(p.geometry().is_none());
    let Err(e) = require_geometry(&p) else {
        panic!("lbn-curve has no geometry");
    };
    let e = e.to_string();
    assert!(
        e.contains("host.predictor") && e.contains("lbn-curve"),
        "{e}"
    );
}

#[test]
fn a_seek_margin_delays_arrival_by_exactly_the_margin() {
    let spec = catalog::lookup("atlas10k").unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let p = OraclePredictor::new(mech.clone(), Overheads::from_spec(&spec), 0);
    let period = mech.period_ns;
    let from = HeadPosition {
        cylinder: 100,
        surface: 0,
    };
    for (i, lbn) in sample(mech.layout.capacity_sectors() - 8, 50)
        .into_iter()
        .enumerate()
    {
        let start = 10_000_000 + i as u64 * 333_333;
        let plain = p.estimate(
            Moment::new(from, start),
            Access::new(lbn, 8, headway::request::Op::Read),
        );
        let margin = 300_000;
        let m = estimate_with_margin(
            &p,
            Moment::new(from, start),
            Access::new(lbn, 8, headway::request::Op::Read),
            margin,
        );
        assert_eq!(m.seek_ns, plain.seek_ns + margin);
        // The head arrives `margin` later: the sector is caught later by at most a revolution.
        let (a, b) = (plain.positioning_ns(), m.positioning_ns());
        assert!(
            b >= a && (b - a) as f64 <= margin as f64 + period + 1.0,
            "{a} {b}"
        );
        // Positioning is the same target time, or one revolution more.
        let slip = b - a;
        assert!(slip == 0 || (slip as f64 - period).abs() < 2.0, "{slip}");
    }
}
