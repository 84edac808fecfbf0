//! A dual-actuator drive as two devices, one per arm (as a SAS dual-actuator drive presents
//! two logical units): each device addresses its arm's half of the LBNs from 0 and has its
//! arm's queue, while the two share the spindle, the cache and the link through one
//! [`DualActuator`] (`dual.rs`).
//!
//! Every wake-up and completion of an arm is asked for during a call to that arm's device
//! (the shared drive collects only the arm it was called for), so the engine, which
//! routes wake-ups by device, never hears of one device's work through the other.

use std::cell::RefCell;
use std::rc::Rc;

use super::dual::DualActuator;
use super::spec::HddSpec;
use crate::device::{Device, DeviceInfo, DeviceIo};
use crate::error::Result;
use crate::request::Command;
use crate::time::SimTime;

/// One arm of a dual-actuator drive shared with the other arm's device.
pub struct DualHalf {
    arm: usize,
    info: DeviceInfo,
    drive: Rc<RefCell<DualActuator>>,
}

impl DualHalf {
    /// The two devices of the drive `spec` describes (`actuators = 2`), arm 0's first,
    /// each accepting `queue_depth` commands.
    pub fn pair(spec: &HddSpec, queue_depth: usize) -> Result<[DualHalf; 2]> {
        let drive = DualActuator::per_arm(spec, queue_depth)?;
        let base = drive.arm_info().clone();
        let drive = Rc::new(RefCell::new(drive));
        let half = |arm: usize| DualHalf {
            arm,
            info: DeviceInfo {
                name: format!("{}:arm{arm}", base.name),
                ..base.clone()
            },
            drive: drive.clone(),
        };
        Ok([half(0), half(1)])
    }
}

impl Device for DualHalf {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        self.drive
            .borrow_mut()
            .submit_to_arm(self.arm, now, cmd, io);
    }

    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo) {
        self.drive.borrow_mut().wake(now, token, io);
    }

    fn outstanding(&self) -> usize {
        self.drive.borrow().arm_outstanding(self.arm)
    }
}
