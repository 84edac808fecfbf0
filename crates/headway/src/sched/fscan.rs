use super::proposal::{not_proposed, ProposalSlot};
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::Result;
use crate::order::sweep::{CylQueue, Dir, Key};
use crate::request::{Command, DeviceId, Request};

/// FSCAN: requests are served in frozen batches. The batch being served is swept in
/// elevator order (LOOK: reversing at the last request, not the disk's edge); everything
/// that arrives meanwhile waits for the next batch, so no request is overtaken by more than
/// one batch of later arrivals.
pub struct FScan {
    active: CylQueue,
    waiting: CylQueue,
    pos: Option<u32>,
    dir: Dir,
    device: DeviceId,
    /// The last proposal: its key and the sweep direction after it.
    proposal: ProposalSlot<(Key, Dir)>,
}

impl FScan {
    pub fn new() -> Self {
        FScan {
            active: CylQueue::default(),
            waiting: CylQueue::default(),
            pos: None,
            dir: Dir::Up,
            device: 0,
            proposal: ProposalSlot::default(),
        }
    }
}

impl Default for FScan {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler for FScan {
    fn name(&self) -> &str {
        "fscan"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        self.device = req.device;
        let cyl = ctx.predictor(req.device).cylinder_of(req.lbn);
        self.waiting.insert(cyl, req.id, req);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        // The batch frozen next: the waiting requests, once the current batch is done (the
        // swap itself happens on commit, so an unanswered proposal freezes nothing).
        let batch = if self.active.is_empty() {
            &self.waiting
        } else {
            &self.active
        };
        if batch.is_empty() || !ctx.has_slot(self.device) {
            return Decision::Idle;
        }
        let pos = self
            .pos
            .unwrap_or_else(|| ctx.predictor(self.device).head().cylinder);
        let ahead = |dir| match dir {
            Dir::Up => batch.at_or_above(pos),
            Dir::Down => batch.at_or_below(pos),
        };
        let mut dir = self.dir;
        let key = match ahead(dir) {
            Some(k) => k,
            None => {
                dir = dir.reversed();
                ahead(dir).expect("batch is not empty")
            }
        };
        let cmd = Command::single(*batch.get(key));
        self.proposal.set(&cmd, (key, dir));
        Decision::Dispatch(cmd)
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, _: &SchedCtx) -> Result<()> {
        let Some((key, dir)) = self.proposal.take_for(cmd) else {
            return Err(not_proposed("fscan", cmd));
        };
        if self.active.is_empty() {
            std::mem::swap(&mut self.active, &mut self.waiting);
        }
        self.active.remove(key);
        if placement == Placement::Device {
            self.dir = dir;
            self.pos = Some(key.0);
        }
        Ok(())
    }
    fn hints(&self) -> Hints {
        Hints::SLOT_DRIVEN
    }
    fn pending(&self) -> usize {
        self.active.len() + self.waiting.len()
    }
}
