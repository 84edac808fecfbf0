//! The DiskSim parameter reader: what it maps, and the error it gives for each kind of bad
//! input (file, line and key named; never a panic).

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use headway::device::catalog;
use headway::device::disksim::{self, parse_diskspecs, parse_parv};
use headway::device::hdd::spec::{SeekSpec, Sparing};
use headway::HeadwayError;
use proptest::prelude::*;

const DISKSPECS: &str = "\
disksim_disk D {
   Model = source d.model,
   Max queue length = 4,
   Scheduler = disksim_ioqueue { Scheduling policy = 3, Maximum concat size = 0 },
   Bulk sector transfer time = 0.1,
   Read hit over. after read = 0.2,
   Enable caching in buffer = 1,
   Number of buffer segments = 2,
   Print stats = 1
}
";

const MODEL: &str = "\
dm_disk D.model {
   Block count = 1000,
   Number of data surfaces = 2,
   Number of cylinders = 10,
   Layout Model = dm_layout_g1 {
      LBN-to-PBN mapping scheme = 0,
      Sparing scheme used = 2,
      Rangesize for sparing = 1,
      Zones = [
         dm_layout_g1_zone {
            First cylinder number = 0,
            Last cylinder number = 9,
            Blocks per track = 55,
            Offset of first block = 3,
            Empty space at zone front = 0,
            Skew for track switch = 2.7,
            Skew for cylinder switch = 5,
            Number of spares = 10,
            slips = [ 4 ],
            defects = []
         }
      ]
   },
   Mechanical Model = dm_mech_g1 {
      Access time type = trackSwitchPlusRotation,
      Seek type = extracted,
      Full seek curve = d.seek,
      Average seek time = 3.0,
      Add. write settling delay = 0.5,
      Head switch time = 0.3,
      Rotation speed (in rpms) = 6000,
      Percent error in rpms = 0.0
   }
}
";

const SEEK: &str = "Seek distances measured: 2\n1, 1.0\n9, 5.0\n";

const PARV: &str = "\
disksim_bus BUS1 {
   Read block transfer time = 0.3,
   Write block transfer time = 0.3
}
source d.diskspecs
instantiate [ bus1 ] as BUS1
instantiate [ disk0 ] as D
topology disksim_iodriver driver0 [
   disksim_bus bus1 [ disksim_disk disk0 [] ]
]
";

/// An in-memory drive: `dir/d.diskspecs`, `dir/d.model`, `dir/d.seek`, `dir/d.parv`.
struct Files(HashMap<PathBuf, String>);

impl Files {
    fn new() -> Self {
        let mut m = HashMap::new();
        m.insert(PathBuf::from("dir/d.diskspecs"), DISKSPECS.to_string());
        m.insert(PathBuf::from("dir/d.model"), MODEL.to_string());
        m.insert(PathBuf::from("dir/d.seek"), SEEK.to_string());
        m.insert(PathBuf::from("dir/d.parv"), PARV.to_string());
        Files(m)
    }

    /// Replace `from` (which must occur) by `to` in file `name`.
    fn edit(mut self, name: &str, from: &str, to: &str) -> Self {
        let text = self.0.get_mut(Path::new(&format!("dir/{name}"))).unwrap();
        assert!(text.contains(from), "{from:?} not in {name}");
        *text = text.replacen(from, to, 1);
        self
    }

    fn text(&self, name: &str) -> &str {
        &self.0[Path::new(&format!("dir/{name}"))]
    }

    fn read(&self, p: &Path) -> std::io::Result<String> {
        self.0
            .get(p)
            .cloned()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
    }

    fn diskspecs(&self) -> headway::Result<headway::device::hdd::HddSpec> {
        parse_diskspecs(
            self.text("d.diskspecs"),
            Path::new("dir/d.diskspecs"),
            &|p: &Path| self.read(p),
        )
    }

    fn parv(&self) -> headway::Result<headway::device::hdd::HddSpec> {
        parse_parv(self.text("d.parv"), Path::new("dir/d.parv"), &|p: &Path| {
            self.read(p)
        })
    }
}

/// 1-based line of the first line of `file` containing `needle`.
fn line_of(files: &Files, file: &str, needle: &str) -> usize {
    files
        .text(file)
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in {file}"))
        + 1
}

#[track_caller]
fn expect_error(
    result: headway::Result<headway::device::hdd::HddSpec>,
    file: &str,
    line: usize,
    key: Option<&str>,
    msg: &str,
) {
    let e = result.expect_err("should fail");
    let HeadwayError::Params {
        file: f,
        line: l,
        key: k,
        msg: m,
    } = &e
    else {
        panic!("not a Params error: {e}")
    };
    assert_eq!(f.as_deref(), Some(Path::new(&format!("dir/{file}"))), "{e}");
    assert_eq!(*l, Some(line), "{e}");
    assert_eq!(k.as_deref(), key, "{e}");
    assert!(m.contains(msg), "{e}");
}

#[test]
fn maps_every_part_of_a_small_drive() {
    let spec = Files::new().diskspecs().unwrap();
    assert_eq!(spec.name, "d");
    assert_eq!((spec.rpm, spec.surfaces, spec.cylinders), (6000.0, 2, 10));
    assert_eq!(spec.block_count, 1000);
    assert_eq!(spec.layout.sparing, Sparing::CylinderEnd);
    let z = &spec.layout.zones[0];
    assert_eq!(
        (z.sectors_per_track, z.spares, z.slips.clone()),
        (55, 10, vec![4])
    );
    // DiskSim truncates skews given in sectors.
    assert_eq!(
        (z.first_block_offset, z.track_skew, z.cylinder_skew),
        (3.0, 2.0, 5.0)
    );
    assert_eq!(
        spec.seek,
        SeekSpec::Table {
            points: vec![(1, 1.0), (9, 5.0)]
        }
    );
    assert_eq!((spec.head_switch_ms, spec.write_settle_ms), (0.3, 0.5));
    assert_eq!((spec.queue.max_queue_length, spec.queue.policy), (4, 3));
    assert_eq!(spec.bus.sector_transfer_ms, 0.1);
    assert_eq!(spec.overheads.read_hit_after_read_ms, 0.2);
    assert_eq!(spec.overheads.time_scale, 1.0);
    let cache = spec.cache.unwrap();
    assert!(cache.enabled);
    assert_eq!(cache.segments, 2);
    assert!(spec.description.contains("`D`"), "{}", spec.description);
}

#[test]
fn parv_finds_the_disk_and_its_bus() {
    let spec = Files::new().parv().unwrap();
    assert_eq!(spec.block_count, 1000);
    // The slower of the disk's own sector time (0.1) and its bus's (0.3).
    assert_eq!(spec.bus.sector_transfer_ms, 0.3);
    assert_eq!(spec.bus.write_sector_transfer_ms, None);
    let spec = Files::new()
        .edit(
            "d.parv",
            "Write block transfer time = 0.3",
            "Write block transfer time = 0.4",
        )
        .parv()
        .unwrap();
    assert_eq!(spec.bus.write_sector_transfer_ms, Some(0.4));
}

#[test]
fn skews_in_revolutions_become_sectors() {
    let spec = Files::new()
        .edit(
            "d.model",
            "Skew for track switch = 2.7,",
            "Skew units = revolutions, Skew for track switch = 0.25,",
        )
        .edit(
            "d.model",
            "Skew for cylinder switch = 5,",
            "Skew for cylinder switch = 0.5,",
        )
        .edit(
            "d.model",
            "Offset of first block = 3,",
            "Offset of first block = 0.1,",
        )
        .diskspecs()
        .unwrap();
    let z = &spec.layout.zones[0];
    assert_eq!((z.track_skew, z.cylinder_skew), (13.75, 27.5));
    assert!((z.first_block_offset - 5.5).abs() < 1e-12);
}

#[test]
fn capacity_disagreements_follow_the_zone_table() {
    // DiskSim's layout replaces the declared Block count with what the zones map, whichever
    // is larger; headway does the same and says so, naming both numbers and the line.
    for declared in [1200, 900] {
        let spec = Files::new()
            .edit(
                "d.model",
                "Block count = 1000",
                &format!("Block count = {declared}"),
            )
            .diskspecs()
            .unwrap();
        assert_eq!(
            (spec.block_count, spec.layout.exported_sectors),
            (1000, None)
        );
        let w = &spec.reader_warnings;
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(spec.unmodelled_settings().contains(&w[0]));
        assert!(
            w[0].contains(&format!("`Block count` = {declared}"))
                && w[0].contains("zones map 1000 sectors")
                && w[0].contains("d.model:2:"),
            "{w:?}"
        );
    }
    let spec = Files::new().diskspecs().unwrap();
    assert!(spec.reader_warnings.is_empty());
    // Zones past the declared cylinders extend the drive.
    let spec = Files::new()
        .edit(
            "d.model",
            "Number of cylinders = 10",
            "Number of cylinders = 9",
        )
        .diskspecs()
        .unwrap();
    assert_eq!(spec.cylinders, 10);
}

#[test]
fn hpl_seek_types_map_to_their_equations() {
    let hpl = |seek_type: &str| {
        Files::new()
            .edit(
                "d.model",
                "Seek type = extracted",
                &format!("Seek type = {seek_type}"),
            )
            .edit(
                "d.model",
                "Full seek curve = d.seek,",
                "HPL seek equation values = [ 300, 3.8, 0.33, 7.7, 0.0059, -1 ],\n\
                 First ten seek times = [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ],",
            )
            .diskspecs()
            .unwrap()
            .seek
    };
    assert_eq!(
        hpl("hpl"),
        SeekSpec::Hpl {
            values: [300.0, 3.8, 0.33, 7.7, 0.0059, -1.0]
        }
    );
    assert_eq!(
        hpl("hplplus10"),
        SeekSpec::SqrtLinear {
            threshold: 299,
            c1_ms: 3.8,
            c2_ms: 0.33,
            c3_ms: 7.7,
            c4_ms: 0.0059,
            first_ms: (1..=10).map(f64::from).collect(),
        }
    );
}

#[test]
fn missing_required_key() {
    let f = Files::new().edit("d.model", "            Blocks per track = 55,\n", "");
    let line = line_of(&f, "d.model", "dm_layout_g1_zone {");
    expect_error(
        f.diskspecs(),
        "d.model",
        line,
        Some("Blocks per track"),
        "missing",
    );

    let f = Files::new().edit("d.model", "   Block count = 1000,\n", "");
    expect_error(f.diskspecs(), "d.model", 1, Some("Block count"), "missing");

    let f = Files::new().edit("d.diskspecs", "   Model = source d.model,\n", "");
    expect_error(f.diskspecs(), "d.diskspecs", 1, Some("Model"), "missing");

    let f = Files::new().edit("d.model", "      Head switch time = 0.3,\n", "");
    let line = line_of(&f, "d.model", "Mechanical Model");
    expect_error(
        f.diskspecs(),
        "d.model",
        line,
        Some("Head switch time"),
        "missing",
    );

    let f = Files::new().edit("d.model", "Full seek curve = d.seek,", "");
    let line = line_of(&f, "d.model", "Mechanical Model");
    expect_error(
        f.diskspecs(),
        "d.model",
        line,
        Some("Full seek curve"),
        "missing",
    );
}

#[test]
fn value_of_the_wrong_type() {
    let cases = [
        (
            "Number of cylinders = 10",
            "Number of cylinders = ten",
            "Number of cylinders",
            "whole number",
        ),
        (
            "Number of cylinders = 10",
            "Number of cylinders = 20000000",
            "Number of cylinders",
            "must be in 1..=10000000",
        ),
        (
            "Blocks per track = 55",
            "Blocks per track = 55.5",
            "Blocks per track",
            "whole number",
        ),
        (
            "Blocks per track = 55",
            "Blocks per track = 0",
            "Blocks per track",
            "must be in 1..",
        ),
        (
            "Offset of first block = 3",
            "Offset of first block = [ 3 ]",
            "Offset of first block",
            "expected a number",
        ),
        ("slips = [ 4 ]", "slips = [ -4 ]", "slips", "non-negative"),
        ("slips = [ 4 ]", "slips = 4", "slips", "expected a list"),
        ("defects = []", "defects = [ 1 ]", "defects", "pairs"),
        (
            "Sparing scheme used = 2",
            "Sparing scheme used = 11",
            "Sparing scheme used",
            "0..=10",
        ),
        (
            "LBN-to-PBN mapping scheme = 0",
            "LBN-to-PBN mapping scheme = 5",
            "LBN-to-PBN mapping scheme",
            "0..=2",
        ),
        (
            "Seek type = extracted",
            "Seek type = curve",
            "Seek type",
            "not supported",
        ),
        (
            "Access time type = trackSwitchPlusRotation",
            "Access time type = averageRotation",
            "Access time type",
            "not supported",
        ),
        (
            "Head switch time = 0.3",
            "Head switch time = -0.3",
            "Head switch time",
            "negative",
        ),
        (
            "Rotation speed (in rpms) = 6000",
            "Rotation speed (in rpms) = 0",
            "Rotation speed (in rpms)",
            "must be in",
        ),
        (
            "Full seek curve = d.seek",
            "Full seek curve = [ 1 ]",
            "Full seek curve",
            "expected a name",
        ),
        (
            "Skew for track switch = 2.7",
            "Skew units = degrees, Skew for track switch = 2.7",
            "Skew units",
            "sectors",
        ),
    ];
    for (from, to, key, msg) in cases {
        let f = Files::new().edit("d.model", from, to);
        let line = line_of(&f, "d.model", to.split(',').next().unwrap());
        expect_error(f.diskspecs(), "d.model", line, Some(key), msg);
    }
    let f = Files::new().edit(
        "d.diskspecs",
        "Max queue length = 4",
        "Max queue length = 0",
    );
    expect_error(
        f.diskspecs(),
        "d.diskspecs",
        3,
        Some("Max queue length"),
        "must be in 1..",
    );
    let f = Files::new().edit(
        "d.diskspecs",
        "Enable caching in buffer = 1",
        "Enable caching in buffer = yes",
    );
    expect_error(
        f.diskspecs(),
        "d.diskspecs",
        7,
        Some("Enable caching in buffer"),
        "whole number",
    );
    let f = Files::new().edit(
        "d.model",
        "Seek type = extracted",
        "Seek type = hpl, HPL seek equation values = [ 1, 2, 3 ]",
    );
    let line = line_of(&f, "d.model", "HPL seek");
    expect_error(
        f.diskspecs(),
        "d.model",
        line,
        Some("HPL seek equation values"),
        "expected 6 values",
    );
}

#[test]
fn unreadable_files() {
    let f = Files::new().edit("d.diskspecs", "source d.model", "source gone.model");
    expect_error(
        f.diskspecs(),
        "d.diskspecs",
        2,
        Some("Model"),
        "cannot read `dir/gone.model`",
    );

    let f = Files::new().edit(
        "d.model",
        "Full seek curve = d.seek",
        "Full seek curve = gone.seek",
    );
    let line = line_of(&f, "d.model", "gone.seek");
    expect_error(
        f.diskspecs(),
        "d.model",
        line,
        Some("Full seek curve"),
        "cannot read",
    );

    let f = Files::new().edit("d.parv", "source d.diskspecs", "source gone.diskspecs");
    expect_error(f.parv(), "d.parv", 5, Some("source"), "cannot read");

    let f = Files::new().edit("d.seek", "9, 5.0", "9, slow");
    expect_error(f.diskspecs(), "d.seek", 3, None, "non-negative");

    let e = disksim::load_parv(Path::new("/nonexistent/x.parv")).unwrap_err();
    assert!(
        matches!(&e, HeadwayError::Params { file: Some(f), .. } if f == Path::new("/nonexistent/x.parv")),
        "{e}"
    );
    assert!(disksim::load_seek_file(Path::new("/nonexistent/x.seek")).is_err());
}

/// Files a DiskSim file names lie in its folder or below: an absolute name or `..` is
/// refused with the key that names it, before anything is read; a subfolder is fine.
#[test]
fn named_files_stay_in_the_naming_files_folder() {
    let outside = [
        "/etc/passwd",
        "../d.model",
        "sub/../../d.model",
        "./../d.model",
    ];
    for name in outside {
        let f = Files::new().edit("d.diskspecs", "source d.model", &format!("source {name}"));
        expect_error(
            f.diskspecs(),
            "d.diskspecs",
            2,
            Some("Model"),
            "must lie in its folder or below",
        );
        let f = Files::new().edit("d.parv", "source d.diskspecs", &format!("source {name}"));
        expect_error(
            f.parv(),
            "d.parv",
            5,
            Some("source"),
            "no absolute path, no `..`",
        );
        let f = Files::new().edit(
            "d.model",
            "Full seek curve = d.seek",
            &format!("Full seek curve = {name}"),
        );
        let line = line_of(&f, "d.model", "Full seek curve");
        expect_error(
            f.diskspecs(),
            "d.model",
            line,
            Some("Full seek curve"),
            "must lie in its folder or below",
        );
    }
    // Below the folder, and `./`, resolve against the naming file's folder.
    let mut f = Files::new().edit("d.diskspecs", "source d.model", "source sub/d.model");
    let model = f
        .text("d.model")
        .replace("Full seek curve = d.seek", "Full seek curve = ./e.seek");
    f.0.insert(PathBuf::from("dir/sub/d.model"), model);
    f.0.insert(PathBuf::from("dir/sub/e.seek"), SEEK.to_string());
    assert_eq!(f.diskspecs().unwrap().cylinders, 10);
}

/// Files that each source the next level eight times, five levels deep, would make 37,448
/// reads without ever nesting too deep; the reader stops at its budget with an error naming
/// the `source` line. (A file that sources itself stops at the nesting bound first.)
#[test]
fn sourcing_that_multiplies_stops_at_the_budget() {
    let reads = std::cell::Cell::new(0usize);
    let fan_out = |p: &Path| -> std::io::Result<String> {
        reads.set(reads.get() + 1);
        let level: usize = p.to_str().unwrap()[5..6].parse().unwrap();
        Ok(format!("source l{}.parv\n", level + 1).repeat(if level < 5 { 8 } else { 0 }))
    };
    let e = parse_parv("source l1.parv\n", Path::new("dir/l0.parv"), &fan_out).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains(&format!(
            "more than {} files sourced",
            disksim::MAX_SOURCED_FILES
        )),
        "{msg}"
    );
    assert!(
        matches!(&e, HeadwayError::Params { key: Some(k), line: Some(_), .. } if k == "source"),
        "{e}"
    );
    assert_eq!(reads.get(), disksim::MAX_SOURCED_FILES);

    // Few files, but each large: the byte budget.
    let big = "# padding\n".repeat((disksim::MAX_PARAM_FILE_BYTES as usize - 1) / 10);
    let fat = |_: &Path| -> std::io::Result<String> { Ok(format!("{big}source b.parv\n")) };
    let msg = parse_parv("source b.parv\n", Path::new("dir/a.parv"), &fat)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("MiB in all"), "{msg}");
}

/// A file past the size bound is refused from its length, without being read; an endless
/// device is cut off at the bound.
#[test]
fn oversized_parameter_files_are_refused_unread() {
    let dir = common::scratch("big-params");
    let path = dir.join("huge.diskspecs");
    // Sparse: 1 TiB of nothing costs no disk.
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(1 << 40).unwrap();
    let e = disksim::load_diskspecs(&path).unwrap_err().to_string();
    assert!(
        e.contains("huge.diskspecs") && e.contains("larger than 4 MiB"),
        "{e}"
    );
    let e = disksim::load_seek_file(&path).unwrap_err().to_string();
    assert!(e.contains("larger than 4 MiB"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
    if Path::new("/dev/zero").exists() {
        let e = disksim::load_parv(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("larger than 4 MiB"), "{e}");
    }
}

/// A seek table of a million rows is refused at the row past the bound.
#[test]
fn a_seek_table_of_a_million_rows_is_refused() {
    let rows: String = (1..=1_000_000u32).map(|d| format!("{d}, 1.0\n")).collect();
    let e = disksim::parse_seek(&rows, Path::new("x.seek")).unwrap_err();
    let bound = disksim::seek_file::MAX_SEEK_POINTS;
    assert!(
        matches!(&e, HeadwayError::Params { line: Some(l), .. } if *l == bound + 1),
        "{e}"
    );
    assert!(
        e.to_string().contains("seek distances: not a seek curve"),
        "{e}"
    );
}

#[test]
fn wrong_block_where_a_disk_is_expected() {
    // The topology's disk is instantiated from a bus block.
    let f = Files::new().edit(
        "d.parv",
        "instantiate [ disk0 ] as D",
        "instantiate [ disk0 ] as BUS1",
    );
    expect_error(
        f.parv(),
        "d.parv",
        7,
        Some("instantiate"),
        "a `disksim_disk` block is expected",
    );

    // The topology names a disk nobody instantiated.
    let f = Files::new().edit("d.parv", "instantiate [ disk0 ] as D", "");
    expect_error(
        f.parv(),
        "d.parv",
        9,
        Some("topology"),
        "never instantiated",
    );

    // Instantiated from a block nobody defined.
    let f = Files::new().edit("d.parv", "as D", "as NOPE");
    expect_error(
        f.parv(),
        "d.parv",
        7,
        Some("instantiate"),
        "no block defines",
    );

    // No disk at all.
    let f = Files::new()
        .edit("d.parv", "instantiate [ disk0 ] as D", "")
        .edit("d.parv", "[ disksim_disk disk0 [] ]", "[]");
    expect_error(
        f.parv(),
        "d.parv",
        1,
        None,
        "instantiates no `disksim_disk`",
    );

    // The model is not a dm_disk.
    let f = Files::new().edit("d.model", "dm_disk D.model {", "dm_foo D.model {");
    expect_error(
        f.diskspecs(),
        "d.diskspecs",
        2,
        Some("Model"),
        "expected a `dm_disk` block",
    );

    // An unsupported layout model.
    let f = Files::new().edit(
        "d.model",
        "Layout Model = dm_layout_g1 {",
        "Layout Model = dm_layout_g2 {",
    );
    expect_error(
        f.diskspecs(),
        "d.model",
        5,
        Some("Layout Model"),
        "expected a `dm_layout_g1`",
    );

    // A zone that is not a zone block.
    let f = Files::new().edit("d.model", "dm_layout_g1_zone {", "dm_layout_g1_band {");
    let line = line_of(&f, "d.model", "dm_layout_g1_band");
    expect_error(
        f.diskspecs(),
        "d.model",
        line,
        None,
        "expected a `dm_layout_g1_zone` block",
    );

    // A diskspecs file without a disk.
    let f = Files::new().edit("d.diskspecs", "disksim_disk D {", "disksim_bus D {");
    let e = f.diskspecs().unwrap_err();
    assert!(e.to_string().contains("no `disksim_disk` block"), "{e}");
}

#[test]
fn unknown_keys_are_errors_known_unused_ones_are_not() {
    let f = Files::new().edit(
        "d.diskspecs",
        "Print stats = 1",
        "Print stats = 1,\n   Frobnication level = 3",
    );
    expect_error(
        f.diskspecs(),
        "d.diskspecs",
        10,
        Some("Frobnication level"),
        "not a parameter",
    );
    let f = Files::new().edit(
        "d.model",
        "Number of spares = 10,",
        "Number of spares = 10, Colour = blue,",
    );
    let line = line_of(&f, "d.model", "Colour");
    expect_error(
        f.diskspecs(),
        "d.model",
        line,
        Some("Colour"),
        "`dm_layout_g1_zone`",
    );
    let f = Files::new().edit(
        "d.diskspecs",
        "Maximum concat size = 0",
        "Maximum concat size = 0, Speed = 1",
    );
    expect_error(
        f.diskspecs(),
        "d.diskspecs",
        4,
        Some("Speed"),
        "`disksim_ioqueue`",
    );
    // "Average seek time" in the model and "Print stats" in the disk are known and unused.
    assert!(Files::new().diskspecs().is_ok());
}

#[test]
fn layout_errors_point_at_the_zone() {
    // 11 slips on one cylinder with 10 spares.
    let slips = (0..11)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let f = Files::new().edit("d.model", "slips = [ 4 ]", &format!("slips = [ {slips} ]"));
    let line = line_of(&f, "d.model", "slips =");
    expect_error(f.diskspecs(), "d.model", line, Some("slips"), "zone 0");

    let f = Files::new()
        .edit(
            "d.model",
            "Last cylinder number = 9",
            "Last cylinder number = 12",
        )
        .edit("d.model", "Number of spares = 10", "Number of spares = 200");
    let line = line_of(&f, "d.model", "Number of spares");
    expect_error(
        f.diskspecs(),
        "d.model",
        line,
        Some("Number of spares"),
        "no data sectors",
    );
}

/// DiskSim's seek files as shipped in the catalog (identical to DiskSim 4.0's: checked
/// against the reference data by `catalog::shared_data::embedded_files_match_the_reference_files`).
#[test]
fn seek_files_shipped_in_the_catalog() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("catalog/disksim");
    let p = disksim::load_seek_file(&dir.join("atlas10k.seek")).unwrap();
    assert_eq!(p.len(), 138);
    assert_eq!((p[0], p[137]), ((1, 1.245), (10021, 10.828)));
    let p = disksim::load_seek_file(&dir.join("st41601n_validate.seek")).unwrap();
    assert_eq!((p[0].0, p.last().unwrap().0), (1, 2097));
}

#[test]
fn atlas10k_maps_its_parameters() {
    let s = catalog::lookup("atlas10k").unwrap();
    assert_eq!((s.head_switch_ms, s.write_settle_ms), (0.176, 0.487));
    assert_eq!(s.bus.sector_transfer_ms, 0.099);
    assert_eq!(s.overheads.read_hit_after_read_ms, 0.184);
    assert_eq!(s.overheads.write_hit_after_write_ms, 0.189);
    assert_eq!(s.overheads.write_miss_after_read_ms, 0.34492);
    assert_eq!(s.overheads.write_miss_after_write_ms, 0.49673);
    let c = s.cache.as_ref().unwrap();
    assert_eq!(
        (c.segments, c.segment_sectors, c.max_read_ahead_sectors),
        (10, 374, 354)
    );
    assert_eq!((c.fast_write_level, c.buffer_continuous_read), (2, 4));
    assert!(c.allow_read_hits_on_write_data && c.read_any_free_blocks && !c.allow_almost_read_hits);
    assert_eq!((s.queue.max_queue_length, s.queue.policy), (1, 1));
    assert_eq!(s.layout.mapping_scheme, 1);
    assert_eq!(s.layout.sparing, Sparing::ZoneEndSectors);
    assert_eq!(
        s.layout.zones[0].slips,
        vec![55017, 358148, 394564, 420533, 483742]
    );
    assert_eq!(s.layout.zones[23].spares, 229);
    let SeekSpec::Table { points } = &s.seek else {
        panic!("{:?}", s.seek)
    };
    assert_eq!(points.len(), 138);
    // hp_c2490a's cache is switched on with a 2.
    assert!(catalog::lookup("hp_c2490a").unwrap().cache.unwrap().enabled);
}

fn embedded_atlas() -> Files {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("catalog/disksim");
    let mut m = HashMap::new();
    for (from, to) in [
        ("atlas10k.diskspecs", "d.diskspecs"),
        ("atlas10k.model", "atlas10k.model"),
        ("atlas10k.seek", "atlas10k.seek"),
    ] {
        m.insert(
            PathBuf::from(format!("dir/{to}")),
            std::fs::read_to_string(dir.join(from)).unwrap(),
        );
    }
    Files(m)
}

#[test]
fn the_fuzzing_base_loads() {
    let spec = embedded_atlas().diskspecs().unwrap();
    assert_eq!(spec, {
        let mut c = catalog::lookup("atlas10k").unwrap();
        c.name = "d".into();
        c.description = spec.description.clone();
        // The catalog keeps its known Block count note in the description only.
        c.reader_warnings = spec.reader_warnings.clone();
        c
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Arbitrary text never panics the reader.
    #[test]
    fn arbitrary_text_never_panics(text in "[ -~\n]{0,400}") {
        let files = Files::new();
        let _ = parse_diskspecs(&text, Path::new("dir/x.diskspecs"), &|p: &Path| files.read(p));
        let _ = parse_parv(&text, Path::new("dir/x.parv"), &|p: &Path| files.read(p));
        let _ = disksim::parse_seek(&text, Path::new("x.seek"));
    }

    /// A real drive cut short or with a character changed anywhere loads or fails cleanly.
    #[test]
    fn damaged_real_files_never_panic(
        which in 0usize..3,
        at in 0.0f64..1.0,
        cut in any::<bool>(),
        c in prop::sample::select(vec!['{', '}', '[', ']', '=', ',', '#', '-', '9', 'x', ' ']),
    ) {
        let mut files = embedded_atlas();
        let name = ["dir/d.diskspecs", "dir/atlas10k.model", "dir/atlas10k.seek"][which];
        let text = files.0.get_mut(Path::new(name)).unwrap();
        let mut i = ((text.len() as f64) * at) as usize;
        while !text.is_char_boundary(i) { i -= 1; }
        if cut {
            text.truncate(i);
        } else if i < text.len() {
            text.replace_range(i..i + 1, &c.to_string());
        }
        let _ = files.diskspecs();
    }
}

/// Every DiskSim-validated drive uses the buffer settings headway models; a description
/// that asks for one it does not model runs, and the run says so, naming the parameter.
#[test]
fn settings_headway_does_not_model_are_reported_not_silently_ignored() {
    for name in catalog::names() {
        let spec = catalog::lookup(&name).unwrap();
        assert_eq!(spec.unmodelled_settings(), Vec::<String>::new(), "{name}");
    }
    let mut spec = catalog::lookup("hp_c2247a").unwrap();
    let c = spec.cache.as_mut().unwrap();
    c.allow_write_prebuffering = true;
    c.write_hit_stop_prefetch = false;
    c.preseeking_level = 2;
    let w = spec.unmodelled_settings();
    assert_eq!(w.len(), 3, "{w:?}");
    assert!(w[0].contains("`Write hit stop prefetch` = 0") && w[0].contains("behaves as 1"));
    assert!(w[1].contains("`Allow write prebuffering` = 1"));
    assert!(w[2].contains("`Preseeking level` = 2"));
    // They reach the validation report (and, through the config path, every run's warnings).
    let trace = headway::validate::builtin_trace("hp_c2247a").unwrap();
    let r = headway::validate::validate(&spec, &trace[..50]).unwrap();
    assert_eq!(r.warnings, w);
    // A buffer that is switched off has no settings to ignore.
    spec.cache.as_mut().unwrap().enabled = false;
    assert!(spec.unmodelled_settings().is_empty());
}
