//! A simulated drive as calibration's target: commands go to a [`Device`] through the same
//! link latencies the simulated host sees, and the clock is simulated time. The target owns
//! the device and runs its wake-ups itself; everything else the device reports (phases, head
//! position, cache hits) is dropped unread.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::target::ProbeTarget;
use crate::device::{Device, DeviceIo};
use crate::error::{HeadwayError, Result};
use crate::link::Link;
use crate::request::{Command, Op, Request};
use crate::time::SimTime;

pub(crate) struct SimulatedTarget {
    device: Box<dyn Device>,
    link: Link,
    io: DeviceIo,
    /// The host's clock.
    now: SimTime,
    /// Pending device wake-ups: (time, insertion order, token).
    wakeups: BinaryHeap<Reverse<(SimTime, u64, u64)>>,
    seq: u64,
    capacity: u64,
}

/// More simulated time than any calibration needs; a device that never completes is a bug.
const TIMEOUT_NS: SimTime = 3_600_000_000_000;

impl SimulatedTarget {
    /// `link` adds the same command and completion latencies the simulated host sees, so
    /// that what is calibrated here is what the host will experience.
    pub(crate) fn new(device: Box<dyn Device>, link: Link) -> Self {
        let capacity = device.info().capacity_sectors;
        SimulatedTarget {
            device,
            link,
            io: DeviceIo::default(),
            now: 0,
            wakeups: BinaryHeap::new(),
            seq: 0,
            capacity,
        }
    }

    fn drain(&mut self) {
        for (at, token) in self.io.wakeups.drain(..) {
            self.seq += 1;
            self.wakeups.push(Reverse((at, self.seq, token)));
        }
    }

    /// Run the device's own activity up to `t` (it may have internal work while idle).
    fn run_device_until(&mut self, t: SimTime) {
        while let Some(&Reverse((at, _, token))) = self.wakeups.peek() {
            if at > t {
                break;
            }
            self.wakeups.pop();
            self.device.wake(at, token, &mut self.io);
            self.drain();
            // Completions of commands issued by nobody cannot happen; drop defensively.
            self.io.completions.clear();
        }
    }
}

impl ProbeTarget for SimulatedTarget {
    fn capacity_sectors(&self) -> u64 {
        self.capacity
    }

    fn now(&self) -> SimTime {
        self.now
    }

    fn wait_until(&mut self, t: SimTime) {
        if t > self.now {
            self.run_device_until(t);
            self.now = t;
        }
    }

    fn access(&mut self, op: Op, lbn: u64, sectors: u32) -> Result<SimTime> {
        let deliver = self.now + self.link.command_ns;
        self.run_device_until(deliver);
        let mut cmd = Command::single(Request::new(self.now, lbn, sectors, op));
        cmd.dispatch_ns = self.now;
        self.device.submit(deliver, cmd, &mut self.io);
        self.drain();
        loop {
            if let Some(c) = self.io.completions.pop() {
                self.io.completions.clear();
                self.now = c.done_ns + self.link.completion_ns;
                return Ok(self.now);
            }
            let Some(Reverse((at, _, token))) = self.wakeups.pop() else {
                return Err(HeadwayError::Invariant(
                    "calibration probe: the device stopped without completing the command".into(),
                ));
            };
            if at > deliver + TIMEOUT_NS {
                return Err(HeadwayError::Invariant(
                    "calibration probe: a command took over an hour".into(),
                ));
            }
            self.device.wake(at, token, &mut self.io);
            self.drain();
        }
    }
}
