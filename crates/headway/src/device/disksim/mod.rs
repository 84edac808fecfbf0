//! Readers for DiskSim 4.0's parameter files: run configurations (`.parv`), disk
//! specifications (`.diskspecs`), the `.model` files they source and the extracted seek curves
//! (`.seek`). Written from DiskSim's documented parameter language and semantics.
//!
//! `parse` turns text into a generic tree, `to_spec` maps a `disksim_disk` onto an
//! [`HddSpec`], `parv` finds the disk in a run configuration, `seek_file` reads seek curves.
//! Every error is a [`HeadwayError::Params`] naming file, line and key.
//!
//! Bounds (files come from anywhere): a file is read only up to [`MAX_PARAM_FILE_BYTES`], a
//! file and what it sources are at most [`MAX_SOURCED_FILES`] files and
//! [`MAX_PARAM_TOTAL_BYTES`] in all (a file that sources another twice, which sources another
//! twice, ... would otherwise grow exponentially), and a file named inside a DiskSim file
//! must lie in the naming file's folder or below ([`sourced_path`]).

pub mod parse;
pub mod parv;
pub mod ranges;
pub mod seek_file;
pub mod to_spec;

use std::cell::Cell;
use std::io;
use std::path::{Component, Path, PathBuf};
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

/// One DiskSim file is read up to this size; the largest real one (a zoned `.model`) is
/// 13 KB, so anything bigger is not a parameter file (or is `/dev/zero`).
pub const MAX_PARAM_FILE_BYTES: u64 = 4 << 20;

/// A file and everything it sources, counted in files and in bytes. DiskSim's own run
/// configurations source three files (disk specification, model, seek curve).
pub const MAX_SOURCED_FILES: usize = 64;
pub(crate) const MAX_PARAM_TOTAL_BYTES: u64 = 16 << 20;

/// Sourced files come from the file system.
pub(crate) struct FsResolver;

impl Resolver for FsResolver {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        read_capped(path)
    }
}

/// `path` as text, refusing a file larger than [`MAX_PARAM_FILE_BYTES`] before reading it
/// whole (and a device or pipe that never ends, after that many bytes).
pub(crate) fn read_capped(path: &Path) -> io::Result<String> {
    crate::limits::read_text(path, MAX_PARAM_FILE_BYTES, "not a DiskSim parameter file")
}

/// Where a file named inside the DiskSim file `includer` lies: `name` relative to the
/// includer's folder. An absolute name or one with `..` is refused: a parameter file from
/// elsewhere must not read files outside its own folder (its text would surface in error
/// messages), and DiskSim's own files only ever name their neighbours.
pub(crate) fn sourced_path(includer: &Path, name: &str) -> std::result::Result<PathBuf, String> {
    let rel = Path::new(name);
    let escapes = rel
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if escapes || name.is_empty() {
        return Err(format!(
            "`{name}`: a file named in a DiskSim file must lie in its folder or below (no \
             absolute path, no `..`); copy it next to `{}`",
            file_name(includer)
        ));
    }
    Ok(includer.parent().unwrap_or(Path::new("")).join(rel))
}

/// A resolver that counts what it reads, so that one top-level file cannot make the parser
/// read more than [`MAX_SOURCED_FILES`] files or [`MAX_PARAM_TOTAL_BYTES`] bytes.
struct Budget<'a> {
    inner: &'a dyn Resolver,
    files: Cell<usize>,
    bytes: Cell<u64>,
}

impl<'a> Budget<'a> {
    fn new(inner: &'a dyn Resolver, top_bytes: usize) -> Self {
        Budget {
            inner,
            files: Cell::new(0),
            bytes: Cell::new(top_bytes as u64),
        }
    }
}

impl Resolver for Budget<'_> {
    fn read(&self, path: &Path) -> io::Result<String> {
        let files = self.files.get() + 1;
        if files > MAX_SOURCED_FILES {
            return Err(io::Error::other(format!(
                "more than {MAX_SOURCED_FILES} files sourced in all (do files source each \
                 other over and over?)"
            )));
        }
        self.files.set(files);
        let text = self.inner.read(path)?;
        let bytes = self.bytes.get() + text.len() as u64;
        if bytes > MAX_PARAM_TOTAL_BYTES {
            return Err(io::Error::other(format!(
                "the file and what it sources exceed {} MiB in all",
                MAX_PARAM_TOTAL_BYTES >> 20
            )));
        }
        self.bytes.set(bytes);
        Ok(text)
    }
}

fn read_top(path: &Path) -> Result<String> {
    read_capped(path).map_err(|e| {
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

/// The disk component `component` (`disk0`, ...) of a DiskSim run configuration, with the
/// timing of the bus it sits on: one device of a DiskSim experiment.
pub fn load_parv_component(path: &Path, component: &str) -> Result<HddSpec> {
    parse_parv_at(&read_top(path)?, path, &FsResolver, Some(component))
}

/// [`load_parv`] on text already in memory; `origin` names it (and locates what it sources).
pub fn parse_parv(text: &str, origin: &Path, resolver: &dyn Resolver) -> Result<HddSpec> {
    parse_parv_at(text, origin, resolver, None)
}

fn parse_parv_at(
    text: &str,
    origin: &Path,
    resolver: &dyn Resolver,
    component: Option<&str>,
) -> Result<HddSpec> {
    let resolver = &Budget::new(resolver, text.len());
    let doc = parse_document(text, origin, resolver)?;
    let top = Loc {
        file: Arc::new(origin.to_path_buf()),
        line: 1,
    };
    let (disk, bus) = parv::find_disk(&doc, &top, component)?;
    to_spec::disk_spec(disk, &stem_name(origin), &file_name(origin), bus, resolver)
}

/// A whole DiskSim file as its generic tree, with what it sources spliced in (read from
/// the file system, within the usual bounds).
pub(crate) fn parse_experiment(text: &str, origin: &Path) -> Result<parse::Document> {
    parse_document(text, origin, &Budget::new(&FsResolver, text.len()))
}

/// [`load_diskspecs`] on text already in memory.
pub fn parse_diskspecs(text: &str, origin: &Path, resolver: &dyn Resolver) -> Result<HddSpec> {
    let resolver = &Budget::new(resolver, text.len());
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
