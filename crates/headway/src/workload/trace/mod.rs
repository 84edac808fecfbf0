//! Trace replay: a [`TraceReader`] per file format turns a file into [`TraceRecord`]s, one at
//! a time; [`TraceWorkload`] replays them open-loop at their timestamps.
//!
//! Adding a format: write one file here with a reader implementing [`TraceReader`] over any
//! `BufRead`, add a [`TraceFormat`] variant and its arm in [`open_reader`]. Decompression,
//! the device filter, `limit`, `speed`, time ordering and capacity checks are shared and
//! need nothing from the new reader. The replay calls the reader through one dynamic call
//! per record; everything per field is static inside the reader.

mod disksim_ascii;
mod input;
mod replay;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use disksim_ascii::DisksimAsciiReader;
pub use input::TraceInput;
pub use replay::TraceWorkload;

use super::config::TraceConfig;
use super::Workload;
use crate::error::Result;
use crate::request::{DeviceId, Op};
use crate::time::SimTime;

/// One I/O as a trace records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// When the request was issued, in trace time.
    pub time_ns: SimTime,
    /// The trace's device number.
    pub device: DeviceId,
    /// First 512-byte sector.
    pub lbn: u64,
    /// Length in 512-byte sectors (at least 1).
    pub sectors: u32,
    pub op: Op,
    /// Issuing process, where the format records one; else 0.
    pub process: u32,
}

/// A streaming reader of one trace format.
pub trait TraceReader {
    /// The next record, or `None` at the end of the trace. Errors name the file and line.
    fn next_record(&mut self) -> Result<Option<TraceRecord>>;
    /// Where the record last returned came from (1-based line, or record number for a binary
    /// format), so that checks made after parsing can name it too.
    fn line(&self) -> usize;
}

impl<T: TraceReader + ?Sized> TraceReader for Box<T> {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        (**self).next_record()
    }
    fn line(&self) -> usize {
        (**self).line()
    }
}

/// `format = "..."` in a trace workload.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum TraceFormat {
    /// `time_ms devno blkno bcount flags`, one request per line (DiskSim 4.0's ASCII input).
    #[default]
    #[serde(rename = "disksim-ascii")]
    DisksimAscii,
}

impl TraceFormat {
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::DisksimAscii => "disksim-ascii",
        }
    }
}

/// A reader for the trace at `path` (decompressed on the fly if it ends in `.gz`): what the
/// replay reads, and what tools that want the records themselves can use. A missing file is
/// an [`HeadwayError::Io`](crate::HeadwayError::Io) naming it.
pub fn open_reader(path: &Path, format: TraceFormat) -> Result<Box<dyn TraceReader + Send>> {
    let input = TraceInput::open(path)?;
    let origin = Some(path.to_path_buf());
    Ok(match format {
        TraceFormat::DisksimAscii => Box::new(DisksimAsciiReader::new(input, origin)),
    })
}

/// The trace workload `cfg` describes. The file is opened now (a missing file fails the
/// build) and read as the replay goes.
pub(crate) fn build(
    cfg: &TraceConfig,
    capacity_sectors: u64,
    base_dir: Option<&Path>,
) -> Result<Box<dyn Workload>> {
    cfg.validate()?;
    let path = resolve(&cfg.path, base_dir);
    let reader = open_reader(&path, cfg.format)?;
    Ok(Box::new(TraceWorkload::new(
        reader,
        cfg,
        capacity_sectors,
        path,
    )?))
}

fn resolve(path: &Path, base_dir: Option<&Path>) -> PathBuf {
    match base_dir {
        Some(base) if path.is_relative() => base.join(path),
        _ => path.to_path_buf(),
    }
}
