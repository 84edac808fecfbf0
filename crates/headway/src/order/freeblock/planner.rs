//! The freeblock planner: for a foreground pair (A, B), the greedy track search of the
//! spec's section 3.3. The head leaves A's end at `start_ns` and must begin B's first
//! sector when the direct path would; every track it could visit in between is a
//! candidate, and the one whose window holds the most wanted sectors wins.
//!
//! - **Destination** (B's track): the sectors passing after the head arrives and before B's
//!   first sector, prepended to B in one command (only if B is a read and the run ends
//!   exactly where B begins: merging, never appending).
//! - **Intermediate** (any other track): a separate read between A and B, inside the window
//!   `[arrive, leave]` that a detour to the track leaves after its extra seeks (each seek
//!   `c_fb` longer than predicted).
//! - **Source** (A's track): not usable outside the firmware (A is already at the drive and
//!   cannot be extended), so it is skipped unless `allow_source_track` (the firmware
//!   variant, where the drive reads on after A).
//!
//! At most one command per track, covering one contiguous LBN run; when the window wraps
//! past the track's last LBN, the run with more wanted sectors is taken. [TEAM CHOICE] A
//! command covers wanted sectors only (the longest run of them in the window): every
//! sector read costs bus time before the drive takes its next command, so reading an
//! unwanted one is not free, and each block is then read exactly once. Every candidate is checked by the predictor's own estimates before it is
//! chosen: reading it, then positioning for B (both with the conservatism), must not start
//! B later than the direct path (without conservatism) does. With the oracle and `c_fb = 0`
//! that is exactly "B is not delayed".
//!
//! Pruning: tracks are visited outward from A's and B's cylinders, nearest first; a
//! direction stops once the detour alone costs the whole latency; tracks with no wanted
//! sector left and tracks whose window cannot beat the best so far are skipped before any
//! passing-sector computation; the search is anytime, bounded by `max_tracks` and by the
//! CPU time left before the slot opens (each examined track is charged as one estimate of
//! the host's decision-cost model).

use super::wanted::WantedBlocks;
use crate::error::Result;
use crate::order::{no_geometry, Access, Estimate, Geometry, Moment, Release, TrackInfo};
use crate::request::{HeadPosition, Op};
use crate::time::SimTime;

/// What the planner asks of a model of the drive: the host's predictors (every predictor
/// is one) and the drive's model of itself.
pub trait PlanModel {
    /// The model's name, for the error of one without track geometry.
    fn name(&self) -> &str;
    fn cylinders(&self) -> u32;
    /// Predicted cost of access `a` dispatched at `at`.
    fn estimate(&self, at: Moment, a: Access) -> Estimate;
    /// The tracks as the model believes them, if it knows them.
    fn geometry(&self) -> Option<&dyn Geometry>;
    /// `a` dispatched at `at`: its estimate, and when and where the command queued behind
    /// it can begin.
    fn release(&self, at: Moment, a: Access) -> Release;
    /// Whether [`PlanModel::release`]'s tail and completion are the device's own.
    fn exact_tail(&self) -> bool;
}

/// [`PlanModel::estimate`] with every seek `seek_margin_ns` longer than predicted (the
/// conservatism `c_fb`): overheads do not depend on the start time, so starting `margin`
/// later is the same as seeking `margin` longer.
#[inline]
pub(crate) fn estimate_with_margin<P: PlanModel + ?Sized>(
    p: &P,
    at: Moment,
    a: Access,
    seek_margin_ns: SimTime,
) -> Estimate {
    p.estimate(at.later(seek_margin_ns), a)
        .with_seek_margin(seek_margin_ns)
}

/// The pair to plan between: the head leaves `from` at `start_ns` (A's predicted end, or
/// now when the drive is idle), and B is `lbn..lbn + sectors`.
#[derive(Clone, Copy, Debug)]
pub struct Pair {
    pub from: HeadPosition,
    pub start_ns: SimTime,
    pub b_lbn: u64,
    pub b_sectors: u32,
    pub b_op: Op,
    /// Time from a read's media end until the command queued behind it can begin (the
    /// predictor's `QueueModel::tail_ns`: bus transfer and completion, less the queued
    /// command's overhead, which estimates add back): a free read holds the next command
    /// back by this much.
    ///
    pub tail: Tail,
}

/// A read's bus tail: `fixed_ns + per_sector_ns × sectors`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tail {
    pub fixed_ns: f64,
    pub per_sector_ns: f64,
}

impl Pair {
    /// Bus tail of a read of `n` sectors.
    pub fn tail_ns(&self, n: u64) -> SimTime {
        if n == 0 {
            return 0;
        }
        (self.tail.fixed_ns + n as f64 * self.tail.per_sector_ns)
            .ceil()
            .max(0.0) as SimTime
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanLimits {
    /// Seek conservatism of the freeblock scheduler.
    pub c_fb_ns: SimTime,
    /// Tracks examined at most (beyond B's own).
    pub max_tracks: u64,
    /// Allow reading on A's track after A (firmware variant only).
    pub allow_source_track: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeRead {
    /// Read `lbn..b_lbn` in the same command as B (prepended).
    Prepend { lbn: u64 },
    /// A separate read `lbn..lbn + sectors` between A and B.
    Between { lbn: u64, sectors: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub read: FreeRead,
    /// Wanted sectors the read delivers.
    pub utility: u64,
}

/// What B looks like on the direct path.
#[derive(Clone, Copy, Debug)]
pub struct Direct {
    /// B's first sector comes under the head (no conservatism).
    pub b_start_ns: SimTime,
    /// B's media transfer ends.
    pub b_end_ns: SimTime,
    pub b_end_track: HeadPosition,
    /// Rotational latency of the direct path.
    pub latency_ns: SimTime,
}

pub fn direct<P: PlanModel + ?Sized>(p: &P, pair: &Pair) -> Direct {
    let e = p.estimate(
        Moment::new(pair.from, pair.start_ns),
        Access::new(pair.b_lbn, pair.b_sectors, pair.b_op),
    );
    let b_start_ns = pair.start_ns + e.positioning_ns();
    Direct {
        b_start_ns,
        b_end_ns: b_start_ns + e.transfer_ns,
        b_end_track: e.end,
        latency_ns: e.rotate_ns,
    }
}

/// The best free read for `pair`, and the tracks examined.
pub fn plan<P: PlanModel + ?Sized>(
    p: &P,
    pair: &Pair,
    wanted: &WantedBlocks,
    limits: &PlanLimits,
    surfaces: u32,
) -> Result<(Option<Plan>, u64)> {
    plan_excluding(p, pair, wanted, limits, surfaces, &[])
}

/// [`plan`], never choosing a track in `exclude` (the firmware's one-request-per-track
/// restriction: tracks already read in this gap).
pub(crate) fn plan_excluding<P: PlanModel + ?Sized>(
    p: &P,
    pair: &Pair,
    wanted: &WantedBlocks,
    limits: &PlanLimits,
    surfaces: u32,
    exclude: &[HeadPosition],
) -> Result<(Option<Plan>, u64)> {
    let d = direct(p, pair);
    let c = limits.c_fb_ns;
    let mut best: Option<Plan> = None;
    if wanted.remaining() == 0 {
        return Ok((None, 0));
    }
    let g = p.geometry().ok_or_else(|| no_geometry(p.name()))?;
    let track_b = g.track_of(pair.b_lbn);
    let track_a = pair.from;

    // Destination track: the sectors before B's first, from the head's (conservative)
    // arrival on the track.
    if pair.b_op == Op::Read && !exclude.contains(&track_b) {
        let e = estimate_with_margin(
            p,
            Moment::new(pair.from, pair.start_ns),
            Access::new(pair.b_lbn, pair.b_sectors, pair.b_op),
            c,
        );
        let arrive = pair.start_ns + e.overhead_ns + e.seek_ns;
        if arrive < d.b_start_ns {
            // The sector before B ends when B begins, to within the rounding of both
            // instants to the nanosecond: a window one ns longer keeps it.
            let runs = g.passing(track_b, arrive, d.b_start_ns + 1);
            if let Some(run) = runs.iter().find(|r| r.end_lbn() == pair.b_lbn) {
                if let Some(first) = wanted.run_ending_at(pair.b_lbn, run.lbn) {
                    let utility = pair.b_lbn - first;
                    if feasible_prepend(p, pair, &d, first, c) {
                        best = Some(Plan {
                            read: FreeRead::Prepend { lbn: first },
                            utility,
                        });
                    }
                }
            }
        }
    }

    // Intermediate tracks, outward from A and from B.
    let ov_read = p
        .estimate(
            Moment::new(pair.from, pair.start_ns),
            Access::new(pair.b_lbn, 1, Op::Read),
        )
        .overhead_ns;
    let ov_b = p
        .estimate(
            Moment::new(track_b, d.b_end_ns),
            Access::new(pair.b_lbn, pair.b_sectors, pair.b_op),
        )
        .overhead_ns;
    let cylinders = p.cylinders();
    let (ca, cb) = (track_a.cylinder, track_b.cylinder);
    // Directions: (anchor, step, alive). A direction leaving the span between A and B
    // stops once its detour alone exceeds the latency; one going towards the other end
    // stops at it (the other end's directions cover the rest).
    let mut dirs: [(u32, i64, bool); 4] =
        [(ca, -1, true), (ca, 1, true), (cb, -1, true), (cb, 1, true)];
    let (lo_span, hi_span) = (ca.min(cb), ca.max(cb));
    let mut examined = 0u64;
    let mut seen_cyl = RecentCylinders::default();
    let mut dist = 0i64;
    'search: while dirs.iter().any(|x| x.2) {
        for k in 0..4 {
            let (anchor, step, alive) = dirs[k];
            if !alive {
                continue;
            }
            let cyl = anchor as i64 + step * dist;
            if cyl < 0 || cyl >= cylinders as i64 {
                dirs[k].2 = false;
                continue;
            }
            let cyl = cyl as u32;
            let inside = cyl >= lo_span && cyl <= hi_span;
            if dist > 0 && inside && (cyl == ca || cyl == cb) && anchor != cyl {
                dirs[k].2 = false;
                continue;
            }
            // One visit per cylinder (A's and B's directions meet between them).
            if seen_cyl.contains(cyl) {
                continue;
            }
            seen_cyl.push(cyl);
            // A cylinder whose detour leaves no window even at the model's least moves is
            // passed over whole (while tracks may still be examined: at the limit, the
            // first track the loop below meets ends the search).
            let arrive_floor =
                (pair.start_ns + ov_read + c).saturating_add(g.move_floor_ns(cyl.abs_diff(ca)));
            let leave_ceiling = d
                .b_start_ns
                .saturating_sub((ov_b + c).saturating_add(g.move_floor_ns(cyl.abs_diff(cb))));
            let hopeless = leave_ceiling <= arrive_floor && examined < limits.max_tracks;
            let mut any_window = false;
            for s in 0..if hopeless { 0 } else { surfaces } {
                let t = HeadPosition {
                    cylinder: cyl,
                    surface: s,
                };
                if t == track_b
                    || (t == track_a && !limits.allow_source_track)
                    || exclude.contains(&t)
                {
                    continue;
                }
                if examined >= limits.max_tracks {
                    break 'search;
                }
                let m_a = g.move_ns(track_a, t, Op::Read);
                let m_b = g.move_ns(t, track_b, pair.b_op);
                let arrive = pair.start_ns + ov_read + m_a + c;
                let leave = d.b_start_ns.saturating_sub(ov_b + m_b + c);
                if leave <= arrive {
                    continue;
                }
                any_window = true;
                let Some(info) = g.track_info(t) else {
                    continue;
                };
                examined += 1;
                let best_u = best.map_or(0, |b| b.utility);
                if wanted.count(info.first_lbn, info.lbns as u64) <= best_u {
                    continue;
                }
                if ((leave - arrive) as f64 / (info.sector_ns + pair.tail.per_sector_ns)) as u64
                    <= best_u
                {
                    continue;
                }
                for cand in runs_on(g, &info, arrive, leave, wanted) {
                    if let Some(cand) = feasible_prefix(p, pair, &d, cand, c, wanted) {
                        if cand.utility > best.map_or(0, |b| b.utility) {
                            best = Some(cand);
                        }
                    }
                }
            }
            // A direction leaving the span: if no surface of this cylinder leaves a
            // window, farther cylinders (longer seeks both ways) cannot either.
            let leaving = (step < 0 && cyl <= lo_span) || (step > 0 && cyl >= hi_span);
            if leaving && !any_window && dist > 0 {
                dirs[k].2 = false;
            }
        }
        dist += 1;
    }
    Ok((best, examined))
}

/// The last [`RecentCylinders::LEN`] cylinders the search visited (directions that meet
/// visit the cylinders near the meeting point once).
struct RecentCylinders {
    cylinders: [u32; RecentCylinders::LEN],
    next: usize,
}

impl RecentCylinders {
    const LEN: usize = 16;

    #[inline]
    fn contains(&self, cyl: u32) -> bool {
        self.cylinders.contains(&cyl)
    }

    #[inline]
    fn push(&mut self, cyl: u32) {
        self.cylinders[self.next] = cyl;
        self.next = (self.next + 1) % Self::LEN;
    }
}

impl Default for RecentCylinders {
    fn default() -> Self {
        // No cylinder is numbered u32::MAX.
        RecentCylinders {
            cylinders: [u32::MAX; Self::LEN],
            next: 0,
        }
    }
}

/// The (at most two, with a wrap) LBN runs passing in `[arrive, leave]` on a track, each
/// trimmed to its wanted sectors.
fn runs_on(
    g: &dyn Geometry,
    info: &TrackInfo,
    arrive: SimTime,
    leave: SimTime,
    wanted: &WantedBlocks,
) -> smallvec::SmallVec<[Plan; 2]> {
    let mut out = smallvec::SmallVec::new();
    for run in g.passing(info.track, arrive, leave) {
        if let Some((first, n)) = wanted.longest_run(run.lbn, run.sectors as u64) {
            out.push(Plan {
                read: FreeRead::Between {
                    lbn: first,
                    sectors: n as u32,
                },
                utility: n,
            });
        }
    }
    out
}

/// The longest feasible read starting at the candidate's first sector (the bus tail of
/// each sector read may leave the window short of the run's end).
fn feasible_prefix<P: PlanModel + ?Sized>(
    p: &P,
    pair: &Pair,
    d: &Direct,
    cand: Plan,
    c: SimTime,
    wanted: &WantedBlocks,
) -> Option<Plan> {
    let FreeRead::Between { lbn, sectors } = cand.read else {
        return None;
    };
    let at = |n: u32| Plan {
        read: FreeRead::Between { lbn, sectors: n },
        utility: wanted.count(lbn, n as u64),
    };
    if feasible_between(p, pair, d, at(sectors), c) {
        return Some(cand);
    }
    // Feasibility only shrinks as the read grows: bisect on its length.
    let (mut ok, mut bad) = (0u32, sectors);
    while bad - ok > 1 {
        let mid = ok + (bad - ok) / 2;
        if feasible_between(p, pair, d, at(mid), c) {
            ok = mid;
        } else {
            bad = mid;
        }
    }
    (ok > 0).then(|| at(ok))
}

/// The merged command `lbn..B's end`, with every seek `c` longer, ends no later than B
/// alone would.
fn feasible_prepend<P: PlanModel + ?Sized>(
    p: &P,
    pair: &Pair,
    d: &Direct,
    lbn: u64,
    c: SimTime,
) -> bool {
    let n = (pair.b_lbn + pair.b_sectors as u64 - lbn) as u32;
    let merged = p.release(
        Moment::new(pair.from, pair.start_ns + c),
        Access::new(lbn, n, Op::Read),
    );
    let e = merged.estimate.with_seek_margin(c);
    // B's completion is reported after the whole command crossed the bus. The command
    // after B may begin no later, and (with the device's own bus model, where that begin
    // can wait for the read-ahead's stop after the completion) B's completion is no later
    // either.
    let (merged_tail, b_tail, done_ok) = if p.exact_tail() {
        let b = p.release(
            Moment::new(pair.from, pair.start_ns),
            Access::new(pair.b_lbn, pair.b_sectors, pair.b_op),
        );
        let done_ok = match (merged.done_ns, b.done_ns) {
            (Some(merged), Some(b)) => merged <= b,
            _ => true,
        };
        (merged.tail_ns, b.tail_ns, done_ok)
    } else {
        // Completion times come only with the device's own bus model (an exact tail).
        (
            pair.tail_ns(n as u64),
            pair.tail_ns(pair.b_sectors as u64),
            true,
        )
    };
    done_ok && pair.start_ns + e.service_ns() + merged_tail <= d.b_end_ns + b_tail
}

/// Reading the candidate, then positioning for B, both with every seek `c` longer, starts
/// B no later than the direct path.
pub(crate) fn feasible_between<P: PlanModel + ?Sized>(
    p: &P,
    pair: &Pair,
    d: &Direct,
    cand: Plan,
    c: SimTime,
) -> bool {
    let FreeRead::Between { lbn, sectors } = cand.read else {
        return false;
    };
    let r = p.release(
        Moment::new(pair.from, pair.start_ns + c),
        Access::new(lbn, sectors, Op::Read),
    );
    let f = r.estimate.with_seek_margin(c);
    let tail = if p.exact_tail() {
        r.tail_ns
    } else {
        pair.tail_ns(sectors as u64)
    };
    let f_end = pair.start_ns + f.service_ns() + tail;
    let f_head = r.head;
    let b = estimate_with_margin(
        p,
        Moment::new(f_head, f_end),
        Access::new(pair.b_lbn, pair.b_sectors, pair.b_op),
        c,
    );
    f_end + b.positioning_ns() <= d.b_start_ns
}

#[cfg(test)]
mod tests {
    //! The paper's Figure 1: after A, B's direct path has four sectors of rotational
    //! latency. Reading on A's own track uses all four (the firmware can); a detour to a
    //! track between costs one sector of extra seek and yields three.

    use super::*;

    const SECTOR: SimTime = 1_000;
    const SLOTS: u32 = 8;

    /// Three one-surface tracks of eight sectors, a sector per µs; seek(d) = 1 + d/2 µs.
    struct Figure1;

    fn track(c: u32) -> HeadPosition {
        HeadPosition {
            cylinder: c,
            surface: 0,
        }
    }

    impl Figure1 {
        fn slot0(&self, c: u32) -> f64 {
            // Track 1's sectors are skewed by half a sector, so three fit its window whole.
            if c == 1 {
                1.5 / SLOTS as f64
            } else {
                0.0
            }
        }
    }

    impl Figure1 {
        fn cylinder_of(&self, lbn: u64) -> u32 {
            (lbn / SLOTS as u64) as u32
        }
    }

    impl PlanModel for Figure1 {
        fn name(&self) -> &str {
            "figure1"
        }
        fn cylinders(&self) -> u32 {
            3
        }
        fn estimate(&self, at: Moment, a: Access) -> Estimate {
            let (start_ns, lbn, sectors) = (at.start_ns, a.lbn, a.sectors);
            let to = track(self.cylinder_of(lbn));
            let seek = self.move_ns(at.from, to, Op::Read);
            let at = (start_ns + seek) as f64 / (SECTOR * SLOTS as SimTime) as f64;
            let want = self.slot0(to.cylinder) + (lbn % SLOTS as u64) as f64 / SLOTS as f64;
            let wait = (want - at).rem_euclid(1.0);
            Estimate {
                overhead_ns: 0,
                seek_ns: seek,
                rotate_ns: (wait * (SECTOR * SLOTS as SimTime) as f64).round() as SimTime,
                transfer_ns: sectors as SimTime * SECTOR,
                end: to,
            }
        }
        fn geometry(&self) -> Option<&dyn Geometry> {
            Some(self)
        }
        fn release(&self, at: Moment, a: Access) -> Release {
            Release::after(self.estimate(at, a), 0)
        }
        fn exact_tail(&self) -> bool {
            false
        }
    }

    impl Geometry for Figure1 {
        fn track_of(&self, lbn: u64) -> HeadPosition {
            track(self.cylinder_of(lbn))
        }
        fn track_info(&self, t: HeadPosition) -> Option<TrackInfo> {
            (t.cylinder < 3 && t.surface == 0).then(|| TrackInfo {
                track: t,
                first_lbn: t.cylinder as u64 * SLOTS as u64,
                lbns: SLOTS,
                slots: SLOTS,
                slot0_angle: self.slot0(t.cylinder),
                sector_ns: SECTOR as f64,
            })
        }
        fn slot_lbn(&self, t: HeadPosition, slot: u32) -> Option<u64> {
            Some(t.cylinder as u64 * SLOTS as u64 + slot as u64)
        }
        fn angle_at(&self, t: SimTime) -> f64 {
            (t as f64 / (SECTOR * SLOTS as SimTime) as f64).rem_euclid(1.0)
        }
        fn period_ns(&self) -> f64 {
            (SECTOR * SLOTS as SimTime) as f64
        }
        fn move_ns(&self, from: HeadPosition, to: HeadPosition, _op: Op) -> SimTime {
            let d = from.cylinder.abs_diff(to.cylinder) as SimTime;
            if d == 0 {
                0
            } else {
                SECTOR + d * SECTOR / 2
            }
        }
    }

    fn figure1(allow_source_track: bool) -> Plan {
        let p = Figure1;
        // B is sector 6 of track 2: seek 2 µs, then 4 sectors of latency.
        let pair = Pair {
            from: track(0),
            start_ns: 0,
            b_lbn: 2 * SLOTS as u64 + 6,
            b_sectors: 1,
            b_op: Op::Read,
            tail: Tail::default(),
        };
        let d = direct(&p, &pair);
        assert_eq!((d.latency_ns, d.b_start_ns), (4 * SECTOR, 6 * SECTOR));
        // Everything is wanted but B's own track (so no prepending competes).
        let mut wanted = WantedBlocks::new(3 * SLOTS as u64);
        wanted.want(0, 2 * SLOTS as u64);
        let limits = PlanLimits {
            c_fb_ns: 0,
            max_tracks: 100,
            allow_source_track,
        };
        plan(&p, &pair, &wanted, &limits, 1).unwrap().0.unwrap()
    }

    #[test]
    fn figure_1_source_track_uses_all_of_the_latency_a_detour_three_quarters() {
        let source = figure1(true);
        assert_eq!(source.utility, 4, "100% of the four sectors of latency");
        assert_eq!(source.read, FreeRead::Between { lbn: 0, sectors: 4 });
        let detour = figure1(false);
        assert_eq!(detour.utility, 3, "75%: one sector lost to the extra seek");
        assert_eq!(
            detour.read,
            FreeRead::Between {
                lbn: SLOTS as u64,
                sectors: 3
            }
        );
    }
}
