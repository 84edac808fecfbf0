//! The mechanical timing model of a disk: how long it takes to move the head to a sector and
//! read or write a run of sectors. Shared, read-only, by the device (the truth) and the
//! oracle predictor (the host's exact copy), so the two can never disagree by accident.

use super::layout::{Layout, Location};
use super::num::round_ns;
use super::seek::SeekCurve;
use super::spec::{HddSpec, MAX_CYLINDERS, MAX_SURFACES};
use crate::error::{HeadwayError, Result};
use crate::request::{HeadPosition, Op};
use crate::time::{ms_to_ns, SimTime};

/// Timing of one mechanical access, relative to when positioning began.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MechAccess {
    pub seek_ns: SimTime,
    pub rotate_ns: SimTime,
    /// From the start of the first sector to the end of the last, including head and
    /// cylinder switches (and their rotational waits) inside the transfer.
    pub transfer_ns: SimTime,
    pub end: HeadPosition,
}

impl MechAccess {
    #[inline]
    pub fn total_ns(&self) -> SimTime {
        self.seek_ns + self.rotate_ns + self.transfer_ns
    }
}

/// [`Mechanics::angle_rounding`]'s share of the turn count: 2^-48, 16 ulps of it [TEAM
/// CHOICE: above the few ulps the engine's additions bring, and well below the half
/// nanosecond that rounding event times to whole nanoseconds moves an access by: 2^-44
/// (0.46 ns on the ST41601N at 7e5 turns) started writes the calibration's probe aims at a
/// sector's edge (`tests/integration/calibration.rs`, stability) before sectors they had missed by
/// 0.1-0.3 ns, so the edges it measures moved].
const ANGLE_ROUNDING_PER_TURN: f64 = 1.0 / 281_474_976_710_656.0;

#[derive(Clone, Debug)]
pub struct Mechanics {
    pub layout: Layout,
    pub seek: SeekCurve,
    /// Rotation period; fractional nanoseconds kept so angles do not drift over long runs.
    pub period_ns: f64,
    /// 1 / period: angles are computed with a multiplication on the hot path.
    inv_period: f64,
    pub head_switch_ns: SimTime,
    /// Added to every write positioning that moves the head; DiskSim allows a negative fitted
    /// value (the move is then clamped at zero).
    pub write_settle_ns: i64,
    /// `floor[d]` = min over d' >= d of the cheapest move of d' cylinders, read or write.
    floor_ns: Vec<SimTime>,
}

impl Mechanics {
    pub fn new(spec: &HddSpec) -> Result<Self> {
        let bad = |key: &str, msg: String| HeadwayError::params(None, None, Some(key.into()), msg);
        if !(spec.rpm.is_finite() && spec.rpm > 0.0) {
            return Err(bad(
                "rpm",
                format!("rotation speed must be positive, got {}", spec.rpm),
            ));
        }
        if spec.surfaces == 0 || spec.cylinders == 0 {
            return Err(bad(
                "surfaces",
                "a drive needs at least one surface and one cylinder".into(),
            ));
        }
        // Before anything is sized from them (the seek tables are dense in cylinders).
        if spec.cylinders > MAX_CYLINDERS {
            return Err(bad(
                "cylinders",
                format!("must be at most {MAX_CYLINDERS}, got {}", spec.cylinders),
            ));
        }
        if spec.surfaces > MAX_SURFACES {
            return Err(bad(
                "surfaces",
                format!("must be at most {MAX_SURFACES}, got {}", spec.surfaces),
            ));
        }
        if !(spec.head_switch_ms >= 0.0 && spec.head_switch_ms.is_finite()) {
            return Err(bad(
                "head_switch_ms",
                format!(
                    "head switch time must be non-negative, got {}",
                    spec.head_switch_ms
                ),
            ));
        }
        if !spec.write_settle_ms.is_finite() {
            return Err(bad(
                "write_settle_ms",
                format!("write settle must be finite, got {}", spec.write_settle_ms),
            ));
        }
        let layout = Layout::new(&spec.layout, spec.surfaces, spec.cylinders)?;
        if layout.capacity_sectors() != spec.block_count {
            return Err(bad(
                "block_count",
                format!(
                    "layout maps {} sectors but the drive declares {}",
                    layout.capacity_sectors(),
                    spec.block_count
                ),
            ));
        }
        let seek = SeekCurve::new(&spec.seek, spec.cylinders)?;
        let head_switch_ns = ms_to_ns(spec.head_switch_ms);
        let write_settle_ns = (spec.write_settle_ms * 1e6).round() as i64;
        // A write's move may be cheaper than a read's when the settle is negative; the floor
        // must stay below both so SPTF's pruning never discards the winner.
        let settle_floor = write_settle_ns.min(0);
        let n = spec.cylinders as usize;
        let mut floor_ns = vec![0; n + 1];
        floor_ns[n] = SimTime::MAX;
        for d in (0..n).rev() {
            let here = if d == 0 {
                0
            } else {
                (seek.seek_ns(d as u32) as i64 + settle_floor).max(0) as SimTime
            };
            floor_ns[d] = here.min(floor_ns[d + 1]);
        }
        Ok(Mechanics {
            layout,
            seek,
            period_ns: 60.0e9 / spec.rpm,
            inv_period: spec.rpm / 60.0e9,
            head_switch_ns,
            write_settle_ns,
            floor_ns,
        })
    }

    /// Spindle turns per nanosecond: the factor `angle_at` multiplies by, for callers that
    /// must reproduce its arithmetic bit for bit (the host oracle's search).
    #[inline]
    pub(crate) fn turns_per_ns(&self) -> f64 {
        self.inv_period
    }

    /// Spindle angle at time `t`, in revolutions [0, 1). The index mark passes at t = 0.
    #[inline]
    pub(crate) fn angle_at(&self, t: f64) -> f64 {
        // t >= 0, so truncation is floor (and avoids a libm call on the hot path).
        let turns = t * self.inv_period;
        turns - (turns as i64).max(0) as f64
    }

    /// How far, in revolutions, the head's angle at `t` (from [`Mechanics::angle_at`]) may lie
    /// past a sector boundary it is really at, from rounding alone: `t / period`'s fraction
    /// carries about an ulp of the turn count, and the times the engine adds up to reach `t`
    /// a few more, so the bound grows with the turns: 2^-48 of them, 16 ulps (0.04 ns of the
    /// Atlas 10K's spindle at 2 million turns, against a sector's 18 us). The snaps
    /// onto a boundary take the larger of this and their fixed slack, which alone covered
    /// the rounding only below about 2^14 turns: past that, read-aheads that started at their
    /// first sector split or waited a revolution, so behaviour hung on absolute time.
    #[inline(always)]
    pub(crate) fn angle_rounding(&self, t: f64) -> f64 {
        t * self.inv_period * ANGLE_ROUNDING_PER_TURN
    }

    /// Time to wait from `t` until angle `target` comes under the head.
    #[inline]
    pub fn wait_for(&self, t: f64, target: f64) -> f64 {
        self.wait_from(self.angle_at(t), target)
    }

    /// [`Mechanics::wait_for`] with the spindle at angle `now` (from [`Mechanics::angle_at`]).
    #[inline]
    pub(crate) fn wait_from(&self, now: f64, target: f64) -> f64 {
        // Each wrap subtracts a turn or nothing, chosen by the comparison: the subtraction
        // of 0.0 leaves every value as it is (-0.0 included), so the results are the
        // conditional additions' to the bit, and the choice is the comparison's mask on the
        // constant (an `and`) instead of a blend of both results: three instructions a wrap
        // fewer on every rotational estimate (SPTF's six a decision).
        let d = super::num::plus_turn_if_negative(target - now);
        // Guard the edge where rounding makes d == 1.0: the sector is under the head now.
        let d = d - if d >= 1.0 { 1.0 } else { 0.0 };
        d * self.period_ns
    }

    /// Time to move the head between two positions, as DiskSim's `dm_seek_time`: the larger
    /// of the seek and (if the surface changes) the head switch, plus the write settle when
    /// the access is a write and the head moved (a negative settle can shorten the move, never
    /// below zero).
    #[inline]
    pub(crate) fn move_ns(
        &self,
        from: HeadPosition,
        to_cyl: u32,
        to_surface: u32,
        op: Op,
    ) -> SimTime {
        let d = from.cylinder.abs_diff(to_cyl);
        let seek = if d > 0 { self.seek.seek_ns(d) } else { 0 };
        let switch = if from.surface != to_surface {
            self.head_switch_ns
        } else {
            0
        };
        let t = seek.max(switch);
        if t == 0 || op == Op::Read {
            t
        } else {
            (t as i64 + self.write_settle_ns).max(0) as SimTime
        }
    }

    /// Duration of one sector on a track of `spt` sectors.
    #[inline]
    pub(crate) fn sector_ns(&self, spt: u32) -> f64 {
        self.period_ns / spt as f64
    }

    /// Lower bound on moving `distance` or more cylinders (see `Predictor::positioning_floor_ns`).
    #[inline]
    pub(crate) fn move_floor_ns(&self, distance: u32) -> SimTime {
        *self
            .floor_ns
            .get(distance as usize)
            .unwrap_or(&SimTime::MAX)
    }

    /// Seek plus rotational latency to reach a sector whose location is already known: the
    /// same arithmetic as [`Mechanics::access`] without the layout lookup or the transfer,
    /// for schedulers that re-evaluate the same queued requests many times. The move takes
    /// at least `min_move_ns` (DiskSim's minimum seek delay for writes).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn positioning_to(
        &self,
        from: HeadPosition,
        start_ns: SimTime,
        cylinder: u32,
        surface: u32,
        angle: f64,
        op: Op,
        min_move_ns: SimTime,
    ) -> SimTime {
        let seek_ns = self.move_ns(from, cylinder, surface, op).max(min_move_ns);
        let t_arrive = start_ns as f64 + seek_ns as f64;
        seek_ns + round_ns(self.wait_for(t_arrive, angle))
    }

    /// Time an access of `sectors` sectors from `lbn` takes if positioning begins at `start_ns`
    /// with the head at `from`. `sectors == 0` is a pure seek to the cylinder holding `lbn`.
    pub fn access(
        &self,
        from: HeadPosition,
        start_ns: SimTime,
        lbn: u64,
        sectors: u32,
        op: Op,
    ) -> MechAccess {
        self.access_after(from, start_ns, 0, lbn, sectors, op)
    }

    /// [`Mechanics::access`] with the first move taking at least `min_move_ns`.
    pub(crate) fn access_after(
        &self,
        from: HeadPosition,
        start_ns: SimTime,
        min_move_ns: SimTime,
        lbn: u64,
        sectors: u32,
        op: Op,
    ) -> MechAccess {
        let loc = self.layout.locate(lbn);
        let seek_ns = self
            .move_ns(from, loc.cylinder, loc.surface, op)
            .max(min_move_ns);
        if sectors == 0 {
            return MechAccess {
                seek_ns,
                rotate_ns: 0,
                transfer_ns: 0,
                end: HeadPosition {
                    cylinder: loc.cylinder,
                    surface: loc.surface,
                },
            };
        }
        let t_arrive = start_ns as f64 + seek_ns as f64;
        let rotate = self.wait_for(t_arrive, loc.angle);
        let rotate_ns = round_ns(rotate);
        let t_first = start_ns as f64 + (seek_ns + rotate_ns) as f64;
        let (t_end, end) = self.transfer_from(t_first, loc, lbn, sectors, op);
        MechAccess {
            seek_ns,
            rotate_ns,
            transfer_ns: round_ns(t_end - t_first),
            end,
        }
    }

    /// The media transfer time of [`Mechanics::access`] for `sectors` from `lbn`, which sits
    /// at `loc`: what a scheduler's prepared target needs, without a second layout lookup or
    /// a seek. Bit-identical to `access(here, 0, ..).transfer_ns` with the head already on
    /// the track: the same float operations from the same starting instant.
    pub(crate) fn transfer_ns_at(&self, loc: Location, lbn: u64, sectors: u32, op: Op) -> SimTime {
        if sectors == 0 {
            return 0;
        }
        let t_first = round_ns(self.wait_for(0.0, loc.angle)) as f64;
        let (t_end, _) = self.transfer_from(t_first, loc, lbn, sectors, op);
        round_ns(t_end - t_first)
    }

    /// Media transfer beginning at `t` with the head at the start of `lbn` (located at `loc`).
    /// Returns the time the last sector ends and where the head is then.
    fn transfer_from(
        &self,
        mut t: f64,
        mut loc: Location,
        mut lbn: u64,
        sectors: u32,
        op: Op,
    ) -> (f64, HeadPosition) {
        let mut left = sectors as u64;
        let sector_ns = |spt: u32| self.period_ns / spt as f64;
        loop {
            let run = left.min(loc.run_sectors as u64);
            t += run as f64 * sector_ns(loc.spt);
            left -= run;
            lbn += run;
            let here = HeadPosition {
                cylinder: loc.cylinder,
                surface: loc.surface,
            };
            if left == 0 {
                return (t, here);
            }
            let next = self.layout.locate(lbn);
            // A run can also end on the same track (a slipped sector or a spare in between):
            // then no switch, just rotate past the gap.
            t += self.move_ns(here, next.cylinder, next.surface, op) as f64;
            t += self.wait_for(t, next.angle);
            loc = next;
        }
    }

    /// Where the head would be after the last access touching `lbn`..`lbn+sectors`.
    pub fn position_of(&self, lbn: u64) -> HeadPosition {
        let l = self.layout.locate(lbn);
        HeadPosition {
            cylinder: l.cylinder,
            surface: l.surface,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Mechanics::wait_from`] as it was written before its wraps became masked subtractions.
    fn wait_from_branches(m: &Mechanics, now: f64, target: f64) -> f64 {
        let mut d = target - now;
        if d < 0.0 {
            d += 1.0;
        }
        if d >= 1.0 {
            d -= 1.0;
        }
        d * m.period_ns
    }

    /// The wraps as subtractions give the conditional additions' results bit for bit: at the
    /// edges (equal angles, signed zeros, a difference of an ulp either side of zero, angles
    /// an ulp below a turn, out-of-range angles and NaN) and at random angles.
    #[test]
    fn the_wait_is_the_conditional_wraps_bit_for_bit() {
        let spec = crate::device::catalog::lookup("atlas10k").unwrap();
        let m = Mechanics::new(&spec).unwrap();
        let below_one = f64::from_bits(1.0f64.to_bits() - 1);
        let tiny = f64::from_bits(1);
        let mut edges = vec![
            0.0,
            -0.0,
            tiny,
            -tiny,
            1e-300,
            0.5,
            below_one,
            1.0,
            1.5,
            -1.0,
            -0.5,
            f64::NAN,
            f64::INFINITY,
        ];
        edges.extend([1e-17, 1e-16, 0.25 + 1e-17, f64::EPSILON, 1.0 - f64::EPSILON]);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut pairs: Vec<(f64, f64)> = Vec::new();
        for &a in &edges {
            for &b in &edges {
                pairs.push((a, b));
            }
        }
        for _ in 0..200_000 {
            let now = next();
            // Near `now` as often as not: the wraps' edges are there.
            let target = match (next() * 4.0) as u32 {
                0 => now,
                1 => now + (next() - 0.5) * 1e-15,
                _ => next(),
            };
            pairs.push((now, target));
        }
        for (now, target) in pairs {
            let want = wait_from_branches(&m, now, target);
            let got = m.wait_from(now, target);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "now {now:e} target {target:e}: {got:e} against {want:e}"
            );
        }
    }
}
