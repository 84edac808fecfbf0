//! The STF family's one scheduler: a [`TimedQueue`] and a [`Ranking`] that says which
//! queued request goes next. Queueing, completions, proposing, committing and the hints
//! live here once, so every member (`sptf`/`stf`/`satf`, `aged-sptf`, `sptf-sw`, `wstf`,
//! `gstf`) gets every one of them, the host's fast paths included.

use super::timed::{Origin, TimedQueue};
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::Result;
use crate::order::sweep::Key;
use crate::request::{Command, Completion, Request};

/// How one member of the STF family ranks its queued requests.
///
/// Only [`Ranking::choose`] is required. The rest let a member keep requests back from the
/// queue (GSTF's batches admit arrivals to the queue a batch at a time) and follow its own
/// proposals (GSTF's cylinder bands). A member whose queue is empty, and who holds nothing
/// back, must have nothing to do: the host then skips asking it ([`Hints::idle_when_empty`]).
pub(crate) trait Ranking {
    /// The scheduler's name, as configured.
    fn name(&self) -> &'static str;

    /// The queued request to propose, with the origin it was ranked from (where and when it
    /// would begin); `None` to stay idle. Called only with a request in `q` and a free slot
    /// on its device.
    fn choose(&mut self, q: &mut TimedQueue, ctx: &SchedCtx) -> Option<(Key, Origin)>;

    /// The last proposal was committed and went to `placement`.
    #[inline(always)]
    fn committed(&mut self, _placement: Placement) {}

    /// A request arrived: into the queue, unless the member keeps it back.
    #[inline(always)]
    fn admit(&mut self, req: Request, q: &mut TimedQueue, ctx: &SchedCtx) {
        q.insert(req, ctx);
    }

    /// Before each proposal: let requests kept back into the queue. What it does must not
    /// show to a later decision if the proposal is not committed (see [`Scheduler::propose`]).
    #[inline(always)]
    fn refill(&mut self, _q: &mut TimedQueue, _ctx: &SchedCtx) {}

    /// Requests kept back from the queue.
    #[inline(always)]
    fn held_back(&self) -> usize {
        0
    }
}

/// An STF-family scheduler: the queue and search every member shares, ranked by `R`.
pub struct Stf<R> {
    pub(super) q: TimedQueue,
    pub(super) rank: R,
}

impl<R> Stf<R> {
    pub(super) fn with(q: TimedQueue, rank: R) -> Self {
        Stf { q, rank }
    }

    /// Positioning estimates performed so far (for measuring pruning).
    #[cfg(test)]
    pub(crate) fn evaluations(&self) -> u64 {
        self.q.evaluations
    }
}

impl<R: Ranking> Scheduler for Stf<R> {
    fn name(&self) -> &str {
        self.rank.name()
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        self.rank.admit(req, &mut self.q, ctx);
    }
    fn on_completion(&mut self, done: &Completion, _: &SchedCtx) {
        self.q.completed(done);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        self.rank.refill(&mut self.q, ctx);
        if self.q.is_empty() || !ctx.has_slot(self.q.device) {
            return Decision::Idle;
        }
        match self.rank.choose(&mut self.q, ctx) {
            Some((key, origin)) => Decision::Dispatch(self.q.propose(key, ctx, origin)),
            None => Decision::Idle,
        }
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, _: &SchedCtx) -> Result<()> {
        self.q.commit(cmd, placement, self.rank.name())?;
        self.rank.committed(placement);
        Ok(())
    }
    /// Every action is dispatching a queued request: with the queue empty and nothing held
    /// back there is nothing to do ([`Ranking`]).
    fn hints(&self) -> Hints {
        Hints::QUEUE_DRIVEN
    }
    fn set_queued_planning(&mut self, on: bool) {
        self.q.queued_planning = on;
    }
    fn pending(&self) -> usize {
        self.q.len() + self.rank.held_back()
    }
}
