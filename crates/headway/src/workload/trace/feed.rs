//! Between a reader and a replay: the checks, filters and fitting every replay mode and the
//! stats tool share, applied one record at a time.
//!
//! Order per record: lenient handling of a malformed record, time order, the time window,
//! device selection, the op filter, `limit`, then fitting to the drive. Times come out
//! relative to the trace's first record, less the window's start: a replay starts at 0
//! whatever the trace's epoch (MSR timestamps count from 1601).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::report::TraceReport;
use super::TraceConfig;
use super::{with_reader, TraceFormat, TraceReader, TraceRecord, TraceSource, UseReader};
use crate::error::{HeadwayError, Result};
use crate::request::Op;

/// What to do with a request that lies past the end of the drive.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Fit {
    /// Refuse the trace, naming the request and both sizes.
    #[default]
    Fail,
    /// Start sector modulo the drive's capacity (moved back if it would then run off the
    /// end).
    Wrap,
    /// Every start sector scaled by capacity / the trace's volume size (the highest sector
    /// the trace addresses, found by a first pass, or `volume_sectors`).
    Scale,
    /// Drop requests that start past the end; shorten those that run past it.
    Truncate,
}

impl Fit {
    pub fn name(self) -> &'static str {
        match self {
            Fit::Fail => "fail",
            Fit::Wrap => "wrap",
            Fit::Scale => "scale",
            Fit::Truncate => "truncate",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        [Fit::Fail, Fit::Wrap, Fit::Scale, Fit::Truncate]
            .into_iter()
            .find(|f| f.name() == s)
    }
}

/// Which of a trace's devices are replayed (all onto the one simulated drive).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceSelect {
    /// The trace must have one device; a second one is an error asking the user to choose.
    #[default]
    Single,
    /// Only this device.
    One(u16),
    /// These devices, merged.
    Set(Vec<u16>),
    /// Every device, merged.
    Merge,
}

/// The feed's settings (from a trace workload's config, or the stats tool's options).
#[derive(Clone, Debug, PartialEq)]
pub struct FeedOptions {
    pub devices: DeviceSelect,
    pub op: Option<Op>,
    /// Window start, relative to the trace's first record.
    pub start_ns: u64,
    /// Window end (exclusive), relative to the trace's first record.
    pub end_ns: Option<u64>,
    pub limit: Option<u64>,
    pub fit: Fit,
    /// The drive's size; `u64::MAX` for no capacity check (stats).
    pub capacity_sectors: u64,
    /// The trace's address space for `fit = scale`.
    pub volume_sectors: Option<u64>,
    pub skip_bad: bool,
}

impl Default for FeedOptions {
    fn default() -> Self {
        FeedOptions {
            devices: DeviceSelect::Merge,
            op: None,
            start_ns: 0,
            end_ns: None,
            limit: None,
            fit: Fit::Fail,
            capacity_sectors: u64::MAX,
            volume_sectors: None,
            skip_bad: false,
        }
    }
}

fn s_to_ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

impl FeedOptions {
    pub(crate) fn from_config(cfg: &TraceConfig, capacity_sectors: u64) -> Self {
        let devices = if cfg.merge_devices {
            DeviceSelect::Merge
        } else if let Some(v) = &cfg.devices {
            DeviceSelect::Set(v.clone())
        } else if let Some(d) = cfg.device {
            DeviceSelect::One(d)
        } else {
            DeviceSelect::Single
        };
        FeedOptions {
            devices,
            op: cfg.op,
            start_ns: cfg.start_s.map(s_to_ns).unwrap_or(0),
            end_ns: cfg.end_s.map(s_to_ns),
            limit: cfg.limit,
            fit: cfg.fit,
            capacity_sectors,
            volume_sectors: cfg.volume_sectors,
            skip_bad: cfg.skip_bad,
        }
    }
}

/// A reader with the shared checks applied; [`Feed::next`] yields what is to be replayed.
pub struct Feed<R> {
    reader: R,
    opts: FeedOptions,
    path: PathBuf,
    report: TraceReport,
    first_ns: Option<u64>,
    last_ns: u64,
    left: u64,
    seen_device: Option<u16>,
    done: bool,
}

impl<R: TraceReader> Feed<R> {
    pub fn new(reader: R, opts: FeedOptions, path: PathBuf, format: TraceFormat) -> Self {
        let report = TraceReport {
            path: path.display().to_string(),
            format: format.name().into(),
            fit: opts.fit.name().into(),
            ..Default::default()
        };
        Feed {
            reader,
            left: opts.limit.unwrap_or(u64::MAX),
            opts,
            path,
            report,
            first_ns: None,
            last_ns: 0,
            seen_device: None,
            done: false,
        }
    }

    pub fn report(&self) -> TraceReport {
        let mut r = self.report.clone();
        r.skipped_by_reader = self.reader.skipped();
        r
    }

    pub(crate) fn reader(&self) -> &R {
        &self.reader
    }

    fn error(&self, msg: String) -> HeadwayError {
        HeadwayError::trace(Some(self.path.clone()), Some(self.reader.line()), msg)
    }

    /// A bad record: an error in strict mode, counted in lenient mode.
    #[cold]
    fn bad(&mut self, msg: String) -> Result<()> {
        if self.opts.skip_bad {
            self.report.bad(self.reader.line(), &msg);
            Ok(())
        } else {
            Err(self.error(msg))
        }
    }

    /// The next record to replay, its time relative to the window's start. (Inlined into
    /// the replay, so that the record is not copied out through two returned results.)
    #[inline(always)]
    pub(crate) fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        while self.left > 0 && !self.done {
            let mut rec = match self.reader.next_record() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(e) => {
                    if self.opts.skip_bad && self.reader.can_continue() {
                        let msg = match &e {
                            HeadwayError::Trace { msg, .. } => msg.clone(),
                            other => other.to_string(),
                        };
                        self.report.bad(self.reader.line(), &msg);
                        continue;
                    }
                    return Err(e);
                }
            };
            let first = *self.first_ns.get_or_insert(rec.time_ns);
            if rec.time_ns < self.last_ns {
                let msg = format!(
                    "time goes backwards: {} ms after {} ms (a trace must be sorted by time)",
                    (rec.time_ns as f64 - first as f64) / 1e6,
                    (self.last_ns - first) as f64 / 1e6
                );
                self.bad(msg)?;
                continue;
            }
            self.last_ns = rec.time_ns;
            self.report.records_read += 1;
            let end = rec.lbn.saturating_add(rec.sectors as u64);
            self.report.max_end_sector = self.report.max_end_sector.max(end);
            let rel = rec.time_ns - first;
            if rel < self.opts.start_ns {
                self.report.filtered += 1;
                continue;
            }
            if self.opts.end_ns.is_some_and(|e| rel >= e) {
                // Sorted by time: nothing later is in the window.
                self.done = true;
                break;
            }
            // The common cases are decided here; the calls decide the rest (and report).
            let wanted = match self.opts.devices {
                DeviceSelect::Merge => true,
                DeviceSelect::Single if self.seen_device == Some(rec.device) => true,
                _ => self.device_wanted(rec.device)?,
            };
            if !wanted || self.opts.op.is_some_and(|op| op != rec.op) {
                self.report.filtered += 1;
                continue;
            }
            let cap = self.opts.capacity_sectors;
            let inside = self.opts.fit != Fit::Scale
                && rec
                    .lbn
                    .checked_add(rec.sectors as u64)
                    .is_some_and(|end| end <= cap);
            if cap != u64::MAX && !inside && !self.fit(&mut rec)? {
                continue;
            }
            rec.time_ns = rel - self.opts.start_ns;
            self.left -= 1;
            self.report.replayed += 1;
            return Ok(Some(rec));
        }
        Ok(None)
    }

    #[inline]
    fn device_wanted(&mut self, device: u16) -> Result<bool> {
        Ok(match &self.opts.devices {
            DeviceSelect::Merge => true,
            DeviceSelect::One(d) => *d == device,
            DeviceSelect::Set(v) => v.contains(&device),
            DeviceSelect::Single => match self.seen_device {
                None => {
                    self.seen_device = Some(device);
                    true
                }
                Some(d) if d == device => true,
                Some(d) => {
                    return Err(self.error(format!(
                        "the trace has records for device {d} and device {device}: choose one with device = N (--device), several with devices = [..], or replay all onto the drive with merge_devices = true (--merge-devices)"
                    )))
                }
            },
        })
    }

    /// Place `rec` on the drive per `fit`; `false` if it is not to be replayed.
    #[inline]
    fn fit(&mut self, rec: &mut TraceRecord) -> Result<bool> {
        let cap = self.opts.capacity_sectors;
        let n = rec.sectors as u64;
        if n > cap {
            self.bad(format!(
                "a request of {n} sectors is larger than the whole drive ({cap} sectors)"
            ))?;
            return Ok(false);
        }
        let end = rec.lbn.checked_add(n);
        if self.opts.fit == Fit::Scale {
            let volume = self.opts.volume_sectors.unwrap_or(cap).max(1);
            let scaled = (rec.lbn as u128 * cap as u128 / volume as u128) as u64;
            let lbn = scaled.min(cap - n);
            if lbn != rec.lbn {
                self.report.fitted += 1;
                rec.lbn = lbn;
            }
            return Ok(true);
        }
        if end.is_some_and(|e| e <= cap) {
            return Ok(true);
        }
        match self.opts.fit {
            Fit::Wrap => {
                rec.lbn %= cap;
                rec.lbn = rec.lbn.min(cap - n);
                self.report.fitted += 1;
                Ok(true)
            }
            Fit::Truncate => {
                if rec.lbn >= cap {
                    self.report.dropped_by_fit += 1;
                    Ok(false)
                } else {
                    rec.sectors = (cap - rec.lbn) as u32;
                    self.report.fitted += 1;
                    Ok(true)
                }
            }
            Fit::Fail if self.opts.skip_bad => {
                self.bad(format!(
                    "request at sector {} of {n} sectors runs past the end of the drive ({cap} sectors)",
                    rec.lbn
                ))?;
                Ok(false)
            }
            Fit::Fail | Fit::Scale => Err(self.beyond_capacity(rec)),
        }
    }

    /// The strict-mode error for a request past the drive's end. It reads the rest of the
    /// trace first, so that it can give the trace's size beside the drive's.
    #[cold]
    fn beyond_capacity(&mut self, rec: &TraceRecord) -> HeadwayError {
        let line = self.reader.line();
        let cap = self.opts.capacity_sectors;
        let mut max_end = rec.lbn.saturating_add(rec.sectors as u64);
        loop {
            match self.reader.next_record() {
                Ok(Some(r)) => {
                    if self.device_selected_quietly(r.device) {
                        max_end = max_end.max(r.lbn.saturating_add(r.sectors as u64));
                    }
                }
                Ok(None) => break,
                Err(_) if self.reader.can_continue() => {}
                Err(_) => break,
            }
        }
        max_end = max_end.max(self.report.max_end_sector);
        HeadwayError::trace(
            Some(self.path.clone()),
            Some(line),
            format!(
                "request at sector {} of {} sectors runs past the end of the drive: the drive has {cap} sectors ({}), the trace addresses {max_end} sectors ({}); replay it with fit = \"wrap\", \"scale\" or \"truncate\" (--fit), or on a larger drive",
                rec.lbn,
                rec.sectors,
                human_bytes(cap),
                human_bytes(max_end)
            ),
        )
    }

    fn device_selected_quietly(&self, device: u16) -> bool {
        match &self.opts.devices {
            DeviceSelect::Merge | DeviceSelect::Single => true,
            DeviceSelect::One(d) => *d == device,
            DeviceSelect::Set(v) => v.contains(&device),
        }
    }
}

/// Sectors as decimal gigabytes, for messages.
pub(crate) fn human_bytes(sectors: u64) -> String {
    format!("{:.2} GB", sectors as f64 * 512.0 / 1e9)
}

/// The trace's address space for `fit = scale`: one past the highest sector any selected
/// record addresses (a first pass over the file, in bounded memory).
pub(crate) fn scan_volume(path: &Path, source: &TraceSource, opts: &FeedOptions) -> Result<u64> {
    struct Scan<'a> {
        opts: FeedOptions,
        path: &'a Path,
        format: TraceFormat,
    }
    impl UseReader for Scan<'_> {
        type Out = Result<u64>;
        fn with<R: TraceReader + Send + 'static>(self, reader: R) -> Self::Out {
            let mut feed = Feed::new(reader, self.opts, self.path.to_path_buf(), self.format);
            let mut max_end = 0;
            while let Some(r) = feed.next_record()? {
                max_end = max_end.max(r.lbn + r.sectors as u64);
            }
            Ok(max_end)
        }
    }
    let scan_opts = FeedOptions {
        capacity_sectors: u64::MAX,
        limit: None,
        ..opts.clone()
    };
    let format = source.resolve(path)?;
    with_reader(
        path,
        source,
        Scan {
            opts: scan_opts,
            path,
            format,
        },
    )?
}
