//! Devices: the truth about timing. A device accepts commands, works on them in simulated
//! time, and reports completions. Schedulers never see a device, only a predictor.

mod bus_tenant;
pub mod catalog;
pub mod disksim;
pub mod flash;
pub mod hdd;
pub mod hybrid;
pub mod imperfect;
mod kind;
pub mod power;
pub mod smr;
pub mod zoned;

pub use bus_tenant::{BusTenant, ReadData};
pub use kind::DeviceKind;

use crate::request::{Command, Completion};
use crate::time::SimTime;

/// What a device asks of the engine while handling a call: wake me at a time (with a token I
/// chose), and these commands are finished now. Reused across calls so the hot path does not
/// allocate.
#[derive(Default, Debug)]
pub struct DeviceIo {
    pub wakeups: Vec<(SimTime, u64)>,
    pub completions: Vec<Completion>,
}

impl DeviceIo {
    #[inline]
    pub(crate) fn wake_at(&mut self, at: SimTime, token: u64) {
        self.wakeups.push((at, token));
    }
    #[inline]
    pub(crate) fn complete(&mut self, c: Completion) {
        self.completions.push(c);
    }
}

/// The completion of a command finished the moment it arrived, without media access (a
/// command with nothing to do, or one a zoned drive refuses).
pub(crate) fn completed_at_once(command: Command, now: SimTime) -> Completion {
    Completion {
        command,
        done_ns: now,
        phases: crate::request::Phases {
            start_ns: now,
            ..Default::default()
        },
        cache_hit: false,
        head: Default::default(),
        head_lbn: 0,
    }
}

/// Static facts about a device, for the host, the CLI and the stats.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub name: String,
    pub capacity_sectors: u64,
    /// Commands the device accepts at once (its firmware queue, including the one in service).
    pub queue_depth: usize,
}

/// A simulated storage device.
pub trait Device {
    fn info(&self) -> &DeviceInfo;
    /// Accept a command at `now`. The host never submits more than `info().queue_depth`
    /// outstanding commands.
    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo);
    /// A wake-up the device asked for has fired.
    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo);
    /// Commands accepted and not yet completed.
    fn outstanding(&self) -> usize;
    /// True while the mechanism (or flash channel) is doing work; drives utilisation.
    fn busy(&self) -> bool {
        self.outstanding() > 0
    }
    /// Time and energy per power state up to `now`, for a device with power states
    /// (`power` on a `[[devices]]` entry); `None` otherwise.
    fn energy(&mut self, _now: SimTime) -> Option<power::EnergyReport> {
        None
    }
    /// What a drive with `firmware_freeblock` read for free; `None` otherwise.
    fn firmware_free(&self) -> Option<hdd::FirmwareFreeReport> {
        None
    }
    /// What a drive-managed SMR drive's media cache and cleaning did; `None` otherwise.
    fn smr(&self) -> Option<smr::report::SmrReport> {
        None
    }
    /// What a zoned drive refused and did; `None` otherwise.
    fn zoned(&self) -> Option<zoned::report::ZonedReport> {
        None
    }
    /// A device whose reads return their data over a bus it shares (a disk drive); `None`
    /// for one whose data never waits for such a bus.
    fn bus_tenant(&mut self) -> Option<&mut dyn BusTenant> {
        None
    }
    /// REPORT ZONES of a zoned drive (each zone's type, condition and write pointer now);
    /// `None` for a drive without zones.
    fn report_zones(&self) -> Option<&[zoned::Zone]> {
        None
    }
}
