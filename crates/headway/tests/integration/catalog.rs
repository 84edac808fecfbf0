//! The built-in catalog: every drive loads, simulates, and says what the sources say.

use headway::device::catalog::{self, CatalogEntry};
use headway::device::disksim;
use headway::device::hdd::seek::SeekCurve;
use headway::device::hdd::spec::SeekSpec;
use headway::device::hdd::Mechanics;
use headway::request::{HeadPosition, Op};
use headway::HeadwayError;

use crate::common;

#[test]
fn every_drive_builds_mechanics_and_runs_accesses() {
    for name in catalog::names() {
        let spec = catalog::lookup(&name).unwrap();
        let mech = Mechanics::new(&spec).unwrap_or_else(|e| panic!("{name}: {e}"));
        let cap = mech.layout.capacity_sectors();
        let period_ns = 60.0e9 / spec.rpm;
        let mut head = HeadPosition::default();
        let mut now = 0u64;
        for (i, lbn) in [0, cap / 3, cap / 2 + 17, cap - 64, 12_345]
            .into_iter()
            .enumerate()
        {
            let op = if i % 2 == 0 { Op::Read } else { Op::Write };
            let acc = mech.access(head, now, lbn, 64, op);
            // 64 sectors take at least their share of a revolution and, with switches, less
            // than a few revolutions; rotational wait is under one revolution.
            assert!(acc.transfer_ns > 0, "{name}: {acc:?}");
            assert!(
                (acc.transfer_ns as f64) < 4.0 * period_ns,
                "{name}: {acc:?}"
            );
            assert!((acc.rotate_ns as f64) <= period_ns + 1.0, "{name}: {acc:?}");
            assert_eq!(acc.end, mech.position_of(lbn + 63), "{name}: lbn {lbn}");
            if i > 0 && head.cylinder != mech.position_of(lbn).cylinder {
                assert!(acc.seek_ns > 0, "{name}: {acc:?}");
            }
            head = acc.end;
            now += acc.total_ns() + 1_000_000;
        }
    }
}

#[test]
fn entries_summarise_every_builtin() {
    let entries = catalog::entries().unwrap();
    assert_eq!(
        entries.iter().map(|e| e.name.clone()).collect::<Vec<_>>(),
        catalog::names()
    );
    let get = |n: &str| -> &CatalogEntry { entries.iter().find(|e| e.name == n).unwrap() };
    for e in &entries {
        assert_eq!(e.capacity_bytes, e.capacity_sectors * 512, "{}", e.name);
        assert!(e.zones >= 1 && e.surfaces >= 1 && e.rpm > 0.0, "{e:?}");
        assert!(e.mean_seek_ms > 1.0 && e.mean_seek_ms < 20.0, "{e:?}");
        assert!(!e.description.is_empty());
    }
    // The published figures: Atlas 10K about 5.6 ms, DiskSim ST41601N about 11.1 ms, the RL curve
    // about 12.24 ms (overhead included), Elite 3 11.0 ms.
    assert!((get("atlas10k").mean_seek_ms - 5.6).abs() < 0.05);
    assert!((get("st41601n").mean_seek_ms - 11.1).abs() < 0.1);
    assert!((get("st41601n-rl").mean_seek_ms - 12.24).abs() < 0.02);
    assert!((get("elite3").mean_seek_ms - 11.0).abs() < 0.05);
    // The EK1000 stand-in: its seek curve is fitted to a 12 ms mean (docs/catalog.md).
    assert!((get("ek1000").mean_seek_ms - 12.0).abs() < 0.05);
    assert_eq!(get("atlas10k").zones, 24);
    assert_eq!(
        (get("atlas10k").surfaces, get("atlas10k").cylinders),
        (6, 10042)
    );
    assert_eq!(get("atlas10k").rpm, 10025.0);
    assert!(get("atlas10k").description.starts_with("Quantum Atlas 10K"));
}

#[test]
fn st41601n_rl_is_the_papers_drive() {
    let rl = catalog::lookup("st41601n-rl").unwrap();
    let ds = catalog::lookup("st41601n").unwrap();
    assert_eq!(rl.rpm, 5400.0);
    assert_eq!(
        (rl.surfaces, rl.cylinders, rl.block_count),
        (17, 2098, 2_676_846)
    );
    assert_eq!(rl.layout.zones.len(), 14);
    assert!(rl.cache.is_none());
    for (a, b) in rl.layout.zones.iter().zip(&ds.layout.zones) {
        assert_eq!(
            (
                a.first_cylinder,
                a.last_cylinder,
                a.sectors_per_track,
                a.spares
            ),
            (
                b.first_cylinder,
                b.last_cylinder,
                b.sectors_per_track,
                b.spares
            )
        );
        assert_eq!(a.first_block_offset, b.first_block_offset);
        // RL's skews are DiskSim's plus 1 (track) and plus 7 (cylinder).
        assert_eq!(a.track_skew, b.track_skew + 1.0);
        assert_eq!(a.cylinder_skew, b.cylinder_skew + 7.0);
        assert!(a.slips.is_empty());
    }
    let curve = SeekCurve::new(&rl.seek, rl.cylinders).unwrap();
    let ms = |d: u32| curve.seek_ns(d) as f64 / 1e6;
    assert_eq!(ms(1), 1.248);
    assert_eq!(ms(14), 4.401);
    assert_eq!(ms(15), 4.236);
    assert_eq!(ms(25), 5.411);
    assert!((ms(26) - (3.82872 + 0.3114 * 26f64.sqrt())).abs() < 1e-6);
    assert!((ms(399) - 10.05).abs() < 0.005);
    assert!((ms(400) - 10.27).abs() < 0.005);
    assert!((ms(2097) - 23.10).abs() < 0.005);
}

#[test]
fn hplplus10_drive_seeks_like_disksim() {
    // hp_c2247a: first ten seek times for 1..10 cylinders, V2 + V3*sqrt(d) below V1 = 300,
    // V4 + V5*d from 300 on.
    let spec = catalog::lookup("hp_c2247a").unwrap();
    assert!(matches!(spec.seek, SeekSpec::SqrtLinear { .. }));
    let curve = SeekCurve::new(&spec.seek, spec.cylinders).unwrap();
    let ms = |d: u32| curve.seek_ns(d) as f64 / 1e6;
    assert!((ms(1) - 2.89).abs() < 1e-9);
    assert!((ms(10) - 4.99).abs() < 1e-9);
    assert!((ms(11) - (3.81 + 0.33 * 11f64.sqrt())).abs() < 1e-6);
    assert!((ms(299) - (3.81 + 0.33 * 299f64.sqrt())).abs() < 1e-6);
    assert!((ms(300) - (7.75 + 0.0059 * 300.0)).abs() < 1e-6);
}

mod shared_data {
    use super::*;

    #[test]
    #[ignore = "needs the reference data in ../shared (not shipped); scripts/test.sh runs it when present"]
    fn embedded_files_match_the_reference_files() {
        let dir = common::shared_path("reference/disksim/params");
        for name in catalog::names() {
            let builtin = catalog::lookup(&name).unwrap();
            let parv = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| {
                    p.extension().is_some_and(|x| x == "parv")
                        && p.file_stem().unwrap().to_string_lossy().to_lowercase() == name
                });
            let Some(parv) = parv else {
                continue;
            };
            let mut loaded = disksim::load_parv(&parv).unwrap();
            assert_eq!(loaded.name, name);
            loaded.name = builtin.name.clone();
            loaded.description = builtin.description.clone();
            // A user's file warns about its block count on every load; the catalog says it
            // once, in the drive's description (compared above).
            loaded.reader_warnings = builtin.reader_warnings.clone();
            assert_eq!(loaded, builtin, "{name}");
        }
    }
}

#[test]
fn load_file_dispatches_on_extension() {
    let dir = common::scratch("catalog-test");
    let toml_path = dir.join("mine.toml");
    std::fs::write(
        &toml_path,
        include_str!("../../catalog/st41601n-rl.toml").replace("st41601n-rl", "mine"),
    )
    .unwrap();
    let spec = catalog::load_file(&toml_path).unwrap();
    assert_eq!(spec.name, "mine");
    assert_eq!(spec.block_count, 2_676_846);

    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\nrpm = \"fast\"\n").unwrap();
    let e = catalog::load_file(&bad).unwrap_err();
    assert!(
        matches!(e, HeadwayError::Params { line: Some(2), .. }),
        "{e}"
    );

    let missing = dir.join("missing.parv");
    let e = catalog::load_file(&missing).unwrap_err();
    assert!(
        matches!(&e, HeadwayError::Params { file: Some(f), .. } if *f == missing),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    // DiskSim's own files, as shipped in the catalog (identical to DiskSim 4.0's: checked
    // against the reference data by `embedded_files_match_the_reference_files`).
    let params = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/disksim");
    let a = catalog::load_file(&params.join("atlas10k.parv")).unwrap();
    let b = catalog::load_file(&params.join("atlas10k.diskspecs")).unwrap();
    assert_eq!(a.name, "atlas10k");
    assert_eq!(a.layout, b.layout);
    assert_eq!(a.seek, b.seek);
    // The run configuration adds nothing to this disk's bus (its bus is instantaneous).
    assert_eq!(a.bus, b.bus);
    let hp = catalog::load_file(&params.join("hp_c2247a.parv")).unwrap();
    let hp_disk = catalog::load_file(&params.join("hp_c2247a.diskspecs")).unwrap();
    assert_eq!(hp.bus.sector_transfer_ms, 0.17010);
    assert_eq!(hp.bus.write_sector_transfer_ms, Some(0.18686));
    assert_eq!(hp_disk.bus.sector_transfer_ms, 0.0);
}

#[test]
fn every_drive_survives_a_toml_round_trip() {
    // A DiskSim drive can be dumped to headway's own form and read back unchanged.
    for name in catalog::names() {
        let spec = catalog::lookup(&name).unwrap();
        let text = toml::to_string(&spec).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = catalog::parse_toml_spec(&text, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, spec, "{name}");
    }
}

#[test]
fn entries_give_each_drives_actuators() {
    let entries = catalog::entries().unwrap();
    for e in &entries {
        let want = if e.name == "exos_2x14" { 2 } else { 1 };
        assert_eq!(e.actuators, want, "{}", e.name);
    }
}
