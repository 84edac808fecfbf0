//! `stride`: a proportional-share scheduler by virtual clocks (stride scheduling / start-time
//! fair queueing without anticipation): serve the oldest request of the process with the
//! smallest virtual clock. With `relax_ms` = R_v > 0 it is the paper's relaxed stride:
//! among the processes whose clock is within R_v of the minimum, the request with the
//! shortest positioning time goes first (locality over a coarser fairness timescale).
//!
//! Options: `relax_ms` (default 0: strict). Shares come from `[[workloads]] share`.
//! [TEAM CHOICE] A process's clock is not moved forward when it returns from idleness:
//! the experiments' processes are always active, and a lagging synchronous process is the
//! very effect the paper studies.

use super::vclock::VirtualClocks;
use crate::error::{HeadwayError, Result};
use crate::predict::{Access, Moment};
use crate::request::{Command, Completion, Request};
use crate::sched::{Decision, Hints, OptionReader, Placement, SchedCtx, Scheduler};
use crate::time::NS_PER_MS;

pub struct Stride {
    /// Held requests in arrival order.
    pending: Vec<Request>,
    clocks: VirtualClocks,
    /// R_v in virtual-clock units (ns of service per unit share).
    relax: f64,
}

impl Stride {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        Ok(Stride {
            pending: Vec::new(),
            clocks: VirtualClocks::default(),
            relax: o.f64("relax_ms", 0.0, 0.0, 1e9)? * NS_PER_MS as f64,
        })
    }

    fn choose(&self, ctx: &SchedCtx) -> Option<usize> {
        let dev = self.pending.first()?.device;
        if !ctx.has_slot(dev) {
            return None;
        }
        let min_vc = self
            .pending
            .iter()
            .map(|r| self.clocks.get(r.process))
            .fold(f64::INFINITY, f64::min);
        let eligible = |r: &Request| self.clocks.get(r.process) <= min_vc + self.relax;
        if self.relax == 0.0 {
            // Oldest request of the lowest clock (ties: the earlier arrival).
            return self
                .pending
                .iter()
                .position(|r| self.clocks.get(r.process) <= min_vc);
        }
        let p = ctx.predictor(dev);
        let head = p.head();
        ctx.count_estimates(self.pending.len() as u64);
        self.pending
            .iter()
            .enumerate()
            .filter(|(_, r)| eligible(r))
            .min_by_key(|(i, r)| {
                (
                    p.estimate(
                        Moment::new(head, ctx.now),
                        Access::new(r.lbn, r.sectors, r.op),
                    )
                    .positioning_ns(),
                    *i,
                )
            })
            .map(|(i, _)| i)
    }
}

impl Scheduler for Stride {
    fn name(&self) -> &str {
        "stride"
    }
    fn on_arrival(&mut self, req: Request, _ctx: &SchedCtx) {
        self.pending.push(req);
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        self.clocks.charge(done, ctx);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        match self.choose(ctx) {
            Some(i) => Decision::Dispatch(Command::single(self.pending[i])),
            None => Decision::Idle,
        }
    }
    fn commit(&mut self, cmd: &Command, _placement: Placement, _ctx: &SchedCtx) -> Result<()> {
        for r in &cmd.requests {
            let i = self
                .pending
                .iter()
                .position(|q| q.id == r.id)
                .ok_or_else(|| {
                    HeadwayError::Invariant(format!(
                        "stride: committed request {} it does not hold",
                        r.id
                    ))
                })?;
            self.pending.remove(i);
        }
        Ok(())
    }
    fn hints(&self) -> Hints {
        Hints::SLOT_DRIVEN
    }
    fn pending(&self) -> usize {
        self.pending.len()
    }
}
