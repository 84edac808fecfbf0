//! Writes: fast writes completed from the buffer and written back later, write-through
//! writes, the extra write disconnect, and writes that must wait for the mechanism.

use super::super::cache::SegState;
use super::super::media;
use super::super::num::max_not_nan;
use super::super::overheads::ExtraDisconnect;
use super::super::segment_full;
use super::{Drive, Outcome};
use crate::request::{Op, Phases};
use crate::time::SimTime;

/// When a write's data comes over the bus and its mechanism may start, as the case that
/// decided them left them.
#[derive(Clone, Copy)]
struct WriteStart {
    t0: f64,
    lbn: u64,
    n: u32,
    /// The segment the write takes, `None` when the drive has no buffer or no segment for it.
    seg: Option<usize>,
    /// Its data starts over the bus.
    bus_start: f64,
    /// The mechanism may start on it.
    media_start: f64,
    /// DiskSim's extra write disconnect, when it applies.
    extra: Option<ExtraDisconnect>,
    /// It waited for the mechanism (a write-back, a free segment, or a read-ahead that stops
    /// only at a sector's end).
    waited: bool,
    /// A fast write that waited in the drive's queue.
    queued: bool,
    reconnect_ns: f64,
    /// DiskSim's HP rule: the media starts once this many blocks are in.
    min_blocks: u32,
}

impl Drive {
    /// A write: joined to the write-back it continues, or timed by [`Drive::write_start`],
    /// put on the media, and completed from the buffer (fast) or once on the media
    /// (write-through). Each step is always inlined here, on the simulator's hottest path.
    pub(super) fn write(&mut self, t0: f64, lbn: u64, n: u32) -> Outcome {
        let prev = self.last_op as usize;
        let fast = self.pol.fast_write;
        let cmd_ovh = if fast {
            self.ovh.write_hit_ns[prev]
        } else {
            self.ovh.write_miss_ns[prev]
        } as f64;
        // A fast write that waited in the drive's queue had its command overhead done
        // meanwhile and disconnected (DiskSim's `disk_write_arrive`): it reconnects for its
        // data when taken up, and its mechanism may start at once. (DiskSim never completes
        // a queued write-through write, so there is nothing to follow for those.)
        let queued = fast && self.queued_ns > 0.0;
        let cmd_ovh = if queued {
            (cmd_ovh - self.queued_ns).max(0.0)
        } else {
            cmd_ovh
        };
        // A write must see every cached copy of its blocks to invalidate it.
        self.resolve_free_blocks(lbn, n);
        if let Some(done) = self.combine_with_destage(t0, lbn, n, cmd_ovh) {
            return done;
        }
        let w = self.write_start(t0, lbn, n, cmd_ovh, queued);
        let (plan, bus_end) = self.plan_write_media(&w);
        let mut phases = Phases::default();
        self.fill_phases(&mut phases, &plan, w.media_start, bus_end);
        self.take_write(&w, &plan);
        self.stats.extra_disconnects += w.extra.is_some() as u64;
        if fast && w.seg.is_some() {
            self.fast_write_done(&w, &plan, bus_end, phases)
        } else {
            self.write_through_done(&w, &plan, bus_end, phases)
        }
    }

    /// When the write's data comes and its mechanism may start, by case: it waits for the
    /// mechanism (a write-back under way, no free segment), for a read-ahead that stops only
    /// at a sector's end, reconnects after waiting in the queue, takes DiskSim's extra write
    /// disconnect, or goes at once.
    #[inline(always)]
    fn write_start(&mut self, t0: f64, lbn: u64, n: u32, cmd_ovh: f64, queued: bool) -> WriteStart {
        let o = self.ovh;
        let fast = self.pol.fast_write;
        let reading = self.hda.ra().map(|r| r.seg);
        // A write waits for the write-back under way, after which its segment is clean.
        let waits_for_destage = self.destaging(t0);
        self.finish_destage();
        let seg = self
            .cache
            .as_ref()
            .and_then(|c| c.victim_for_write(lbn, n, reading));
        // DiskSim's extra write disconnect: a write that follows a write in the same segment
        // without continuing it.
        let extra = match o.extra_disconnect {
            Some(x) if !self.bus.never_disconnect => match (self.last_write, self.last_seg) {
                (Some((ws, wend)), Some(ls)) if ws == ls && seg == Some(ws) && wend != lbn => {
                    Some(x)
                }
                _ => None,
            },
            _ => None,
        };
        let reconnect = (o.reselect_first_ns + o.data_prep_ns) as f64;
        let must_wait = waits_for_destage || (self.cache.is_some() && seg.is_none());
        // A read-ahead that may only stop at the end of its sector cannot give way at once:
        // the write disconnects and takes its data when the mechanism is free.
        let behind_readahead = self.hda.ra().is_some()
            && self.pol.readahead.stop_in_sector
            && !self.bus.never_disconnect;
        // When the drive would disconnect after the command's overhead (a fast write's
        // disconnect included), for the three cases that wait for the mechanism.
        let disc = t0
            + cmd_ovh
            + if fast {
                o.write_disconnect_ns as f64
            } else {
                0.0
            };
        let (b0, mech_free, overhead_done) = if must_wait {
            let f = self.hda.free_at;
            (disc.max(f) + reconnect, f, t0 + cmd_ovh)
        } else if behind_readahead {
            let f = self.stop_readahead(t0);
            (disc.max(f) + reconnect, f, t0 + cmd_ovh)
        } else if queued {
            (disc + reconnect, self.stop_readahead(t0), t0 + cmd_ovh)
        } else if let Some(x) = extra {
            let go = t0
                + (x.command_ns + x.first_disconnect_ns + x.inter_disconnect_ns) as f64
                + reconnect;
            let od = t0 + (x.command_ns + x.seek_delta_ns) as f64;
            (go, self.stop_readahead(t0), od)
        } else {
            (
                t0 + cmd_ovh + o.data_prep_ns as f64,
                self.stop_readahead(t0),
                t0 + cmd_ovh,
            )
        };
        let waited = must_wait || behind_readahead;
        // DiskSim drops the extra disconnect of a write that had to disconnect anyway.
        let extra = if waited || queued { None } else { extra };
        // DiskSim ties the HP rule "write once min(n, 10) blocks are in (15 for 45 or more)"
        // to the drives that have the extra write disconnect.
        let min_blocks = if o.extra_disconnect.is_some() {
            if n < 45 {
                n.min(10)
            } else {
                15
            }
        } else {
            1
        };
        WriteStart {
            t0,
            lbn,
            n,
            seg,
            // Under bus overlap its data waits for the bus to be free.
            bus_start: max_not_nan(b0, self.bus_free_ns + reconnect),
            media_start: overhead_done.max(mech_free),
            extra,
            waited,
            queued,
            reconnect_ns: reconnect,
            min_blocks,
        }
    }

    /// The write's media plan and when its data has crossed the bus: a write larger than
    /// its segment refills it as the media empties it (`segment_full`); any other is one
    /// plan following its data.
    #[inline(always)]
    fn plan_write_media(&mut self, w: &WriteStart) -> (media::MediaPlan, f64) {
        let (lbn, n, start) = (w.lbn, w.n, w.media_start);
        let blk = self.bus.write_block_ns;
        let mut e = w.bus_start + n as f64 * blk;
        let data = media::DataReady {
            base: w.bus_start,
            step: blk,
            min_blocks: w.min_blocks,
        };
        let mut plan = media::MediaPlan::default();
        let size = self.cache.as_ref().map_or(u32::MAX, |c| c.size);
        if n > size && w.seg.is_some() {
            let held = self.bus.hold_write || self.bus.never_disconnect;
            let loads = segment_full::WriteLoads {
                size,
                low_water: self.watermark(n, self.pol.write_water),
                reconnect_ns: if held { 0.0 } else { w.reconnect_ns },
            };
            let (head, zl, ms) = (
                self.hda.head,
                self.pol.zero_latency_write,
                self.ovh.min_write_seek_ns,
            );
            e = segment_full::plan_write(
                &mut plan, &self.mech, head, start, lbn, n, zl, ms, data, loads,
            );
        } else {
            if self.pol.fast_write && w.seg.is_some() && (w.waited || w.queued) {
                self.write_back = Some(super::WriteBack {
                    head: self.hda.head,
                    start,
                    lbn,
                    n,
                    data,
                });
            }
            media::plan_into(
                &mut plan,
                &self.mech,
                self.hda.head,
                start,
                lbn,
                n,
                Op::Write,
                self.pol.zero_latency_write,
                self.ovh.min_write_seek_ns,
                Some(data),
                None,
            );
        }
        (plan, e)
    }

    /// The buffer and the mechanism once the write is planned: its segment holds its blocks
    /// (and no other segment a stale copy), and the head ends where its media work does.
    #[inline(always)]
    fn take_write(&mut self, w: &WriteStart, plan: &media::MediaPlan) {
        let (lbn, n) = (w.lbn, w.n);
        let end = lbn + n as u64;
        if let Some(c) = &mut self.cache {
            match w.seg {
                Some(s) => {
                    c.reset(s, lbn);
                    c.extend(s, end);
                    c.invalidate_overlapping(s, lbn, n);
                }
                None => c.invalidate_overlapping(usize::MAX, lbn, n),
            }
        }
        if let Some(s) = w.seg {
            self.touch(s);
        }
        self.last_write = w.seg.map(|s| (s, end));
        self.hda.head = plan.end_head;
        self.hda.free_at = plan.end;
        self.hda.end_ra();
    }

    /// A fast write: done once its data is in the buffer; the segment is dirty and its
    /// write-back keeps the mechanism busy.
    #[inline(always)]
    fn fast_write_done(
        &mut self,
        w: &WriteStart,
        plan: &media::MediaPlan,
        bus_end: f64,
        mut phases: Phases,
    ) -> Outcome {
        let completion = self.ovh.completion_ns[1] as f64;
        let size = self.cache.as_ref().map_or(u32::MAX, |c| c.size);
        self.stats.fast_writes += 1;
        self.hda.destage = w.seg;
        self.hda.destage_tail = (w.lbn, w.media_start);
        if let (Some(c), Some(s)) = (&mut self.cache, w.seg) {
            c.set_state(s, SegState::Dirty);
        }
        phases.seek_ns = 0;
        phases.rotate_ns = 0;
        phases.transfer_ns = 0;
        phases.bus_ns = (bus_end - w.bus_start) as SimTime;
        if w.extra.is_none() && !self.bus.never_disconnect && w.n <= size {
            // Taken in at once, the write holds the bus from its arrival to its end; one
            // that disconnected takes it back to reconnect for its data.
            let asks = if w.waited || w.queued {
                w.bus_start - w.reconnect_ns
            } else {
                w.t0
            };
            self.bus_whole = Some((asks, bus_end + completion));
        }
        Outcome {
            done_at_ns: bus_end + completion,
            phases,
            cache_hit: true,
            head: plan.end_head,
        }
    }

    /// A write-through write: done once its blocks are on the media and the drive has
    /// taken the bus back to say so.
    #[inline(always)]
    fn write_through_done(
        &mut self,
        w: &WriteStart,
        plan: &media::MediaPlan,
        bus_end: f64,
        phases: Phases,
    ) -> Outcome {
        let o = &self.ovh;
        let completion = o.completion_ns[1] as f64;
        self.stats.write_throughs += 1;
        self.hda.destage = None;
        if let (Some(c), Some(s)) = (&mut self.cache, w.seg) {
            if !self.pol.read_hits_on_write_data {
                c.set_state(s, SegState::Empty);
            }
        }
        let (disc, back) = match w.extra {
            Some(x) => (x.second_disconnect_ns, o.reselect_other_ns),
            None => (o.write_disconnect_ns, o.reselect_first_ns),
        };
        let asks = plan.end.max(bus_end + disc as f64);
        let done = asks + back as f64 + completion;
        if w.extra.is_none() && !self.bus.never_disconnect && !w.waited {
            // Taken in at once, the write holds the bus through its overhead and data,
            // disconnects, and asks for the bus back to send its completion once its blocks
            // are on the media: an arrival before the disconnect waits for it, and one
            // holding the bus when the write asks for it delays the completion as a whole
            // (`rebus`).
            self.bus_released = bus_end + disc as f64;
            self.bus_whole = Some((asks, done));
        }
        Outcome {
            done_at_ns: done,
            phases,
            cache_hit: false,
            head: plan.end_head,
        }
    }

    /// "Combine seq writes": a fast write that starts where the segment being written back
    /// ends, with room for it beside the blocks not yet written, is taken into the segment
    /// at once (no wait for the mechanism) and the write-back carries on into its blocks,
    /// as soon as the head reaches them and their data is in. Without it the write would wait for the
    /// write-back to end, and the head would usually pass its first sector before the data
    /// came: a lost revolution per write in a sequential stream.
    fn combine_with_destage(&mut self, t0: f64, lbn: u64, n: u32, cmd_ovh: f64) -> Option<Outcome> {
        if !(self.pol.fast_write && self.pol.combine_sequential_writes) || !self.destaging(t0) {
            return None;
        }
        let d = self.hda.destage?;
        let c = self.cache.as_mut()?;
        let seg = &c.segs[d];
        if seg.end() != lbn {
            return None;
        }
        // Blocks already written back may leave the segment; those still to write may not.
        // Two bounds on what is left: the last stretch, once its writing may have begun; and
        // a sector per sector time for the time the write-back has left.
        let mut unwritten = seg.end() - seg.start();
        let (tail_lbn, tail_start) = self.hda.destage_tail;
        if t0 >= tail_start {
            unwritten = unwritten.min(seg.end().saturating_sub(tail_lbn));
        }
        let layout = &self.mech.layout;
        let spt = layout.zones()[layout.zone_index(lbn - 1)].sectors_per_track;
        let left = ((self.hda.free_at - t0) / self.mech.sector_ns(spt)).ceil() as u64;
        if unwritten.min(left) + n as u64 > c.size as u64 {
            return None;
        }
        let end = lbn + n as u64;
        c.extend(d, end);
        c.invalidate_overlapping(d, lbn, n);
        let o = self.ovh;
        let blk = self.bus.write_block_ns;
        let b0 = max_not_nan(
            t0 + cmd_ovh + o.data_prep_ns as f64,
            self.bus_free_ns + (o.reselect_first_ns + o.data_prep_ns) as f64,
        );
        let e = b0 + n as f64 * blk;
        let mut plan = media::MediaPlan::default();
        media::plan_into(
            &mut plan,
            &self.mech,
            self.hda.head,
            self.hda.free_at,
            lbn,
            n,
            Op::Write,
            self.pol.zero_latency_write,
            0,
            Some(media::DataReady {
                base: b0,
                step: blk,
                min_blocks: 1,
            }),
            None,
        );
        self.touch(d);
        self.last_write = Some((d, end));
        self.hda.destage_tail = (lbn, self.hda.free_at);
        self.hda.head = plan.end_head;
        self.hda.free_at = plan.end;
        self.stats.fast_writes += 1;
        self.stats.combined_writes += 1;
        let phases = Phases {
            bus_ns: (e - b0) as SimTime,
            ..Phases::default()
        };
        Some(Outcome {
            done_at_ns: e + o.completion_ns[1] as f64,
            phases,
            cache_hit: true,
            head: plan.end_head,
        })
    }
}
