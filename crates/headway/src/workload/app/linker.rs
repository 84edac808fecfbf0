//! The linker [TEAM CHOICE, after the spec's experiment 8]: `requests` object files whose
//! sizes are log-uniform between 4 KiB and 256 KiB (whole pages), laid out contiguously in
//! the region and read in a random order. Each file: a header read (its first page), then
//! one 4 KiB read per 32 KiB of file (at least one) at random pages of the file, each after
//! [`COMPUTE_MS`] of computation (symbol resolution). The output is not modelled.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_pcg::Pcg64Mcg;

use super::{lay_out, pages, Step, PAGE_SECTORS};
use crate::time::ms_to_ns;

pub const MIN_BYTES: f64 = 4096.0;
pub const MAX_BYTES: f64 = 256.0 * 1024.0;
pub const BYTES_PER_READ: u32 = 32 * 1024;
pub const COMPUTE_MS: f64 = 0.5;

pub(crate) fn script(
    files: u64,
    capacity: u64,
    place: &mut Pcg64Mcg,
    _rng: &mut Pcg64Mcg,
) -> Result<Vec<Step>, String> {
    let sizes: Vec<u32> = (0..files)
        .map(|_| pages((place.random_range(MIN_BYTES.ln()..=MAX_BYTES.ln())).exp()))
        .collect();
    let starts = lay_out(&sizes, 0, capacity, 0, 0)?;
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.shuffle(place);
    let mut steps = vec![];
    for i in order {
        let page_count = sizes[i] / PAGE_SECTORS;
        steps.push(Step::read(ms_to_ns(COMPUTE_MS), starts[i], PAGE_SECTORS));
        let reads = (sizes[i] * 512 / BYTES_PER_READ).max(1);
        for _ in 0..reads {
            let p = place.random_range(0..page_count) as u64;
            steps.push(Step::read(
                ms_to_ns(COMPUTE_MS),
                starts[i] + p * PAGE_SECTORS as u64,
                PAGE_SECTORS,
            ));
        }
    }
    Ok(steps)
}
