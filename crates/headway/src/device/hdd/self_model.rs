//! The drive's exact model of a command that misses its buffer: its own [`Mechanics`] and
//! overheads, and the head where the last such command left it. What the firmware's queue
//! ranks with, and the core of the host's `oracle` predictor (which adds what the host
//! learns of the bus). It does not model the buffer (hits, read-ahead, write-back in the
//! background).

use std::sync::Arc;

use super::layout::Location;
use super::{plan_service, Mechanics, Overheads};
use crate::order::freeblock::planner::PlanModel;
use crate::order::{
    Access, Estimate, Geometry, Moment, Needs, PositionCost, Release, Target, TrackInfo,
};
use crate::request::{Completion, HeadPosition, Op};
use crate::time::SimTime;

pub struct SelfModel {
    mech: Arc<Mechanics>,
    ovh: Overheads,
    /// The least overhead before any command's mechanism starts, plus the link: the part of
    /// every positioning floor that does not depend on the distance (asked once per
    /// candidate by a pruned search).
    floor_ovh_ns: SimTime,
    /// Delay between the host's dispatch and the device seeing the command.
    link_ns: SimTime,
    head: HeadPosition,
    last_op: Op,
    /// By the next command's op: the overhead before its mechanism starts after a command
    /// of `last_op`, plus the link (refreshed when `last_op` changes), and its least move
    /// (DiskSim's minimum seek delay for writes). What every positioning estimate of a
    /// search reads, one load each instead of a selection by operation.
    start_ovh_ns: [SimTime; 2],
    min_move_ns: [SimTime; 2],
    /// The mechanics' revolutions per nanosecond, bit for bit (see [`SelfModel::fast_angle_at`]).
    turns_per_ns: f64,
}

impl SelfModel {
    pub fn new(mech: Arc<Mechanics>, ovh: Overheads, link_ns: SimTime) -> Self {
        let start_ovh_ns =
            [Op::Read, Op::Write].map(|next| ovh.mechanical_start_ns(Op::Read, next) + link_ns);
        let turns_per_ns = mech.turns_per_ns();
        SelfModel {
            mech,
            turns_per_ns,
            floor_ovh_ns: ovh.min_mechanical_start_ns() + link_ns,
            start_ovh_ns,
            min_move_ns: [0, ovh.min_write_seek_ns],
            ovh,
            link_ns,
            head: HeadPosition::default(),
            last_op: Op::Read,
        }
    }

    pub fn mechanics(&self) -> &Arc<Mechanics> {
        &self.mech
    }

    pub fn overheads(&self) -> &Overheads {
        &self.ovh
    }

    /// The overhead before the mechanism of a command of `op` starts after the last
    /// command, plus the link.
    #[inline]
    pub fn start_overhead_ns(&self, op: Op) -> SimTime {
        self.start_ovh_ns[op as usize]
    }

    /// `Mechanics::angle_at` for `0 <= t` below 2^52 revolutions: the whole turns found by
    /// rounding through 2^52 (where an `f64` has no fraction bits) and stepping down if that
    /// rounded up, the same value as the mechanics' truncation through `i64` without the
    /// saturating conversion and back (about a dozen instructions).
    #[inline(always)]
    fn fast_angle_at(&self, t: f64) -> f64 {
        const TWO_52: f64 = (1u64 << 52) as f64;
        let turns = t * self.turns_per_ns;
        let mut whole = (turns + TWO_52) - TWO_52;
        if whole > turns {
            whole -= 1.0;
        }
        turns - whole
    }

    /// Predicted cost of access `a` dispatched at `at`.
    #[inline]
    pub fn estimate(&self, at: Moment, a: Access) -> Estimate {
        let (ph, _done, end) = plan_service(
            &self.mech,
            &self.ovh,
            at.from,
            self.last_op,
            at.start_ns + self.link_ns,
            a.lbn,
            a.sectors,
            a.op,
        );
        Estimate {
            overhead_ns: ph.overhead_ns + self.link_ns,
            seek_ns: ph.seek_ns,
            rotate_ns: ph.rotate_ns,
            transfer_ns: ph.transfer_ns,
            end,
        }
    }

    /// Learn where the head is and the last command's direction from a completion (a
    /// buffer hit leaves the head where it was).
    pub fn observe(&mut self, c: &Completion) {
        if !c.cache_hit {
            self.head = c.head;
        }
        if c.command.op != self.last_op {
            self.last_op = c.command.op;
            self.start_ovh_ns = [Op::Read, Op::Write]
                .map(|next| self.ovh.mechanical_start_ns(self.last_op, next) + self.link_ns);
        }
    }
}

impl PositionCost for SelfModel {
    #[inline]
    fn cylinder_of(&self, lbn: u64) -> u32 {
        self.mech.layout.cylinder_of(lbn)
    }
    #[inline]
    fn head(&self) -> HeadPosition {
        self.head
    }
    #[inline]
    fn target(&self, a: Access, needs: Needs) -> Target {
        let l = self.mech.layout.locate(a.lbn);
        let t = located(l, a);
        match needs {
            Needs::Positioning => t,
            Needs::Service => Target {
                transfer_ns: self.mech.transfer_ns_at(l, a.lbn, a.sectors, a.op),
                ..t
            },
        }
    }
    // Always inlined: a search that holds the model as its own type (the drive's SPTF) then
    // works out the candidate-independent part once, not per candidate.
    #[inline(always)]
    fn positioning_to(&self, from: HeadPosition, start_ns: SimTime, t: &Target) -> SimTime {
        if t.sectors == 0 {
            return self
                .estimate(Moment::new(from, start_ns), t.access())
                .positioning_ns();
        }
        let overhead = self.start_ovh_ns[t.op as usize];
        let seek_ns = self
            .mech
            .move_ns(from, t.cylinder, t.surface, t.op)
            .max(self.min_move_ns[t.op as usize]);
        // `Mechanics::positioning_to`'s arithmetic, with the integer-float conversions
        // through `i64` (the same values below 2^63 ns; one instruction each on x86-64
        // where `u64`'s take five), the angle as `fast_angle_at` above, and no clamp of the
        // rounded wait at zero (a wait is never negative). The debug assertion holds it to
        // the mechanics' own function.
        let t_arrive = (start_ns + overhead) as i64 as f64 + seek_ns as i64 as f64;
        let wait = self.mech.wait_from(self.fast_angle_at(t_arrive), t.angle);
        let wait_ns = (wait + 0.5) as i64 as SimTime;
        let positioning = overhead + seek_ns + wait_ns;
        debug_assert_eq!(
            positioning,
            overhead
                + self.mech.positioning_to(
                    from,
                    start_ns + overhead,
                    t.cylinder,
                    t.surface,
                    t.angle,
                    t.op,
                    self.min_move_ns[t.op as usize],
                )
        );
        positioning
    }
    #[inline]
    fn positioning_floor_ns(&self, distance: u32) -> SimTime {
        self.mech
            .move_floor_ns(distance)
            .saturating_add(self.floor_ovh_ns)
    }
}

impl Geometry for SelfModel {
    fn track_of(&self, lbn: u64) -> HeadPosition {
        let (cylinder, surface) = self.mech.layout.track_of(lbn);
        HeadPosition { cylinder, surface }
    }
    fn track_info(&self, track: HeadPosition) -> Option<TrackInfo> {
        let layout = &self.mech.layout;
        let first = layout.first_lbn_on_track(track.cylinder, track.surface)?;
        let l = layout.locate(first);
        // The run from `first` is on the track without locating its LBNs again.
        let run_end = first + l.run_sectors as u64;
        let on_track =
            |lbn: u64| lbn < run_end || layout.track_of(lbn) == (track.cylinder, track.surface);
        // The track's LBNs are consecutive from `first`: find the last by bisection.
        let (mut lo, mut hi) = (first, (first + l.spt as u64).min(layout.capacity_sectors()));
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if on_track(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let slot0 = l.angle - l.sector as f64 / l.spt as f64;
        Some(TrackInfo {
            track,
            first_lbn: first,
            lbns: (lo - first + 1) as u32,
            slots: l.spt,
            slot0_angle: slot0 - slot0.floor(),
            sector_ns: self.mech.sector_ns(l.spt),
        })
    }
    fn slot_lbn(&self, track: HeadPosition, slot: u32) -> Option<u64> {
        self.mech.layout.lbn_at(track.cylinder, track.surface, slot)
    }
    fn angle_at(&self, t: SimTime) -> f64 {
        self.mech.angle_at(t as f64)
    }
    fn period_ns(&self) -> f64 {
        self.mech.period_ns
    }
    fn move_ns(&self, from: HeadPosition, to: HeadPosition, op: Op) -> SimTime {
        self.mech.move_ns(from, to.cylinder, to.surface, op)
    }
    fn move_floor_ns(&self, distance: u32) -> SimTime {
        self.mech.move_floor_ns(distance)
    }
}

/// The drive plans free reads with itself: it has no queue model (a read's tail is the
/// bus's, which free data in the drive never cross), so the next command begins where and
/// when the media transfer ends.
impl PlanModel for SelfModel {
    fn name(&self) -> &str {
        "drive"
    }
    fn cylinders(&self) -> u32 {
        self.mech.seek.max_distance() + 1
    }
    #[inline]
    fn estimate(&self, at: Moment, a: Access) -> Estimate {
        SelfModel::estimate(self, at, a)
    }
    fn geometry(&self) -> Option<&dyn Geometry> {
        Some(self)
    }
    fn release(&self, at: Moment, a: Access) -> Release {
        Release::after(SelfModel::estimate(self, at, a), 0)
    }
    fn exact_tail(&self) -> bool {
        false
    }
}

/// A target at `l` without its transfer time (see [`Needs::Positioning`]).
#[inline(always)]
fn located(l: Location, a: Access) -> Target {
    Target {
        lbn: a.lbn,
        sectors: a.sectors,
        op: a.op,
        cylinder: l.cylinder,
        surface: l.surface,
        angle: l.angle,
        transfer_ns: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn atlas() -> SelfModel {
        let spec = crate::device::catalog::lookup("atlas10k").unwrap();
        let mech = Arc::new(Mechanics::new(&spec).unwrap());
        let mut ovh = Overheads::from_spec(&spec);
        // Different overheads by previous op and op, and a least write move, so that every
        // entry of the by-op tables is exercised.
        ovh.read_miss_ns = [150_000, 120_000];
        ovh.write_miss_ns = [300_000, 450_000];
        ovh.min_write_seek_ns = 200_000;
        SelfModel::new(mech, ovh, 7_000)
    }

    fn after(p: &mut SelfModel, op: Op, head: HeadPosition) {
        use crate::request::{Command, Phases, Request};
        p.observe(&Completion {
            command: Command::single(Request::new(0, 0, 1, op)),
            done_ns: 0,
            phases: Phases::default(),
            cache_hit: false,
            head,
            head_lbn: 0,
        });
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// The search's own arithmetic (the by-op tables, the conversions, the angle) gives
        /// the estimate's positioning time exactly, after reads and after writes.
        #[test]
        fn positioning_to_a_target_is_the_estimates(
            cylinder in 0u32..10_042, surface in 0u32..6, prev_write in any::<bool>(),
            start_ns in 0u64..20_000_000_000_000, lbn in 0u64..17_938_000,
            sectors in 1u32..64, write in any::<bool>(),
        ) {
            let mut p = atlas();
            let from = HeadPosition { cylinder, surface };
            after(&mut p, if prev_write { Op::Write } else { Op::Read }, from);
            let op = if write { Op::Write } else { Op::Read };
            let a = Access::new(lbn, sectors, op);
            let want = p.estimate(Moment::new(from, start_ns), a).positioning_ns();
            for needs in [Needs::Positioning, Needs::Service] {
                prop_assert_eq!(p.positioning_to(from, start_ns, &p.target(a, needs)), want);
            }
        }

        /// The angle by rounding through 2^52 is the mechanics' bit for bit, at any instant
        /// and at whole revolutions (where the two ways of taking whole turns off could
        /// differ by one).
        #[test]
        fn the_angle_is_the_mechanics(t in 0u64..40_000_000_000_000, turns in 0u64..5_000_000) {
            let p = atlas();
            for t in [t as f64, (turns as f64 * p.mech.period_ns).round(), turns as f64 * p.mech.period_ns] {
                prop_assert_eq!(p.fast_angle_at(t).to_bits(), p.mech.angle_at(t).to_bits(), "t = {}", t);
            }
        }
    }
}
