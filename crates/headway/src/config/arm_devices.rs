//! `actuator = 0` / `actuator = 1` in `[[devices]]` entries: a dual-actuator drive as two
//! devices, one per arm (docs/dual-actuator.md). Entries naming the same drive pair up in
//! order: an entry for one arm takes the other arm of the drive an earlier entry opened, if
//! that arm is still waiting, and otherwise opens a new drive.

use crate::device::hdd::dual_halves::DualHalf;
use crate::device::hdd::HddSpec;
use crate::error::{HeadwayError, Result};

/// The arms opened by one entry and not yet taken by another.
#[derive(Default)]
pub(crate) struct ArmDevices {
    /// (drive name, arm, queue depth, the waiting arm's device).
    waiting: Vec<(String, usize, usize, DualHalf)>,
}

impl ArmDevices {
    /// The device of arm `arm` of a dual-actuator drive `drive` (`spec`) with `depth`
    /// commands per arm; `table` names the entry in errors.
    pub(crate) fn take(
        &mut self,
        drive: &str,
        spec: &HddSpec,
        arm: usize,
        depth: usize,
        table: &str,
    ) -> Result<DualHalf> {
        if let Some(i) = self.waiting.iter().position(|w| w.0 == drive && w.1 == arm) {
            let (_, _, other_depth, half) = self.waiting.remove(i);
            if other_depth != depth {
                return Err(HeadwayError::config(
                    format!("{table}.queue_depth"),
                    format!(
                        "the two arms of one drive take the same queue depth: the other arm's \
                         entry has {other_depth}, this one {depth}"
                    ),
                ));
            }
            return Ok(half);
        }
        let [a0, a1] = DualHalf::pair(spec, depth).map_err(|e| e.under(table))?;
        let (mine, other) = if arm == 0 { (a0, a1) } else { (a1, a0) };
        self.waiting
            .push((drive.to_string(), 1 - arm, depth, other));
        Ok(mine)
    }
}
