//! The Andrew-like client [TEAM CHOICE, after the spec's experiment 6]: a source repository
//! of `requests` files of 4–64 KiB (uniform in whole pages), laid out contiguously in
//! directories of [`FILES_PER_DIR`] files with a 32 KiB gap between directories, in the
//! first half of the region; the second half receives the copy. Phases, in order:
//!
//! * cp: each file is read whole (one synchronous clustered read) and its copy written
//!   asynchronously (a delayed write) into the second half;
//! * scan (grep and wc): each original file is read whole, synchronously;
//! * gcc: CPU-bound, [`GCC_MS`] of computation per file and one page read (its header; the
//!   rest is taken as cached).
//!
//! Think times between file operations are uniform on 0.1–1 ms (the spec's "about
//! 0.1–1 ms"). mkdir and stat (metadata, mostly cached) are not modelled.

use rand::Rng;
use rand_pcg::Pcg64Mcg;

use super::{lay_out, Step, PAGE_SECTORS};
use crate::time::{ms_to_ns, SimTime};

pub const FILES_PER_DIR: usize = 20;
pub const DIR_GAP_SECTORS: u64 = 64;
pub const GCC_MS: f64 = 2.0;

fn think(rng: &mut Pcg64Mcg) -> SimTime {
    ms_to_ns(rng.random_range(0.1..1.0))
}

/// `full`: all three phases; otherwise the scan phase alone.
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
    if full {
        for i in 0..sizes.len() {
            steps.push(Step::read(think(rng), originals[i], sizes[i]));
            steps.push(Step::write(0, copies[i], sizes[i]));
        }
    }
    for i in 0..sizes.len() {
        steps.push(Step::read(think(rng), originals[i], sizes[i]));
    }
    if full {
        for &c in &copies {
            steps.push(Step::read(ms_to_ns(GCC_MS) + think(rng), c, PAGE_SECTORS));
        }
    }
    Ok(steps)
}
