//! Track geometry as a predictor believes it: what freeblock scheduling asks ("which blocks
//! pass under the head on track T between these two times, and what does a detour to T
//! cost?") without reaching into the device model. A capability: only predictors that know
//! tracks have it (`Predictor::geometry`), and a scheduler that needs it asks once,
//! when the run is built.

use smallvec::SmallVec;

use crate::error::HeadwayError;
use crate::request::{HeadPosition, Op};
use crate::time::SimTime;

/// What the host believes about tracks.
pub trait Geometry {
    /// The track holding `lbn`, as this predictor names tracks (the `HeadPosition` its
    /// estimates use).
    fn track_of(&self, lbn: u64) -> HeadPosition;
    /// A track's first LBN, slots, LBNs, angle and sector time; `None` if the track holds no
    /// LBN (or does not exist).
    fn track_info(&self, track: HeadPosition) -> Option<TrackInfo>;
    /// The LBN in slot `slot` of `track` (slots counted as in [`TrackInfo`]), or `None` for
    /// a spare, slipped or unmapped slot.
    fn slot_lbn(&self, track: HeadPosition, slot: u32) -> Option<u64>;
    /// The spindle's angle at `t` (revolutions in [0, 1)), in the frame [`TrackInfo`]'s
    /// angles are measured in.
    fn angle_at(&self, t: SimTime) -> f64;
    /// The predicted rotation period.
    fn period_ns(&self) -> f64;
    /// Time to move the head from one track to another for an access of kind `op` (seek or
    /// head switch, settle included; no overheads, no rotational latency).
    fn move_ns(&self, from: HeadPosition, to: HeadPosition, op: Op) -> SimTime;
    /// A lower bound on [`Geometry::move_ns`] between any two tracks `distance` or more
    /// cylinders apart, for either op; non-decreasing in `distance`. The freeblock planner
    /// skips a cylinder whose detour cannot fit even at this bound. 0 (no bound) unless
    /// the model knows better.
    fn move_floor_ns(&self, distance: u32) -> SimTime {
        let _ = distance;
        0
    }
    /// The runs of consecutive LBNs whose sectors pass wholly under the head on `track`
    /// between `from_ns` and `to_ns`, in the order they pass (at most one revolution's
    /// worth).
    fn passing(
        &self,
        track: HeadPosition,
        from_ns: SimTime,
        to_ns: SimTime,
    ) -> SmallVec<[LbnRun; 4]> {
        passing_runs(self, track, from_ns, to_ns)
    }
}

/// One track as the predictor believes it to be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackInfo {
    pub track: HeadPosition,
    /// The first LBN whose home is on the track.
    pub first_lbn: u64,
    /// LBNs on the track, from `first_lbn` on (remapped defects aside, they are consecutive).
    pub lbns: u32,
    /// Physical sector slots on the track (spares and slipped slots included).
    pub slots: u32,
    /// Where slot 0 begins, in revolutions [0, 1) of the predictor's frame (see
    /// [`Geometry::angle_at`]); slot `s` begins `s / slots` later.
    pub slot0_angle: f64,
    /// Time one slot takes to pass under the head.
    pub sector_ns: f64,
}

/// A run of consecutive LBNs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LbnRun {
    pub lbn: u64,
    pub sectors: u32,
}

impl LbnRun {
    pub fn end_lbn(&self) -> u64 {
        self.lbn + self.sectors as u64
    }
}

/// The error of a predictor without geometry.
pub fn no_geometry(predictor: &str) -> HeadwayError {
    HeadwayError::config(
        "host.predictor",
        format!(
            "predictor `{predictor}` has no track geometry (it predicts from LBN distances \
             alone); schedulers that need tracks (freeblock) need `oracle` or `calibrated`"
        ),
    )
}

#[inline]
fn frac(x: f64) -> f64 {
    x - x.floor()
}

/// [`Geometry::passing`] from the other geometry calls: the slots whose whole sector passes
/// under the head in `[from_ns, to_ns]`, in passing order, grouped into runs of consecutive
/// LBNs. A window of a revolution or more yields every LBN on the track once, starting with
/// the first slot to pass.
pub(crate) fn passing_runs<G: Geometry + ?Sized>(
    g: &G,
    track: HeadPosition,
    from_ns: SimTime,
    to_ns: SimTime,
) -> SmallVec<[LbnRun; 4]> {
    let mut runs: SmallVec<[LbnRun; 4]> = SmallVec::new();
    let Some(info) = g.track_info(track) else {
        return runs;
    };
    if to_ns <= from_ns || info.slots == 0 {
        return runs;
    }
    let slots = info.slots as f64;
    // The head's position on the track at `from_ns`, in slots from slot 0.
    let rel = frac(g.angle_at(from_ns) - info.slot0_angle) * slots;
    // Guard against rounding placing the head a hair past a slot it is at.
    let k0 = (rel - 1e-6).ceil().max(0.0);
    let window = (to_ns - from_ns) as f64;
    for i in 0..info.slots {
        let k = k0 + i as f64;
        let end = (k - rel + 1.0) * info.sector_ns;
        if end > window + 1e-3 {
            break;
        }
        let slot = (k as u64 % info.slots as u64) as u32;
        let Some(lbn) = g.slot_lbn(track, slot) else {
            continue;
        };
        match runs.last_mut() {
            Some(r) if r.end_lbn() == lbn => r.sectors += 1,
            _ => runs.push(LbnRun { lbn, sectors: 1 }),
        }
    }
    runs
}
