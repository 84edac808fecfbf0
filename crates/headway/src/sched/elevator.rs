//! The shared machinery of the cylinder-ordered schedulers (SSTF, SCAN, LOOK, C-SCAN,
//! C-LOOK): a queue keyed by (cylinder, id), the host's idea of where the arm is (the
//! cylinder of the last command dispatched), and a [`Policy`] that picks what comes next.
//! Each scheduler's file holds only its policy.

use super::sweep::{CylQueue, Key};
use super::{Decision, SchedCtx, Scheduler};
use crate::request::{Command, DeviceId, Op, Request};

/// What a policy wants next.
pub(crate) enum Pick {
    /// Serve this queued request.
    Request(Key),
    /// Move the arm to this cylinder without serving anything (SCAN's travel to the edge),
    /// using an LBN that lies on it.
    Seek { cylinder: u32, lbn: u64 },
}

/// A rule for choosing the next request given the arm's cylinder. Called only with a
/// non-empty queue.
pub(crate) trait Policy: Default {
    const NAME: &'static str;
    fn pick(&mut self, queue: &CylQueue, pos: u32, ctx: &SchedCtx, dev: DeviceId) -> Pick;
}

/// A cylinder-ordered scheduler with policy `P`.
pub struct Elevator<P> {
    queue: CylQueue,
    pos: Option<u32>,
    device: DeviceId,
    policy: P,
}

#[allow(private_bounds)]
impl<P: Policy> Elevator<P> {
    pub fn new() -> Self {
        Elevator {
            queue: CylQueue::default(),
            pos: None,
            device: 0,
            policy: P::default(),
        }
    }
}

#[allow(private_bounds)]
impl<P: Policy> Default for Elevator<P> {
    fn default() -> Self {
        Self::new()
    }
}

/// A zero-length command that only moves the arm.
pub(crate) fn seek_command(device: DeviceId, lbn: u64) -> Command {
    Command {
        device,
        lbn,
        sectors: 0,
        op: Op::Read,
        dispatch_ns: 0,
        requests: Default::default(),
    }
}

/// The data cylinders at the two edges of the device, each with an LBN on it.
pub(crate) fn edges(ctx: &SchedCtx, dev: DeviceId) -> ((u32, u64), (u32, u64)) {
    let p = ctx.predictor(dev);
    let last = p.capacity_sectors() - 1;
    ((p.cylinder_of(0), 0), (p.cylinder_of(last), last))
}

#[allow(private_bounds)]
impl<P: Policy> Scheduler for Elevator<P> {
    fn name(&self) -> &str {
        P::NAME
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        self.device = req.device;
        let cyl = ctx.predictor(req.device).cylinder_of(req.lbn);
        self.queue.insert(cyl, req.id, req);
    }
    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        if self.queue.is_empty() || !ctx.has_slot(self.device) {
            return Decision::Idle;
        }
        let pos = *self
            .pos
            .get_or_insert_with(|| ctx.predictor(self.device).head().cylinder);
        match self.policy.pick(&self.queue, pos, ctx, self.device) {
            Pick::Request(key) => {
                self.pos = Some(key.0);
                Decision::Dispatch(Command::single(self.queue.remove(key)))
            }
            Pick::Seek { cylinder, lbn } => {
                self.pos = Some(cylinder);
                Decision::Dispatch(seek_command(self.device, lbn))
            }
        }
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
