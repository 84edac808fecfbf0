//! The shared machinery of the cylinder-ordered schedulers (SSTF, SCAN, LOOK, C-SCAN,
//! C-LOOK): a queue keyed by (cylinder, id), the host's idea of where the arm is (the
//! cylinder of the last command dispatched), and a [`Policy`] that picks what comes next.
//! Each scheduler's file holds only its policy.

use super::proposal::{not_proposed, ProposalSlot};
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::Result;
use crate::order::sweep::{CylQueue, Key};
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
/// non-empty queue. `pick` may change the policy's state (a sweep's direction); the
/// elevator calls it on a copy when proposing and keeps the copy only on commit.
pub(crate) trait Policy: Default + Clone {
    const NAME: &'static str;
    fn pick(&mut self, queue: &CylQueue, pos: u32, ctx: &SchedCtx, dev: DeviceId) -> Pick;
}

/// A cylinder-ordered scheduler with policy `P`.
pub struct Elevator<P> {
    queue: CylQueue,
    pos: Option<u32>,
    device: DeviceId,
    policy: P,
    /// The last proposal: the key to remove (none for a travel seek), the arm's new
    /// cylinder and the policy's state after it.
    proposal: ProposalSlot<(Option<Key>, u32, P)>,
}

#[allow(private_bounds)]
impl<P: Policy> Elevator<P> {
    pub fn new() -> Self {
        Self::with_policy(P::default())
    }

    /// An elevator whose policy carries options.
    pub(crate) fn with_policy(policy: P) -> Self {
        Elevator {
            queue: CylQueue::default(),
            pos: None,
            device: 0,
            policy,
            proposal: ProposalSlot::default(),
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
        predicted_ns: None,
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
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        if self.queue.is_empty() || !ctx.has_slot(self.device) {
            return Decision::Idle;
        }
        let pos = self
            .pos
            .unwrap_or_else(|| ctx.predictor(self.device).head().cylinder);
        let mut next = self.policy.clone();
        let (cmd, key, cyl) = match next.pick(&self.queue, pos, ctx, self.device) {
            Pick::Request(key) => (Command::single(*self.queue.get(key)), Some(key), key.0),
            Pick::Seek { cylinder, lbn } => (seek_command(self.device, lbn), None, cylinder),
        };
        self.proposal.set(&cmd, (key, cyl, next));
        Decision::Dispatch(cmd)
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, _: &SchedCtx) -> Result<()> {
        let Some((key, cyl, next)) = self.proposal.take_for(cmd) else {
            return Err(not_proposed(P::NAME, cmd));
        };
        if let Some(k) = key {
            self.queue.remove(k);
        }
        if placement == Placement::Device {
            self.pos = Some(cyl);
            self.policy = next;
        }
        Ok(())
    }
    fn hints(&self) -> Hints {
        Hints::SLOT_DRIVEN
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
