//! A zoned drive (ZBC/ZAC host-managed or host-aware) over any rotating drive: the LBA space
//! is divided into zones, the first `conventional_zones` taking writes anywhere and the rest
//! sequential with a write pointer each. A command that breaks a zone rule is refused: it
//! completes at once without touching the media and is counted by kind in the run's
//! `zoned` report (never silently served), its requests marked with the error. Zone
//! commands (reset, open, close, finish, zone append) arrive as requests carrying a
//! [`ZoneOp`](crate::request_marks::ZoneOp) and are also methods; a zone report is a method.

pub mod report;
mod spec;
mod zones;

use super::{Device, DeviceInfo, DeviceIo};
use crate::request::{Command, Op};
use crate::request_marks::ZoneOp;
use crate::time::SimTime;
pub use report::ZonedReport;
pub use spec::{ZonedKind, ZonedSpec};
use zones::Zones;
pub use zones::{Zone, ZoneCondition, ZoneError, ZoneType};

pub struct ZonedDevice {
    info: DeviceInfo,
    inner: Box<dyn Device>,
    spec: ZonedSpec,
    zones: Zones,
    report: ZonedReport,
    /// Zone resets under way: when each finishes and its command (the drive's bookkeeping
    /// only; the media stays free).
    resetting: Vec<(SimTime, Command)>,
}

/// The wake-up token of a zone reset finishing (the inner drive's tokens stay below it).
const RESET_DONE_TOKEN: u64 = u64::MAX;

impl ZonedDevice {
    /// `spec` must have been validated against `inner`'s capacity.
    pub fn new(inner: Box<dyn Device>, spec: ZonedSpec) -> Self {
        let mut info = inner.info().clone();
        info.name = format!("{}+zoned", info.name);
        let zones = Zones::new(&spec, info.capacity_sectors);
        let report = ZonedReport {
            zones: zones.report().len() as u64,
            conventional_zones: spec.conventional_zones,
            ..ZonedReport::default()
        };
        ZonedDevice {
            info,
            inner,
            spec,
            zones,
            report,
            resetting: Vec::new(),
        }
    }

    /// REPORT ZONES: every zone with its type, condition and write pointer.
    pub fn zones(&self) -> &[Zone] {
        self.zones.report()
    }

    fn zone_index(&self, lbn: u64) -> usize {
        (lbn / self.spec.zone_size_sectors) as usize
    }

    /// RESET WRITE POINTER of the zone holding `lbn`; the time the drive spends on it.
    pub fn reset_zone(&mut self, lbn: u64) -> SimTime {
        let i = self.zone_index(lbn);
        self.zones.reset(i);
        self.report.resets += 1;
        self.spec.zone_reset_ns()
    }

    /// OPEN ZONE (explicit) of the zone holding `lbn`.
    pub fn open_zone(&mut self, lbn: u64) -> Result<(), ZoneError> {
        let i = self.zone_index(lbn);
        self.zones.open(i).inspect_err(|e| self.report.count(*e))
    }

    /// CLOSE ZONE of the zone holding `lbn`.
    pub fn close_zone(&mut self, lbn: u64) {
        let i = self.zone_index(lbn);
        self.zones.close(i);
    }

    /// FINISH ZONE of the zone holding `lbn`.
    pub fn finish_zone(&mut self, lbn: u64) {
        let i = self.zone_index(lbn);
        self.zones.finish(i);
    }

    /// ZONE APPEND: write `cmd`'s sectors at the write pointer of the zone holding
    /// `cmd.lbn`; the drive picks the place and returns the LBN written (or the refusal).
    pub fn zone_append(
        &mut self,
        now: SimTime,
        mut cmd: Command,
        io: &mut DeviceIo,
    ) -> Result<u64, ZoneError> {
        let i = self.zone_index(cmd.lbn);
        match self.zones.append(i, cmd.sectors as u64) {
            Ok(lbn) => {
                cmd.lbn = lbn;
                // The completed request says where its sectors went.
                for r in cmd.requests.iter_mut() {
                    r.lbn = lbn;
                }
                self.report.appends += 1;
                self.inner.submit(now, cmd, io);
                Ok(lbn)
            }
            Err(e) => {
                self.report.count(e);
                Err(e)
            }
        }
    }

    /// The run's zone counts.
    pub fn report(&self) -> ZonedReport {
        ZonedReport {
            implicit_closes: self.zones.implicit_closes,
            ..self.report.clone()
        }
    }

    /// A zone command that arrived as a request: served, or refused with its error.
    fn zone_command(&mut self, now: SimTime, op: ZoneOp, mut cmd: Command, io: &mut DeviceIo) {
        let done = match op {
            ZoneOp::Append => match self.zone_append(now, cmd.clone(), io) {
                Ok(_) => return,
                Err(e) => Err(e),
            },
            ZoneOp::Reset => {
                let cost_ns = self.reset_zone(cmd.lbn);
                if cost_ns > 0 {
                    io.wake_at(now + cost_ns, RESET_DONE_TOKEN);
                    self.resetting.push((now + cost_ns, cmd));
                    return;
                }
                Ok(())
            }
            ZoneOp::Open => self.open_zone(cmd.lbn),
            ZoneOp::Close => {
                self.close_zone(cmd.lbn);
                Ok(())
            }
            ZoneOp::Finish => {
                self.finish_zone(cmd.lbn);
                Ok(())
            }
        };
        if let Err(e) = done {
            mark_refused(&mut cmd, e);
        }
        io.complete(super::completed_at_once(cmd, now));
    }

    fn check(&mut self, cmd: &Command) -> Result<(), ZoneError> {
        if cmd.sectors == 0 {
            return Ok(());
        }
        match cmd.op {
            Op::Read => self.zones.read(cmd.lbn, cmd.sectors as u64),
            Op::Write => self.zones.write(cmd.lbn, cmd.sectors as u64),
        }
    }
}

/// Mark every request of a refused command with the error, for the per-request records.
fn mark_refused(cmd: &mut Command, e: ZoneError) {
    for r in cmd.requests.iter_mut() {
        r.marks.set_error(Some(e));
    }
}

impl Device for ZonedDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now: SimTime, mut cmd: Command, io: &mut DeviceIo) {
        if let Some(op) = cmd.zone_op() {
            return self.zone_command(now, op, cmd, io);
        }
        match self.check(&cmd) {
            Ok(()) => self.inner.submit(now, cmd, io),
            Err(e) => {
                self.report.count(e);
                mark_refused(&mut cmd, e);
                io.complete(super::completed_at_once(cmd, now));
            }
        }
    }

    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo) {
        if token != RESET_DONE_TOKEN {
            return self.inner.wake(now, token, io);
        }
        let mut i = 0;
        while i < self.resetting.len() {
            if self.resetting[i].0 <= now {
                let (_, cmd) = self.resetting.swap_remove(i);
                let mut c = super::completed_at_once(cmd, now);
                c.phases.overhead_ns = self.spec.zone_reset_ns();
                c.phases.start_ns = now - c.phases.overhead_ns;
                io.complete(c);
            } else {
                i += 1;
            }
        }
    }

    fn outstanding(&self) -> usize {
        self.inner.outstanding() + self.resetting.len()
    }

    fn busy(&self) -> bool {
        self.inner.busy() || !self.resetting.is_empty()
    }

    fn energy(&mut self, now: SimTime) -> Option<super::power::meter::EnergyReport> {
        self.inner.energy(now)
    }

    fn zoned(&self) -> Option<ZonedReport> {
        Some(self.report())
    }

    fn report_zones(&self) -> Option<&[Zone]> {
        Some(self.zones.report())
    }
}
