//! The only window calibration has onto a drive: issue one command at a time and read a
//! clock when it completes, exactly as a program timing SCSI commands against real hardware
//! would. What answers is a [`ProbeTarget`]: a simulated drive
//! ([`super::simulated_target::SimulatedTarget`]) or a block device or file timed with a
//! monotonic clock ([`super::block_target::BlockTarget`]).

use crate::device::Device;
use crate::error::{HeadwayError, Result};
use crate::link::Link;
use crate::request::Op;
use crate::time::SimTime;

use super::simulated_target::SimulatedTarget;
use super::target::ProbeTarget;

pub struct Probe {
    target: Box<dyn ProbeTarget>,
    capacity: u64,
    /// Commands issued so far (what a calibration costs).
    pub commands: u64,
}

impl Probe {
    /// A simulated drive behind `link`: the same command and completion latencies the
    /// simulated host sees, so that what is calibrated here is what the host will experience.
    pub fn new(device: Box<dyn Device>, link: Link) -> Self {
        Probe::of(Box::new(SimulatedTarget::new(device, link)))
    }

    /// Any target.
    pub fn of(target: Box<dyn ProbeTarget>) -> Self {
        let capacity = target.capacity_sectors();
        Probe {
            target,
            capacity,
            commands: 0,
        }
    }

    /// The host's clock.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.target.now()
    }

    /// The drive's size (READ CAPACITY).
    pub(crate) fn capacity_sectors(&self) -> u64 {
        self.capacity
    }

    /// Let the host clock run to `t` with nothing issued.
    pub fn wait_until(&mut self, t: SimTime) {
        self.target.wait_until(t)
    }

    /// Issue one command now and wait for it; returns the host's completion timestamp.
    pub fn access(&mut self, op: Op, lbn: u64, sectors: u32) -> Result<SimTime> {
        if sectors == 0 || lbn + sectors as u64 > self.capacity {
            return Err(HeadwayError::Invariant(format!(
                "calibration probe asked for {sectors} sectors at {lbn} on a drive of {} sectors",
                self.capacity
            )));
        }
        self.commands += 1;
        self.target.access(op, lbn, sectors)
    }

    /// A one-sector write, issued now; returns the completion timestamp.
    #[inline]
    pub fn write(&mut self, lbn: u64) -> Result<SimTime> {
        self.access(Op::Write, lbn, 1)
    }
}
