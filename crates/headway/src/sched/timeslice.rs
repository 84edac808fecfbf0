//! `timeslice`: static partitioning of disk time between classes, the naive answer Cello
//! is measured against. Every interval P is cut into one slot per class, in class order,
//! each w_i/Σw of P long; in its slot a class is served in LOOK order and nobody else is,
//! even when the disk would otherwise idle.
//!
//! Options: `interval_ms` (1000), `weights` (one per class in the run's class order;
//! default each class's workload `share`).

use super::options::OptionReader;
use super::proposal::{not_proposed, ProposalSlot};
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Request};
use crate::time::{SimTime, NS_PER_MS};

pub struct TimeSlice {
    interval_ns: SimTime,
    weights: Option<Vec<f64>>,
    /// Slot ends within an interval, by class (resolved on the first call).
    bounds: Vec<SimTime>,
    queue: Vec<(Request, u32)>,
    pos: u32,
    up: bool,
    proposal: ProposalSlot<(usize, u32, bool)>,
    table: String,
}

impl TimeSlice {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        let interval_ms = o.f64("interval_ms", 1000.0, 1e-3, 1e9)?;
        let weights = o.f64_list("weights")?;
        if let Some(w) = &weights {
            if w.iter().any(|x| !(x.is_finite() && *x >= 0.0)) || w.iter().sum::<f64>() <= 0.0 {
                return Err(HeadwayError::config(
                    o.key_name("weights"),
                    format!(
                        "class weights must be non-negative and sum to a positive value, got {w:?}"
                    ),
                ));
            }
        }
        Ok(TimeSlice {
            interval_ns: (interval_ms * NS_PER_MS as f64).round() as SimTime,
            weights,
            bounds: Vec::new(),
            queue: Vec::new(),
            pos: 0,
            up: true,
            proposal: ProposalSlot::default(),
            table: o.key_name("weights"),
        })
    }

    fn resolve(&mut self, ctx: &SchedCtx) -> Result<()> {
        if !self.bounds.is_empty() {
            return Ok(());
        }
        let n = ctx.info.classes.len().max(1);
        let w: Vec<f64> = match &self.weights {
            Some(w) if w.len() != n => {
                return Err(HeadwayError::config(
                    self.table.clone(),
                    format!("{} weights given for {n} classes", w.len()),
                ))
            }
            Some(w) => w.clone(),
            None => (0..n)
                .map(|c| {
                    ctx.info
                        .processes
                        .iter()
                        .find(|p| p.class as usize == c)
                        .map_or(1.0, |p| p.share)
                })
                .collect(),
        };
        let sum: f64 = w.iter().sum();
        let mut acc = 0.0;
        self.bounds = w
            .iter()
            .map(|x| {
                acc += x / sum;
                (acc * self.interval_ns as f64).round() as SimTime
            })
            .collect();
        Ok(())
    }

    /// The class whose slot `t` falls in, and when that slot ends.
    fn slot(&self, t: SimTime) -> (usize, SimTime) {
        let off = t % self.interval_ns;
        let base = t - off;
        let c = self.bounds.partition_point(|&b| b <= off);
        let c = c.min(self.bounds.len() - 1);
        (c, base + self.bounds[c])
    }
}

impl Scheduler for TimeSlice {
    fn name(&self) -> &str {
        "timeslice"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        if let Err(e) = self.resolve(ctx) {
            return ctx.fail(e);
        }
        let c = ctx.predictor(req.device).cylinder_of(req.lbn);
        self.queue.push((req, c));
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        if self.queue.is_empty() || self.bounds.is_empty() {
            return Decision::Idle;
        }
        let (class, slot_end) = self.slot(ctx.now);
        let mine =
            |i: &usize| (self.queue[*i].0.class as usize).min(self.bounds.len() - 1) == class;
        let key = |i: usize, up: bool| {
            let c = self.queue[i].1;
            let ahead = if up { c >= self.pos } else { c <= self.pos };
            (!ahead, c.abs_diff(self.pos), self.queue[i].0.id)
        };
        let Some(best) = (0..self.queue.len())
            .filter(mine)
            .min_by_key(|&i| key(i, self.up))
        else {
            // Nothing of this slot's class: wait for the next slot (or an arrival).
            return if ctx.has_slot(self.queue[0].0.device) {
                Decision::WaitUntil(slot_end.max(ctx.now + 1))
            } else {
                Decision::Idle
            };
        };
        let (r, c) = self.queue[best];
        if !ctx.has_slot(r.device) {
            return Decision::Idle;
        }
        let up = if self.up { c >= self.pos } else { c > self.pos };
        let cmd = Command::single(r);
        self.proposal.set(&cmd, (best, c, up));
        Decision::Dispatch(cmd)
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, _ctx: &SchedCtx) -> Result<()> {
        let Some((i, c, up)) = self.proposal.take_for(cmd) else {
            return Err(not_proposed("timeslice", cmd));
        };
        self.queue.swap_remove(i);
        if placement == Placement::Device {
            self.pos = c;
            self.up = up;
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
