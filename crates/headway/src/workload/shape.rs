//! What one synthetic request looks like (size, place, direction), shared by the open and
//! closed workloads.

use rand::Rng;
use rand_pcg::Pcg64Mcg;

use super::locality::{Cursor, LocalityConfig, Placer};
use super::size::{SizeConfig, SizeSampler};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::{Op, Request};
use crate::table_keys::key_group;
use crate::time::SimTime;

/// Requests a synthetic workload issues when `requests` is not given.
pub(crate) const DEFAULT_REQUESTS: u64 = 10_000;

/// What each request of a synthetic (open or closed) workload looks like: the keys
/// `size_sectors`, `size`, `align_sectors`, `read_fraction` and `locality` of its table.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeConfig {
    /// Every request this many sectors (512 bytes). Default 8 (4 KiB). Exclusive with `size`.
    pub size_sectors: Option<u32>,
    /// A size distribution instead of a fixed size.
    pub size: Option<SizeConfig>,
    /// Request starts and sizes are multiples of this many sectors. Default 8.
    pub align_sectors: u32,
    /// Fraction of requests that are reads. Default 1.
    pub read_fraction: f64,
    /// Where requests go. Default uniform over the drive. In a closed workload each process
    /// keeps its own position, so with `sequential` each reads its own runs.
    pub locality: LocalityConfig,
}

pub(crate) const DEFAULT_ALIGN_SECTORS: u32 = 8;
pub(crate) const DEFAULT_READ_FRACTION: f64 = 1.0;

impl Default for ShapeConfig {
    /// Random 4 KiB reads.
    fn default() -> Self {
        ShapeConfig {
            size_sectors: None,
            size: None,
            align_sectors: DEFAULT_ALIGN_SECTORS,
            read_fraction: DEFAULT_READ_FRACTION,
            locality: LocalityConfig::Uniform,
        }
    }
}

pub(crate) const DEFAULT_SIZE_SECTORS: u32 = 8;

/// Draws sizes, places and directions. Each of the three has its own random stream, so
/// that changing one (say the read fraction) leaves the others' sequences untouched and
/// experiments that vary one knob compare like with like.
pub(crate) struct RequestShape {
    sizes: SizeSampler,
    placer: Placer,
    read_fraction: f64,
    size_rng: Pcg64Mcg,
    place_rng: Pcg64Mcg,
    op_rng: Pcg64Mcg,
}

impl RequestShape {
    /// `stream` prefixes the random stream names (`"workload"` gives `workload.size`, ...).
    pub fn new(
        f: &ShapeConfig,
        capacity_sectors: u64,
        rng: &RngStreams,
        stream: &str,
    ) -> Result<Self> {
        if f.align_sectors == 0 {
            return Err(HeadwayError::config(
                "workload.align_sectors",
                "must be at least 1 sector",
            ));
        }
        if !(0.0..=1.0).contains(&f.read_fraction) {
            return Err(HeadwayError::config(
                "workload.read_fraction",
                format!("must be a fraction in [0, 1], got {}", f.read_fraction),
            ));
        }
        let sizes =
            match (f.size_sectors, &f.size) {
                (Some(_), Some(_)) => return Err(HeadwayError::config(
                    "workload.size",
                    "give either size_sectors (a fixed size) or size (a distribution), not both",
                )),
                (_, Some(dist)) => {
                    SizeSampler::new(dist, f.align_sectors, capacity_sectors, "workload.size")?
                }
                (fixed, None) => SizeSampler::fixed(
                    fixed.unwrap_or(DEFAULT_SIZE_SECTORS),
                    f.align_sectors,
                    capacity_sectors,
                    "workload.size_sectors",
                )?,
            };
        debug_assert!(sizes.max_sectors() as u64 <= capacity_sectors);
        let placer = Placer::new(
            &f.locality,
            capacity_sectors,
            f.align_sectors,
            "workload.locality",
        )?;
        Ok(RequestShape {
            sizes,
            placer,
            read_fraction: f.read_fraction,
            size_rng: rng.stream(&format!("{stream}.size")),
            place_rng: rng.stream(&format!("{stream}.locality")),
            op_rng: rng.stream(&format!("{stream}.op")),
        })
    }

    /// The next request of the stream whose position `cursor` holds.
    #[inline]
    pub(crate) fn make(
        &mut self,
        cursor: &mut Cursor,
        arrival_ns: SimTime,
        process: u32,
    ) -> Request {
        let sectors = self.sizes.sample(&mut self.size_rng);
        let lbn = self.placer.place(cursor, sectors, &mut self.place_rng);
        let op = if self.op_rng.random::<f64>() < self.read_fraction {
            Op::Read
        } else {
            Op::Write
        };
        let mut req = Request::new(arrival_ns, lbn, sectors, op);
        req.process = process;
        req
    }
}

key_group! {
    /// The shape keys of a synthetic workload's table (see [`ShapeConfig`]).
    pub(crate) struct ShapeKeys {
        size_sectors: u32,
        size: SizeConfig,
        align_sectors: u32,
        read_fraction: f64,
        locality: LocalityConfig,
    }
}

impl ShapeKeys {
    pub(crate) fn into_config(self) -> ShapeConfig {
        ShapeConfig {
            size_sectors: self.size_sectors,
            size: self.size,
            align_sectors: self.align_sectors.unwrap_or(DEFAULT_ALIGN_SECTORS),
            read_fraction: self.read_fraction.unwrap_or(DEFAULT_READ_FRACTION),
            locality: self.locality.unwrap_or_default(),
        }
    }
}
