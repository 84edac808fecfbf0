//! Reads: full hits, hits on the read-ahead under way, partial hits and misses.

use super::super::bus::{self, Stream};
use super::super::cache::{FreeFrom, ReadHit};
use super::super::mechanics::Mechanics;
use super::super::media::{self, Avail, Pass, Piece};
use super::super::num::{f64_of, max_not_nan, ns_of};
use super::super::readahead::ReadAhead;
use super::super::readahead_hold;
use super::super::segment_full;
use super::{free_blocks_start, Drive, Hda, Outcome};
use crate::request::{HeadPosition, Op, Phases};
use crate::time::SimTime;
use smallvec::SmallVec;

/// What every case of a read works out before the buffer's answer matters: the command, the
/// bus stream its data takes, and when its overhead lets it start or reconnect.
#[derive(Clone, Copy)]
struct ReadStart {
    t0: f64,
    lbn: u64,
    n: u32,
    /// The segment the read-ahead under way fills, if any.
    reading: Option<usize>,
    block_ns: f64,
    stream: Stream,
    reconnect_ns: f64,
    /// When the command's overhead is done (earlier for one that waited in the queue).
    overhead_done: f64,
    /// When a command that cannot start at once has disconnected.
    disconnected: f64,
    /// When a hit's data may start over the bus.
    hit_go: f64,
    completion_ns: f64,
    data_prep_ns: f64,
}

impl Drive {
    /// A read: the buffer's answer picks the case. Each case is always inlined here: this is
    /// the simulator's hottest path, and out of line each would pass the start it shares
    /// through memory.
    pub(super) fn read(&mut self, t0: f64, lbn: u64, n: u32) -> Outcome {
        let prev = self.last_op as usize;
        // Borrowed, not copied: the cases need `self` mutably, so every figure they use is
        // read up front.
        let o = &self.ovh;
        let reading = self.hda.ra().map(|r| r.seg);
        let (hit, victim) = match &mut self.cache {
            Some(c) => {
                let mech = &self.mech;
                let resolve = self.pol.read_any_free_blocks && c.free_pending > 0;
                c.lookup_read(lbn, n, reading, self.pol.almost_read_hits, resolve, |s| {
                    free_blocks_start(mech, s)
                })
            }
            None => (ReadHit::Miss, None),
        };
        let blk = self.bus.read_block_ns;
        let reconnect = f64_of(o.reselect_first_ns + o.data_prep_ns);
        let stream = Stream {
            block_ns: blk,
            hold: self.bus.hold_read || self.bus.never_disconnect,
            disconnect_ns: f64_of(o.read_disconnect_ns[prev]),
            reconnect_ns: reconnect,
            watermark: self.watermark(n, self.pol.read_water),
        };
        // A command that waited in the drive's queue had its overhead processed meanwhile.
        let overhead_done = t0 + (f64_of(o.read_miss_ns[prev]) - self.queued_ns).max(0.0);
        // A command that cannot start at once disconnects and comes back when it can.
        // Under bus overlap it reconnects no earlier than the bus is free.
        let disconnected = max_not_nan(
            overhead_done + f64_of(o.read_disconnect_ns[prev]),
            self.bus_free_ns,
        );
        // A command that waited in the queue had disconnected after its command overhead, so
        // a hit only reconnects, with no hit overhead of its own (DiskSim's
        // `disk_read_arrive` charges the read-miss overhead and disconnects; the read then
        // comes back when chosen, reselection only).
        let hit_go = if self.queued_ns > 0.0 {
            disconnected + reconnect
        } else {
            max_not_nan(
                t0 + f64_of(o.read_hit_ns[prev] + o.data_prep_ns),
                self.bus_free_ns + reconnect,
            )
        };
        let r = ReadStart {
            t0,
            lbn,
            n,
            reading,
            block_ns: blk,
            stream,
            reconnect_ns: reconnect,
            overhead_done,
            disconnected,
            hit_go,
            completion_ns: f64_of(o.completion_ns[0]),
            data_prep_ns: f64_of(o.data_prep_ns),
        };
        match hit {
            ReadHit::Whole(s) => self.read_whole_hit(&r, s),
            ReadHit::Partial(s) if reading == Some(s) => self.read_ongoing_hit(&r, s),
            ReadHit::Partial(s) => self.read_partial_hit(&r, s),
            ReadHit::Miss => self.read_miss(&r, victim),
        }
    }

    /// Every block is in segment `s`: sent from the buffer, once a write-back under way or a
    /// read-ahead into another segment that stops only at a sector's end lets it.
    #[inline(always)]
    fn read_whole_hit(&mut self, r: &ReadStart, s: usize) -> Outcome {
        let (t0, n, reading) = (r.t0, r.n, r.reading);
        let (reconnect, hit_go) = (r.reconnect_ns, r.hit_go);
        self.stats.read_whole_hits += 1;
        let b0 = if self.destaging(t0) {
            r.disconnected.max(self.hda.free_at) + reconnect
        } else if reading.is_some() && reading != Some(s) {
            let stop = self.stop_readahead(t0);
            if self.pol.readahead.stop_in_sector {
                r.disconnected.max(stop) + reconnect
            } else {
                hit_go
            }
        } else {
            hit_go
        };
        let e = b0 + n as f64 * r.block_ns;
        let phases = Phases {
            bus_ns: (e - b0) as SimTime,
            ..Phases::default()
        };
        if !self.bus.never_disconnect {
            // A hit sent at once keeps the bus from its arrival; one that waited (in the
            // queue, or for the mechanism) takes it back to reconnect.
            let asks = if b0 == hit_go && self.queued_ns == 0.0 {
                t0
            } else {
                b0 - reconnect
            };
            self.bus_whole = Some((asks, e + r.completion_ns));
        }
        self.after_hit(s, r.lbn, n, reading == Some(s), r.overhead_done);
        Outcome {
            done_at_ns: e + r.completion_ns,
            phases,
            cache_hit: true,
            head: self.hda.head,
        }
    }

    /// The first blocks are in segment `s`, and the read-ahead under way into it brings the
    /// rest.
    #[inline(always)]
    fn read_ongoing_hit(&mut self, r: &ReadStart, s: usize) -> Outcome {
        let (t0, lbn, n) = (r.t0, r.lbn, r.n);
        let end = lbn + n as u64;
        self.stats.read_ongoing_hits += 1;
        let maxra = self.raise_max_ra(s, lbn, n, (None, None));
        let bg = self
            .pol
            .readahead
            .background_limit(&self.mech, end - 1, maxra);
        let zl = self.pol.zero_latency_read;
        let size = self.cache.as_ref().map_or(u32::MAX, |c| c.size);
        let ra = self.hda.ra_mut().expect("reading");
        ra.extend(&self.mech, bg.max(end), zl);
        if n > size && ra.base < end {
            let period = self.mech.period_ns;
            stall_ongoing(ra, (lbn, n, size, period), t0, r.hit_go, &r.stream);
        }
        let mut avail = Avail::default();
        if lbn < ra.base {
            avail.push(Piece {
                lbn,
                count: (ra.base - lbn) as u32,
                first_done: t0,
                step: 0.0,
                floor: t0,
            });
        }
        for p in ra.avail().pieces {
            avail.push(p);
        }
        let e = bus::transfer_end(&avail, lbn, n, r.hit_go, &r.stream);
        let media_end = avail.time_of(end - 1).unwrap_or(t0);
        let phases = Phases {
            transfer_ns: ns_of((media_end - t0).max(0.0)),
            bus_ns: ns_of((e - media_end).max(0.0)),
            ..Phases::default()
        };
        self.touch(s);
        self.erase_request_data(s, end);
        Outcome {
            done_at_ns: e + r.completion_ns,
            phases,
            cache_hit: false,
            head: self.hda.head,
        }
    }

    /// The first blocks are in segment `s`, at rest: the mechanism reads the rest into it.
    #[inline(always)]
    fn read_partial_hit(&mut self, r: &ReadStart, s: usize) -> Outcome {
        let (t0, lbn, n) = (r.t0, r.lbn, r.n);
        let end = lbn + n as u64;
        let stream = &r.stream;
        self.stats.read_partial_hits += 1;
        let have = self.cache.as_ref().map_or(lbn, |c| c.segs[s].end());
        let (b0, mech_free) = if self.destaging(t0) {
            let f = self.hda.free_at;
            (r.disconnected.max(f) + r.reconnect_ns, f)
        } else {
            (r.hit_go, self.stop_readahead(t0))
        };
        self.finish_destage();
        let start = r.overhead_done.max(mech_free);
        let mut plan = fresh_plan();
        media::plan_into(
            &mut plan,
            &self.mech,
            self.hda.head,
            start,
            have,
            (end - have) as u32,
            Op::Read,
            self.pol.zero_latency_read,
            0,
            None,
            None,
        );
        let held = (have - lbn) as u32;
        let size = self.cache.as_ref().map_or(u32::MAX, |c| c.size);
        if n > size {
            let (mech, head, zl) = (&self.mech, self.hda.head, false);
            let replan = |p: &mut media::MediaPlan| {
                let m = end - have;
                media::plan_into(
                    p,
                    mech,
                    head,
                    start,
                    have,
                    m as u32,
                    Op::Read,
                    zl,
                    0,
                    None,
                    None,
                )
            };
            let period = self.mech.period_ns;
            segment_full::stall_read(
                &mut plan,
                replan,
                lbn,
                held,
                n,
                size,
                period,
                t0,
                b0,
                stream,
                f64::NEG_INFINITY,
            );
        }
        let mut avail = Avail::ready(lbn, held, t0);
        for p in Avail::from_plan(&plan, start).pieces {
            avail.push(p);
        }
        let e = bus::transfer_end(&avail, lbn, n, b0, stream);
        let mut phases = Phases::default();
        self.fill_phases(&mut phases, &plan, start, e);
        self.after_media_read(s, lbn, n, &plan);
        let size = self.cache.as_ref().map(|c| c.size);
        let hold = (size, s, lbn, n, b0, e);
        hold_readahead(&mut self.hda, &self.mech, hold, &avail, stream);
        Outcome {
            done_at_ns: e + r.completion_ns,
            phases,
            cache_hit: false,
            head: plan.end_head,
        }
    }

    /// Nothing in the buffer: the mechanism reads it all, into segment `victim` (straight
    /// to the host when the drive has no buffer), the bus taken back as the blocks come.
    #[inline(always)]
    fn read_miss(&mut self, r: &ReadStart, victim: Option<usize>) -> Outcome {
        let (t0, lbn, n) = (r.t0, r.lbn, r.n);
        let (reconnect, completion, stream) = (r.reconnect_ns, r.completion_ns, r.stream);
        self.stats.read_misses += 1;
        let seg = victim;
        let mech_free = if self.destaging(t0) {
            self.hda.free_at
        } else {
            self.stop_readahead(t0)
        };
        self.finish_destage();
        let start = r.overhead_done.max(mech_free);
        let mut plan = fresh_plan();
        media::plan_read_into(
            &mut plan,
            &self.mech,
            self.hda.head,
            start,
            lbn,
            n,
            self.pol.zero_latency_read,
        );
        self.avail.fill_from_plan(&plan, start);
        let b0 = if self.bus.never_disconnect {
            r.overhead_done + r.data_prep_ns
        } else {
            let w = stream.watermark.min(n).max(1);
            let ready = self.avail.time_of(lbn + w as u64 - 1).unwrap_or(start);
            ready.max(r.disconnected) + reconnect
        };
        let size = self.cache.as_ref().map_or(u32::MAX, |c| c.size);
        if !self.bus.never_disconnect {
            // A read that reached an idle bus keeps it through its command overhead and
            // disconnect; one taken from the queue had disconnected already.
            if self.queued_ns == 0.0 {
                self.bus_released = r.disconnected;
            }
            // A read larger than its segment asks for the bus back as any other; its return
            // is worked out on the media plan as stalled for the bus it was given (a later
            // bus would stall the media further, which matters only where the media, not
            // the bus, is the slower).
            self.bus_back = Some(super::BusBack {
                asks_at: b0 - reconnect,
                lbn,
                n,
                stream,
                reconnect,
                completion,
                given: b0 - reconnect,
            });
        }
        if n > size {
            let (mech, head) = (&self.mech, self.hda.head);
            let replan = |p: &mut media::MediaPlan| {
                media::plan_into(p, mech, head, start, lbn, n, Op::Read, false, 0, None, None)
            };
            let period = self.mech.period_ns;
            if segment_full::stall_read(
                &mut plan,
                replan,
                lbn,
                0,
                n,
                size,
                period,
                start,
                b0,
                &stream,
                f64::NEG_INFINITY,
            ) {
                self.avail.fill_from_plan(&plan, start);
            }
        }
        let e = bus::transfer_end(&self.avail, lbn, n, b0, &stream);
        let mut phases = Phases::default();
        self.fill_phases(&mut phases, &plan, start, e);
        if let Some(s) = seg {
            if let Some(c) = &mut self.cache {
                c.reset(s, lbn);
                if self.pol.read_any_free_blocks {
                    // Kept as the plan left it: the landing slot is worked out only for a
                    // read that reaches below the segment (it hung a float chain and a
                    // division on every read miss).
                    if let (Some(xs), Some(at)) = (plan.landing_sectors(), plan.first_loc) {
                        let from = FreeFrom::new(at.cylinder, at.surface, at.sector, at.spt, xs);
                        if let Some(from) = from {
                            c.set_free_from(s, from);
                        }
                    }
                }
            }
            self.after_media_read(s, lbn, n, &plan);
            let size = self.cache.as_ref().map(|c| c.size);
            let hold = (size, s, lbn, n, b0, e);
            hold_readahead(&mut self.hda, &self.mech, hold, &self.avail, &stream);
        } else {
            self.hda.head = plan.end_head;
            self.hda.free_at = plan.end;
        }
        Outcome {
            done_at_ns: e + completion,
            phases,
            cache_hit: false,
            head: plan.end_head,
        }
    }
}

/// A fresh plan for a read from the media, made out of line. Inlined, its two empty
/// locations were copied from the `None` just stored for `plan_into`'s `first` argument, a
/// 16-byte load over an 8-byte store that cannot be forwarded (a stall every read miss).
#[inline(never)]
fn fresh_plan() -> media::MediaPlan {
    media::MediaPlan::default()
}

/// Hold the read-ahead just started into segment `s` after a read of `lbn .. lbn + n` (its
/// blocks available as `avail`, its bus from `b0` to `bus_end`) to the room of a segment of
/// `size` blocks (`readahead_hold`). Runs after every read from the media; nearly every one
/// fits its segment with its read-ahead ([`readahead_hold::fits`]), which is decided here,
/// inline, before the general walk.
#[inline(always)]
fn hold_readahead(
    hda: &mut Hda,
    mech: &Mechanics,
    (size, s, lbn, n, b0, bus_end): (Option<u32>, usize, u64, u32, f64, f64),
    avail: &Avail,
    stream: &Stream,
) {
    let Some(size) = size else {
        return;
    };
    let end = lbn + n as u64;
    let head = hda.head;
    let Some(ra) = hda.ra_mut().filter(|r| r.seg == s && r.base == end) else {
        return;
    };
    if readahead_hold::fits(n, ra.limit - ra.base, size) {
        #[cfg(debug_assertions)]
        {
            let planned: u64 = ra.plan.passes.iter().map(|p| p.count as u64).sum();
            debug_assert_eq!(planned, ra.limit - ra.base, "read-ahead plan and reach");
            let mut plan = ra.plan.clone();
            let from = (head, ra.t_start);
            let held = readahead_hold::hold(&mut plan, mech, from, n, size, bus_end, || {
                unreachable!("the gate passed over a read-ahead that needs the bus's progress")
            });
            debug_assert!(
                !held,
                "the gate passed over a read-ahead the room holds back"
            );
        }
        return;
    }
    hold_readahead_walk(ra, head, mech, (lbn, n, size, b0, bus_end), avail, stream);
}

/// [`hold_readahead`] past its gate: the read and its read-ahead overfill the segment.
#[inline(never)]
fn hold_readahead_walk(
    ra: &mut ReadAhead,
    head: HeadPosition,
    mech: &Mechanics,
    (lbn, n, size, b0, bus_end): (u64, u32, u32, f64, f64),
    avail: &Avail,
    stream: &Stream,
) {
    let from = (head, ra.t_start);
    readahead_hold::hold(&mut ra.plan, mech, from, n, size, bus_end, || {
        let mut sent = vec![0.0; n as usize];
        segment_full::bus_progress(avail, lbn, b0, stream, &mut sent);
        sent
    });
}

/// A request larger than its segment found the read-ahead under way bringing its blocks: the
/// request owns the segment now, so the read-ahead brings them, and any beyond, no more than
/// a segment ahead of its bus (`segment_full`), from `t0` (what it read before stays). Blocks
/// it reads before the request's first count for nobody. Only for a read-ahead read in LBN
/// order (the one a segment short of room reads).
fn stall_ongoing(
    ra: &mut ReadAhead,
    (lbn, n, size, period_ns): (u64, u32, u32, f64),
    t0: f64,
    bus_start: f64,
    stream: &Stream,
) {
    let passes = &ra.plan.passes;
    if passes.windows(2).any(|w| w[1].lbn != w[0].end_lbn()) {
        return;
    }
    let held = ra.base.saturating_sub(lbn) as u32;
    // The passes before the request's first block are set aside while the rest is stalled.
    let mut front: SmallVec<[Pass; 4]> = SmallVec::new();
    if ra.base < lbn {
        let all = std::mem::take(&mut ra.plan.passes);
        for p in all {
            if p.end_lbn() <= lbn {
                front.push(p);
            } else if p.lbn >= lbn {
                ra.plan.passes.push(p);
            } else {
                let k = (lbn - p.lbn) as u32;
                front.push(Pass { count: k, ..p });
                ra.plan.passes.push(Pass {
                    lbn,
                    count: p.count - k,
                    first_done: p.first_done + k as f64 * p.step,
                    on_track: p.first_done + (k - 1) as f64 * p.step,
                    ..p
                });
            }
        }
    }
    segment_full::stall_read(
        &mut ra.plan,
        |_| {},
        lbn,
        held,
        n,
        size,
        period_ns,
        t0,
        bus_start,
        stream,
        t0,
    );
    if !front.is_empty() {
        front.extend(ra.plan.passes.drain(..));
        ra.plan.passes = front;
    }
}
