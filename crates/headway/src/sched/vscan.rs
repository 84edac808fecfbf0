use super::elevator::{Elevator, Pick, Policy};
use super::options::OptionReader;
use super::SchedCtx;
use crate::error::Result;
use crate::order::sweep::{CylQueue, Dir};
use crate::request::DeviceId;

/// V(R) (Geist and Daniel): SSTF with a bias towards the current sweep direction. A request
/// behind the arm counts as if it were R times the disk's width farther away, so R = 0 is
/// SSTF and R = 1 behaves like LOOK. Distances are from the last dispatched request's
/// cylinder; ties go to the request ahead, then the older.
///
/// Options: `r` (default 0.2, the value Geist and Daniel recommend).
pub type VScan = Elevator<VScanPolicy>;

pub const DEFAULT_R: f64 = 0.2;

#[derive(Clone)]
pub struct VScanPolicy {
    dir: Dir,
    r: f64,
}

impl Default for VScanPolicy {
    fn default() -> Self {
        VScanPolicy {
            dir: Dir::Up,
            r: DEFAULT_R,
        }
    }
}

impl VScan {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        Ok(Elevator::with_policy(VScanPolicy {
            dir: Dir::Up,
            r: o.f64("r", DEFAULT_R, 0.0, 1.0)?,
        }))
    }
}

impl Policy for VScanPolicy {
    const NAME: &'static str = "vscan";
    fn pick(&mut self, q: &CylQueue, pos: u32, ctx: &SchedCtx, dev: DeviceId) -> Pick {
        let width = ctx.predictor(dev).cylinders() as f64;
        // The head's own cylinder counts as ahead whichever way the arm goes.
        let ahead = q.ahead(pos, self.dir);
        let behind = match self.dir {
            Dir::Up => pos.checked_sub(1).and_then(|c| q.at_or_below(c)),
            Dir::Down => q.at_or_above(pos + 1),
        };
        let dist = |k: (u32, u64)| k.0.abs_diff(pos) as f64;
        let key = match (ahead, behind) {
            (Some(a), Some(b)) if dist(a) > dist(b) + self.r * width => b,
            (Some(a), _) => a,
            (None, Some(b)) => b,
            (None, None) => unreachable!("called with a non-empty queue"),
        };
        if key.0 != pos {
            self.dir = if key.0 > pos { Dir::Up } else { Dir::Down };
        }
        Pick::Request(key)
    }
}
