//! A read larger than its buffer segment: the media stops when the segment is full.
//!
//! A segment holds at most its size of blocks read from the media and not yet sent over the
//! bus. When a request is larger than that and the bus is slower than the media, the head
//! catches up with the bus: the sector whose block has no room passes under the head unread,
//! and the media carries on only when that sector comes round again with room for it, whole
//! revolutions later. DiskSim 4.0 does the same, sector by sector: a block may be read only
//! while it lies less than a segment beyond the first block not yet sent (its per-block bus
//! progress), otherwise the sector goes by and the block waits for its next pass. So room for
//! one block is enough to resume, checked when the sector begins.
//!
//! Because a stall lasts whole revolutions, everything the plan does after it (the rest of
//! the track, the switches and seeks to the next tracks) keeps its rotational phase: the plan
//! is the same plan, shifted. Only requests larger than their segment come here (one branch
//! on every other read).
//!
//! [TEAM CHOICE] The rule counts blocks held (read minus sent), which is DiskSim's positional
//! rule for in-order reading and what a drive with a ring buffer can hold when it reads out of
//! order: a zero-latency read whose first track's tail alone fills the segment is read in
//! order instead (the tail could not be held until the front arrives).

use super::bus::Stream;
use super::layout::Location;
use super::mechanics::Mechanics;
use super::media::{self, Avail, DataReady, MediaPlan, Pass};
use super::num::ceil;
use crate::request::{HeadPosition, Op};

/// Stall the media passes of a read of `lbn .. lbn + n` (the first `held` blocks already in
/// the segment, the plan reading the rest) so that no block is read while `size` blocks wait
/// for the bus, the bus starting at `bus_start` with the rules of `stream`. `replan_in_order`
/// plans the media part again without zero latency. The plan may go on past the request (the
/// read-ahead under way that brings it): a block beyond waits for the request's last block
/// to be sent. Blocks whose sector began before `settled` were read already and stay.
/// Returns whether the plan changed.
#[allow(clippy::too_many_arguments)]
#[cold]
#[inline(never)]
pub(super) fn stall_read(
    plan: &mut MediaPlan,
    replan_in_order: impl FnOnce(&mut MediaPlan),
    lbn: u64,
    held: u32,
    n: u32,
    size: u32,
    period_ns: f64,
    not_before: f64,
    bus_start: f64,
    stream: &Stream,
    settled: f64,
) -> bool {
    let planned: u32 = plan.passes.iter().map(|p| p.count).sum();
    if held + planned <= size || plan.passes.is_empty() {
        return false;
    }
    let media_lbn = lbn + held as u64;
    let mut changed = false;
    if plan.passes[0].lbn != media_lbn && held + plan.passes[0].count >= size {
        replan_in_order(plan);
        changed = true;
    }
    let mut sent = vec![0.0f64; n as usize];
    // Each stall delays only what the head does from the stalled block on: the bus times
    // of blocks before it (less the watermark's look-ahead) stand, and so does every check
    // of a block read before it whose room depends on those. Bus times are computed only as
    // far as the checks need them, and after a stall only from where it changed them, so a
    // read of many segments costs about its blocks once rather than at every stall (a
    // 60,000-block read took seconds).
    let look_ahead = if stream.hold {
        0
    } else {
        stream.watermark.max(1) as usize - 1
    };
    // `sent[..computed]` holds for the plan as it is; blocks before `check_from` in the
    // head's order are checked.
    let (mut computed, mut check_from) = (0usize, held as usize);
    // A split plan's passes by start (then time order), kept across stalls: its pieces are
    // then read off in LBN order without a sort or a search at every stall.
    let mut by_lbn: Option<Vec<usize>> = None;
    loop {
        let mut avail = Avail::ready(lbn, held, not_before);
        let ps = &plan.passes;
        // `pieces`'s own test for a plan it walks by LBN.
        let split = ps.len() > 2
            && ps
                .windows(2)
                .any(|w| w[1].lbn < w[0].lbn && w[1].end_lbn() != w[0].lbn);
        let pieces = if split {
            let order = by_lbn.get_or_insert_with(|| {
                let mut order: Vec<usize> = (0..ps.len()).collect();
                order.sort_unstable_by_key(|&i| (ps[i].lbn, i));
                order
            });
            media::pieces_by_lbn(ps, order, not_before)
        } else {
            Avail::from_plan(plan, not_before)
        };
        for p in pieces.pieces {
            avail.push(p);
        }
        // The first block, in the order the head reads them, that would overfill the segment.
        let mut c = held as usize;
        let mut found = None;
        'walk: for (pi, p) in plan.passes.iter().enumerate() {
            if c + p.count as usize <= check_from {
                c += p.count as usize;
                continue;
            }
            for q in 0..p.count {
                let begins = p.first_done + (q as f64 - 1.0) * p.step;
                if c >= check_from && c >= size as usize && begins >= settled {
                    let j = (c - size as usize).min(n as usize - 1);
                    if j >= computed {
                        let to = (j + 1 + size as usize).min(n as usize);
                        bus_progress_range(&avail, lbn, bus_start, stream, &mut sent, computed..to);
                        computed = to;
                    }
                    let room_at = sent[j];
                    if room_at > begins {
                        let turns = ceil((room_at - begins) / period_ns).max(1.0);
                        found = Some((pi, q, c, turns * period_ns));
                        break 'walk;
                    }
                }
                c += 1;
            }
        }
        let Some((pi, q, c, shift)) = found else {
            return changed;
        };
        shift_from(plan, pi, q, shift);
        changed = true;
        if let (Some(order), true) = (by_lbn.as_mut(), q > 0) {
            // Pass `pi` was cut in two, its second part now pass `pi + 1`: later passes move
            // up one, which keeps their order, and the new one goes in at its start.
            for i in order.iter_mut() {
                *i += (*i > pi) as usize;
            }
            let ps = &plan.passes;
            let key = (ps[pi + 1].lbn, pi + 1);
            let at = order.partition_point(|&i| (ps[i].lbn, i) < key);
            // Built anew rather than pushed into: a push here would share the vector's
            // growth with the hot paths and move their inlining.
            let (front, back) = order.split_at(at);
            let new = std::iter::once(pi + 1);
            *order = front
                .iter()
                .copied()
                .chain(new)
                .chain(back.iter().copied())
                .collect();
        }
        // The lowest block the stall delayed, as an index into the request.
        let from = if q > 0 { pi + 1 } else { pi };
        let first_delayed = plan.passes[from..]
            .iter()
            .map(|p| p.lbn)
            .min()
            .unwrap_or(lbn);
        let unchanged = (first_delayed.saturating_sub(lbn) as usize).saturating_sub(look_ahead);
        computed = computed.min(unchanged);
        check_from = c.min(computed + size as usize);
    }
}

/// When each block of the request has crossed the bus (`sent[i]` for block `lbn + i`): the
/// per-block form of [`super::bus::transfer_end`].
pub(super) fn bus_progress(avail: &Avail, lbn: u64, start: f64, s: &Stream, sent: &mut [f64]) {
    let n = sent.len();
    bus_progress_range(avail, lbn, start, s, sent, 0..n);
}

/// [`bus_progress`] for the blocks of `range` only, those before it taken as computed: the
/// bus resumes after `sent[range.start - 1]`.
fn bus_progress_range(
    avail: &Avail,
    lbn: u64,
    start: f64,
    s: &Stream,
    sent: &mut [f64],
    range: std::ops::Range<usize>,
) {
    let end = lbn + sent.len() as u64;
    let held = s.hold || (s.disconnect_ns == 0.0 && s.reconnect_ns == 0.0 && s.watermark <= 1);
    let mut e = if range.start == 0 {
        start
    } else {
        sent[range.start - 1]
    };
    let (mut blocks, mut marks) = (avail.walk(), avail.walk());
    for (i, slot) in sent
        .iter_mut()
        .enumerate()
        .take(range.end)
        .skip(range.start)
    {
        let l = lbn + i as u64;
        let a = blocks.time_of(l).unwrap_or(start);
        if held {
            e = e.max(a) + s.block_ns;
        } else if a <= e {
            e += s.block_ns;
        } else {
            let w_lbn = (l + s.watermark.max(1) as u64 - 1).min(end - 1);
            let ready = marks.time_of(w_lbn).unwrap_or(a);
            e = ready.max(e + s.disconnect_ns) + s.reconnect_ns + s.block_ns;
        }
        *slot = e;
    }
}

/// Delay block `q` of pass `pi` and everything the plan does after it by `shift` (whole
/// revolutions): the head waits on the track for the sector to come round again.
pub(super) fn shift_from(plan: &mut MediaPlan, pi: usize, q: u32, shift: f64) {
    let mut from = pi;
    if q > 0 {
        let p = plan.passes[pi];
        let done_before = p.first_done + (q - 1) as f64 * p.step;
        plan.passes[pi].count = q;
        plan.passes.insert(
            pi + 1,
            Pass {
                lbn: p.lbn + q as u64,
                count: p.count - q,
                first_done: done_before + p.step,
                step: p.step,
                on_track: done_before,
                track: p.track,
            },
        );
        from = pi + 1;
    }
    for (i, p) in plan.passes.iter_mut().enumerate().skip(from) {
        p.first_done += shift;
        if i > from {
            p.on_track += shift;
        }
    }
    plan.end += shift;
}

/// How a write larger than its segment reaches the buffer: in segment-sized loads.
#[derive(Clone, Copy, Debug)]
pub(super) struct WriteLoads {
    pub size: u32,
    /// The bus comes back for more once no more than this many blocks are left to write
    /// (DiskSim's low water mark, at least 1).
    pub low_water: u32,
    /// What coming back costs (reselection and data preparation; 0 on a held bus).
    pub reconnect_ns: f64,
}

/// Plan a write of `n > size` blocks from `lbn`: the bus fills the segment, the media writes
/// the blocks as their data is in, the bus comes back for the next load when the media has
/// left `low_water` blocks to write, and brings as many as there is room for. DiskSim's
/// controller does the same (the bus may not bring a block more than a segment ahead of the
/// media). `data` is the first load's arrival. Returns when the last block has crossed the
/// bus.
#[allow(clippy::too_many_arguments)]
#[cold]
#[inline(never)]
pub(super) fn plan_write(
    plan: &mut MediaPlan,
    mech: &Mechanics,
    from: HeadPosition,
    start: f64,
    lbn: u64,
    n: u32,
    zero_latency: bool,
    min_move_ns: u64,
    data: DataReady,
    loads: WriteLoads,
) -> f64 {
    let mut c0 = 0u32;
    let mut len = loads.size.min(n);
    let mut d = data;
    let mut load = MediaPlan::default();
    // When each block of the request is written, filled as each load's passes are planned:
    // the checks at the end of a load look at a segment's worth of blocks, and a search of
    // every pass for each (`done_at`) made a write of many loads cost minutes.
    let mut done = DoneTimes::new(lbn, n);
    loop {
        let (head, t, min_move) = if c0 == 0 {
            (from, start, min_move_ns)
        } else {
            (plan.end_head, plan.end, 0)
        };
        let target: &mut MediaPlan = if c0 == 0 { &mut *plan } else { &mut load };
        media::plan_into(
            target,
            mech,
            head,
            t,
            lbn + c0 as u64,
            len,
            Op::Write,
            zero_latency,
            min_move,
            Some(d),
            None::<Location>,
        );
        let bus_end = d.base + len.max(d.min_blocks) as f64 * d.step;
        if c0 > 0 {
            plan.passes.extend(load.passes.iter().copied());
            plan.end = load.end;
            plan.end_head = load.end_head;
            plan.next_loc = load.next_loc;
        }
        let c1 = c0 + len;
        if c1 >= n {
            return bus_end;
        }
        done.fill(plan);
        // At the end of a load the bus goes on at once with as many blocks as there is room
        // for; with none it disconnects and comes back once the media has `low_water` blocks
        // left to write.
        let held = (c1.saturating_sub(loads.size)..c1)
            .filter(|&k| done.at(plan, lbn + k as u64) > bus_end)
            .count() as u32;
        let (base, room) = if held < loads.size {
            (bus_end, loads.size - held)
        } else {
            let w = loads.low_water.max(1).min(loads.size - 1);
            let trigger = done.at(plan, lbn + (c1 - w) as u64 - 1).max(bus_end);
            (trigger + loads.reconnect_ns, loads.size - w)
        };
        c0 = c1;
        len = room.min(n - c1);
        d = DataReady {
            base,
            step: d.step,
            min_blocks: 1,
        };
    }
}

/// When each block of a request is done (written), from the passes of its plan as they
/// are added: a block takes its time from the first pass that holds it.
struct DoneTimes {
    lbn: u64,
    /// NaN: no pass holds the block (yet).
    at: Vec<f64>,
    /// Passes of the plan read so far.
    passes: usize,
}

impl DoneTimes {
    fn new(lbn: u64, n: u32) -> Self {
        DoneTimes {
            lbn,
            at: vec![f64::NAN; n as usize],
            passes: 0,
        }
    }

    /// Take in the passes added to `plan` since the last call.
    fn fill(&mut self, plan: &MediaPlan) {
        for p in &plan.passes[self.passes..] {
            for k in 0..p.count {
                let l = p.lbn + k as u64;
                let Some(slot) = l
                    .checked_sub(self.lbn)
                    .and_then(|i| self.at.get_mut(i as usize))
                else {
                    continue;
                };
                if slot.is_nan() {
                    *slot = p.first_done + k as f64 * p.step;
                }
            }
        }
        self.passes = plan.passes.len();
    }

    /// When block `l` is done: the plan's end when no pass holds it.
    fn at(&self, plan: &MediaPlan, l: u64) -> f64 {
        match l
            .checked_sub(self.lbn)
            .and_then(|i| self.at.get(i as usize))
        {
            Some(&t) if !t.is_nan() => t,
            _ => plan.end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::HeadPosition;

    fn one_pass(n: u32, step: f64) -> MediaPlan {
        let mut plan = MediaPlan::default();
        plan.passes.push(Pass {
            lbn: 0,
            count: n,
            first_done: step,
            step,
            on_track: 0.0,
            track: HeadPosition::default(),
        });
        plan.end = n as f64 * step;
        plan
    }

    fn held_bus(block_ns: f64) -> Stream {
        Stream {
            block_ns,
            hold: true,
            disconnect_ns: 0.0,
            reconnect_ns: 0.0,
            watermark: 1,
        }
    }

    #[test]
    fn a_request_that_fits_its_segment_is_untouched() {
        let mut plan = one_pass(8, 1.0);
        let before = plan.clone().passes;
        assert!(!stall_read(
            &mut plan,
            |_| unreachable!(),
            0,
            0,
            8,
            8,
            100.0,
            0.0,
            0.0,
            &held_bus(10.0),
            f64::NEG_INFINITY
        ));
        assert_eq!(plan.passes, before);
    }

    #[test]
    fn a_slow_bus_stops_the_media_until_the_sector_comes_round_with_room() {
        // Media 1 per block, bus 10 per block from 0, segment of 4, revolution 100: blocks
        // 0-3 read at once; block 4 needs block 0 sent (at 11), its sector began at 4, so it
        // is read a revolution later (done at 105), and so on.
        let mut plan = one_pass(6, 1.0);
        assert!(stall_read(
            &mut plan,
            |_| unreachable!(),
            0,
            0,
            6,
            4,
            100.0,
            0.0,
            0.0,
            &held_bus(10.0),
            f64::NEG_INFINITY
        ));
        let done: Vec<f64> = (0..6u64)
            .map(|l| Avail::from_plan(&plan, 0.0).time_of(l).unwrap())
            .collect();
        assert_eq!(done, vec![1.0, 2.0, 3.0, 4.0, 105.0, 106.0]);
        assert_eq!(plan.end, 106.0);
        // Never more than 4 blocks held: block i is read after block i - 4 was sent.
        let mut sent = vec![0.0; 6];
        bus_progress(
            &Avail::from_plan(&plan, 0.0),
            0,
            0.0,
            &held_bus(10.0),
            &mut sent,
        );
        for i in 4..6 {
            assert!(sent[i - 4] <= done[i] - 1.0, "block {i}");
        }
    }

    #[test]
    fn a_fast_bus_never_stalls_the_media() {
        let mut plan = one_pass(64, 10.0);
        let before = plan.clone().passes;
        assert!(!stall_read(
            &mut plan,
            |_| unreachable!(),
            0,
            0,
            64,
            8,
            1000.0,
            0.0,
            0.0,
            &held_bus(1.0),
            f64::NEG_INFINITY
        ));
        assert_eq!(plan.passes, before);
    }

    #[test]
    fn blocks_already_in_the_segment_take_their_room() {
        // Two blocks held from a partial hit, the bus not started until 50: the media may
        // read only two more before the segment of 4 is full.
        let mut plan = one_pass(4, 1.0);
        plan.passes[0].lbn = 2;
        assert!(stall_read(
            &mut plan,
            |_| unreachable!(),
            0,
            2,
            6,
            4,
            100.0,
            0.0,
            50.0,
            &held_bus(10.0),
            f64::NEG_INFINITY
        ));
        assert_eq!(plan.passes[0].count, 2);
        assert_eq!(plan.passes[1].first_done, 103.0);
    }
}
