//! Trace replay: a [`TraceReader`] per file format turns a file into [`TraceRecord`]s, one at
//! a time; [`TraceWorkload`] replays them open-loop at their timestamps.
//!
//! Adding a format: write one file here with a reader implementing [`TraceReader`] over any
//! `BufRead`, add a [`TraceFormat`] variant and its arm in `with_reader`. Decompression,
//! the device filter, `limit`, `speed`, time ordering and capacity checks are shared and
//! need nothing from the new reader.

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

/// A reader for the trace at `path` (decompressed on the fly if it ends in `.gz`), for tools
/// that want the records themselves. A missing file is an
/// [`HeadwayError::Io`](crate::HeadwayError::Io) naming it.
pub fn open_reader(path: &Path, format: TraceFormat) -> Result<Box<dyn TraceReader + Send>> {
    struct Boxed;
    impl UseReader for Boxed {
        type Out = Box<dyn TraceReader + Send>;
        fn with<R: TraceReader + Send + 'static>(self, reader: R) -> Self::Out {
            Box::new(reader)
        }
    }
    with_reader(path, format, Boxed)
}

/// The trace workload `cfg` describes. The file is opened now (a missing file fails the
/// build) and read as the replay goes.
pub(crate) fn build(
    cfg: &TraceConfig,
    capacity_sectors: u64,
    base_dir: Option<&Path>,
) -> Result<Box<dyn Workload>> {
    struct Replay<'a> {
        cfg: &'a TraceConfig,
        capacity_sectors: u64,
        path: PathBuf,
    }
    impl UseReader for Replay<'_> {
        type Out = Result<Box<dyn Workload>>;
        fn with<R: TraceReader + Send + 'static>(self, reader: R) -> Self::Out {
            let w = TraceWorkload::new(reader, self.cfg, self.capacity_sectors, self.path)?;
            Ok(Box::new(w))
        }
    }
    cfg.validate()?;
    let path = resolve(&cfg.path, base_dir);
    let replay = Replay {
        cfg,
        capacity_sectors,
        path: path.clone(),
    };
    with_reader(&path, cfg.format, replay)?
}

/// Something to do with a reader of a statically known type. The replay takes its reader
/// this way rather than boxed: with the reader's type known, its per-record work inlines into
/// the replay loop, which measured about 40% faster than a call through `dyn TraceReader`.
trait UseReader {
    type Out;
    fn with<R: TraceReader + Send + 'static>(self, reader: R) -> Self::Out;
}

/// The one place that maps a format to its reader.
fn with_reader<U: UseReader>(path: &Path, format: TraceFormat, user: U) -> Result<U::Out> {
    let input = TraceInput::open(path)?;
    let origin = Some(path.to_path_buf());
    Ok(match format {
        TraceFormat::DisksimAscii => user.with(DisksimAsciiReader::new(input, origin)),
    })
}

fn resolve(path: &Path, base_dir: Option<&Path>) -> PathBuf {
    match base_dir {
        Some(base) if path.is_relative() => base.join(path),
        _ => path.to_path_buf(),
    }
}
