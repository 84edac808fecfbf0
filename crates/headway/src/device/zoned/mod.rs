//! A zoned drive (ZBC/ZAC host-managed or host-aware) over any rotating drive: the LBA space
//! is divided into zones, the first `conventional_zones` taking writes anywhere and the rest
//! sequential with a write pointer each. A command that breaks a zone rule is refused: it
//! completes at once without touching the media and is counted by kind in the run's
//! `zoned` report (never silently served). Zone management (report, open, close, finish,
//! reset) and zone append are methods.

mod report;
mod spec;
mod zones;

use super::{Device, DeviceInfo, DeviceIo};
use crate::request::{Command, Op};
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
}

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

impl Device for ZonedDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        match self.check(&cmd) {
            Ok(()) => self.inner.submit(now, cmd, io),
            Err(e) => {
                self.report.count(e);
                io.complete(super::completed_at_once(cmd, now));
            }
        }
    }

    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo) {
        self.inner.wake(now, token, io);
    }

    fn outstanding(&self) -> usize {
        self.inner.outstanding()
    }

    fn busy(&self) -> bool {
        self.inner.busy()
    }

    fn energy(&mut self, now: SimTime) -> Option<super::power::EnergyReport> {
        self.inner.energy(now)
    }

    fn zoned(&self) -> Option<ZonedReport> {
        Some(self.report())
    }
}
