//! What one synthetic request looks like (size, place, direction), shared by the open and
//! closed workloads.

use rand::Rng;
use rand_pcg::Pcg64Mcg;

use super::locality::{Cursor, LocalityConfig, Placer};
use super::size::{SizeConfig, SizeSampler};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::{Op, Request};
use crate::time::SimTime;

/// The request-shape keys as written in an open or closed workload table.
pub(crate) struct ShapeFields<'a> {
    pub size_sectors: Option<u32>,
    pub size: Option<&'a SizeConfig>,
    pub align_sectors: u32,
    pub read_fraction: f64,
    pub locality: &'a LocalityConfig,
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
    pub(crate) fn new(
        f: &ShapeFields,
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
            match (f.size_sectors, f.size) {
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
            f.locality,
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
