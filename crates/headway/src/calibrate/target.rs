//! What calibration times: a drive, device or file that answers one command at a time
//! against one clock.

use crate::error::Result;
use crate::request::Op;
use crate::time::SimTime;

/// Something calibration can time: one command at a time, against one clock (ns).
pub trait ProbeTarget {
    /// The drive's size (READ CAPACITY), in 512-byte sectors.
    fn capacity_sectors(&self) -> u64;
    /// The host's clock.
    fn now(&self) -> SimTime;
    /// Let the clock run to `t` with nothing issued.
    fn wait_until(&mut self, t: SimTime);
    /// Issue one command now (in range: the probe checks) and wait for it; returns the
    /// clock at its completion.
    fn access(&mut self, op: Op, lbn: u64, sectors: u32) -> Result<SimTime>;
}
