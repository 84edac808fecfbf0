//! The host's belief about a device. Schedulers only ever see a predictor, never the device:
//! the gap between the two is what external-scheduling research studies, so it is a
//! first-class, configurable thing. `oracle` (the device's own model) is the default.

mod arrivals;
mod calibrated;
mod geometry;
mod lbn_curve;
mod options;
mod oracle;
mod oracle_bus;

pub use arrivals::{Arrival, ArrivalCosts, BusWhileMiss};
pub use geometry::{no_geometry, passing_runs, LbnRun, TrackInfo};

pub use calibrated::CalibratedPredictor;
pub use lbn_curve::LbnCurvePredictor;
pub use options::PredictorOptions;
pub use oracle::OraclePredictor;
pub use oracle_bus::{ReadBus, ReadRelease};

use smallvec::SmallVec;

use crate::error::Result;
use crate::request::{Completion, HeadPosition, Op};
use crate::time::SimTime;

/// A predicted access: how long each phase would take if the command started at the given
/// time with the head where given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    pub overhead_ns: SimTime,
    pub seek_ns: SimTime,
    pub rotate_ns: SimTime,
    pub transfer_ns: SimTime,
    /// Where the head ends up.
    pub end: HeadPosition,
}

impl Estimate {
    /// Time until the first target sector is under the head: the quantity SPTF minimises.
    #[inline]
    pub fn positioning_ns(&self) -> SimTime {
        self.overhead_ns + self.seek_ns + self.rotate_ns
    }
    /// Positioning plus media transfer.
    #[inline]
    pub fn service_ns(&self) -> SimTime {
        self.positioning_ns() + self.transfer_ns
    }
    /// This estimate (made for a start `margin_ns` later) with its seek `margin_ns` longer:
    /// see [`Predictor::estimate_with_margin`].
    #[inline]
    pub fn with_seek_margin(mut self, margin_ns: SimTime) -> Estimate {
        self.seek_ns += margin_ns;
        self
    }
}

/// A command's estimate with what it leaves to the command queued behind it at the device
/// (see [`Predictor::release`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// The command's own estimate.
    pub estimate: Estimate,
    /// Time from its media end until the device can begin the next command: the bus
    /// transfer the media did not overlap and the completion (see [`Predictor::tail_ns`]),
    /// or, with the bus modelled, until a read-ahead after it has been stopped.
    pub tail_ns: SimTime,
    /// Where the head is when the device can begin the next command: where the media
    /// transfer ends, or where stopping a read-ahead after a read leaves it.
    pub head: HeadPosition,
    /// When the command completes, for a predictor that models the device's bus (it can
    /// be before the next command can begin: the device may first stop a read-ahead).
    pub done_ns: Option<SimTime>,
    /// When the command, a read miss that disconnected, asks for the bus back, for a
    /// predictor that models the device's bus: a read reaching the device before then holds
    /// the bus (see [`Predictor::release_among`]) and has its command overhead done by the
    /// completion; one reaching it later waits for the completion, its overhead not begun.
    pub bus_asked_ns: Option<SimTime>,
    /// When a command that waited in the device's queue behind this one begins, in the
    /// convention of `start_ns` (its overhead counted on top), for a predictor that models
    /// the device's bus: its command overhead was done while it waited, so it may begin
    /// before this one's media end plus tail ([`Release::next_start_ns`] floors the tail at
    /// zero, which holds when the overhead is shorter than the tail, as on the Atlas 10K,
    /// and predicts a whole overhead late when it is longer, 3.1 ms on the HP C2490A).
    pub queued_next_ns: Option<SimTime>,
}

impl Release {
    /// When the device can begin the next command, for this command started at `start_ns`.
    #[inline]
    pub fn next_start_ns(&self, start_ns: SimTime) -> SimTime {
        start_ns + self.estimate.service_ns() + self.tail_ns
    }
}

/// A request's target as one predictor sees it, computed once (at arrival) so that repeated
/// positioning estimates skip the address lookup: SPTF re-evaluates every queued request at
/// every decision. Opaque to schedulers except for `cylinder`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
    pub cylinder: u32,
    pub surface: u32,
    /// Angular start of the first sector, in revolutions (predictor-specific meaning).
    pub angle: f64,
    /// Predicted media transfer time. A transfer begins when the first sector comes under
    /// the head, at a fixed angle, so its duration does not depend on when it starts and can
    /// be computed once: schedulers that minimise service time add it to positioning.
    pub transfer_ns: SimTime,
}

/// The host's model of one device.
pub trait Predictor {
    fn name(&self) -> &str;
    fn capacity_sectors(&self) -> u64;
    fn cylinders(&self) -> u32;
    /// Cylinder holding `lbn` (as the host believes the layout to be).
    fn cylinder_of(&self, lbn: u64) -> u32;
    /// Where the host believes the head is now.
    fn head(&self) -> HeadPosition;
    /// Predicted cost of an access dispatched at `start_ns` with the head at `from`.
    fn estimate(
        &self,
        from: HeadPosition,
        start_ns: SimTime,
        lbn: u64,
        sectors: u32,
        op: Op,
    ) -> Estimate;
    /// A lower bound on positioning time over every request whose cylinder is `distance`
    /// or more cylinders from the head, whatever its rotational position. Non-decreasing in
    /// `distance`; SPTF uses it to stop searching.
    fn positioning_floor_ns(&self, distance: u32) -> SimTime;
    /// Learn from a completion (the calibrated predictor refreshes its reference point).
    fn observe(&mut self, completion: &Completion);

    /// Time from the end of a command's media transfer until the device can begin the next
    /// command: the bus transfer the media did not overlap, and the completion overhead. A
    /// scheduler planning a command while another is still at the device (a two-deep
    /// pipeline) starts it this much after the first one's predicted media end. Default:
    /// none known.
    fn tail_ns(&self, _sectors: u32, _op: Op) -> SimTime {
        0
    }

    /// Whether [`Predictor::release`]'s tail is the device's own (then no margin over it
    /// is needed) rather than [`Predictor::tail_ns`]'s learned one.
    fn exact_tail(&self) -> bool {
        false
    }

    /// Whether a command of `op` that waited in the device's queue has its command overhead
    /// done by the time it is taken up ([`Release::queued_next_ns`]'s convention). A write
    /// the drive does not take into its buffer pays its whole overhead when taken up.
    fn overhead_done_while_queued(&self, _op: Op) -> bool {
        true
    }

    /// A command dispatched at `start_ns` with the head at `from`: its estimate, and when
    /// and where the device can begin the command queued behind it (a scheduler planning a
    /// command while another is still at the device, a two-deep pipeline, starts it
    /// there). By default the learned tail [`Predictor::tail_ns`], the head where the media
    /// transfer ends, and no completion time; a predictor that models the device's bus
    /// computes the tail for this command (where its media transfer meets the bus), its
    /// completion, and where stopping the read-ahead after a read leaves the head.
    fn release(
        &self,
        from: HeadPosition,
        start_ns: SimTime,
        lbn: u64,
        sectors: u32,
        op: Op,
    ) -> Release {
        let estimate = self.estimate(from, start_ns, lbn, sectors, op);
        Release {
            estimate,
            tail_ns: self.tail_ns(sectors, op),
            head: estimate.end,
            done_ns: None,
            bus_asked_ns: None,
            queued_next_ns: None,
        }
    }

    /// [`Predictor::release`] with the commands that reach the device while this one is in
    /// service (`arrivals`, in order; the host knows them, it sends them): with commands
    /// queued at the device they can hold its bus and move this one's completion. By
    /// default they are ignored. `began_idle`: the command reached an idle drive and began
    /// at once (not taken from the drive's queue); a read miss that did keeps the bus
    /// through its own command phase, and an arrival's hold begins after it. `enters_ns` (as
    /// long as `arrivals`) gets when each arrival enters the device's queue, its command
    /// overhead counted from then: by default its arrival; with the bus modelled, the start
    /// of its own hold of the bus, or this command's completion for one that asked for the
    /// bus after this one did ([`BusWhileMiss::arrive`]).
    #[allow(clippy::too_many_arguments)]
    fn release_among(
        &self,
        from: HeadPosition,
        start_ns: SimTime,
        lbn: u64,
        sectors: u32,
        op: Op,
        arrivals: &[Arrival],
        began_idle: bool,
        enters_ns: &mut [SimTime],
    ) -> Release {
        let _ = began_idle;
        for (e, a) in enters_ns.iter_mut().zip(arrivals) {
            *e = a.at_ns;
        }
        self.release(from, start_ns, lbn, sectors, op)
    }

    /// The LBN range the device's buffer may hold after it serves this command, for a
    /// predictor that knows the buffer (`None`: unknown or no buffer). A read of blocks
    /// in it may be served from the buffer, which [`Predictor::estimate`] does not model.
    fn buffer_reach(&self, _lbn: u64, _sectors: u32, _op: Op) -> Option<(u64, u64)> {
        None
    }

    /// How many recent commands' [`Predictor::buffer_reach`] the buffer can hold at once
    /// (its segments).
    fn buffer_segments(&self) -> u32 {
        0
    }

    /// Precompute what [`Predictor::positioning_to`] needs about a request.
    fn target(&self, lbn: u64, sectors: u32, op: Op) -> Target {
        Target {
            lbn,
            sectors,
            op,
            cylinder: self.cylinder_of(lbn),
            surface: 0,
            angle: 0.0,
            transfer_ns: self.estimate(self.head(), 0, lbn, sectors, op).transfer_ns,
        }
    }

    /// [`Predictor::target`] for a scheduler that ranks by positioning alone, which never
    /// reads `transfer_ns`: a predictor may leave it at 0 and skip working it out.
    fn positioning_target(&self, lbn: u64, sectors: u32, op: Op) -> Target {
        self.target(lbn, sectors, op)
    }

    /// Positioning time to a prepared target; must equal
    /// `estimate(from, start_ns, t.lbn, t.sectors, t.op).positioning_ns()`.
    fn positioning_to(&self, from: HeadPosition, start_ns: SimTime, t: &Target) -> SimTime {
        self.estimate(from, start_ns, t.lbn, t.sectors, t.op)
            .positioning_ns()
    }

    /// Predicted positioning time of an access dispatched now from the believed head position.
    #[inline]
    fn positioning_ns(&self, now: SimTime, lbn: u64, sectors: u32, op: Op) -> SimTime {
        self.estimate(self.head(), now, lbn, sectors, op)
            .positioning_ns()
    }

    /// [`Predictor::estimate`] with every seek `seek_margin_ns` longer than predicted
    /// (freeblock's conservatism constants c_fg and c_fb): the head is assumed to arrive
    /// later, so a target it would reach just in time costs a rotation instead.
    fn estimate_with_margin(
        &self,
        from: HeadPosition,
        start_ns: SimTime,
        lbn: u64,
        sectors: u32,
        op: Op,
        seek_margin_ns: SimTime,
    ) -> Estimate {
        // Overheads do not depend on the start time, so starting `margin` later is the same
        // as seeking `margin` longer.
        self.estimate(from, start_ns + seek_margin_ns, lbn, sectors, op)
            .with_seek_margin(seek_margin_ns)
    }

    // Geometry: what the host believes about tracks. A predictor that does not know the
    // geometry (the LBN-distance curve) answers every call with an error naming itself.

    /// Whether the geometry calls below answer.
    fn has_geometry(&self) -> bool {
        false
    }
    /// The track holding `lbn`, as this predictor names tracks (the `HeadPosition` its
    /// estimates use).
    fn track_of(&self, _lbn: u64) -> Result<HeadPosition> {
        Err(no_geometry(self.name()))
    }
    /// A track's first LBN, slots, LBNs, angle and sector time; `None` if the track holds no
    /// LBN (or does not exist).
    fn track_info(&self, _track: HeadPosition) -> Result<Option<TrackInfo>> {
        Err(no_geometry(self.name()))
    }
    /// The LBN in slot `slot` of `track` (slots counted as in [`TrackInfo`]), or `None` for
    /// a spare, slipped or unmapped slot.
    fn slot_lbn(&self, _track: HeadPosition, _slot: u32) -> Result<Option<u64>> {
        Err(no_geometry(self.name()))
    }
    /// The spindle's angle at `t` (revolutions in [0, 1)), in the frame [`TrackInfo`]'s
    /// angles are measured in.
    fn angle_at(&self, _t: SimTime) -> Result<f64> {
        Err(no_geometry(self.name()))
    }
    /// The predicted rotation period.
    fn period_ns(&self) -> Result<f64> {
        Err(no_geometry(self.name()))
    }
    /// Time to move the head from one track to another for an access of kind `op` (seek or
    /// head switch, settle included; no overheads, no rotational latency).
    fn move_ns(&self, _from: HeadPosition, _to: HeadPosition, _op: Op) -> Result<SimTime> {
        Err(no_geometry(self.name()))
    }
    /// The runs of consecutive LBNs whose sectors pass wholly under the head on `track`
    /// between `from_ns` and `to_ns`, in the order they pass (at most one revolution's worth).
    fn passing(
        &self,
        track: HeadPosition,
        from_ns: SimTime,
        to_ns: SimTime,
    ) -> Result<SmallVec<[LbnRun; 4]>> {
        passing_runs(self, track, from_ns, to_ns)
    }
}
