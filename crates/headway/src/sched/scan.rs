use super::sweep::{CylQueue, Dir};
use super::{Decision, SchedCtx, Scheduler};
use crate::request::{Command, DeviceId, Op, Request};

/// A zero-length command that only moves the arm: how SCAN and C-SCAN travel to the edge
/// of the disk when no request lies ahead (the difference from LOOK and C-LOOK).
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

/// The data cylinders at the two edges, and an LBN on each.
pub(crate) fn edges(ctx: &SchedCtx, dev: DeviceId) -> ((u32, u64), (u32, u64)) {
    let p = ctx.predictor(dev);
    let last = p.capacity_sectors() - 1;
    ((p.cylinder_of(0), 0), (p.cylinder_of(last), last))
}

/// SCAN (the textbook elevator): sweep in one direction serving requests in cylinder order,
/// and travel on to the last cylinder before reversing, even when nothing lies ahead.
pub struct Scan {
    queue: CylQueue,
    pos: Option<u32>,
    dir: Dir,
    device: DeviceId,
}

impl Scan {
    pub fn new() -> Self {
        Scan {
            queue: CylQueue::default(),
            pos: None,
            dir: Dir::Up,
            device: 0,
        }
    }
}

impl Default for Scan {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler for Scan {
    fn name(&self) -> &str {
        "scan"
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
        let ahead = match self.dir {
            Dir::Up => self.queue.at_or_above(pos),
            Dir::Down => self.queue.at_or_below(pos),
        };
        if let Some(key) = ahead {
            self.pos = Some(key.0);
            return Decision::Dispatch(Command::single(self.queue.remove(key)));
        }
        let (low, high) = edges(ctx, self.device);
        let edge = if self.dir == Dir::Up { high } else { low };
        self.dir = if self.dir == Dir::Up {
            Dir::Down
        } else {
            Dir::Up
        };
        if pos != edge.0 {
            self.pos = Some(edge.0);
            return Decision::Dispatch(seek_command(self.device, edge.1));
        }
        // Already at the edge: serve the first request of the new sweep.
        self.decide(ctx)
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
