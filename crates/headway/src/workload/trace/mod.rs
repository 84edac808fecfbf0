//! Block traces: a streaming [`TraceReader`] per file format turns a file into
//! [`TraceRecord`]s one at a time, and the replay modes feed them to the engine.
//!
//! Formats (see each reader's module doc and `docs/traces.md`): `disksim-ascii`,
//! `disksim-validate`, `spc`, `msr`, `fiu`, `blkparse`, `hp-srt` and the generic `csv`
//! (column mapping with explicit units). `auto` (the default) detects the format from the
//! first 64 KiB and refuses to guess when two formats could fit. gzip, zstd and xz inputs are
//! recognised by their magic bytes and decompressed on the fly.
//!
//! Adding a format: write one file here with a reader implementing [`TraceReader`] over any
//! `BufRead` (a line format only needs a [`text::LineParser`]), add a [`TraceFormat`]
//! variant and its arm in `with_reader`, and a detection rule in `detect.rs` if the format
//! can be told from its content. Filters, fitting, lenient mode and the replay modes are
//! shared ([`feed`]) and need nothing from the new reader.

mod blkparse;
mod config;
pub mod csv;
mod detect;
mod disksim_ascii;
mod disksim_fast;
mod disksim_validate;
mod feed;
mod fields;
mod fiu;
mod hp_srt;
mod input;
mod lines;
mod msr;
mod names;
mod prefetch;
mod replay;
mod replay_closed;
mod report;
mod spc;
mod text;
pub mod tools;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use blkparse::{BlkparseEvent, BlkparseReader};
pub(crate) use config::TraceKeys;
pub use config::{ReplayMode, TraceConfig};
pub use csv::{Column, CsvReader, CsvSpec, Delimiter, SpaceUnit, TimeUnit};
pub use disksim_ascii::DisksimAsciiReader;
pub(crate) use disksim_validate::parse_validate_line;
pub use disksim_validate::DisksimValidateReader;
pub use feed::{DeviceSelect, Feed, FeedOptions, Fit};
pub use fiu::FiuReader;
pub use hp_srt::HpSrtReader;
pub use input::{Compression, TraceInput, XZ_MEMLIMIT_BYTES};
pub use msr::MsrReader;
pub use prefetch::Prefetch;
pub use replay::TraceWorkload;
pub use replay_closed::ClosedTraceWorkload;
pub use report::TraceReport;
pub use spc::SpcReader;
pub use tools::{convert, stats, ConvertFormat, TraceBatch, TraceBatches, TraceStats};

use super::Workload;
use crate::error::{HeadwayError, Result};
use crate::request::{DeviceId, Op};
use crate::time::SimTime;

/// One I/O as a trace records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// When the request was issued, in trace time (the trace's own epoch).
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
    /// Issue to completion as the trace measured it, where the format records it (MSR, HP
    /// SRT, DiskSim validate): closed-loop replay derives think times from it.
    pub response_ns: Option<u64>,
    /// The zone command the record carries, where the format can say (DiskSim ASCII's
    /// optional sixth field); else `None`.
    pub zone_op: Option<crate::request_marks::ZoneOp>,
    /// Time-critical or time-limited, where the format can say (DiskSim ASCII's flags): the
    /// request's high-priority mark, which the `priority` scheduler serves first.
    pub high_priority: bool,
}

/// A streaming reader of one trace format.
pub trait TraceReader {
    /// The next record, or `None` at the end of the trace. Errors name the file and line.
    fn next_record(&mut self) -> Result<Option<TraceRecord>>;
    /// Where the record last returned came from (1-based line, or record number for a binary
    /// format), so that checks made after parsing can name it too.
    fn line(&self) -> usize;
    /// After an error: whether reading can go on with the next record (a malformed line can
    /// be skipped; an unreadable or desynchronised input cannot).
    fn can_continue(&self) -> bool {
        true
    }
    /// The name of process `pid`, where the format records names (FIU, blkparse).
    fn process_name(&self, _pid: u32) -> Option<&str> {
        None
    }
    /// Records the reader itself passed over on purpose (HP SRT suspect records).
    fn skipped(&self) -> u64 {
        0
    }
    /// Up to `room` records taken in one go, each handed to `push` with its line, where the
    /// reader can parse them straight from its input buffer: without a buffer fill, a call
    /// and a returned `Result` for each, about 34 of the reader thread's 413 instructions a
    /// record. It stops before the first line it does
    /// not take that way, which [`TraceReader::next_record`] then reads; it skips nothing
    /// (`skipped` does not move), and the count it returns is how many it pushed. The default
    /// takes none.
    #[inline]
    fn next_run(&mut self, _room: usize, _push: &mut impl FnMut(TraceRecord, usize)) -> usize
    where
        Self: Sized,
    {
        0
    }
}

impl<T: TraceReader + ?Sized> TraceReader for Box<T> {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        (**self).next_record()
    }
    fn line(&self) -> usize {
        (**self).line()
    }
    fn can_continue(&self) -> bool {
        (**self).can_continue()
    }
    fn process_name(&self, pid: u32) -> Option<&str> {
        (**self).process_name(pid)
    }
    fn skipped(&self) -> u64 {
        (**self).skipped()
    }
}

/// `format = "..."` in a trace workload, `--format` on the command line.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// Detect from the content (refusing to guess where two formats could fit).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// `time_ms devno blkno bcount flags`, one request per line (DiskSim 4.0's ASCII input).
    #[serde(rename = "disksim-ascii")]
    DisksimAscii,
    /// `R|W Hit|Miss blkno bcount access_us delay_us` (DiskSim validation traces).
    #[serde(rename = "disksim-validate")]
    DisksimValidate,
    /// `ASU,LBA,Size,Opcode,Timestamp` (UMass / SPC).
    #[serde(rename = "spc")]
    Spc,
    /// `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` (MSR Cambridge, SNIA).
    #[serde(rename = "msr")]
    Msr,
    /// `ts_ns pid process lba size_blocks R|W major minor md5` (FIU).
    #[serde(rename = "fiu")]
    Fiu,
    /// blkparse's default text output.
    #[serde(rename = "blkparse")]
    Blkparse,
    /// HP Labs SRT binary.
    #[serde(rename = "hp-srt")]
    HpSrt,
    /// Generic delimited text with a column mapping ([`CsvSpec`]).
    #[serde(rename = "csv")]
    Csv,
}

impl TraceFormat {
    pub const ALL: [TraceFormat; 9] = [
        TraceFormat::Auto,
        TraceFormat::DisksimAscii,
        TraceFormat::DisksimValidate,
        TraceFormat::Spc,
        TraceFormat::Msr,
        TraceFormat::Fiu,
        TraceFormat::Blkparse,
        TraceFormat::HpSrt,
        TraceFormat::Csv,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Auto => "auto",
            TraceFormat::DisksimAscii => "disksim-ascii",
            TraceFormat::DisksimValidate => "disksim-validate",
            TraceFormat::Spc => "spc",
            TraceFormat::Msr => "msr",
            TraceFormat::Fiu => "fiu",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::HpSrt => "hp-srt",
            TraceFormat::Csv => "csv",
        }
    }

    /// By name, as `--format` takes it.
    pub fn from_name(name: &str) -> Result<Self> {
        TraceFormat::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| HeadwayError::Unknown {
                kind: "trace format",
                name: name.into(),
                known: TraceFormat::ALL
                    .iter()
                    .map(|f| f.name().to_string())
                    .collect(),
            })
    }
}

/// How to read a trace file: its format and the options some formats take.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceSource {
    pub format: TraceFormat,
    /// The column mapping of a `csv` trace (default: headway's own CSV).
    pub csv: Option<CsvSpec>,
    /// Which blkparse event is a request.
    pub blkparse_event: BlkparseEvent,
}

impl TraceSource {
    pub fn new(format: TraceFormat) -> Self {
        TraceSource {
            format,
            ..Default::default()
        }
    }

    /// The format of the file at `path`: the one given, or the detected one.
    pub fn resolve(&self, path: &Path) -> Result<TraceFormat> {
        if self.format != TraceFormat::Auto {
            return Ok(self.format);
        }
        let head = input::head(path, detect::SNIFF_BYTES)?;
        detect::sniff(&head).map_err(|why| {
            HeadwayError::trace(
                Some(path.to_path_buf()),
                None,
                format!(
                    "cannot detect the trace format: {why}; name it with format = \"...\" (--format), one of {}",
                    TraceFormat::ALL[1..].iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
                ),
            )
        })
    }
}

/// The format of the trace at `path`, detected from its content.
pub fn detect_format(path: &Path) -> Result<TraceFormat> {
    TraceSource::default().resolve(path)
}

/// A reader for the trace at `path` (decompressed on the fly), for tools that want the
/// records themselves. A missing file is an [`HeadwayError::Io`] naming it.
pub fn open_reader(path: &Path, format: TraceFormat) -> Result<Box<dyn TraceReader + Send>> {
    open_source(path, &TraceSource::new(format))
}

/// Like [`open_reader`], with a csv mapping or blkparse event.
pub fn open_source(path: &Path, source: &TraceSource) -> Result<Box<dyn TraceReader + Send>> {
    struct Boxed;
    impl UseReader for Boxed {
        type Out = Box<dyn TraceReader + Send>;
        fn with<R: TraceReader + Send + 'static>(self, reader: R) -> Self::Out {
            Box::new(reader)
        }
    }
    with_reader(path, source, Boxed)
}

/// The trace workload `cfg` describes. The file is opened now (a missing file fails the
/// build) and read as the replay goes.
pub fn build(
    cfg: &TraceConfig,
    capacity_sectors: u64,
    base_dir: Option<&Path>,
) -> Result<Box<dyn Workload>> {
    struct Replay<'a> {
        cfg: &'a TraceConfig,
        opts: FeedOptions,
        path: PathBuf,
        format: TraceFormat,
    }
    impl UseReader for Replay<'_> {
        type Out = Result<Box<dyn Workload>>;
        fn with<R: TraceReader + Send + 'static>(self, reader: R) -> Self::Out {
            // Decompression and parsing run ahead on their own thread.
            let reader = Prefetch::spawn(reader)?;
            let feed = Feed::new(reader, self.opts, self.path, self.format);
            Ok(match self.cfg.mode {
                ReplayMode::Open => Box::new(TraceWorkload::from_feed(feed, self.cfg.speed)),
                ReplayMode::Closed => {
                    Box::new(ClosedTraceWorkload::new(feed, self.cfg.speed, false))
                }
                ReplayMode::Validate => {
                    Box::new(ClosedTraceWorkload::new(feed, self.cfg.speed, true))
                }
            })
        }
    }
    cfg.validate()?;
    let path = resolve(&cfg.path, base_dir);
    let source = cfg.source();
    let format = source.resolve(&path)?;
    let source = TraceSource { format, ..source };
    let mut opts = FeedOptions::from_config(cfg, capacity_sectors);
    if opts.fit == Fit::Scale && opts.volume_sectors.is_none() {
        opts.volume_sectors = Some(feed::scan_volume(&path, &source, &opts)?);
    }
    let replay = Replay {
        cfg,
        opts,
        path: path.clone(),
        format,
    };
    with_reader(&path, &source, replay)?
}

/// Something to do with a reader of a statically known type. The replay takes its reader
/// this way rather than boxed: with the reader's type known, its per-record work inlines into
/// the replay loop, which measured about 40% faster than a call through `dyn TraceReader`.
pub(crate) trait UseReader {
    type Out;
    fn with<R: TraceReader + Send + 'static>(self, reader: R) -> Self::Out;
}

/// The one place that maps a format to its reader.
pub(crate) fn with_reader<U: UseReader>(
    path: &Path,
    source: &TraceSource,
    user: U,
) -> Result<U::Out> {
    let format = source.resolve(path)?;
    let input = TraceInput::open(path)?;
    let origin = Some(path.to_path_buf());
    Ok(match format {
        TraceFormat::Auto => unreachable!("resolved above"),
        TraceFormat::DisksimAscii => user.with(DisksimAsciiReader::new(input, origin)),
        TraceFormat::DisksimValidate => user.with(DisksimValidateReader::new(input, origin)),
        TraceFormat::Spc => user.with(SpcReader::new(input, origin)),
        TraceFormat::Msr => user.with(MsrReader::new(input, origin)),
        TraceFormat::Fiu => user.with(FiuReader::new(input, origin)),
        TraceFormat::Blkparse => {
            user.with(BlkparseReader::new(input, origin, source.blkparse_event))
        }
        TraceFormat::HpSrt => user.with(HpSrtReader::new(input, origin)?),
        TraceFormat::Csv => {
            let spec = source.csv.clone().unwrap_or_default();
            user.with(CsvReader::new(input, origin, spec)?)
        }
    })
}

pub fn resolve(path: &Path, base_dir: Option<&Path>) -> PathBuf {
    match base_dir {
        Some(base) if path.is_relative() => base.join(path),
        _ => path.to_path_buf(),
    }
}
