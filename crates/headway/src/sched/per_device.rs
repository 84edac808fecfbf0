//! One scheduler per device. The built-in schedulers each order one device's queue (an arm
//! position, a predicted end); in a run with several devices the host gives every device
//! its own copy of the configured scheduler stack and this splitter routes arrivals and
//! completions by device. Devices do not compete for a slot, so every device's proposal is
//! taken in turn; a device that wants to wait does not hold up another's dispatch.

use super::{Decision, FreeReads, Hints, Placement, SchedCtx, Scheduler};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Completion, Request};
use crate::time::SimTime;

pub struct PerDevice {
    name: String,
    stacks: Vec<Box<dyn Scheduler>>,
}

impl PerDevice {
    /// `stacks[d]` schedules device `d`.
    pub fn new(stacks: Vec<Box<dyn Scheduler>>) -> Self {
        let name = stacks
            .first()
            .map(|s| s.name().to_string())
            .unwrap_or_default();
        PerDevice { name, stacks }
    }

    fn stack(&mut self, dev: u16) -> Result<&mut Box<dyn Scheduler>> {
        let n = self.stacks.len();
        self.stacks.get_mut(dev as usize).ok_or_else(|| {
            HeadwayError::Invariant(format!(
                "a request for device {dev} reached a host with {n} device schedulers"
            ))
        })
    }
}

impl Scheduler for PerDevice {
    fn name(&self) -> &str {
        &self.name
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        match self.stack(req.device) {
            Ok(s) => s.on_arrival(req, ctx),
            Err(e) => ctx.fail(e),
        }
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        match self.stack(done.command.device) {
            Ok(s) => s.on_completion(done, ctx),
            Err(e) => ctx.fail(e),
        }
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        for s in &mut self.stacks {
            s.on_timer(ctx);
        }
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let mut wait: Option<SimTime> = None;
        for s in &mut self.stacks {
            match s.propose(ctx) {
                Decision::Idle => {}
                Decision::WaitUntil(t) => wait = Some(wait.map_or(t, |w| w.min(t))),
                d => return d,
            }
        }
        wait.map_or(Decision::Idle, Decision::WaitUntil)
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        self.stack(cmd.device)?.commit(cmd, placement, ctx)
    }
    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        if let Ok(s) = self.stack(cmd.device) {
            s.declined(cmd, ctx);
        }
    }
    fn hints(&self) -> Hints {
        Hints {
            acts_only_with_a_free_slot: self
                .stacks
                .iter()
                .all(|s| s.hints().acts_only_with_a_free_slot),
            ..Hints::ASK_ALWAYS
        }
    }
    fn pending(&self) -> usize {
        self.stacks.iter().map(|s| s.pending()).sum()
    }
    fn take_failure(&mut self) -> Option<HeadwayError> {
        self.stacks.iter_mut().find_map(|s| s.take_failure())
    }
    fn free_reads(&mut self, device: crate::request::DeviceId) -> Option<&mut dyn FreeReads> {
        self.stacks.get_mut(device as usize)?.free_reads(device)
    }
}
