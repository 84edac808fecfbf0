//! The built-in drive catalog: DiskSim 4.0's eleven validated drive models, read from their
//! own parameter files (embedded, with DiskSim's copyright notice, in `catalog/disksim/`),
//! and drives described in headway's TOML form (`catalog/*.toml`). Each built-in is parsed on
//! first use and kept.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::disksim;
use super::hdd::layout::Layout;
use super::hdd::seek::SeekCurve;
use super::hdd::HddSpec;
use crate::error::{HeadwayError, Result};

macro_rules! disksim_files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../catalog/disksim/", $name)))),*]
    };
}

/// Every embedded DiskSim file, by file name (they source each other by file name).
static DISKSIM_FILES: &[(&str, &str)] = disksim_files!(
    "atlas10k.parv",
    "atlas10k.diskspecs",
    "atlas10k.model",
    "atlas10k.seek",
    "atlas_III.parv",
    "atlas_III.diskspecs",
    "atlas_III.model",
    "atlas_III.seek",
    "barracuda.parv",
    "barracuda.diskspecs",
    "barracuda.model",
    "barracuda.seek",
    "cheetah4LP.parv",
    "cheetah4LP.diskspecs",
    "cheetah4LP.model",
    "cheetah4LP.seek",
    "cheetah9LP.parv",
    "cheetah9LP.diskspecs",
    "cheetah9LP.model",
    "cheetah9LP.seek",
    "dec_rz26.parv",
    "dec_rz26.diskspecs",
    "dec_rz26_validate.model",
    "dec_rz26_validate.seek",
    "hp_c2247a.parv",
    "hp_c2247a.diskspecs",
    "hp_c2247a_validate.model",
    "hp_c2490a.parv",
    "hp_c2490a.diskspecs",
    "hp_c2490a_validate.model",
    "hp_c2490a_validate.seek",
    "hp_c3323a.parv",
    "hp_c3323a_validate.diskspecs",
    "hp_c3323a_validate.model",
    "hp_c3323a_validate.seek",
    "ibm18es.parv",
    "ibm18es.diskspecs",
    "ibm18es.model",
    "ibm18es.seek",
    "st41601n.parv",
    "st41601n.diskspecs",
    "st41601n_validate.model",
    "st41601n_validate.seek",
);

/// Where embedded files claim to live, so errors name a recognisable place.
const DISKSIM_DIR: &str = "catalog/disksim";

enum Source {
    /// A DiskSim run configuration (file name in `DISKSIM_FILES`).
    Parv(&'static str),
    /// headway TOML: (origin shown in errors, text).
    Toml(&'static str, &'static str),
}

struct Builtin {
    name: &'static str,
    /// Make and model, prefixed to the reader's description.
    title: &'static str,
    source: Source,
}

const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "atlas10k",
        title: "Quantum Atlas 10K",
        source: Source::Parv("atlas10k.parv"),
    },
    Builtin {
        name: "atlas_iii",
        title: "Quantum Atlas III",
        source: Source::Parv("atlas_III.parv"),
    },
    Builtin {
        name: "barracuda",
        title: "Seagate Barracuda (ST32171W)",
        source: Source::Parv("barracuda.parv"),
    },
    Builtin {
        name: "cheetah4lp",
        title: "Seagate Cheetah 4LP (ST34501N)",
        source: Source::Parv("cheetah4LP.parv"),
    },
    Builtin {
        name: "cheetah9lp",
        title: "Seagate Cheetah 9LP (ST39102LW)",
        source: Source::Parv("cheetah9LP.parv"),
    },
    Builtin {
        name: "dec_rz26",
        title: "DEC RZ26",
        source: Source::Parv("dec_rz26.parv"),
    },
    Builtin {
        name: "hp_c2247a",
        title: "HP C2247A",
        source: Source::Parv("hp_c2247a.parv"),
    },
    Builtin {
        name: "hp_c2490a",
        title: "HP C2490A",
        source: Source::Parv("hp_c2490a.parv"),
    },
    Builtin {
        name: "hp_c3323a",
        title: "HP C3323A",
        source: Source::Parv("hp_c3323a.parv"),
    },
    Builtin {
        name: "ibm18es",
        title: "IBM Ultrastar 18ES (DNES-309170W)",
        source: Source::Parv("ibm18es.parv"),
    },
    Builtin {
        name: "st41601n",
        title: "Seagate ST41601N",
        source: Source::Parv("st41601n.parv"),
    },
    Builtin {
        name: "st41601n-rl",
        title: "",
        source: Source::Toml(
            "catalog/st41601n-rl.toml",
            include_str!("../../catalog/st41601n-rl.toml"),
        ),
    },
    Builtin {
        name: "elite3",
        title: "",
        source: Source::Toml(
            "catalog/elite3.toml",
            include_str!("../../catalog/elite3.toml"),
        ),
    },
    Builtin {
        name: "ek1000",
        title: "",
        source: Source::Toml(
            "catalog/ek1000.toml",
            include_str!("../../catalog/ek1000.toml"),
        ),
    },
    Builtin {
        name: "ultrastar_hc310",
        title: "",
        source: Source::Toml(
            "catalog/ultrastar_hc310.toml",
            include_str!("../../catalog/ultrastar_hc310.toml"),
        ),
    },
    Builtin {
        name: "exos_2x14",
        title: "",
        source: Source::Toml(
            "catalog/exos_2x14.toml",
            include_str!("../../catalog/exos_2x14.toml"),
        ),
    },
    Builtin {
        name: "deskstar_60gxp",
        title: "",
        source: Source::Toml(
            "catalog/deskstar_60gxp.toml",
            include_str!("../../catalog/deskstar_60gxp.toml"),
        ),
    },
    Builtin {
        name: "cheetah_x15",
        title: "",
        source: Source::Toml(
            "catalog/cheetah_x15.toml",
            include_str!("../../catalog/cheetah_x15.toml"),
        ),
    },
    Builtin {
        name: "st5000as0011",
        title: "",
        source: Source::Toml(
            "catalog/st5000as0011.toml",
            include_str!("../../catalog/st5000as0011.toml"),
        ),
    },
    Builtin {
        name: "st8000as0002",
        title: "",
        source: Source::Toml(
            "catalog/st8000as0002.toml",
            include_str!("../../catalog/st8000as0002.toml"),
        ),
    },
];

/// Parsed built-ins, one slot per entry of `BUILTINS`. Errors are kept as text (a built-in
/// that fails to parse is a bug the tests catch; the text is all a caller can use).
static PARSED: [OnceLock<std::result::Result<HddSpec, String>>; BUILTINS.len()] =
    [const { OnceLock::new() }; BUILTINS.len()];

/// Names of the built-in drives.
pub fn names() -> Vec<String> {
    BUILTINS.iter().map(|b| b.name.to_string()).collect()
}

/// An embedded DiskSim parameter file by file name (`atlas10k.model`), to hand a DiskSim
/// binary the same drive headway simulates (`headway bench --vs-disksim`).
pub fn disksim_file(name: &str) -> Option<&'static str> {
    DISKSIM_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// Reads embedded DiskSim files by file name.
fn embedded(path: &Path) -> std::io::Result<String> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    DISKSIM_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| text.to_string())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("`{name}` is not among the embedded DiskSim files"),
            )
        })
}

fn build(b: &Builtin) -> Result<HddSpec> {
    let mut spec = match b.source {
        Source::Parv(file) => {
            let origin = PathBuf::from(DISKSIM_DIR).join(file);
            let text = embedded(&origin).map_err(|e| {
                HeadwayError::params(Some(origin.clone()), None, None, e.to_string())
            })?;
            disksim::parse_parv(&text, &origin, &embedded)?
        }
        Source::Toml(origin, text) => parse_toml_spec(text, origin)?,
    };
    spec.name = b.name.to_string();
    // A catalog drive's Block count disagreements are known and listed (its description and
    // docs/disksim-params.md); a run of it has nothing to warn about. A user's file still
    // gets the warning.
    spec.reader_warnings.clear();
    if !b.title.is_empty() {
        spec.description = format!("{}: {}", b.title, spec.description);
    }
    Ok(spec)
}

/// The built-in drive called `name` (case does not matter).
pub fn lookup(name: &str) -> Result<HddSpec> {
    let wanted = name.to_lowercase();
    let Some(i) = BUILTINS.iter().position(|b| b.name == wanted) else {
        return Err(HeadwayError::Unknown {
            kind: "drive",
            name: name.into(),
            known: names(),
        });
    };
    PARSED[i]
        .get_or_init(|| build(&BUILTINS[i]).map_err(|e| e.to_string()))
        .clone()
        .map_err(|msg| {
            HeadwayError::params(
                None,
                None,
                None,
                format!("built-in drive `{wanted}`: {msg}"),
            )
        })
}

/// Parse a drive described in headway's own TOML form.
pub fn parse_toml_spec(text: &str, origin: &str) -> Result<HddSpec> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start].lines().count().max(1));
        HeadwayError::params(Some(origin.into()), line, None, e.message().to_string())
    })
}

/// A drive from a file, by extension: headway TOML (`.toml`), a DiskSim run configuration
/// (`.parv`) or a DiskSim disk specification (`.diskspecs`, its first disk).
pub fn load_file(path: &Path) -> Result<HddSpec> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("parv") => disksim::load_parv(path),
        Some("diskspecs") => disksim::load_diskspecs(path),
        Some("toml") => {
            let text = crate::limits::read_text(path, crate::limits::MAX_TOML_BYTES, "not a drive")
                .map_err(|e| HeadwayError::io(path, e))?;
            parse_toml_spec(&text, &path.display().to_string())
        }
        _ => Err(HeadwayError::params(
            Some(path.to_path_buf()),
            None,
            None,
            "unknown kind of drive file: expected `.toml` (headway), `.parv` or `.diskspecs` \
             (DiskSim)",
        )),
    }
}

/// One line of the `headway disks` listing.
#[derive(Clone, Debug, PartialEq)]
pub struct CatalogEntry {
    pub name: String,
    pub description: String,
    pub capacity_sectors: u64,
    pub capacity_bytes: u64,
    pub rpm: f64,
    pub zones: usize,
    pub cylinders: u32,
    pub surfaces: u32,
    /// Mean seek over uniformly random (source, destination) cylinder pairs.
    pub mean_seek_ms: f64,
    /// Independent arms (1, or 2 for a dual-actuator drive).
    pub actuators: u32,
    /// How the drive records: `cmr` (conventional), `smr-drive-managed` (a media cache and
    /// shingled bands behind the LBA interface), `smr-host-managed` (zoned).
    pub recording: &'static str,
}

impl CatalogEntry {
    /// Summarise a drive (any drive, built-in or loaded from a file).
    pub fn from_spec(spec: &HddSpec) -> Result<Self> {
        let layout = Layout::new(&spec.layout, spec.surfaces, spec.cylinders)?;
        let seek = SeekCurve::new(&spec.seek, spec.cylinders)?;
        // A drive-managed SMR drive exports what its media cache leaves.
        let media_cache = spec.smr.as_ref().map_or(0, |s| s.media_cache_sectors);
        let capacity_sectors = layout.capacity_sectors() - media_cache;
        Ok(CatalogEntry {
            name: spec.name.clone(),
            description: spec.description.clone(),
            capacity_sectors,
            capacity_bytes: capacity_sectors * 512,
            rpm: spec.rpm,
            zones: layout.zones().len(),
            cylinders: spec.cylinders,
            surfaces: spec.surfaces,
            mean_seek_ms: seek.mean_random_ns() / 1e6,
            actuators: spec.actuators,
            recording: match (&spec.smr, &spec.zoned) {
                (Some(_), _) => "smr-drive-managed",
                (None, Some(_)) => "smr-host-managed",
                (None, None) => "cmr",
            },
        })
    }
}

/// Every built-in drive, summarised, in catalog order.
pub fn entries() -> Result<Vec<CatalogEntry>> {
    BUILTINS
        .iter()
        .map(|b| CatalogEntry::from_spec(&lookup(b.name)?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_file_is_listed_once_and_every_parv_is_a_builtin() {
        for (i, (name, _)) in DISKSIM_FILES.iter().enumerate() {
            assert!(
                DISKSIM_FILES[..i].iter().all(|(n, _)| n != name),
                "{name} twice"
            );
        }
        let parvs = DISKSIM_FILES.iter().filter(|(n, _)| n.ends_with(".parv"));
        for (file, _) in parvs {
            let stem = file.trim_end_matches(".parv").to_lowercase();
            assert!(BUILTINS.iter().any(|b| b.name == stem), "{file}");
        }
    }

    #[test]
    fn unknown_drive_lists_the_known_ones() {
        let e = lookup("nosuchdisk").unwrap_err();
        let HeadwayError::Unknown { known, .. } = &e else {
            panic!("{e}")
        };
        assert!(known.contains(&"atlas10k".to_string()));
        assert!(e.to_string().contains("st41601n-rl"));
    }

    #[test]
    fn lookup_ignores_case() {
        assert_eq!(lookup("Cheetah4LP").unwrap().name, "cheetah4lp");
    }

    #[test]
    fn load_file_rejects_unknown_extensions() {
        let e = load_file(Path::new("drive.json")).unwrap_err();
        assert!(e.to_string().contains("unknown kind of drive file"), "{e}");
    }
}
