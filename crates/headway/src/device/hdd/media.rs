//! When each sector of an access passes under the head: the media side of a command, as a
//! short list of *passes* (runs of consecutive LBNs read or written back to back), so that
//! the cache and the bus can ask "when is block i in the buffer?" without an event per sector.
//!
//! Zero-latency access (DiskSim's "immediate buffer read/write", and every read of a drive
//! that "reads any free blocks"): when the head lands inside the wanted run of a track it
//! starts with the sector under it, reads to the end of the run, and picks up the front of
//! the run on the next revolution, so the track costs at most one revolution after landing.

use smallvec::SmallVec;

use super::layout::Location;
use super::mechanics::Mechanics;
use super::num::{ceil, f64_of, plus_turn_if_negative, round_ns};
use crate::request::{HeadPosition, Op};
use crate::time::SimTime;

/// Where an access may start with whatever sector of its run comes under the head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ZeroLatency {
    Off,
    /// On every track ("Immediate buffer read/write").
    On,
    /// Only where the head lands for a block that is not its track's first: DiskSim's "Read
    /// any free blocks" without "Immediate buffer read" (`disk_buffer_seekdone` sets zero
    /// latency only when the target is not the track's first block), so a read crossing onto
    /// the next track, or a read-ahead switching to it, waits for the track's first block.
    NotAtTrackStart,
}

impl From<bool> for ZeroLatency {
    #[inline(always)]
    fn from(on: bool) -> Self {
        if on {
            ZeroLatency::On
        } else {
            ZeroLatency::Off
        }
    }
}

impl ZeroLatency {
    /// A drive's rule for reads from its cache settings: the drive and the host's predictor
    /// both take it from here, so they cannot disagree.
    pub(crate) fn of_reads(immediate_buffer_read: bool, read_any_free_blocks: bool) -> Self {
        if immediate_buffer_read {
            ZeroLatency::On
        } else if read_any_free_blocks {
            ZeroLatency::NotAtTrackStart
        } else {
            ZeroLatency::Off
        }
    }

    /// Whether an access whose first run starts at `lbn` (at `loc`) may start mid-run there.
    #[inline(always)]
    fn first_run(self, mech: &Mechanics, lbn: u64, loc: &Location) -> bool {
        match self {
            ZeroLatency::Off => false,
            ZeroLatency::On => true,
            ZeroLatency::NotAtTrackStart => {
                mech.layout.first_lbn_on_track(loc.cylinder, loc.surface) != Some(lbn)
            }
        }
    }
}

/// Blocks `lbn .. lbn + count`, handled back to back: block `k` of the pass is done at
/// `first_done + k * step` (nanoseconds, absolute).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pass {
    pub lbn: u64,
    pub count: u32,
    pub first_done: f64,
    pub step: f64,
    /// When the head was on the pass's track and free: before this it was still seeking or
    /// switching heads; from this to the pass's start it only waits for the rotation.
    pub on_track: f64,
    /// The pass's track.
    pub track: HeadPosition,
}

impl Pass {
    #[inline]
    pub(crate) fn last_done(&self) -> f64 {
        self.first_done + (self.count - 1) as f64 * self.step
    }
    #[inline]
    pub(crate) fn start(&self) -> f64 {
        self.first_done - self.step
    }
    #[inline]
    pub(crate) fn end_lbn(&self) -> u64 {
        self.lbn + self.count as u64
    }
}

/// The media side of one access.
#[derive(Clone, Debug, Default)]
pub(crate) struct MediaPlan {
    /// In time order.
    pub passes: SmallVec<[Pass; 4]>,
    /// Time the first positioning move takes (minimum-seek padding included).
    pub seek_ns: SimTime,
    /// Initial rotational wait after it.
    pub rotate_ns: SimTime,
    /// When the last sector finishes.
    pub end: f64,
    pub end_head: HeadPosition,
    /// How far past the first block's slot the head was when it landed on the first track,
    /// in sectors: [`MediaPlan::landing`] works the slot out from it, only for the one caller
    /// that needs it. Less the rounding's slack beyond the fixed one late in a run (see
    /// `landing_sectors` below), so that the slot snaps as the plan's start does.
    landing_sectors: Option<f64>,
    /// Where the first block is.
    pub first_loc: Option<Location>,
    /// Where the block after the access is, when it continues the last run on the same track
    /// (so read-ahead need not look it up again).
    pub next_loc: Option<Location>,
}

impl MediaPlan {
    /// The first whole sector under the head when it lands on the first track, as
    /// (cylinder, surface, slot); what "read any free blocks" starts caching from. The drive
    /// works it out in the cache from the plan's parts; this whole is for the tests.
    #[cfg(test)]
    pub(crate) fn landing(&self) -> Option<(u32, u32, u32)> {
        Some(landing(&self.first_loc?, self.landing_sectors?))
    }

    /// How far past the first block's slot the head was when it landed, in sectors: what
    /// [`landing_slot`] works the landing slot out from, for a caller that keeps it for
    /// later (the slot is a float chain and a division that few reads need).
    pub(crate) fn landing_sectors(&self) -> Option<f64> {
        self.landing_sectors
    }

    /// Back to the state of `MediaPlan::default()`, keeping nothing of the last plan.
    fn clear(&mut self) {
        self.passes.clear();
        self.seek_ns = 0;
        self.rotate_ns = 0;
        self.end = 0.0;
        self.end_head = HeadPosition::default();
        self.landing_sectors = None;
        self.first_loc = None;
        self.next_loc = None;
    }
}

impl MediaPlan {}

/// Waits shorter than this fraction of a revolution short of a full one are rounding noise
/// from two angles computed separately: the sector is under the head now (or
/// [`Mechanics::angle_rounding`], when larger).
const FULL_TURN_SLACK: f64 = 1e-9;

/// [`wait`] works the rounding's slack out only for waits this close to a full turn.
const NEAR_FULL_TURN: f64 = 1e-3;

/// Heads less than this many sectors past a sector boundary are at it (or
/// [`Mechanics::angle_rounding`]'s sectors, when more).
const BOUNDARY_SLACK_SECTORS: f64 = 1e-9;

/// The wait for `angle` with the spindle at `now`, the angle at `t`.
#[inline]
fn wait(mech: &Mechanics, t: f64, now: f64, angle: f64) -> f64 {
    let w = mech.wait_from(now, angle);
    // The rounding's slack only when the wait is within NEAR_FULL_TURN of a full turn: the
    // slack stays below that for any time the engine reaches (2e-5 turns after a simulated
    // year at 10,000 rpm), and the test is a branch that is almost never taken.
    let near_full = |slack: f64| w > mech.period_ns * (1.0 - slack);
    if near_full(FULL_TURN_SLACK)
        || (near_full(NEAR_FULL_TURN) && near_full(mech.angle_rounding(t).max(FULL_TURN_SLACK)))
    {
        0.0
    } else {
        w
    }
}

/// When a write's data reaches the buffer: block `k` of the request (from 0) at
/// `base + max(k + 1, min_blocks) * step`. A sector whose data is not in yet when it comes
/// under the head is passed over and written a revolution later, as in DiskSim; `min_blocks`
/// is the HP firmware rule DiskSim models for drives with the extra write disconnect (the
/// write waits until that many blocks are buffered).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DataReady {
    pub base: f64,
    pub step: f64,
    pub min_blocks: u32,
}

impl DataReady {
    #[inline]
    pub(crate) fn at(&self, k: u64) -> f64 {
        self.base + (k + 1).max(self.min_blocks as u64) as f64 * self.step
    }
}

/// Plan an access of `n` sectors from `lbn` with the head at `from`, positioning allowed to
/// begin at `t` (ns). `min_move_ns` pads the first move (DiskSim's "Minimum seek delay").
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan(
    mech: &Mechanics,
    from: HeadPosition,
    t: f64,
    lbn: u64,
    n: u32,
    op: Op,
    zero_latency: impl Into<ZeroLatency>,
    min_move_ns: SimTime,
) -> MediaPlan {
    let mut plan = MediaPlan::default();
    plan_into(
        &mut plan,
        mech,
        from,
        t,
        lbn,
        n,
        op,
        zero_latency,
        min_move_ns,
        None,
        None,
    );
    plan
}

/// [`plan`] into `plan`, replacing what it held; `data` holds a write back until its blocks
/// are in the buffer, `first` is where `lbn` is when the caller already knows. A plan is a few
/// hundred bytes: the per-command paths fill one where it is kept instead of returning and
/// moving it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan_into(
    plan: &mut MediaPlan,
    mech: &Mechanics,
    from: HeadPosition,
    t: f64,
    lbn: u64,
    n: u32,
    op: Op,
    zero_latency: impl Into<ZeroLatency>,
    min_move_ns: SimTime,
    data: Option<DataReady>,
    first: Option<Location>,
) {
    let first_lbn = lbn;
    let zl: ZeroLatency = zero_latency.into();
    // Every path below sets the plan's other fields (the seek, the landing, the wait, the
    // end, the head); a plan kept and planned again needs only these two forgotten.
    plan.passes.clear();
    plan.next_loc = None;
    let mut loc = first.unwrap_or_else(|| mech.layout.locate(lbn));
    let first_move = mech
        .move_ns(from, loc.cylinder, loc.surface, op)
        .max(min_move_ns);
    plan.seek_ns = first_move;
    if n == 0 {
        plan.first_loc = Some(loc);
        plan.rotate_ns = 0;
        plan.landing_sectors = None;
        // A pure seek (SCAN's trip to the edge): the head moves, nothing is transferred.
        plan.end = t + first_move as f64;
        plan.end_head = HeadPosition {
            cylinder: loc.cylinder,
            surface: loc.surface,
        };
        return;
    }
    if data.is_none() && n <= loc.run_sectors {
        plan_first_run(
            plan,
            mech,
            t + f64_of(first_move),
            lbn,
            n,
            zl.first_run(mech, lbn, &loc),
            loc,
        );
        // Copied last: `locate` writes the location field by field and the copy reads it
        // in 16-byte halves, which cannot be forwarded from those stores; copied right after
        // the call, it stalled there (a fifth of `plan_into`'s samples, perf annotate), by
        // now the stores are in the cache.
        plan.first_loc = Some(loc);
        return;
    }
    plan.first_loc = Some(loc);
    let mut here = from;
    let mut t_arrive = t + f64_of(first_move);
    let mut lbn = lbn;
    let mut left = n as u64;
    let mut first = true;
    loop {
        let track = HeadPosition {
            cylinder: loc.cylinder,
            surface: loc.surface,
        };
        if !first {
            t_arrive += mech.move_ns(here, track.cylinder, track.surface, op) as f64;
        }
        let run = left.min(loc.run_sectors as u64) as u32;
        let st = mech.sector_ns(loc.spt);
        let spt_f = loc.spt as f64;
        let w = 1.0 / spt_f;
        // How far past the run's first sector the head is, in revolutions.
        let now = mech.angle_at(t_arrive);
        let x = plus_turn_if_negative(now - loc.angle);
        if first {
            plan.landing_sectors = Some(landing_sectors(mech, t_arrive, spt_f, x * spt_f));
        }
        let first_pass = plan.passes.len();
        // A later run starts its track (the previous one ended at its track's end).
        let zero_latency = if first {
            zl.first_run(mech, lbn, &loc)
        } else {
            zl == ZeroLatency::On
        };
        let (mut inside, k, mut wait_ns) =
            zero_latency_start(mech, zero_latency, run, t_arrive, x, spt_f, w);
        if inside {
            if let Some(d) = data {
                // Out-of-order writing needs every block in hand; otherwise write in order.
                let off = lbn - first_lbn;
                let a_start = t_arrive + wait_ns;
                let b_start = a_start + (loc.spt - k) as f64 * st;
                let late = (0..run).any(|i| {
                    let s = if i >= k {
                        a_start + (i - k) as f64 * st
                    } else {
                        b_start + i as f64 * st
                    };
                    d.at(off + i as u64) > s
                });
                inside = !late;
            }
        }
        if inside {
            t_arrive = push_split_run(plan, lbn, run, k, t_arrive, wait_ns, st, loc.spt, track);
        } else {
            wait_ns = wait(mech, t_arrive, now, loc.angle);
            let mut s0 = t_arrive + wait_ns;
            let mut i = 0u32;
            let off = lbn - first_lbn;
            while i < run {
                // Sectors whose data is late are passed over: the rest of the run waits whole
                // revolutions until its next block is in.
                let mut j = run;
                if let Some(d) = data {
                    let late = (i..run).find(|&q| d.at(off + q as u64) > s0 + (q - i) as f64 * st);
                    if let Some(q) = late {
                        if q == i {
                            let need = d.at(off + q as u64) - s0;
                            s0 += ceil(need / mech.period_ns).max(1.0) * mech.period_ns;
                            continue;
                        }
                        j = q;
                    }
                }
                let p = Pass {
                    lbn: lbn + i as u64,
                    count: j - i,
                    first_done: s0 + st,
                    step: st,
                    on_track: if i == 0 { t_arrive } else { s0 },
                    track,
                };
                plan.passes.push(p);
                s0 = p.last_done();
                i = j;
            }
            // Report the wait up to the first sector actually handled.
            wait_ns = plan.passes[first_pass].start() - t_arrive;
            t_arrive = s0;
        }
        if first {
            plan.rotate_ns = round_ns(wait_ns);
            first = false;
        }
        here = track;
        left -= run as u64;
        lbn += run as u64;
        if left == 0 {
            if run < loc.run_sectors && lbn < mech.layout.capacity_sectors() {
                let mut next = loc;
                next.sector += run;
                next.run_sectors -= run;
                next.angle += run as f64 / loc.spt as f64;
                if next.angle >= 1.0 {
                    next.angle -= 1.0;
                }
                plan.next_loc = Some(next);
            }
            break;
        }
        loc = mech.layout.locate(lbn);
    }
    plan.end = t_arrive;
    plan.end_head = here;
}

/// [`plan_into`] for a read from the media (no minimum move, no data to wait for, the first
/// block not located yet), inlined into the read miss: the call, its eleven arguments and the
/// tests of the constant ones cost that path more than the plan's own bookkeeping. An access
/// beyond the first block's run goes to [`plan_into`] with the location found here.
#[inline(always)]
pub(crate) fn plan_read_into(
    plan: &mut MediaPlan,
    mech: &Mechanics,
    from: HeadPosition,
    t: f64,
    lbn: u64,
    n: u32,
    zl: ZeroLatency,
) {
    let loc = mech.layout.locate(lbn);
    if n == 0 || n > loc.run_sectors {
        plan_into(
            plan,
            mech,
            from,
            t,
            lbn,
            n,
            Op::Read,
            zl,
            0,
            None,
            Some(loc),
        );
        return;
    }
    plan.passes.clear();
    plan.next_loc = None;
    let first_move = mech.move_ns(from, loc.cylinder, loc.surface, Op::Read);
    plan.seek_ns = first_move;
    plan_first_run(
        plan,
        mech,
        t + f64_of(first_move),
        lbn,
        n,
        zl.first_run(mech, lbn, &loc),
        loc,
    );
    // Copied last, as in `plan_into`.
    plan.first_loc = Some(loc);
}

/// The rest of [`plan_into`] for an access of `n <= loc.run_sectors` sectors from `lbn`
/// without data to wait for (every read a random workload makes), the head arriving on the
/// track at `t_arrive`: the general loop's first and only turn, the same float operations in
/// the same order, without its bookkeeping for further tracks.
#[inline(always)]
fn plan_first_run(
    plan: &mut MediaPlan,
    mech: &Mechanics,
    t_arrive: f64,
    lbn: u64,
    n: u32,
    zero_latency: bool,
    loc: Location,
) {
    let track = HeadPosition {
        cylinder: loc.cylinder,
        surface: loc.surface,
    };
    let st = mech.sector_ns(loc.spt);
    let spt_f = loc.spt as f64;
    let w = 1.0 / spt_f;
    let now = mech.angle_at(t_arrive);
    let x = plus_turn_if_negative(now - loc.angle);
    plan.landing_sectors = Some(landing_sectors(mech, t_arrive, spt_f, x * spt_f));
    let (inside, k, wait_ns) = zero_latency_start(mech, zero_latency, n, t_arrive, x, spt_f, w);
    let (end, wait_ns) = if inside {
        let end = push_split_run(plan, lbn, n, k, t_arrive, wait_ns, st, loc.spt, track);
        (end, wait_ns)
    } else {
        let s0 = t_arrive + wait(mech, t_arrive, now, loc.angle);
        let p = Pass {
            lbn,
            count: n,
            first_done: s0 + st,
            step: st,
            on_track: t_arrive,
            track,
        };
        plan.passes.push(p);
        // The wait up to the first sector, as the general plan reports it.
        (p.last_done(), p.start() - t_arrive)
    };
    plan.rotate_ns = round_ns(wait_ns);
    let next = lbn + n as u64;
    if n < loc.run_sectors && next < mech.layout.capacity_sectors() {
        let mut at = loc;
        at.sector += n;
        at.run_sectors -= n;
        at.angle += n as f64 / loc.spt as f64;
        if at.angle >= 1.0 {
            at.angle -= 1.0;
        }
        plan.next_loc = Some(at);
    }
    plan.end = end;
    plan.end_head = track;
}

/// Where a zero-latency access of a run of `run` sectors starts, the head `x` revolutions past
/// the run's first sector (`spt_f` sectors a track, `w` revolutions a sector): whether it
/// starts inside the run, at which sector of it, and the wait for that sector.
#[inline(always)]
fn zero_latency_start(
    mech: &Mechanics,
    zero_latency: bool,
    run: u32,
    t: f64,
    x: f64,
    spt_f: f64,
    w: f64,
) -> (bool, u32, f64) {
    let mut inside = zero_latency && run > 1 && x > 0.0 && x * spt_f < (run - 1) as f64;
    let mut k = 0u32;
    let mut wait_ns = 0.0;
    if inside {
        // Next sector boundary inside the run; snap when rounding put us a hair past it.
        let xs = x * spt_f;
        let mut kk = ceil(xs);
        if kk - xs > 1.0 - boundary_slack(mech, t, spt_f) {
            kk -= 1.0;
        }
        // Snapped back onto the run's first sector: an ordinary in-order access.
        inside = kk >= 1.0;
        k = (kk.max(1.0) as u32).min(run - 1);
        wait_ns = ((k as f64 * w - x) * mech.period_ns).max(0.0);
    }
    (inside, k, wait_ns)
}

/// [`BOUNDARY_SLACK_SECTORS`], or the rounding of the head's angle at `t` in sectors of a
/// track of `spt_f`, whichever is larger.
#[inline(always)]
fn boundary_slack(mech: &Mechanics, t: f64, spt_f: f64) -> f64 {
    (mech.angle_rounding(t) * spt_f).max(BOUNDARY_SLACK_SECTORS)
}

/// `xs` sectors past a run's first sector, less the part of [`boundary_slack`] beyond the
/// fixed [`BOUNDARY_SLACK_SECTORS`]: [`landing_slot`] snaps a head less than that fixed slack
/// past a boundary onto it, so this makes it snap within the whole slack, as the plan's start
/// does, while leaving the float chain of the snap for the few reads that ask (while the
/// rounding's slack is below the fixed one, `xs` itself, to the bit).
#[inline(always)]
fn landing_sectors(mech: &Mechanics, t: f64, spt_f: f64, xs: f64) -> f64 {
    xs - (boundary_slack(mech, t, spt_f) - BOUNDARY_SLACK_SECTORS)
}

/// The two passes of a zero-latency access that starts at sector `k` of a run of `run`
/// sectors from `lbn` (the tail, then the front a revolution later); returns when the last
/// sector is done.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn push_split_run(
    plan: &mut MediaPlan,
    lbn: u64,
    run: u32,
    k: u32,
    t_arrive: f64,
    wait_ns: f64,
    st: f64,
    spt: u32,
    track: HeadPosition,
) -> f64 {
    let a_first = t_arrive + wait_ns + st;
    let a = Pass {
        lbn: lbn + k as u64,
        count: run - k,
        first_done: a_first,
        step: st,
        on_track: t_arrive,
        track,
    };
    plan.passes.push(a);
    let b_first = t_arrive + wait_ns + (spt - k) as f64 * st + st;
    plan.passes.push(Pass {
        lbn,
        count: k,
        first_done: b_first,
        step: st,
        on_track: a.last_done(),
        track,
    });
    b_first + (k - 1) as f64 * st
}

/// [`plan_into`] for a read of `n` sectors from `lbn` that lie in one run at `loc`, already
/// located (`n <= loc.run_sectors`): the same passes, `end`, `end_head` and `seek_ns`
/// from the same arithmetic, without the general loop's bookkeeping (the landing slot, the
/// rotational wait reported, the next block's location are left unset). Every read miss
/// plans the read-ahead that follows it this way. The lines after the move repeat
/// [`plan_first_run`]'s: sharing the head's arrival through a helper ran the whole benchmark
/// replay 5-7% slower in CPU time at the same instruction count (code layout), and calling
/// `plan_first_run` from here 23 instructions a request more and 2% slower, measured.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn plan_run_into(
    plan: &mut MediaPlan,
    mech: &Mechanics,
    from: HeadPosition,
    t: f64,
    lbn: u64,
    n: u32,
    zero_latency: impl Into<ZeroLatency>,
    loc: Location,
) {
    debug_assert!(n > 0 && n <= loc.run_sectors);
    let zero_latency = zero_latency.into().first_run(mech, lbn, &loc);
    plan.clear();
    let first_move = mech.move_ns(from, loc.cylinder, loc.surface, Op::Read);
    plan.seek_ns = first_move;
    let track = HeadPosition {
        cylinder: loc.cylinder,
        surface: loc.surface,
    };
    let t_arrive = t + f64_of(first_move);
    let st = mech.sector_ns(loc.spt);
    let spt_f = loc.spt as f64;
    let w = 1.0 / spt_f;
    let now = mech.angle_at(t_arrive);
    let x = plus_turn_if_negative(now - loc.angle);
    let (inside, k, wait_ns) = zero_latency_start(mech, zero_latency, n, t_arrive, x, spt_f, w);
    plan.end = if inside {
        push_split_run(plan, lbn, n, k, t_arrive, wait_ns, st, loc.spt, track)
    } else {
        let s0 = t_arrive + wait(mech, t_arrive, now, loc.angle);
        let p = Pass {
            lbn,
            count: n,
            first_done: s0 + st,
            step: st,
            on_track: t_arrive,
            track,
        };
        plan.passes.push(p);
        p.last_done()
    };
    plan.end_head = track;
}

/// The first slot boundary at or after the head, on the landing track.
#[cfg(test)]
fn landing(loc: &super::layout::Location, xs: f64) -> (u32, u32, u32) {
    let slot = landing_slot(loc.sector, loc.spt, xs);
    (loc.cylinder, loc.surface, slot)
}

/// [`MediaPlan::landing`]'s slot, from the first block's slot `sector` on a track of `spt`
/// slots and [`MediaPlan::landing_sectors`] `xs`.
pub(crate) fn landing_slot(sector: u32, spt: u32, xs: f64) -> u32 {
    let ahead = ceil(xs);
    let ahead = if ahead - xs > 1.0 - 1e-9 {
        ahead - 1.0
    } else {
        ahead
    };
    (sector + ahead as u32) % spt
}

/// Block availability in LBN order: block `lbn + k` of a piece can be used (sent over the bus,
/// counted in the segment) at `max(floor, first_done + k * step)`. A block is usable only
/// once every block before it is, which is how a zero-latency pass that read the tail of a
/// track first shows up: its blocks wait for the front.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Piece {
    pub lbn: u64,
    pub count: u32,
    pub first_done: f64,
    pub step: f64,
    pub floor: f64,
}

impl Piece {
    /// Pass `p`'s blocks, none usable before `floor`.
    #[inline(always)]
    pub(crate) fn of_pass(p: &Pass, floor: f64) -> Piece {
        Piece {
            lbn: p.lbn,
            count: p.count,
            first_done: p.first_done,
            step: p.step,
            floor,
        }
    }

    #[inline]
    pub(crate) fn at(&self, k: u32) -> f64 {
        (self.first_done + k as f64 * self.step).max(self.floor)
    }
    #[inline]
    pub(crate) fn end_lbn(&self) -> u64 {
        self.lbn + self.count as u64
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Avail {
    pub pieces: SmallVec<[Piece; 4]>,
}

impl Avail {
    /// Availability of the blocks of `plan` (which must cover one contiguous LBN range),
    /// none before `not_before`.
    pub(crate) fn from_plan(plan: &MediaPlan, not_before: f64) -> Self {
        Avail {
            pieces: pieces(&plan.passes, not_before).collect(),
        }
    }

    /// [`Avail::from_plan`] into `self`, replacing what it held (kept by the caller across
    /// commands: returning a new one moves its inline pieces).
    pub(crate) fn fill_from_plan(&mut self, plan: &MediaPlan, not_before: f64) {
        if let [p] = plan.passes[..] {
            // One pass (nearly every read): its own piece, as `pieces` makes it, without the
            // iterator and `extend`'s bookkeeping, written over the last read's lone piece
            // when there is one (`clear` walks the length down one at a time, and `push`
            // tests the room again).
            let piece = Piece::of_pass(&p, not_before);
            if let [only] = &mut self.pieces[..] {
                *only = piece;
            } else {
                self.pieces.clear();
                self.pieces.push(piece);
            }
        } else {
            self.pieces.clear();
            self.pieces.extend(pieces(&plan.passes, not_before));
        }
    }

    /// Every block of `lbn .. lbn + n` usable at `t` (already in the buffer); no piece at all
    /// when `n` is 0, so that pieces pushed after it never look back at an empty one.
    pub(crate) fn ready(lbn: u64, n: u32, t: f64) -> Self {
        let mut pieces = SmallVec::new();
        if n == 0 {
            return Avail { pieces };
        }
        pieces.push(Piece {
            lbn,
            count: n,
            first_done: t,
            step: 0.0,
            floor: t,
        });
        Avail { pieces }
    }

    /// Append blocks that follow the last piece.
    pub(crate) fn push(&mut self, mut p: Piece) {
        if let Some(last) = self.pieces.last() {
            debug_assert_eq!(last.end_lbn(), p.lbn);
            p.floor = p.floor.max(last.at(last.count - 1));
        }
        if p.count > 0 {
            self.pieces.push(p);
        }
    }

    /// A cursor for looking blocks up in increasing LBN order ([`AvailWalk`]).
    #[inline]
    pub(crate) fn walk(&self) -> AvailWalk<'_> {
        AvailWalk {
            pieces: &self.pieces,
            at: 0,
        }
    }

    /// When `lbn` is usable (`None` if it is not covered).
    pub(crate) fn time_of(&self, lbn: u64) -> Option<f64> {
        self.pieces
            .iter()
            .find(|p| lbn >= p.lbn && lbn < p.end_lbn())
            .map(|p| p.at((lbn - p.lbn) as u32))
    }
}

/// [`Avail::time_of`] for blocks looked up in increasing LBN order, each lookup starting at
/// the piece the last one ended in. A walk over a request's blocks then costs its blocks
/// plus its pieces rather than their product, which matters once the full-segment stall
/// has cut a large read into hundreds of pieces (a 60,000-block read took seconds).
/// An [`Avail`]'s pieces are in LBN order and do not overlap, so the piece found is the
/// one `time_of` finds.
pub(crate) struct AvailWalk<'a> {
    pieces: &'a [Piece],
    at: usize,
}

impl AvailWalk<'_> {
    /// When `lbn` is usable (`None` if it is not covered); `lbn` no lower than the last
    /// asked.
    #[inline]
    pub(crate) fn time_of(&mut self, lbn: u64) -> Option<f64> {
        while let Some(p) = self.pieces.get(self.at) {
            if lbn < p.end_lbn() {
                break;
            }
            self.at += 1;
        }
        let p = self.pieces.get(self.at)?;
        (lbn >= p.lbn).then(|| p.at((lbn - p.lbn) as u32))
    }
}

/// The availability pieces of passes in time order, in LBN order: only a zero-latency wrap
/// (a track's tail, then its front) is out of LBN order, and in a plan as the media planner
/// makes it the two are adjacent passes. A plan the full-segment stall has split
/// (`segment_full`, which cuts a pass in two) can hold a wrap whose tail or front is several
/// passes; such a plan, found by a scan only when there are more than two passes, is put in
/// LBN order whole.
pub(crate) fn pieces(ps: &[Pass], not_before: f64) -> impl Iterator<Item = Piece> + '_ {
    // A split plan is walked by LBN: each piece is the pass starting where the last ended.
    // Two words of state, not an index list: the iterator is moved on every call.
    let in_lbn_order = ps.len() > 2
        && ps
            .windows(2)
            .any(|w| w[1].lbn < w[0].lbn && w[1].end_lbn() != w[0].lbn);
    let mut next_lbn = if in_lbn_order {
        ps.iter().map(|p| p.lbn).min().unwrap_or(0)
    } else {
        0
    };
    let mut floor = not_before;
    let mut i = 0;
    let mut pending: Option<Pass> = None;
    std::iter::from_fn(move || {
        let p = if in_lbn_order {
            if i >= ps.len() {
                return None;
            }
            let p = *ps.iter().find(|p| p.lbn == next_lbn)?;
            next_lbn = p.end_lbn();
            i += 1;
            p
        } else {
            match pending.take() {
                Some(p) => p,
                None => {
                    if i >= ps.len() {
                        return None;
                    }
                    if i + 1 < ps.len() && ps[i + 1].end_lbn() == ps[i].lbn {
                        pending = Some(ps[i]);
                        i += 2;
                        ps[i - 1]
                    } else {
                        i += 1;
                        ps[i - 1]
                    }
                }
            }
        };
        let piece = Piece {
            lbn: p.lbn,
            count: p.count,
            first_done: p.first_done,
            step: p.step,
            floor,
        };
        floor = floor.max(p.last_done());
        Some(piece)
    })
}

/// [`pieces`] of a plan it walks by LBN, collected, given its passes' indices sorted by
/// start and then time order (`by_lbn`): each next pass is found at the next place of the
/// order, or by a binary search where the passes do not tile, rather than by a search of
/// them all. The full-segment stall keeps the order across its stalls; with hundreds of
/// passes, the searches were its cost. It uses nothing the hot paths share (a shared sort
/// or push moved their inlining by 12 instructions a request).
#[cold]
#[inline(never)]
pub(crate) fn pieces_by_lbn(ps: &[Pass], by_lbn: &[usize], not_before: f64) -> Avail {
    let mut out: Vec<Piece> = Vec::with_capacity(ps.len());
    let Some(&first) = by_lbn.first() else {
        return Avail::default();
    };
    let mut next_lbn = ps[first].lbn;
    let mut floor = not_before;
    let mut at = 0;
    for _ in 0..ps.len() {
        // The first of those starting at `next_lbn`, the one `pieces` finds.
        let starts_here = |k: usize| by_lbn.get(k).is_some_and(|&i| ps[i].lbn == next_lbn);
        let k = if starts_here(at) && (at == 0 || !starts_here(at - 1)) {
            at
        } else {
            by_lbn.partition_point(|&i| ps[i].lbn < next_lbn)
        };
        if !starts_here(k) {
            break;
        }
        let p = ps[by_lbn[k]];
        at = k + 1;
        next_lbn = p.end_lbn();
        out.push(Piece::of_pass(&p, floor));
        floor = floor.max(p.last_done());
    }
    Avail {
        pieces: SmallVec::from_vec(out),
    }
}

/// How many blocks of `passes` (a plan's, in time order) from the first in LBN order are
/// usable at `t`, none before `not_before`: [`count_by`] of their [`pieces`], a one-pass
/// plan (nearly every read-ahead) without the iterator.
#[inline]
pub(crate) fn count_passes_by(passes: &[Pass], not_before: f64, t: f64) -> u64 {
    if let [p] = passes {
        count_by(std::iter::once(Piece::of_pass(p, not_before)), t)
    } else {
        count_by(pieces(passes, not_before), t)
    }
}

/// How many blocks from the first of `pieces` are usable at `t`.
pub(crate) fn count_by(pieces: impl Iterator<Item = Piece>, t: f64) -> u64 {
    let mut n = 0u64;
    for p in pieces {
        if p.at(0) > t {
            break;
        }
        let last = p.at(p.count - 1);
        if last <= t {
            n += p.count as u64;
            continue;
        }
        // Within the piece the time is increasing: solve first_done + k*step <= t.
        let k = if p.step > 0.0 {
            // Non-negative here: truncation is floor, without the library call.
            ((t - p.first_done) / p.step) as i64 + 1
        } else {
            p.count as i64
        };
        n += k.clamp(0, p.count as i64) as u64;
        break;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zero-latency wrap comes out front first, tail last, whether its front is one pass or
    /// split in two by the full-segment stall; floors follow LBN order.
    #[test]
    fn a_wrap_comes_out_in_lbn_order_even_with_its_front_split() {
        let pass = |lbn: u64, count: u32, first_done: f64| Pass {
            lbn,
            count,
            first_done,
            step: 1.0,
            on_track: 0.0,
            track: HeadPosition::default(),
        };
        let whole = [pass(10, 5, 1.0), pass(0, 10, 7.0)];
        let split = [pass(10, 5, 1.0), pass(0, 4, 7.0), pass(4, 6, 111.0)];
        let lbns = |ps: &[Pass]| {
            pieces(ps, 0.0)
                .map(|p| (p.lbn, p.floor))
                .collect::<Vec<_>>()
        };
        assert_eq!(lbns(&whole), vec![(0, 0.0), (10, 16.0)]);
        assert_eq!(lbns(&split), vec![(0, 0.0), (4, 10.0), (10, 116.0)]);
        let split_tail = [pass(10, 3, 1.0), pass(13, 2, 104.0), pass(0, 10, 107.0)];
        assert_eq!(lbns(&split_tail), vec![(0, 0.0), (10, 116.0), (13, 116.0)]);
        let in_order = [pass(0, 4, 1.0), pass(4, 6, 9.0)];
        assert_eq!(lbns(&in_order), vec![(0, 0.0), (4, 4.0)]);
    }

    /// The one-pass shortcuts (`Avail::fill_from_plan`, `count_passes_by`) give
    /// the pieces and counts of the `pieces` iterator, in and out of LBN order, at every
    /// instant around each block.
    #[test]
    fn the_short_plan_shortcuts_match_the_pieces_iterator() {
        let pass = |lbn: u64, count: u32, first_done: f64, step: f64| Pass {
            lbn,
            count,
            first_done,
            step,
            on_track: 0.0,
            track: HeadPosition::default(),
        };
        let plans: Vec<Vec<Pass>> = vec![
            vec![pass(100, 8, 10.0, 2.0)],
            vec![pass(100, 1, 10.0, 2.0)],
            vec![pass(100, 8, 10.0, 0.0)],
            // A wrap: the tail first, the front a revolution later.
            vec![pass(105, 3, 10.0, 2.0), pass(100, 5, 50.0, 2.0)],
            vec![pass(105, 3, 10.0, 2.0), pass(100, 5, 11.0, 2.0)],
            // In LBN order (a second track).
            vec![pass(100, 5, 10.0, 2.0), pass(105, 3, 40.0, 3.0)],
            vec![pass(100, 5, 10.0, 2.0), pass(105, 3, 12.0, 3.0)],
            vec![
                pass(100, 5, 10.0, 2.0),
                pass(105, 3, 40.0, 3.0),
                pass(108, 2, 60.0, 1.0),
            ],
        ];
        let mut checked = 0;
        for ps in &plans {
            let plan = MediaPlan {
                passes: ps.iter().copied().collect(),
                ..MediaPlan::default()
            };
            for not_before in [0.0, 9.0, 15.0, 30.0, 100.0] {
                let want: Vec<Piece> = pieces(ps, not_before).collect();
                let mut got = Avail::default();
                got.fill_from_plan(&plan, not_before);
                assert_eq!(&got.pieces[..], &want[..], "{ps:?} from {not_before}");
                for i in 0..1300 {
                    let t = i as f64 * 0.1 - 10.0;
                    assert_eq!(
                        count_passes_by(ps, not_before, t),
                        count_by(pieces(ps, not_before), t),
                        "{ps:?} from {not_before} at {t}"
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 8 * 5 * 1300);
    }

    /// A zero-latency read-ahead that starts with the head at its first sector's start starts
    /// there, however late in the run: the head's angle at `t` carries the rounding of
    /// `t / period` (about an ulp of the turn count, 1e-10 revolutions at 2 million turns), and
    /// a fixed snap of 1e-9 sectors covered it only while the turns were below about 2^14
    /// (t below 1e11 ns on the Atlas 10K). Past that, rounding put the head a hair past the
    /// start and the plan split at sector 1: its tail first, its first sector a revolution
    /// later (45% of the read-aheads of a 1M-request replay). The same for a drive without
    /// zero latency, which waited a revolution for the sector under its head.
    #[test]
    fn an_access_starting_under_the_head_starts_at_once_however_late() {
        for (drive, zero_latency) in [("atlas10k", true), ("hp_c3323a", false)] {
            let spec = crate::device::catalog::lookup(drive).unwrap();
            let mech = Mechanics::new(&spec).unwrap();
            let lbn = 1_000_000u64;
            let loc = mech.layout.locate(lbn);
            let head = HeadPosition {
                cylinder: loc.cylinder,
                surface: loc.surface,
            };
            let n = loc.run_sectors.min(24);
            let mut past = 0;
            for turns in [1_000u64, 1_000_000, 2_000_000, 100_000_000] {
                for j in 0..200u64 {
                    let t = ((turns + j) as f64 + loc.angle) * mech.period_ns;
                    past += (mech.angle_at(t) > loc.angle) as u32;
                    let mut plan = MediaPlan::default();
                    plan_run_into(&mut plan, &mech, head, t, lbn, n, zero_latency, loc);
                    let mut general = MediaPlan::default();
                    plan_into(
                        &mut general,
                        &mech,
                        head,
                        t,
                        lbn,
                        n,
                        Op::Read,
                        zero_latency,
                        0,
                        None,
                        Some(loc),
                    );
                    for p in [&plan, &general] {
                        assert_eq!(
                            (p.passes.len(), p.passes[0].lbn),
                            (1, lbn),
                            "{drive}, {turns} + {j} turns: {:?}",
                            p.passes
                        );
                        let wait_ns = p.passes[0].start() - t;
                        assert!(
                            wait_ns.abs() < 1.0,
                            "{drive}, {turns} + {j} turns: waits {wait_ns} ns"
                        );
                    }
                }
            }
            // The rounding did put the head past the start, often.
            assert!(past > 100, "{drive}: {past}");
        }
    }

    /// The one-run plan is the general plan's passes, end and head, to the bit, wherever the
    /// head starts and whenever (zero-latency splits included).
    #[test]
    fn a_one_run_plan_matches_the_general_plan() {
        let mut split = 0;
        let mut checked = 0;
        for drive in ["atlas10k", "hp_c3323a", "st41601n"] {
            let spec = crate::device::catalog::lookup(drive).unwrap();
            let mech = Mechanics::new(&spec).unwrap();
            one_run_plans_match(&mech, &mut split, &mut checked);
        }
        assert_eq!(checked, 3 * 8000);
        // Zero-latency reads that start inside the run were among them.
        assert!(split > 100, "{split}");
    }

    /// A read within one run (planned by `plan_first_run`) is the general loop's plan to the
    /// bit: passes, end, head, waits, landing slot and the next block's location.
    #[test]
    fn a_first_run_plan_matches_the_general_loop() {
        let mut checked = 0;
        for drive in ["atlas10k", "hp_c3323a", "st41601n"] {
            let spec = crate::device::catalog::lookup(drive).unwrap();
            let mech = Mechanics::new(&spec).unwrap();
            one_run_reads(&mech, 3000, |from, t, lbn, n, zero_latency, _| {
                let general = general_plan(&mech, from, t, lbn, n, zero_latency);
                let first = plan(&mech, from, t, lbn, n, Op::Read, zero_latency, 0);
                assert_eq!(
                    first.passes, general.passes,
                    "{drive} lbn {lbn} n {n} t {t}"
                );
                assert_eq!(first.end.to_bits(), general.end.to_bits());
                assert_eq!(first.end_head, general.end_head);
                assert_eq!(first.seek_ns, general.seek_ns);
                assert_eq!(first.rotate_ns, general.rotate_ns);
                assert_eq!(first.landing(), general.landing());
                assert_eq!(first.first_loc, general.first_loc);
                assert_eq!(first.next_loc, general.next_loc);
                checked += 1;
            });
        }
        assert_eq!(checked, 3 * 6000);
    }

    /// A plan kept and planned again (as the read-ahead's kept slot is, and the hold's
    /// replanning in order) is field for field the plan made fresh, whatever the kept plan
    /// held before: one-run reads, reads over several tracks, writes waiting for their data,
    /// and pure seeks, one after another in one plan.
    #[test]
    fn a_kept_plan_planned_again_is_a_fresh_plan() {
        let spec = crate::device::catalog::lookup("atlas10k").unwrap();
        let mech = Mechanics::new(&spec).unwrap();
        let cap = mech.layout.capacity_sectors();
        let mut kept = MediaPlan::default();
        let (mut seeks, mut tracks) = (0, 0);
        for i in 0..3000u64 {
            let lbn = (i * 7_919 + 13) % (cap - 2000);
            // Every fifth a pure seek, every seventh a write, sizes up to three tracks.
            let n = if i % 5 == 0 {
                0
            } else {
                1 + (i as u32 * 131) % 1000
            };
            let op = if i % 7 == 0 { Op::Write } else { Op::Read };
            let data = (op == Op::Write).then_some(DataReady {
                base: i as f64 * 1e5,
                step: 5e4,
                min_blocks: 1,
            });
            let from = HeadPosition {
                cylinder: (i as u32 * 97) % 9000,
                surface: (i % 3) as u32,
            };
            let (t, zl) = (i as f64 * 123_456.789, i % 2 == 0);
            let mut fresh = MediaPlan::default();
            plan_into(&mut fresh, &mech, from, t, lbn, n, op, zl, 0, data, None);
            plan_into(&mut kept, &mech, from, t, lbn, n, op, zl, 0, data, None);
            assert_eq!(kept.passes, fresh.passes, "{i}");
            assert_eq!(kept.seek_ns, fresh.seek_ns);
            assert_eq!(kept.rotate_ns, fresh.rotate_ns);
            assert_eq!(kept.end.to_bits(), fresh.end.to_bits());
            assert_eq!(kept.end_head, fresh.end_head);
            assert_eq!(
                kept.landing_sectors.map(f64::to_bits),
                fresh.landing_sectors.map(f64::to_bits)
            );
            assert_eq!(kept.first_loc, fresh.first_loc);
            assert_eq!(kept.next_loc, fresh.next_loc, "{i}");
            seeks += (n == 0) as u32;
            tracks += (fresh.passes.len() > 2) as u32;
        }
        assert!(
            seeks > 500 && tracks > 500,
            "{seeks} seeks, {tracks} over tracks"
        );
    }

    /// [`plan_into`] through its general loop: data that is always in hand changes nothing
    /// but the way taken.
    fn general_plan(
        mech: &Mechanics,
        from: HeadPosition,
        t: f64,
        lbn: u64,
        n: u32,
        zero_latency: bool,
    ) -> MediaPlan {
        let ready = DataReady {
            base: f64::NEG_INFINITY,
            step: 0.0,
            min_blocks: 0,
        };
        let mut general = MediaPlan::default();
        plan_into(
            &mut general,
            mech,
            from,
            t,
            lbn,
            n,
            Op::Read,
            zero_latency,
            0,
            Some(ready),
            None,
        );
        general
    }

    /// Reads of `count` sampled places that lie in one run, from sampled head positions and
    /// times, with and without zero latency: `f(from, t, lbn, n, zero_latency, location)`.
    fn one_run_reads(
        mech: &Mechanics,
        count: u64,
        mut f: impl FnMut(HeadPosition, f64, u64, u32, bool, Location),
    ) {
        let cap = mech.layout.capacity_sectors();
        for i in 0..count {
            let lbn = (i * 7_919 + 13) % cap;
            let loc = mech.layout.locate(lbn);
            let n = 1 + (i as u32 * 31) % loc.run_sectors;
            let from = HeadPosition {
                cylinder: (i as u32 * 97) % (loc.cylinder + 50),
                surface: (i % 3) as u32,
            };
            let t = i as f64 * 123_456.789;
            for zero_latency in [false, true] {
                f(from, t, lbn, n, zero_latency, loc);
            }
        }
    }

    fn one_run_plans_match(mech: &Mechanics, split: &mut u32, checked: &mut u32) {
        one_run_reads(mech, 4000, |from, t, lbn, n, zero_latency, loc| {
            let general = general_plan(mech, from, t, lbn, n, zero_latency);
            let mut one = MediaPlan::default();
            plan_run_into(&mut one, mech, from, t, lbn, n, zero_latency, loc);
            assert_eq!(one.passes, general.passes, "lbn {lbn} n {n} t {t}");
            assert_eq!(one.end.to_bits(), general.end.to_bits());
            assert_eq!(one.end_head, general.end_head);
            assert_eq!(one.seek_ns, general.seek_ns);
            *split += (one.passes.len() == 2) as u32;
            *checked += 1;
        });
    }
}
