//! Trace tools: statistics, conversion and column batches, all streaming through the same
//! [`Feed`] as replay (so filters and lenient mode behave alike), in memory that does not
//! grow with the trace.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use hdrhistogram::Histogram;
use serde::Serialize;

use super::csv::HEADWAY_CSV_HEADER;
use super::feed::{Feed, FeedOptions};
use super::names::{IntMap, MAX_NAMES};
use super::report::TraceReport;
use super::{open_source, TraceInput, TraceReader, TraceSource};
use crate::error::{HeadwayError, Result};
use crate::request::Op;

/// A distribution summarised (values in the unit its name gives).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Dist {
    pub count: u64,
    pub mean: f64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Dist {
    fn from_hist(h: &Histogram<u64>, unit: f64) -> Self {
        if h.is_empty() {
            return Dist::default();
        }
        let v = |x: u64| x as f64 / unit;
        Dist {
            count: h.len(),
            mean: h.mean() / unit,
            min: v(h.min()),
            p50: v(h.value_at_quantile(0.5)),
            p90: v(h.value_at_quantile(0.9)),
            p99: v(h.value_at_quantile(0.99)),
            max: v(h.max()),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeBucket {
    /// Requests of at most this many sectors (and more than the previous bucket's).
    pub le_sectors: u64,
    pub count: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProcessCount {
    pub pid: u32,
    pub name: Option<String>,
    pub count: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceCount {
    pub device: u16,
    pub count: u64,
}

/// What `headway trace stats` prints. Percentiles are exact to 3 significant digits.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraceStats {
    pub path: String,
    pub format: String,
    pub compression: String,
    pub records: u64,
    pub reads: u64,
    pub writes: u64,
    /// First to last record.
    pub span_s: f64,
    /// Records per second of trace time.
    pub rate_iops: f64,
    pub read_fraction: f64,
    /// Sectors transferred in all.
    pub sectors: u64,
    pub size_sectors: Dist,
    pub size_histogram: Vec<SizeBucket>,
    /// Lowest first sector (512-byte sectors).
    pub min_sector: u64,
    /// One past the highest sector addressed (512-byte sectors).
    pub max_end_sector: u64,
    /// |start of a request − end of the previous request to the same device|, sectors.
    pub seek_distance_sectors: Dist,
    pub interarrival_ms: Dist,
    /// Requests per process, most first (processes past 65,536 are counted in
    /// `other_processes`).
    pub processes: Vec<ProcessCount>,
    pub other_processes: u64,
    pub devices: Vec<DeviceCount>,
    /// Bad records skipped (lenient mode), and the first few.
    pub bad_records: u64,
    pub bad_examples: Vec<String>,
}

fn hist(sigfig: u8) -> Histogram<u64> {
    Histogram::new_with_bounds(1, u64::MAX >> 2, sigfig).expect("valid histogram bounds")
}

/// Statistics of the trace at `path`, read once, streaming.
pub fn stats(path: &Path, source: &TraceSource, opts: &FeedOptions) -> Result<TraceStats> {
    let format = source.resolve(path)?;
    let compression = TraceInput::open(path)?.compression();
    let source = TraceSource {
        format,
        ..source.clone()
    };
    let reader = open_source(path, &source)?;
    let mut feed = Feed::new(reader, opts.clone(), path.to_path_buf(), format);
    let mut s = TraceStats {
        path: path.display().to_string(),
        format: format.name().into(),
        compression: compression.name().into(),
        min_sector: u64::MAX,
        ..Default::default()
    };
    let mut sizes = hist(3);
    let mut seeks = hist(3);
    let mut gaps = hist(3);
    let mut buckets = [0u64; 33];
    let mut last_end: IntMap<u16, u64> = IntMap::default();
    let mut devices: IntMap<u16, u64> = IntMap::default();
    let mut procs: IntMap<u32, u64> = IntMap::default();
    let mut first_ns = None;
    let mut last_ns = 0;
    while let Some(r) = feed.next_record()? {
        s.records += 1;
        match r.op {
            Op::Read => s.reads += 1,
            Op::Write => s.writes += 1,
        }
        let n = r.sectors as u64;
        s.sectors += n;
        sizes.saturating_record(n);
        buckets[(64 - (n - 1).leading_zeros()).min(32) as usize] += 1;
        s.min_sector = s.min_sector.min(r.lbn);
        let end = r.lbn + n;
        s.max_end_sector = s.max_end_sector.max(end);
        if let Some(prev) = last_end.insert(r.device, end) {
            seeks.saturating_record(r.lbn.abs_diff(prev));
        }
        *devices.entry(r.device).or_default() += 1;
        let full = procs.len() >= MAX_NAMES;
        match procs.get_mut(&r.process) {
            Some(c) => *c += 1,
            None if !full => {
                procs.insert(r.process, 1);
            }
            None => s.other_processes += 1,
        }
        if first_ns.is_some() {
            gaps.saturating_record(r.time_ns - last_ns);
        } else {
            first_ns = Some(r.time_ns);
        }
        last_ns = r.time_ns;
    }
    if s.records == 0 {
        s.min_sector = 0;
    }
    s.span_s = (last_ns - first_ns.unwrap_or(0)) as f64 / 1e9;
    s.rate_iops = if s.span_s > 0.0 {
        s.records as f64 / s.span_s
    } else {
        0.0
    };
    s.read_fraction = if s.records > 0 {
        s.reads as f64 / s.records as f64
    } else {
        0.0
    };
    s.size_sectors = Dist::from_hist(&sizes, 1.0);
    s.seek_distance_sectors = Dist::from_hist(&seeks, 1.0);
    s.interarrival_ms = Dist::from_hist(&gaps, 1e6);
    s.size_histogram = buckets
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(i, c)| SizeBucket {
            le_sectors: 1u64 << i,
            count: *c,
        })
        .collect();
    let mut devices: Vec<DeviceCount> = devices
        .into_iter()
        .map(|(device, count)| DeviceCount { device, count })
        .collect();
    devices.sort_by_key(|d| d.device);
    s.devices = devices;
    let mut processes: Vec<ProcessCount> = procs
        .into_iter()
        .map(|(pid, count)| ProcessCount {
            pid,
            name: feed.reader().process_name(pid).map(str::to_string),
            count,
        })
        .collect();
    processes.sort_by(|a, b| b.count.cmp(&a.count).then(a.pid.cmp(&b.pid)));
    s.processes = processes;
    let report = feed.report();
    s.bad_records = report.bad_records;
    s.bad_examples = report.bad_examples;
    Ok(s)
}

/// What `trace convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertFormat {
    /// `time_ms devno blkno bcount flags` (flags 1 = read).
    DisksimAscii,
    /// headway's own CSV: `time_ns,device,lbn,sectors,op,process` with a header and R/W.
    Csv,
}

impl ConvertFormat {
    pub fn from_name(s: &str) -> Result<Self> {
        match s {
            "disksim-ascii" => Ok(ConvertFormat::DisksimAscii),
            "csv" => Ok(ConvertFormat::Csv),
            _ => Err(HeadwayError::Unknown {
                kind: "output trace format",
                name: s.into(),
                known: vec!["disksim-ascii".into(), "csv".into()],
            }),
        }
    }
}

/// The output file, compressed if its name ends in `.gz`, `.zst` or `.xz`.
fn create_output(path: &Path) -> Result<Box<dyn Write>> {
    let io = |e| HeadwayError::io(path, e);
    let file = BufWriter::with_capacity(256 * 1024, File::create(path).map_err(io)?);
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    Ok(match ext.as_str() {
        "gz" => Box::new(flate2::write::GzEncoder::new(
            file,
            flate2::Compression::default(),
        )),
        "zst" => Box::new(
            zstd::stream::write::Encoder::new(file, 3)
                .map_err(io)?
                .auto_finish(),
        ),
        "xz" => Box::new(liblzma::write::XzEncoder::new(file, 6)),
        _ => Box::new(file),
    })
}

/// Convert the trace at `input` to `to` at `output`; returns the records written. Times are
/// written relative to the trace's first record (less a window's start).
pub fn convert(
    input: &Path,
    source: &TraceSource,
    output: &Path,
    to: ConvertFormat,
    opts: &FeedOptions,
) -> Result<u64> {
    let format = source.resolve(input)?;
    let source = TraceSource {
        format,
        ..source.clone()
    };
    let reader = open_source(input, &source)?;
    let mut feed = Feed::new(reader, opts.clone(), input.to_path_buf(), format);
    let mut out = create_output(output)?;
    let io = |e| HeadwayError::io(output, e);
    if to == ConvertFormat::Csv {
        writeln!(out, "{HEADWAY_CSV_HEADER}").map_err(io)?;
    }
    let mut n = 0;
    while let Some(r) = feed.next_record()? {
        match to {
            ConvertFormat::DisksimAscii => writeln!(
                out,
                "{}.{:06} {} {} {} {}",
                r.time_ns / 1_000_000,
                r.time_ns % 1_000_000,
                r.device,
                r.lbn,
                r.sectors,
                r.op.is_read() as u8
            ),
            ConvertFormat::Csv => writeln!(
                out,
                "{},{},{},{},{},{}",
                r.time_ns,
                r.device,
                r.lbn,
                r.sectors,
                if r.op.is_read() { "R" } else { "W" },
                r.process
            ),
        }
        .map_err(io)?;
        n += 1;
    }
    out.flush().map_err(io)?;
    drop(out);
    Ok(n)
}

/// Up to N records as columns, for analysis (Python turns them into Arrow or pandas).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceBatch {
    /// Since the trace's first record (less a window's start).
    pub time_ns: Vec<u64>,
    pub device: Vec<u16>,
    pub lbn: Vec<u64>,
    pub sectors: Vec<u32>,
    pub is_read: Vec<bool>,
    pub process: Vec<u32>,
    /// As the trace measured it, where it does.
    pub response_ns: Vec<Option<u64>>,
}

impl TraceBatch {
    pub fn len(&self) -> usize {
        self.time_ns.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_ns.is_empty()
    }
}

/// A trace read as successive [`TraceBatch`]es.
pub struct TraceBatches {
    feed: Feed<Box<dyn TraceReader + Send>>,
    batch_size: usize,
}

impl TraceBatches {
    pub fn open(
        path: &Path,
        source: &TraceSource,
        opts: &FeedOptions,
        batch_size: usize,
    ) -> Result<Self> {
        if batch_size == 0 {
            return Err(HeadwayError::config("batch_size", "must be at least 1"));
        }
        let format = source.resolve(path)?;
        let source = TraceSource {
            format,
            ..source.clone()
        };
        let reader = open_source(path, &source)?;
        Ok(TraceBatches {
            feed: Feed::new(reader, opts.clone(), PathBuf::from(path), format),
            batch_size,
        })
    }

    /// The next batch, `None` after the last.
    pub fn next_batch(&mut self) -> Result<Option<TraceBatch>> {
        let mut b = TraceBatch::default();
        while b.len() < self.batch_size {
            let Some(r) = self.feed.next_record()? else {
                break;
            };
            b.time_ns.push(r.time_ns);
            b.device.push(r.device);
            b.lbn.push(r.lbn);
            b.sectors.push(r.sectors);
            b.is_read.push(r.op.is_read());
            b.process.push(r.process);
            b.response_ns.push(r.response_ns);
        }
        Ok((!b.is_empty()).then_some(b))
    }

    pub fn process_name(&self, pid: u32) -> Option<&str> {
        self.feed.reader().process_name(pid)
    }

    pub fn report(&self) -> TraceReport {
        self.feed.report()
    }
}
