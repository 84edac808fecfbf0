use super::sweep::{CylQueue, Key};
use super::{Decision, SchedCtx, Scheduler};
use crate::request::{Command, DeviceId, HeadPosition, Request};
use crate::time::SimTime;

/// Shortest positioning time first: dispatch the request the predictor says can start its
/// media transfer soonest (seek + rotational latency + overheads). Ties go to the older
/// request.
///
/// The search is pruned without changing its answer: requests are kept in cylinder order and
/// scanned outward from the head, nearest cylinders first, and a direction stops as soon as
/// the predictor's lower bound for that seek distance exceeds the best time found. With the
/// bound monotone in distance nothing further out can win (equal costs are still examined,
/// so ties resolve exactly as a brute-force search would).
pub struct Sptf {
    queue: CylQueue,
    device: DeviceId,
    prune: bool,
    /// Predicted head position and completion time of the last command dispatched, for
    /// choosing the next one while it is still outstanding (a two-deep pipeline).
    last: Option<(HeadPosition, SimTime)>,
    /// Positioning-time evaluations performed (for measuring pruning).
    pub evaluations: u64,
}

impl Sptf {
    pub fn new() -> Self {
        Sptf {
            queue: CylQueue::default(),
            device: 0,
            prune: true,
            last: None,
            evaluations: 0,
        }
    }

    /// An SPTF that evaluates every queued request (for checking the pruned search).
    pub fn unpruned() -> Self {
        Sptf {
            prune: false,
            ..Self::new()
        }
    }

    /// Where and when the next command would begin.
    fn origin(&self, ctx: &SchedCtx) -> (HeadPosition, SimTime) {
        match self.last {
            Some((end, done)) if ctx.outstanding[self.device as usize] > 0 => {
                (end, done.max(ctx.now))
            }
            _ => (ctx.predictor(self.device).head(), ctx.now),
        }
    }

    /// The best request and its predicted (positioning, service) time, or `None` if empty.
    pub(crate) fn choose(
        &mut self,
        ctx: &SchedCtx,
    ) -> Option<(Key, SimTime, SimTime, HeadPosition)> {
        let p = ctx.predictor(self.device);
        let (from, start) = self.origin(ctx);
        let hc = from.cylinder;
        let mut best: Option<(SimTime, u64, Key, SimTime, HeadPosition)> = None;
        let mut evals = 0u64;
        let mut consider =
            |key: &Key,
             r: &Request,
             best: &mut Option<(SimTime, u64, Key, SimTime, HeadPosition)>| {
                evals += 1;
                let e = p.estimate(from, start, r.lbn, r.sectors, r.op);
                let cost = e.positioning_ns();
                let better = match best {
                    None => true,
                    Some((bc, bid, ..)) => cost < *bc || (cost == *bc && r.id < *bid),
                };
                if better {
                    *best = Some((cost, r.id, *key, e.service_ns(), e.end));
                }
            };
        if self.prune {
            let mut up = self.queue.iter_up(hc).peekable();
            let mut down = self.queue.iter_down(hc).peekable();
            loop {
                let du = up.peek().map(|(k, _)| k.0 - hc);
                let dd = down.peek().map(|(k, _)| hc - k.0);
                let go_up = match (du, dd) {
                    (None, None) => break,
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    (Some(a), Some(b)) => a <= b,
                };
                let dist = if go_up { du.unwrap() } else { dd.unwrap() };
                if let Some((bc, ..)) = best {
                    if p.positioning_floor_ns(dist) > bc {
                        // Nearest remaining candidate in either direction is at least this far.
                        break;
                    }
                }
                let (k, r) = if go_up {
                    up.next().unwrap()
                } else {
                    down.next().unwrap()
                };
                consider(k, r, &mut best);
            }
        } else {
            for (k, r) in self.queue.iter_up(0) {
                consider(k, r, &mut best);
            }
        }
        self.evaluations += evals;
        best.map(|(cost, _, key, service, end)| (key, cost, service, end))
    }
}

impl Default for Sptf {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler for Sptf {
    fn name(&self) -> &str {
        "sptf"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        self.device = req.device;
        self.queue
            .insert(ctx.predictor(req.device).cylinder_of(req.lbn), req);
    }
    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        if self.queue.is_empty() || !ctx.has_slot(self.device) {
            return Decision::Idle;
        }
        let (_, start) = self.origin(ctx);
        let Some((key, _cost, service, end)) = self.choose(ctx) else {
            return Decision::Idle;
        };
        self.last = Some((end, start + service));
        Decision::Dispatch(Command::single(self.queue.remove(key)))
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
