//! `bfq`: budget fair queueing between classes, in the spirit of Linux's BFQ (Valente and
//! Checconi, "High throughput disk scheduling with fair bandwidth distribution", IEEE ToC
//! 2010) with classes in the role of processes and idling off. The active class is served
//! alone, in ascending sector order (one sweep), until it has used its budget of sectors or
//! has nothing queued; the next class is the backlogged one with the smallest virtual finish
//! time F = S + budget / weight (B-WF2Q+ with every budget at its maximum), and a class that
//! used `u` sectors advances its virtual start by u / weight.
//!
//! Options: `budget_sectors` (default 2048, 1 MiB), `weights` (one per class in the run's
//! class order; default each class's workload `share`).

use super::options::OptionReader;
use super::proposal::{not_proposed, ProposalSlot};
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Request};

struct Class {
    weight: f64,
    /// Virtual start time of its next budget.
    start: f64,
    queue: Vec<Request>,
}

pub struct Bfq {
    budget: u64,
    weights: Option<Vec<f64>>,
    key: String,
    classes: Vec<Class>,
    /// The class being served, and the sectors it has used of its budget.
    active: Option<(usize, u64)>,
    /// The sector after the last one dispatched (the sweep's position).
    pos: u64,
    proposal: ProposalSlot<(usize, usize)>,
}

impl Bfq {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        let weights = o.f64_list("weights")?;
        if let Some(w) = &weights {
            if w.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
                return Err(HeadwayError::config(
                    o.key_name("weights"),
                    format!("class weights must be positive, got {w:?}"),
                ));
            }
        }
        Ok(Bfq {
            budget: o.u64("budget_sectors", 2048, 1, 1 << 32)?,
            weights,
            key: o.key_name("weights"),
            classes: Vec::new(),
            active: None,
            pos: 0,
            proposal: ProposalSlot::default(),
        })
    }

    fn resolve(&mut self, ctx: &SchedCtx) -> Result<()> {
        if !self.classes.is_empty() {
            return Ok(());
        }
        let n = ctx.info.classes.len().max(1);
        if let Some(w) = &self.weights {
            if w.len() != n {
                return Err(HeadwayError::config(
                    self.key.clone(),
                    format!("{} weights given for {n} classes", w.len()),
                ));
            }
        }
        for c in 0..n {
            let weight = self.weights.as_ref().map_or_else(
                || {
                    ctx.info
                        .processes
                        .iter()
                        .find(|p| p.class as usize == c)
                        .map_or(1.0, |p| p.share)
                },
                |w| w[c],
            );
            self.classes.push(Class {
                weight,
                start: 0.0,
                queue: Vec::new(),
            });
        }
        Ok(())
    }

    /// The class to serve now: the active one while it has budget and requests, else the
    /// backlogged class with the smallest virtual finish time.
    fn class_now(&self) -> Option<(usize, bool)> {
        if let Some((c, used)) = self.active {
            if used < self.budget && !self.classes[c].queue.is_empty() {
                return Some((c, false));
            }
        }
        let b = self.budget as f64;
        (0..self.classes.len())
            .filter(|&c| !self.classes[c].queue.is_empty())
            .min_by(|&a, &c| {
                let fa = self.classes[a].start + b / self.classes[a].weight;
                let fc = self.classes[c].start + b / self.classes[c].weight;
                fa.total_cmp(&fc).then(a.cmp(&c))
            })
            .map(|c| (c, true))
    }
}

impl Scheduler for Bfq {
    fn name(&self) -> &str {
        "bfq"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        if let Err(e) = self.resolve(ctx) {
            return ctx.fail(e);
        }
        let c = (req.class as usize).min(self.classes.len() - 1);
        if self.classes[c].queue.is_empty() {
            // A class that was idle does not bank service: it starts at the system's
            // virtual time (the smallest start among the backlogged).
            let v = self
                .classes
                .iter()
                .filter(|k| !k.queue.is_empty())
                .map(|k| k.start)
                .fold(f64::INFINITY, f64::min);
            if v.is_finite() {
                self.classes[c].start = self.classes[c].start.max(v);
            }
        }
        self.classes[c].queue.push(req);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let Some((c, _)) = self.class_now() else {
            return Decision::Idle;
        };
        let q = &self.classes[c].queue;
        // One sweep: the next sector at or after the position, else the lowest.
        let i = (0..q.len())
            .filter(|&i| q[i].lbn >= self.pos)
            .min_by_key(|&i| (q[i].lbn, q[i].id))
            .or_else(|| (0..q.len()).min_by_key(|&i| (q[i].lbn, q[i].id)))
            .expect("backlogged");
        if !ctx.has_slot(q[i].device) {
            return Decision::Idle;
        }
        let cmd = Command::single(q[i]);
        self.proposal.set(&cmd, (c, i));
        Decision::Dispatch(cmd)
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, _ctx: &SchedCtx) -> Result<()> {
        let Some((c, i)) = self.proposal.take_for(cmd) else {
            return Err(not_proposed("bfq", cmd));
        };
        let switching = !matches!(self.active, Some((a, u)) if a == c && u < self.budget);
        if switching {
            // The previous active class is charged what it used.
            if let Some((a, used)) = self.active {
                let k = &mut self.classes[a];
                k.start += used as f64 / k.weight;
            }
            self.active = Some((c, 0));
        }
        let r = self.classes[c].queue.swap_remove(i);
        if let Some((_, used)) = self.active.as_mut() {
            *used += r.sectors as u64;
        }
        if placement == Placement::Device {
            self.pos = r.end_lbn();
        }
        Ok(())
    }
    fn hints(&self) -> Hints {
        Hints::SLOT_DRIVEN
    }
    fn pending(&self) -> usize {
        self.classes.iter().map(|c| c.queue.len()).sum()
    }
}
