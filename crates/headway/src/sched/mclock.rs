//! `mclock`: per-class reservation, weight and limit by tags (Gulati, Merchant and Varman,
//! "mClock: handling throughput variability for hypervisor IO scheduling", OSDI 2010), with
//! classes in the role of VMs. Each request gets three tags on arrival: R (reservation,
//! spaced 1/r), L (limit, spaced 1/l) and P (proportional share, spaced 1/w), each at least
//! the arrival time. A request whose R tag is due is served first (smallest R); otherwise the
//! smallest P among classes under their limit (L due), and that class's later R tags move
//! back by 1/r so weight-based service does not count against its reservation.
//!
//! Options (one entry per class in the run's class order): `reservations_iops` (default
//! 0: none), `weights` (default each class's workload `share`), `limits_iops` (0: none).
//! Within a class requests leave in arrival order.

use std::collections::VecDeque;

use super::options::OptionReader;
use super::proposal::{not_proposed, ProposalSlot};
use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Request};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug)]
struct Tags {
    r: f64,
    l: f64,
    p: f64,
}

#[derive(Default)]
struct Class {
    /// Seconds between tags (∞ for a zero rate).
    r_gap: f64,
    l_gap: f64,
    p_gap: f64,
    last: Option<Tags>,
    queue: VecDeque<(Request, Tags)>,
}

pub struct MClock {
    opts: [Option<Vec<f64>>; 3],
    keys: [String; 3],
    classes: Vec<Class>,
    /// Which class and whether by reservation.
    proposal: ProposalSlot<(usize, bool)>,
}

fn gap(rate: f64) -> f64 {
    if rate > 0.0 {
        1.0 / rate
    } else {
        f64::INFINITY
    }
}

impl MClock {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        let mut opts: [Option<Vec<f64>>; 3] = [None, None, None];
        let names = ["reservations_iops", "weights", "limits_iops"];
        for (i, k) in names.iter().enumerate() {
            let v = o.f64_list(k)?;
            if let Some(v) = &v {
                if v.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
                    return Err(HeadwayError::config(
                        o.key_name(k),
                        format!("must be non-negative numbers, got {v:?}"),
                    ));
                }
            }
            opts[i] = v;
        }
        if opts[1]
            .as_ref()
            .is_some_and(|w| w.iter().sum::<f64>() <= 0.0)
        {
            return Err(HeadwayError::config(
                o.key_name("weights"),
                "class weights must sum to a positive value",
            ));
        }
        Ok(MClock {
            opts,
            keys: names.map(|k| o.key_name(k)),
            classes: Vec::new(),
            proposal: ProposalSlot::default(),
        })
    }

    fn resolve(&mut self, ctx: &SchedCtx) -> Result<()> {
        if !self.classes.is_empty() {
            return Ok(());
        }
        let n = ctx.info.classes.len().max(1);
        let get = |i: usize, c: usize, default: f64| -> Result<f64> {
            match &self.opts[i] {
                Some(v) if v.len() != n => Err(HeadwayError::config(
                    self.keys[i].clone(),
                    format!("{} values given for {n} classes", v.len()),
                )),
                Some(v) => Ok(v[c]),
                None => Ok(default),
            }
        };
        for c in 0..n {
            let share = ctx
                .info
                .processes
                .iter()
                .find(|p| p.class as usize == c)
                .map_or(1.0, |p| p.share);
            self.classes.push(Class {
                r_gap: gap(get(0, c, 0.0)?),
                p_gap: gap(get(1, c, share)?),
                l_gap: gap(get(2, c, 0.0)?),
                ..Default::default()
            });
        }
        Ok(())
    }

    fn choose(&self, now: f64) -> Option<(usize, bool)> {
        let heads = self
            .classes
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.queue.front().map(|(_, t)| (i, *t)));
        let by_r = heads
            .clone()
            .filter(|(_, t)| t.r <= now)
            .min_by(|a, b| a.1.r.total_cmp(&b.1.r).then(a.0.cmp(&b.0)));
        if let Some((i, _)) = by_r {
            return Some((i, true));
        }
        heads
            .filter(|(_, t)| t.l <= now)
            .min_by(|a, b| a.1.p.total_cmp(&b.1.p).then(a.0.cmp(&b.0)))
            .map(|(i, _)| (i, false))
    }
}

fn secs(t: SimTime) -> f64 {
    t as f64 / 1e9
}

impl Scheduler for MClock {
    fn name(&self) -> &str {
        "mclock"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        if let Err(e) = self.resolve(ctx) {
            return ctx.fail(e);
        }
        let now = secs(ctx.now);
        let c = (req.class as usize).min(self.classes.len() - 1);
        let k = &mut self.classes[c];
        let t = Tags {
            // No reservation: never due by R.
            r: if k.r_gap.is_infinite() {
                f64::INFINITY
            } else {
                k.last.map_or(now, |p| (p.r + k.r_gap).max(now))
            },
            // No limit: always under it.
            l: if k.l_gap.is_infinite() {
                f64::NEG_INFINITY
            } else {
                k.last.map_or(now, |p| (p.l + k.l_gap).max(now))
            },
            p: k.last.map_or(now, |p| (p.p + k.p_gap).max(now)),
        };
        k.last = Some(t);
        k.queue.push_back((req, t));
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let Some((c, by_r)) = self.choose(secs(ctx.now)) else {
            // Everyone over their limit: wake at the earliest L tag.
            let next = self
                .classes
                .iter()
                .filter_map(|c| c.queue.front().map(|(_, t)| t.l))
                .fold(f64::INFINITY, f64::min);
            return if next.is_finite() && !self.classes.is_empty() {
                let dev = self
                    .classes
                    .iter()
                    .find_map(|c| c.queue.front().map(|q| q.0.device))
                    .unwrap_or(0);
                if ctx.has_slot(dev) {
                    Decision::WaitUntil(((next * 1e9).ceil() as SimTime).max(ctx.now + 1))
                } else {
                    Decision::Idle
                }
            } else {
                Decision::Idle
            };
        };
        let r = self.classes[c].queue[0].0;
        if !ctx.has_slot(r.device) {
            return Decision::Idle;
        }
        let cmd = Command::single(r);
        self.proposal.set(&cmd, (c, by_r));
        Decision::Dispatch(cmd)
    }
    fn commit(&mut self, cmd: &Command, _placement: Placement, _ctx: &SchedCtx) -> Result<()> {
        let Some((c, by_r)) = self.proposal.take_for(cmd) else {
            return Err(not_proposed("mclock", cmd));
        };
        let k = &mut self.classes[c];
        k.queue.pop_front();
        if !by_r && k.r_gap.is_finite() {
            // Weight-based service: the class's pending R tags move back by 1/r.
            for (_, t) in k.queue.iter_mut() {
                t.r -= k.r_gap;
            }
            if let Some(l) = k.last.as_mut() {
                l.r -= k.r_gap;
            }
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
