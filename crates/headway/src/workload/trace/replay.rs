//! Open-loop replay of a trace at its timestamps, reading one record ahead of the clock.

use std::path::PathBuf;

use super::{TraceReader, TraceRecord};
use crate::error::{HeadwayError, Result};
use crate::request::{DeviceId, Request};
use crate::time::SimTime;
use crate::workload::config::TraceConfig;
use crate::workload::{Arrivals, Workload};

/// Replays the records of `R` as requests to the simulated drive (device 0).
///
/// The checks every format needs live here rather than in each reader: timestamps must not
/// decrease (the engine cannot schedule into the past), and each request must fit the drive.
/// Both name the trace line, which the engine could not.
pub struct TraceWorkload<R> {
    reader: R,
    path: PathBuf,
    capacity_sectors: u64,
    /// Requests still to replay (`u64::MAX` without a limit).
    left: u64,
    device: Option<DeviceId>,
    /// `None` at speed 1, so the common case skips the float round trip.
    time_scale: Option<f64>,
    last_time_ns: SimTime,
}

impl<R: TraceReader> TraceWorkload<R> {
    /// `path` names the trace in errors found after parsing.
    pub fn new(reader: R, cfg: &TraceConfig, capacity_sectors: u64, path: PathBuf) -> Result<Self> {
        cfg.validate()?;
        Ok(TraceWorkload {
            reader,
            path,
            capacity_sectors,
            left: cfg.limit.unwrap_or(u64::MAX),
            device: cfg.device,
            time_scale: (cfg.speed != 1.0).then(|| 1.0 / cfg.speed),
            last_time_ns: 0,
        })
    }

    fn error(&self, msg: String) -> HeadwayError {
        HeadwayError::trace(Some(self.path.clone()), Some(self.reader.line()), msg)
    }

    #[inline]
    fn next(&mut self, out: &mut Arrivals) -> Result<()> {
        while self.left > 0 {
            let Some(rec) = self.reader.next_record()? else {
                return Ok(());
            };
            if rec.time_ns < self.last_time_ns {
                return Err(self.error(format!(
                    "time goes backwards: {} ms after {} ms (a trace must be sorted by time)",
                    rec.time_ns as f64 / 1e6,
                    self.last_time_ns as f64 / 1e6
                )));
            }
            self.last_time_ns = rec.time_ns;
            if self.device.is_some_and(|d| d != rec.device) {
                continue;
            }
            self.check_fits(&rec)?;
            self.left -= 1;
            let at = match self.time_scale {
                None => rec.time_ns,
                Some(k) => (rec.time_ns as f64 * k).round() as SimTime,
            };
            let mut req = Request::new(at, rec.lbn, rec.sectors, rec.op);
            req.process = rec.process;
            out.push(req);
            return Ok(());
        }
        Ok(())
    }

    #[inline]
    fn check_fits(&self, rec: &TraceRecord) -> Result<()> {
        match rec.lbn.checked_add(rec.sectors as u64) {
            Some(end) if end <= self.capacity_sectors => Ok(()),
            _ => Err(self.error(format!(
                "request at sector {} of {} sectors runs past the end of the drive ({} sectors)",
                rec.lbn, rec.sectors, self.capacity_sectors
            ))),
        }
    }
}

impl<R: TraceReader> Workload for TraceWorkload<R> {
    fn name(&self) -> &str {
        "trace"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        self.next(out)
    }
    fn on_arrival(&mut self, _req: &Request, out: &mut Arrivals) -> Result<()> {
        self.next(out)
    }
    fn on_completion(&mut self, _req: &Request, _now: SimTime, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
}
