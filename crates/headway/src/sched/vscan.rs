use super::options::OptionReader;
use super::sweep::{CylQueue, Dir};
use super::{Decision, SchedCtx, Scheduler};
use crate::error::Result;
use crate::request::{Command, DeviceId, Request};

/// V(R) (Geist and Daniel): SSTF with a bias towards the current sweep direction. A request
/// behind the arm counts as if it were R times the disk's width farther away, so R = 0 is
/// SSTF and R = 1 behaves like LOOK. Distances are from the last dispatched request's
/// cylinder; ties go to the request ahead, then the older.
///
/// Options: `r` (default 0.2, the value Geist and Daniel recommend).
pub struct VScan {
    queue: CylQueue,
    pos: Option<u32>,
    dir: Dir,
    device: DeviceId,
    r: f64,
}

pub const DEFAULT_R: f64 = 0.2;

impl VScan {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        Ok(VScan {
            queue: CylQueue::default(),
            pos: None,
            dir: Dir::Up,
            device: 0,
            r: o.f64("r", DEFAULT_R, 0.0, 1.0)?,
        })
    }
}

impl Scheduler for VScan {
    fn name(&self) -> &str {
        "vscan"
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
        let p = ctx.predictor(self.device);
        let pos = *self.pos.get_or_insert_with(|| p.head().cylinder);
        let width = p.cylinders() as f64;
        let up = self.queue.at_or_above(pos);
        let down = pos.checked_sub(1).and_then(|c| self.queue.at_or_below(c));
        // The request on the head's own cylinder counts as ahead whichever way we go.
        let (ahead, behind) = match self.dir {
            Dir::Up => (up, down),
            Dir::Down => match up {
                Some(k) if k.0 == pos => (up, down),
                _ => (down, up),
            },
        };
        let dist = |k: (u32, u64)| k.0.abs_diff(pos) as f64;
        let key = match (ahead, behind) {
            (Some(a), Some(b)) => {
                if dist(a) <= dist(b) + self.r * width {
                    a
                } else {
                    b
                }
            }
            (Some(k), None) | (None, Some(k)) => k,
            (None, None) => return Decision::Idle,
        };
        if key.0 > pos {
            self.dir = Dir::Up;
        } else if key.0 < pos {
            self.dir = Dir::Down;
        }
        self.pos = Some(key.0);
        Decision::Dispatch(Command::single(self.queue.remove(key)))
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}
