//! Power states for rotating drives: active, idle, standby (spun down) and spinning up,
//! with spin-down after an idle timeout and requests to a spun-down drive waiting for the
//! spin-up. `Powered` wraps any `Device`; a device not wrapped is exactly as before.

pub mod meter;
pub mod spec;

pub use meter::{EnergyReport, EnergySummary, PowerMeter, PowerState};
pub use spec::PowerSpec;

use super::{Device, DeviceInfo, DeviceIo};
use crate::error::Result;
use crate::request::Command;
use crate::time::SimTime;

/// The wake-up token of a finished spin-up; the wrapped drive's own tokens pass through.
const SPUN_UP: u64 = u64::MAX;

pub struct Powered {
    inner: Box<dyn Device>,
    meter: PowerMeter,
    /// Commands waiting for a spin-up.
    waiting: Vec<Command>,
}

impl Powered {
    pub fn new(inner: impl Device + 'static, spec: PowerSpec) -> Result<Self> {
        Self::boxed(Box::new(inner), spec)
    }

    pub(crate) fn boxed(inner: Box<dyn Device>, spec: PowerSpec) -> Result<Self> {
        spec.validate()?;
        Ok(Powered {
            inner,
            meter: PowerMeter::new(spec, 0),
            waiting: Vec::new(),
        })
    }

    /// Time and energy per state up to `now`.
    pub fn energy(&mut self, now: SimTime) -> EnergyReport {
        self.meter.report(now)
    }

    pub fn state_at(&mut self, now: SimTime) -> PowerState {
        self.meter.state_at(now)
    }

    fn note_busy(&mut self, now: SimTime) {
        let busy = self.inner.outstanding() > 0;
        self.meter.set_busy(now, busy);
    }
}

impl Device for Powered {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        let ready = self.meter.arrive(now);
        if ready > now {
            if self.waiting.is_empty() {
                io.wake_at(ready, SPUN_UP);
            }
            self.waiting.push(cmd);
            return;
        }
        self.meter.set_busy(now, true);
        self.inner.submit(now, cmd, io);
        self.note_busy(now);
    }

    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo) {
        if token == SPUN_UP {
            self.meter.spun_up(now);
            let cmds = std::mem::take(&mut self.waiting);
            if !cmds.is_empty() {
                self.meter.set_busy(now, true);
            }
            for cmd in cmds {
                self.inner.submit(now, cmd, io);
            }
        } else {
            self.inner.wake(now, token, io);
        }
        self.note_busy(now);
    }

    fn outstanding(&self) -> usize {
        self.inner.outstanding() + self.waiting.len()
    }

    fn busy(&self) -> bool {
        self.inner.busy()
    }

    fn energy(&mut self, now: SimTime) -> Option<EnergyReport> {
        Some(self.meter.report(now))
    }

    fn smr(&self) -> Option<crate::device::smr::report::SmrReport> {
        self.inner.smr()
    }

    fn zoned(&self) -> Option<crate::device::zoned::report::ZonedReport> {
        self.inner.zoned()
    }

    fn report_zones(&self) -> Option<&[crate::device::zoned::Zone]> {
        self.inner.report_zones()
    }
}
