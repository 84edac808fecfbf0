//! The Andrew-like client [TEAM CHOICE, after the spec's experiment 6]: a source repository
//! of `requests` files of 4–64 KiB (uniform in whole pages), laid out contiguously in
//! directories of [`FILES_PER_DIR`] files with a 32 KiB gap between directories, in the
//! first half of the region; the second half receives the copy, laid out the same way.
//! Each directory's metadata (its directory block and the inodes of its files, one page)
//! sits in the gap after its last file. Phases, in order ([`PHASES`]):
//!
//! * mkdir: each directory of the copy is created with one synchronous page write of its
//!   metadata (FFS writes a new directory's inode and block synchronously);
//! * cp: each file is read whole (one synchronous clustered read) and its copy written
//!   asynchronously (a delayed write) into the second half;
//! * stat: each directory of the copy is listed and its files stat-ed: one synchronous page
//!   read of the directory's metadata (the first stat misses; the directory's other inodes
//!   share the page, so the rest hit the cache);
//! * scan (grep and wc): each original file is read whole, synchronously;
//! * gcc: CPU-bound, [`GCC_MS`] of computation per file and one page read (its header; the
//!   rest is taken as cached).
//!
//! Think times before each file or directory operation are uniform on 0.1–1 ms (the spec's
//! "about 0.1–1 ms").

use rand::Rng;
use rand_pcg::Pcg64Mcg;

use super::{lay_out, Step, PAGE_SECTORS};
use crate::request::Op;
use crate::time::{ms_to_ns, SimTime};

pub const FILES_PER_DIR: usize = 20;
pub const DIR_GAP_SECTORS: u64 = 64;
pub const GCC_MS: f64 = 2.0;

/// The phases of the full benchmark, in script order.
pub const PHASES: [&str; 5] = ["mkdir", "cp", "stat", "scan", "gcc"];

fn think(rng: &mut Pcg64Mcg) -> SimTime {
    ms_to_ns(rng.random_range(0.1..1.0))
}

/// Directories holding `files` files.
pub fn directories(files: u64) -> u64 {
    files.div_ceil(FILES_PER_DIR as u64)
}

/// The number of script steps of each of [`PHASES`] for `files` files: the full script's
/// steps split by phase, in order.
pub fn phase_steps(files: u64) -> [u64; 5] {
    let dirs = directories(files);
    [dirs, 2 * files, dirs, files, files]
}

/// Where each directory's metadata page lies: right after its last file (in the gap).
fn metadata(starts: &[u64], sizes: &[u32], end: u64) -> Result<Vec<u64>, String> {
    let at: Vec<u64> = starts
        .chunks(FILES_PER_DIR)
        .zip(sizes.chunks(FILES_PER_DIR))
        .map(|(s, z)| s[s.len() - 1] + z[z.len() - 1] as u64)
        .collect();
    match at.last() {
        Some(&last) if last + PAGE_SECTORS as u64 > end => Err(format!(
            "too small for the stand-in's files and directories: they need {} sectors past the \
             half's end",
            last + PAGE_SECTORS as u64 - end
        )),
        _ => Ok(at),
    }
}

/// `full`: all five phases; otherwise the scan phase alone.
pub(crate) fn script(
    files: u64,
    capacity: u64,
    full: bool,
    place: &mut Pcg64Mcg,
    rng: &mut Pcg64Mcg,
) -> Result<Vec<Step>, String> {
    let sizes: Vec<u32> = (0..files)
        .map(|_| place.random_range(1..=16u32) * PAGE_SECTORS)
        .collect();
    let half = capacity / 2;
    let originals = lay_out(&sizes, 0, half, FILES_PER_DIR, DIR_GAP_SECTORS)?;
    let copies = lay_out(&sizes, half, capacity, FILES_PER_DIR, DIR_GAP_SECTORS)?;
    let mut steps = vec![];
    if !full {
        for i in 0..sizes.len() {
            steps.push(Step::read(think(rng), originals[i], sizes[i]));
        }
        return Ok(steps);
    }
    let dirs = metadata(&copies, &sizes, capacity)?;
    for &d in &dirs {
        let mut s = Step::write(think(rng), d, PAGE_SECTORS);
        s.wait = true;
        steps.push(s);
    }
    for i in 0..sizes.len() {
        steps.push(Step::read(think(rng), originals[i], sizes[i]));
        steps.push(Step::write(0, copies[i], sizes[i]));
    }
    for &d in &dirs {
        steps.push(Step::read(think(rng), d, PAGE_SECTORS));
    }
    for i in 0..sizes.len() {
        steps.push(Step::read(think(rng), originals[i], sizes[i]));
    }
    for &c in &copies {
        steps.push(Step::read(ms_to_ns(GCC_MS) + think(rng), c, PAGE_SECTORS));
    }
    debug_assert_eq!(steps.len() as u64, phase_steps(files).iter().sum::<u64>());
    debug_assert!(steps[..dirs.len()].iter().all(|s| s.op == Op::Write));
    Ok(steps)
}
