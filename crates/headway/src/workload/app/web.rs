//! The web-server process [TEAM CHOICE, after the spec's experiment 7]: each operation
//! serves one whole file whose size is lognormal with a median of 4 KiB and a mean of about
//! 15 KiB (sigma = 1.63), capped at 4 MiB, rounded up to pages, and placed uniformly at
//! random in the region (the working set, much larger than memory: every file is read from
//! disk). [`REQUEST_MS`] of computation (parsing, logging) precedes each file.
//!
//! * `fs = "read"`: the file system reads the file in clustered chunks of up to 64 KiB,
//!   back to back; the chunks after the first carry the large-read flag, so anticipation
//!   counts the file as one thinktime sample;
//! * `fs = "mmap"`: page faults, one 4 KiB read per page with [`FAULT_MS`] of computation
//!   between them (sending the page);
//! * mixed (`fs = "mmap"` with `mmap_limit_bytes`): Apache's default configuration maps
//!   files up to the limit and reads larger ones into its buffers (read mode above), so a
//!   few large files keep the file system's clustering and the many small ones fault pages.

use rand::Rng;
use rand_distr::{Distribution, LogNormal};
use rand_pcg::Pcg64Mcg;

use super::{pages, Step, PAGE_SECTORS};
use crate::time::{ms_to_ns, SimTime};
use crate::workload::sync_reader::FsMode;

pub const MEDIAN_BYTES: f64 = 4096.0;
pub const SIGMA: f64 = 1.63;
pub const MAX_BYTES: f64 = 4.0 * 1024.0 * 1024.0;
pub const CHUNK_SECTORS: u32 = 128;
pub const REQUEST_MS: f64 = 0.3;
pub const FAULT_MS: f64 = 0.02;

/// How files are served: the file-system mode, and the mapping limit of the mixed
/// configuration (`None`: every file in `fs` mode).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Serving {
    pub fs: FsMode,
    pub mmap_limit_bytes: Option<u64>,
}

impl Serving {
    /// The mode a file of `sectors` is served in.
    fn mode(self, sectors: u32) -> FsMode {
        match self.mmap_limit_bytes {
            Some(limit) if sectors as u64 * 512 > limit => FsMode::Read,
            _ => self.fs,
        }
    }
}

pub(crate) fn script(
    files: u64,
    capacity: u64,
    serving: Serving,
    place: &mut Pcg64Mcg,
    _rng: &mut Pcg64Mcg,
) -> Result<Vec<Step>, String> {
    let max = pages(MAX_BYTES) as u64;
    if capacity < 2 * max {
        return Err(format!(
            "too small for the web server's files: it needs at least {} sectors, the region holds {capacity}",
            2 * max
        ));
    }
    let sizes = LogNormal::new(MEDIAN_BYTES.ln(), SIGMA).expect("constant parameters");
    let slots = capacity / PAGE_SECTORS as u64;
    let mut steps = vec![];
    for _ in 0..files {
        let size = pages(sizes.sample(place).min(MAX_BYTES));
        let start =
            place.random_range(0..slots - size as u64 / PAGE_SECTORS as u64) * PAGE_SECTORS as u64;
        let fs = serving.mode(size);
        let (chunk, between): (u32, SimTime) = match fs {
            FsMode::Read => (CHUNK_SECTORS, 0),
            FsMode::Mmap => (PAGE_SECTORS, ms_to_ns(FAULT_MS)),
        };
        let mut off = 0u32;
        while off < size {
            let n = chunk.min(size - off);
            let think = if off == 0 {
                ms_to_ns(REQUEST_MS)
            } else {
                between
            };
            // Read mode: one read() of the whole file, which the file system splits into
            // chunks; the later ones carry the large-read flag.
            let mut step = Step::read(think, start + off as u64, n);
            step.chunk = off > 0 && fs == FsMode::Read;
            steps.push(step);
            off += n;
        }
    }
    Ok(steps)
}
