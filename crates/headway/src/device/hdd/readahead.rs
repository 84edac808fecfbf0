//! Read-ahead: after a read's last block the mechanism goes on reading the blocks that follow
//! into the same segment, in the background, until DiskSim's limit for the drive, a track or
//! cylinder boundary it may not cross, or the next command that needs the mechanism. Its
//! progress is a function of time, worked out from one media plan when it starts, so neither
//! its progress nor its preemption costs an event per sector.

use super::layout::Location;
use super::mechanics::Mechanics;
use super::media::{self, Avail, MediaPlan, Piece};
use super::spec::CacheSpec;
use crate::request::{HeadPosition, Op};

/// DiskSim's "Buffer continuous read".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ContinuousRead {
    /// 0: no read-ahead.
    Off,
    /// 1: up to the end of the track.
    TrackEnd,
    /// 2: up to the end of the cylinder.
    CylinderEnd,
    /// 3: up to the maximum read-ahead (the segment's end).
    SegmentEnd,
    /// 4: the DEC scheme: to the end of the track after the request (one more track when
    /// the segment began on an earlier one), whatever the maximum read-ahead says.
    Dec,
}

/// The read-ahead policy of a drive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Policy {
    pub mode: ContinuousRead,
    pub min_blocks: u32,
    pub max_blocks: u32,
    /// DiskSim's `keeprequestdata` (derived from "Read-ahead over requested": 1 keeps 0 ... )
    /// -1 drops the request's own blocks from the segment once sent.
    pub keep_request: i32,
    pub segment_blocks: u32,
    /// Keep reading ahead after a hit that found the mechanism idle.
    pub on_idle_hit: bool,
    /// Stop at the end of the sector in progress (true) or at once (DiskSim's "Stop prefetch
    /// in sector"); a stop "at once" still lets the mechanism finish the sector, so only the
    /// cached count differs.
    pub stop_in_sector: bool,
}

impl Policy {
    pub fn from_spec(c: &CacheSpec) -> Self {
        let mode = match c.buffer_continuous_read {
            1 => ContinuousRead::TrackEnd,
            2 => ContinuousRead::CylinderEnd,
            3 => ContinuousRead::SegmentEnd,
            4 => ContinuousRead::Dec,
            _ => ContinuousRead::Off,
        };
        let (min, max) = if mode == ContinuousRead::Off {
            (0, 0)
        } else {
            let min = c.min_read_ahead_sectors;
            (min, c.max_read_ahead_sectors.max(min))
        };
        // DiskSim turns the file's 0/1 into 1/0 and leaves -1 alone.
        let keep = if c.read_ahead_over_requested >= 0 {
            (c.read_ahead_over_requested - 1).abs()
        } else {
            -1
        };
        Policy {
            mode,
            min_blocks: min,
            max_blocks: max,
            keep_request: keep,
            segment_blocks: c.segment_sectors.max(1),
            on_idle_hit: c.read_ahead_on_idle_hit,
            stop_in_sector: c.stop_prefetch_in_sector,
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.mode != ContinuousRead::Off
    }

    /// DiskSim's maximum read-ahead block (exclusive) for a read of `n` blocks at `lbn` into
    /// a segment that starts at `seg_start`. `known` may hold the locations of `lbn` and of
    /// the block after the request, when the caller has them.
    #[inline(always)]
    pub(crate) fn max_lbn(
        &self,
        mech: &Mechanics,
        lbn: u64,
        n: u32,
        seg_start: u64,
        known: (Option<&Location>, Option<&Location>),
    ) -> u64 {
        let cap = mech.layout.capacity_sectors();
        let end = lbn + n as u64;
        // DEC's after a read miss that ends inside the track it started on, the run after it
        // reaching the track's last slot (nearly every random read): the end of that run, as
        // the general arm below works it out, without its locations and calls.
        if let (ContinuousRead::Dec, (Some(first), Some(next))) = (self.mode, known) {
            let l = end + next.run_sectors as u64;
            if seg_start == lbn
                && l < cap
                && next.sector + next.run_sectors == next.spt
                && (first.cylinder, first.surface) == (next.cylinder, next.surface)
            {
                return l;
            }
        }
        self.max_lbn_general(mech, lbn, n, seg_start, known)
    }

    /// [`Policy::max_lbn`] in every case.
    #[inline(never)]
    fn max_lbn_general(
        &self,
        mech: &Mechanics,
        lbn: u64,
        n: u32,
        seg_start: u64,
        known: (Option<&Location>, Option<&Location>),
    ) -> u64 {
        let cap = mech.layout.capacity_sectors();
        let end = lbn + n as u64;
        let size = self.segment_blocks as u64;
        let m = match self.mode {
            ContinuousRead::Off => end,
            ContinuousRead::Dec => {
                if end >= cap {
                    return cap;
                }
                let at_end = known.1.copied().unwrap_or_else(|| mech.layout.locate(end));
                let track_end = track_end_from(mech, end, &at_end);
                // The segment began on an earlier track than the block after the request.
                let start = match known.0 {
                    Some(l) if seg_start == lbn => *l,
                    _ => mech.layout.locate(seg_start),
                };
                if (start.cylinder, start.surface) != (at_end.cylinder, at_end.surface) {
                    let spt = if seg_start == lbn {
                        start.spt
                    } else {
                        mech.layout.locate(lbn).spt
                    };
                    track_end + spt as u64
                } else {
                    track_end
                }
            }
            _ if self.max_blocks > 0 => end + self.max_blocks as u64,
            _ if self.keep_request > 0 => {
                if n as u64 >= size || size - (n as u64) < self.min_blocks as u64 {
                    end + self.min_blocks as u64
                } else {
                    lbn + size
                }
            }
            _ => end + size,
        };
        m.min(cap)
    }

    /// When the mechanism is free for a command reaching the drive at `t`, and where its head
    /// is then, after a read miss of `lbn .. lbn + n` into a fresh segment whose media plan
    /// is `plan`: the read-ahead that follows it (as `Drive::after_media_read` starts it) is
    /// stopped as `Drive::stop_readahead` stops it. `None`: no read-ahead follows, the
    /// mechanism is free at the plan's end with the head at `plan.end_head`. With `room`,
    /// the read-ahead is held to its segment's room until the read's data has crossed the
    /// bus, as the drive holds it (`readahead_hold`). A pure query, for a predictor that
    /// shares the drive's model.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn release_after_miss(
        &self,
        mech: &Mechanics,
        lbn: u64,
        n: u32,
        plan: &MediaPlan,
        zero_latency: impl Into<media::ZeroLatency>,
        t: f64,
        room: Option<Room<'_>>,
    ) -> Option<(f64, HeadPosition)> {
        if !self.enabled() || n == 0 {
            return None;
        }
        let end = lbn + n as u64;
        let first = if plan.passes.first().is_some_and(|p| p.lbn == lbn) {
            plan.first_loc
        } else {
            None
        };
        let maxra = self.max_lbn(mech, lbn, n, lbn, (first.as_ref(), plan.next_loc.as_ref()));
        if maxra <= end {
            return None;
        }
        let limit = self.background_limit(mech, end - 1, maxra);
        let mut slot = None;
        ReadAhead::start_in(
            &mut slot,
            mech,
            0,
            plan.end_head,
            plan.end,
            end,
            limit,
            zero_latency,
            plan.next_loc,
        );
        let ra = slot.as_mut()?;
        if let Some(r) =
            room.filter(|r| !super::readahead_hold::fits(n, ra.limit - ra.base, r.size))
        {
            let from = (plan.end_head, plan.end);
            super::readahead_hold::hold(&mut ra.plan, mech, from, n, r.size, r.bus_end, || {
                let mut sent = vec![0.0; n as usize];
                super::segment_full::bus_progress(r.avail, lbn, r.bus_start, r.stream, &mut sent);
                sent
            });
        }
        let (stop, head, _) = ra.stop(t, self.stop_in_sector);
        Some((stop, head))
    }

    /// The LBNs a segment filled by a read miss of `lbn .. lbn + n` can come to hold: from
    /// the first block of the request's landing track (the blocks "read any free blocks"
    /// keeps from the landing on) to the furthest block its read-ahead may reach. A pure
    /// query, for a predictor that must not plan reads the drive would serve from its buffer.
    pub(crate) fn segment_reach(&self, mech: &Mechanics, lbn: u64, n: u32) -> (u64, u64) {
        let l = mech.layout.locate(lbn);
        let first = mech
            .layout
            .first_lbn_on_track(l.cylinder, l.surface)
            .unwrap_or(lbn)
            .min(lbn);
        let end = lbn + n as u64;
        let maxra = self.max_lbn(mech, lbn, n, lbn, (Some(&l), None)).max(end);
        (
            first,
            self.background_limit(mech, end.max(1) - 1, maxra).max(end),
        )
    }

    /// Where background reading that follows block `last` must stop: the track or cylinder
    /// boundary the mode forbids crossing, or `limit`. Always inlined: every read calls it,
    /// and crate-private, LLVM otherwise keeps it out of line (a call a read).
    #[inline(always)]
    pub(crate) fn background_limit(&self, mech: &Mechanics, last: u64, limit: u64) -> u64 {
        match self.mode {
            ContinuousRead::Off => last + 1,
            ContinuousRead::TrackEnd => limit.min(track_end(mech, last)),
            ContinuousRead::CylinderEnd => limit.min(cylinder_end(mech, last)),
            _ => limit,
        }
    }
}

/// One past the last LBN on the track holding `lbn`.
pub(crate) fn track_end(mech: &Mechanics, lbn: u64) -> u64 {
    track_end_from(mech, lbn, &mech.layout.locate(lbn))
}

/// [`track_end`] when `lbn` is already located.
fn track_end_from(mech: &Mechanics, lbn: u64, first: &super::layout::Location) -> u64 {
    let cap = mech.layout.capacity_sectors();
    let mut l = lbn + first.run_sectors as u64;
    if l < cap && first.sector + first.run_sectors == first.spt {
        // The run reached the track's last slot: nothing further on this track.
        return l;
    }
    // Runs break at slips and remaps as well as at the track's end; a few steps at most.
    for _ in 0..64 {
        if l >= cap {
            return cap;
        }
        let loc = mech.layout.locate(l);
        if loc.cylinder != first.cylinder || loc.surface != first.surface {
            return l;
        }
        l += loc.run_sectors as u64;
    }
    l
}

/// One past the last LBN on the cylinder holding `lbn`.
pub(crate) fn cylinder_end(mech: &Mechanics, lbn: u64) -> u64 {
    let cap = mech.layout.capacity_sectors();
    let cyl = mech.layout.locate(lbn).cylinder;
    let mut l = lbn;
    for _ in 0..4096 {
        if l >= cap {
            return cap;
        }
        let loc = mech.layout.locate(l);
        if loc.cylinder != cyl {
            return l;
        }
        l = track_end(mech, l);
    }
    l
}

/// [`media::count_passes_by`] for the plans nearly every read-ahead has, one pass (DEC's to
/// the end of the read's track, in order) or two (the same, zero latency: the run's tail, then
/// its front a revolution later), with their pieces made here as `media::pieces` makes them
/// (the front first when the second pass ends where the first begins; the second piece
/// usable no earlier than the first's last block), without its iterator.
#[inline(always)]
fn count_by(passes: &[media::Pass], not_before: f64, t: f64) -> u64 {
    match passes {
        [p] => media::count_by(std::iter::once(Piece::of_pass(p, not_before)), t),
        [a, b] => {
            let (first, second) = if b.end_lbn() == a.lbn { (b, a) } else { (a, b) };
            let floor = not_before.max(first.last_done());
            let pieces = [
                Piece::of_pass(first, not_before),
                Piece::of_pass(second, floor),
            ];
            media::count_by(pieces.into_iter(), t)
        }
        ps => media::count_passes_by(ps, not_before, t),
    }
}

/// What holds a read-ahead back after a read miss (`readahead_hold`): its segment's size and
/// the read's bus (when each of its blocks is in, and its transfer from `bus_start` to
/// `bus_end`), for [`Policy::release_after_miss`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Room<'a> {
    pub size: u32,
    pub avail: &'a Avail,
    pub bus_start: f64,
    pub bus_end: f64,
    pub stream: &'a super::bus::Stream,
}

/// A head position packed in one word. Returned through memory as a `HeadPosition` it is
/// stored as two 32-bit halves, which the caller's one 64-bit load cannot take from the
/// store buffer: a stall on every command after a read (5% of `serve_queued`'s samples at
/// the instruction after that load, perf annotate). One word is stored and loaded whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeadWord(u64);

impl HeadWord {
    #[inline(always)]
    pub(crate) fn of(h: HeadPosition) -> Self {
        HeadWord(h.cylinder as u64 | (h.surface as u64) << 32)
    }

    #[inline(always)]
    pub(crate) fn head(self) -> HeadPosition {
        HeadPosition {
            cylinder: self.0 as u32,
            surface: (self.0 >> 32) as u32,
        }
    }
}

/// Read-ahead in progress.
#[derive(Clone, Debug)]
pub(crate) struct ReadAhead {
    pub seg: usize,
    /// First block it reads.
    pub base: u64,
    /// One past the last block it will read.
    pub limit: u64,
    pub plan: MediaPlan,
    /// When the mechanism was free to start it.
    pub t_start: f64,
}

impl ReadAhead {
    /// Read-ahead of `base .. limit` into `seg` by a mechanism free at `t` with the head at
    /// `head` (`first`: where `base` is, if already known), put in `slot` (which becomes
    /// `None` when there is nothing to read). It is planned where it is kept: every read starts
    /// one, and moving a plan costs more than filling it. Always inlined: called once from
    /// each read from the media, its call and nine arguments (the first block's location
    /// copied through the stack) cost more than its bookkeeping.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn start_in(
        slot: &mut Option<ReadAhead>,
        mech: &Mechanics,
        seg: usize,
        head: HeadPosition,
        t: f64,
        base: u64,
        limit: u64,
        zero_latency: impl Into<media::ZeroLatency>,
        first: Option<Location>,
    ) {
        let zero_latency = zero_latency.into();
        if limit <= base {
            *slot = None;
            return;
        }
        let n = (limit - base).min(u32::MAX as u64) as u32;
        let ra = slot.get_or_insert_with(|| ReadAhead {
            seg,
            base,
            limit: base,
            plan: MediaPlan::default(),
            t_start: t,
        });
        ra.seg = seg;
        ra.base = base;
        ra.limit = base + n as u64;
        ra.t_start = t;
        let loc = first.unwrap_or_else(|| mech.layout.locate(base));
        if n <= loc.run_sectors {
            // The common case (DEC's read-ahead runs to the end of the request's track).
            media::plan_run_into(&mut ra.plan, mech, head, t, base, n, zero_latency, loc);
        } else {
            media::plan_into(
                &mut ra.plan,
                mech,
                head,
                t,
                base,
                n,
                Op::Read,
                zero_latency,
                0,
                None,
                Some(loc),
            );
        }
    }

    /// One past the last block in the buffer at `t`.
    #[inline]
    pub(crate) fn end_by(&self, t: f64) -> u64 {
        self.base + count_by(&self.plan.passes, self.t_start, t)
    }

    /// When each block it reads is in the buffer.
    pub(crate) fn avail(&self) -> Avail {
        Avail::from_plan(&self.plan, self.t_start)
    }

    /// When the last block is in.
    pub(crate) fn done_at(&self) -> f64 {
        self.plan.end
    }

    /// Read further, to `limit`, continuing after the blocks already planned.
    pub(crate) fn extend(
        &mut self,
        mech: &Mechanics,
        limit: u64,
        zero_latency: impl Into<media::ZeroLatency>,
    ) {
        if limit <= self.limit {
            return;
        }
        let n = (limit - self.limit).min(u32::MAX as u64) as u32;
        let more = media::plan(
            mech,
            self.plan.end_head,
            self.plan.end,
            self.limit,
            n,
            Op::Read,
            zero_latency,
            0,
        );
        self.plan.passes.extend(more.passes.iter().copied());
        self.plan.end = more.end;
        self.plan.end_head = more.end_head;
        self.limit += n as u64;
    }

    /// Preempted by a command at `t`: when the mechanism is free for it, where the head is
    /// then, and one past the last block left in the buffer. The mechanism finishes the seek
    /// in progress; a sector in progress is finished, and not kept, unless `in_sector` ("Stop
    /// prefetch in sector": the read-ahead may be aborted in the middle of a sector), when
    /// it gives way at once (DiskSim's `disk_buffer_stopable_access`: with the parameter set
    /// a sector's pending event is dropped and the next seek starts at once; without it the
    /// seek waits for the sector's end, `disk_seek_stoptime`; in neither case does the
    /// sector reach the segment). A wait for the rotation before the read-ahead's first pass
    /// is abandoned at once (DiskSim waits it out, which costs a random workload up to a
    /// revolution per command for nothing: point 8 of docs/fidelity.md), unless the mechanism
    /// moved to reach it. After a head switch or seek, between two of its passes or before its
    /// first (a read that ended at its track's end), the read-ahead is stopped at its next
    /// event, as DiskSim stops it: the start of the first sector on the new track, the skew
    /// after the switch ("The read-ahead's track switch" and "The read-ahead's first switch" in
    /// docs/fidelity.md), or at once if it may stop in a sector.
    pub(crate) fn stop(&self, t: f64, in_sector: bool) -> (f64, HeadPosition, u64) {
        match self.at(t, in_sector) {
            (end, Some((stop, head))) => (stop, head, end),
            (_, None) => (t, self.plan.end_head, self.limit),
        }
    }

    /// What a command reaching the drive at `t` finds, asked once: one past the last block in
    /// the buffer ([`ReadAhead::end_by`]), and, unless the read-ahead is over by then, when
    /// its stop frees the mechanism and where the head is then ([`ReadAhead::stop`]). Every
    /// command after a read asks both at the same `t`, to bring the segment up to date and to
    /// stop the read-ahead: one walk answers both.
    #[inline]
    pub(crate) fn at(&self, t: f64, in_sector: bool) -> (u64, Option<(f64, HeadPosition)>) {
        let (end, stop) = self.at_word(t, in_sector);
        (end, stop.map(|(t, head)| (t, head.head())))
    }

    /// [`ReadAhead::at`] with the head as one word ([`HeadWord`]), for the caller that takes
    /// the answer through memory every command. Always inlined: its one caller, `settle`,
    /// runs for every command, and LLVM left it a call.
    #[inline(always)]
    pub(crate) fn at_word(&self, t: f64, in_sector: bool) -> (u64, Option<(f64, HeadWord)>) {
        let end = self.base + count_by(&self.plan.passes, self.t_start, t);
        if t >= self.plan.end {
            return (end, None);
        }
        let (stop, head) = self.stop_running(t, in_sector);
        (end, Some((stop, HeadWord::of(head))))
    }

    /// Where [`ReadAhead::stop`] leaves the head at `t`, without the count a stop also gives
    /// (a scheduler inside the drive asks this at every choice).
    pub(crate) fn head_at(&self, t: f64) -> HeadPosition {
        if t >= self.plan.end {
            return self.plan.end_head;
        }
        self.stop_running(t, true).1
    }

    /// DiskSim's last media event by `t` while this read-ahead is under way, from `before`
    /// (the last one before the read-ahead's first sector, the head then on `track`): the
    /// end of the last sector read, or the start of a pass's first sector, where DiskSim's
    /// first event on a track the read-ahead has moved to falls (a `SECTOR_DONE` that reads
    /// nothing); and the head's track then. A track switch under way leaves both as they
    /// were: DiskSim moves its state to the new track at that first event.
    pub(crate) fn last_sector_by(
        &self,
        t: f64,
        before: f64,
        track: HeadPosition,
    ) -> (f64, HeadPosition) {
        let mut last = (before, track);
        for p in self.plan.passes.iter() {
            if t < p.start() {
                return last;
            }
            if t < p.first_done {
                return (p.start(), p.track);
            }
            if t < p.last_done() {
                let k = ((t - p.first_done) / p.step).floor();
                return (p.first_done + k * p.step, p.track);
            }
            last = (p.last_done(), p.track);
        }
        last
    }

    /// [`ReadAhead::stop`] before the read-ahead's end: when the mechanism is free, and where
    /// the head is.
    #[inline(always)]
    fn stop_running(&self, t: f64, in_sector: bool) -> (f64, HeadPosition) {
        // Passes are in time order.
        let mut prev_track = None;
        for p in self.plan.passes.iter() {
            let head = p.track;
            if t < p.start() {
                // A seek or head switch under way is finished.
                if moved_to(prev_track, p, self.t_start) && t >= p.on_track {
                    // Waiting for the first sector on the track it has just switched to: DiskSim's
                    // next event is that sector's start (a `SECTOR_DONE` that reads nothing).
                    let stop = if in_sector { t } else { p.start() };
                    return (stop, head);
                }
                return (t.max(p.on_track), head);
            }
            if t < p.last_done() {
                if in_sector {
                    return (t, head);
                }
                let k = (((t - p.start()) / p.step) as i64 + 1) as f64;
                let stop = p.start() + k * p.step;
                return (stop, head);
            }
            prev_track = Some(p.track);
        }
        (t, self.plan.end_head)
    }
}

/// Whether the mechanism moved (a seek or a head switch) to reach pass `p`: a switch between
/// two passes, or, for the first pass (`prev_track` `None`), a move after the read-ahead's
/// start at `t_start` (a read that ended at its track's end). DiskSim's read-ahead then waits
/// on the new track like any access (`DEVICE_BUFFER_SEEKDONE`, then the first sector), so its
/// stop is that sector's start; a first pass that needs no move only waits for the rotation,
/// and that wait is abandoned (point 8 of docs/fidelity.md).
#[inline(always)]
fn moved_to(prev_track: Option<HeadPosition>, p: &media::Pass, t_start: f64) -> bool {
    match prev_track {
        Some(tr) => tr != p.track,
        None => p.on_track > t_start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::catalog;

    /// [`ReadAhead::stop`] as it was before [`ReadAhead::at`] answered the count and the stop
    /// in one call: the pass walk with the count of `media::count_passes_by` (every pass
    /// through `media::pieces`).
    fn stop_eager(ra: &ReadAhead, t: f64, in_sector: bool) -> (f64, HeadPosition, u64) {
        let end_by = |t: f64| ra.base + media::count_passes_by(&ra.plan.passes, ra.t_start, t);
        if t >= ra.plan.end {
            return (t, ra.plan.end_head, ra.limit);
        }
        let mut prev_track = None;
        for p in ra.plan.passes.iter() {
            if t < p.start() {
                if moved_to(prev_track, p, ra.t_start) && t >= p.on_track {
                    let stop = if in_sector { t } else { p.start() };
                    return (stop, p.track, end_by(t));
                }
                return (t.max(p.on_track), p.track, end_by(t));
            }
            if t < p.last_done() {
                if in_sector {
                    return (t, p.track, end_by(t));
                }
                let k = (((t - p.start()) / p.step) as i64 + 1) as f64;
                return (p.start() + k * p.step, p.track, end_by(t));
            }
            prev_track = Some(p.track);
        }
        (t, ra.plan.end_head, end_by(t))
    }

    /// What a command finds in one call ([`ReadAhead::at`], its one- and two-pass counts made
    /// without `media::pieces`) and the head a scheduler asks for ([`ReadAhead::head_at`]) are,
    /// bit for bit, what the count and the stop asked one after the other gave, over read-aheads
    /// of every shape the drive makes: one pass, a zero-latency tail and front, several tracks
    /// (a read-ahead extended past its track), asked at times before, inside and after them.
    #[test]
    fn the_count_and_stop_asked_at_once_are_the_eager_ones() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut shapes = [0u32; 4];
        for drive in ["atlas10k", "hp_c3323a", "st41601n"] {
            let spec = catalog::lookup(drive).unwrap();
            let mech = Mechanics::new(&spec).unwrap();
            let cap = mech.layout.capacity_sectors();
            let period = mech.period_ns;
            for _ in 0..3000 {
                let base = next() % (cap - 2000);
                let loc = mech.layout.locate(base);
                let zl = next() % 2 == 0;
                // Within the run mostly (DEC's read-ahead), sometimes across tracks.
                let n = if next() % 4 == 0 {
                    loc.run_sectors + 1 + (next() % 600) as u32
                } else {
                    1 + (next() % loc.run_sectors as u64) as u32
                };
                let head = if next() % 3 == 0 {
                    HeadPosition::default()
                } else {
                    HeadPosition {
                        cylinder: loc.cylinder,
                        surface: loc.surface,
                    }
                };
                let t0 = (next() % 1_000_000_000) as f64 + (next() % 1000) as f64 / 1024.0;
                let mut slot = None;
                let first = (next() % 2 == 0).then_some(loc);
                ReadAhead::start_in(
                    &mut slot,
                    &mech,
                    0,
                    head,
                    t0,
                    base,
                    base + n as u64,
                    zl,
                    first,
                );
                let mut ra = slot.unwrap();
                if next() % 5 == 0 {
                    ra.extend(&mech, ra.limit + 1 + next() % 200, zl);
                }
                shapes[ra.plan.passes.len().min(3)] += 1;
                let span = ra.plan.end - t0 + 2.0 * period;
                for k in 0..24 {
                    let t = match k {
                        0 => t0,
                        1 => ra.plan.end,
                        2 => ra.plan.passes[0].first_done,
                        3 => ra.plan.passes[0].start(),
                        _ => t0 - period + (next() % 1_000_000) as f64 / 1e6 * span,
                    };
                    for in_sector in [false, true] {
                        let (stop, head, end) = stop_eager(&ra, t, in_sector);
                        let eager_end =
                            ra.base + media::count_passes_by(&ra.plan.passes, ra.t_start, t);
                        let want = (eager_end, (t < ra.plan.end).then_some((stop, head)));
                        assert_eq!(ra.at(t, in_sector), want, "{drive} {base}+{n} at {t}");
                        assert_eq!(ra.stop(t, in_sector), (stop, head, end));
                        assert_eq!(ra.end_by(t), eager_end);
                    }
                    assert_eq!(ra.head_at(t), stop_eager(&ra, t, true).1);
                }
            }
        }
        // Every shape was among them.
        assert!(
            shapes[1] > 1000 && shapes[2] > 100 && shapes[3] > 100,
            "{shapes:?}"
        );
    }

    /// The DEC limit's shortcut gives what the general arm gives, for reads of every size at
    /// sampled places (run ends, track ends, slips, the disk's end), whether the segment began
    /// with the read or earlier, with and without the locations a media plan found.
    #[test]
    fn the_dec_limit_shortcut_matches_the_general_arm() {
        let mut shortcut = 0;
        for drive in ["atlas10k", "hp_c3323a", "st41601n"] {
            let spec = catalog::lookup(drive).unwrap();
            let mech = Mechanics::new(&spec).unwrap();
            let pol = Policy {
                mode: ContinuousRead::Dec,
                ..Policy::from_spec(spec.cache.as_ref().unwrap())
            };
            let cap = mech.layout.capacity_sectors();
            let mut lbns: Vec<u64> = (0..4000u64).map(|i| (i * 7_919 + 13) % cap).collect();
            lbns.extend((1..40).map(|k| cap - k));
            for (i, &lbn) in lbns.iter().enumerate() {
                let first = mech.layout.locate(lbn);
                let n = 1 + (i as u32 * 31) % (first.run_sectors + 3);
                let end = (lbn + n as u64).min(cap);
                let n = (end - lbn) as u32;
                // What the media plan hands on: the block after the read, when it continues
                // the run on the same track.
                let next = (n < first.run_sectors && end < cap).then(|| mech.layout.locate(end));
                for seg_start in [lbn, lbn.saturating_sub(5)] {
                    for known in [
                        (Some(&first), next.as_ref()),
                        (None, next.as_ref()),
                        (Some(&first), None),
                    ] {
                        let fast = pol.max_lbn(&mech, lbn, n, seg_start, known);
                        let general = pol.max_lbn_general(&mech, lbn, n, seg_start, known);
                        assert_eq!(fast, general, "{drive} lbn {lbn} n {n} from {seg_start}");
                        shortcut += matches!(known, (Some(f), Some(x))
                            if seg_start == lbn
                                && end + (x.run_sectors as u64) < cap
                                && x.sector + x.run_sectors == x.spt
                                && (f.cylinder, f.surface) == (x.cylinder, x.surface))
                            as u32;
                    }
                }
            }
        }
        // The shortcut's own case was among them.
        assert!(shortcut > 1000, "{shortcut}");
    }
}
