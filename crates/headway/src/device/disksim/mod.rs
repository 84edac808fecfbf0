//! Readers for DiskSim 4.0's parameter files: run configurations (`.parv`), disk
//! specifications (`.diskspecs`), the `.model` files they source and the extracted seek curves
//! (`.seek`). Written from DiskSim's documented parameter language and semantics.
//!
//! `parse` turns text into a generic tree, `to_spec` maps a `disksim_disk` onto an
//! [`HddSpec`], `parv` finds the disk in a run configuration, `seek_file` reads seek curves.
//! Every error is a [`HeadwayError::Params`] naming file, line and key.

pub mod parse;
pub mod parv;
pub mod seek_file;
pub mod to_spec;

use std::path::Path;
use std::sync::Arc;

use crate::device::hdd::HddSpec;
use crate::error::{HeadwayError, Result};
use parse::{parse_document, Loc};
pub use seek_file::parse_seek;

/// Reads the files a parameter file sources. Paths are the including file's directory joined
/// with the name it gives.
pub trait Resolver {
    fn read(&self, path: &Path) -> std::io::Result<String>;
}

impl<F: Fn(&Path) -> std::io::Result<String>> Resolver for F {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        self(path)
    }
}

/// Sourced files come from the file system.
pub struct FsResolver;

impl Resolver for FsResolver {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        std::fs::read_to_string(path)
    }
}

fn read_top(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| {
        HeadwayError::params(
            Some(path.to_path_buf()),
            None,
            None,
            format!("cannot read: {e}"),
        )
    })
}

/// Drive name from a file name: its stem in lower case.
fn stem_name(origin: &Path) -> String {
    origin
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default()
}

fn file_name(origin: &Path) -> String {
    origin
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| origin.display().to_string())
}

/// The drive a DiskSim run configuration simulates: the `disksim_disk` it instantiates into
/// its topology, with the timing of the bus the disk sits on.
pub fn load_parv(path: &Path) -> Result<HddSpec> {
    parse_parv(&read_top(path)?, path, &FsResolver)
}

/// The first `disksim_disk` of a DiskSim disk specification file.
pub fn load_diskspecs(path: &Path) -> Result<HddSpec> {
    parse_diskspecs(&read_top(path)?, path, &FsResolver)
}

/// A DiskSim extracted seek curve: `(distance in cylinders, ms)` points.
pub fn load_seek_file(path: &Path) -> Result<Vec<(u32, f64)>> {
    parse_seek(&read_top(path)?, path)
}

/// [`load_parv`] on text already in memory; `origin` names it (and locates what it sources).
pub fn parse_parv(text: &str, origin: &Path, resolver: &dyn Resolver) -> Result<HddSpec> {
    let doc = parse_document(text, origin, resolver)?;
    let top = Loc {
        file: Arc::new(origin.to_path_buf()),
        line: 1,
    };
    let (disk, bus) = parv::find_disk(&doc, &top)?;
    to_spec::disk_spec(disk, &stem_name(origin), &file_name(origin), bus, resolver)
}

/// [`load_diskspecs`] on text already in memory.
pub fn parse_diskspecs(text: &str, origin: &Path, resolver: &dyn Resolver) -> Result<HddSpec> {
    let doc = parse_document(text, origin, resolver)?;
    let Some(disk) = doc.blocks.iter().find(|b| b.type_name == "disksim_disk") else {
        return Err(HeadwayError::params(
            Some(origin.to_path_buf()),
            None,
            None,
            "no `disksim_disk` block in the file",
        ));
    };
    to_spec::disk_spec(disk, &stem_name(origin), &file_name(origin), None, resolver)
}
