//! One command through the drive, worked out when it starts: controller overheads, the
//! buffer (hits, partial hits, read-ahead already under way), the mechanism (which may first
//! have to finish writing back a fast write, or stop a read-ahead), the media, the bus and the
//! completion. What the mechanism does after the command (read-ahead, write-back) is left as
//! state that later commands consult.
//!
//! The timing follows DiskSim 4.0's disk controller as its parameters describe it; the
//! mechanisms and where headway simplifies are in `docs/fidelity.md`.

mod read;
mod write;

use std::sync::Arc;

use super::bus::{self, Bus};
use super::cache::{Cache, FreeFrom, SegState, Segment};
use super::layout::Location;
use super::mechanics::Mechanics;
use super::media::{self, ZeroLatency};
use super::num::{f64_of, max_not_nan, ns_of};
use super::overheads::Overheads;
use super::readahead::{HeadWord, Policy, ReadAhead};
use super::spec::HddSpec;
use crate::request::{HeadPosition, Op, Phases};
use crate::time::SimTime;

/// Buffer and firmware policies, resolved from the cache parameters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policies {
    pub fast_write: bool,
    pub zero_latency_read: ZeroLatency,
    pub zero_latency_write: bool,
    pub read_any_free_blocks: bool,
    pub almost_read_hits: bool,
    pub read_hits_on_write_data: bool,
    /// "Combine seq writes": a fast write that continues the segment being written back
    /// joins that write-back instead of waiting for it.
    pub combine_sequential_writes: bool,
    pub read_water: f64,
    pub write_water: f64,
    pub water_by_request: bool,
    pub readahead: Policy,
}

/// The outcome of one command.
#[derive(Clone, Copy, Debug, Default)]
pub struct Served {
    pub done: SimTime,
    pub phases: Phases,
    pub cache_hit: bool,
    /// Where the head is when the command's own media work ends.
    pub head: HeadPosition,
}

/// One command worked out, before its end is rounded to whole nanoseconds ([`Served`]).
struct Outcome {
    /// When the command completes, on the drive's clock (ns).
    done_at_ns: f64,
    phases: Phases,
    cache_hit: bool,
    /// Where the head is when the command's own media work ends.
    head: HeadPosition,
}

/// How the buffer served the commands so far (DiskSim prints the same counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStats {
    pub read_whole_hits: u64,
    /// Started in a segment at rest and needed the media for the rest.
    pub read_partial_hits: u64,
    /// Found the read-ahead under way bringing (the rest of) its blocks.
    pub read_ongoing_hits: u64,
    pub read_misses: u64,
    /// Writes completed from the buffer (fast writes), written back later.
    pub fast_writes: u64,
    /// Fast writes that joined the write-back of the segment they continue
    /// ("Combine seq writes"); also counted in `fast_writes`.
    pub combined_writes: u64,
    pub write_throughs: u64,
    /// Writes that followed a write elsewhere and disconnected an extra time.
    pub extra_disconnects: u64,
}

/// What the mechanism is doing beyond the command in service.
#[derive(Clone, Debug, Default)]
struct Hda {
    head: HeadPosition,
    /// Work that cannot be interrupted (a command's media access, or a write-back) ends here.
    free_at: f64,
    /// The segment being written back until `free_at`.
    destage: Option<usize>,
    /// The last stretch of that write-back: its first block and when its writing may
    /// begin; everything before it is written by then.
    destage_tail: (u64, f64),
    /// The read-ahead under way is `ra_slot` when `ra_live`; the slot keeps the last one
    /// after it ends, so that the next is planned in place (every read miss starts one, and
    /// building a new one moves a whole media plan).
    ra_slot: Option<ReadAhead>,
    ra_live: bool,
    /// The read-ahead's stop as `settle` worked it out for a command at `.0` (when the
    /// mechanism is free, the head, one past the last block in): the command stops it at
    /// the same time, if at all. Forgotten whenever the read-ahead changes.
    ra_stop: Option<(f64, f64, HeadWord, u64)>,
}

impl Hda {
    /// The read-ahead under way.
    #[inline]
    fn ra(&self) -> Option<&ReadAhead> {
        if self.ra_live {
            self.ra_slot.as_ref()
        } else {
            None
        }
    }

    #[inline]
    fn ra_mut(&mut self) -> Option<&mut ReadAhead> {
        self.ra_stop = None;
        if self.ra_live {
            self.ra_slot.as_mut()
        } else {
            None
        }
    }

    /// No read-ahead under way any more.
    #[inline]
    fn end_ra(&mut self) {
        self.ra_live = false;
        self.ra_stop = None;
    }

    /// Start a read-ahead ([`ReadAhead::start_in`]) in the kept slot.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn start_ra(
        &mut self,
        mech: &Mechanics,
        seg: usize,
        head: HeadPosition,
        t: f64,
        base: u64,
        limit: u64,
        zero_latency: ZeroLatency,
        first: Option<Location>,
    ) {
        ReadAhead::start_in(
            &mut self.ra_slot,
            mech,
            seg,
            head,
            t,
            base,
            limit,
            zero_latency,
            first,
        );
        self.ra_live = self.ra_slot.is_some();
        self.ra_stop = None;
    }
}

/// The drive's firmware state and timing rules.
pub struct Drive {
    pub mech: Arc<Mechanics>,
    pub ovh: Overheads,
    pub bus: Bus,
    /// `None`: no buffer caching (every read is a miss, every write goes to the media first).
    cache: Option<Cache>,
    pol: Policies,
    hda: Hda,
    last_op: Op,
    /// The segment the last write used and where that write ended (DiskSim's extra write
    /// disconnect looks at it).
    last_write: Option<(usize, u64)>,
    /// The segment used by the last command.
    last_seg: Option<usize>,
    /// How long the command in hand waited in the drive's queue: the firmware processed its
    /// command overhead meanwhile (DiskSim's `overhead_done` counts from the arrival).
    queued_ns: f64,
    /// When a read miss's blocks are in, refilled by every miss (kept to spare the move).
    avail: media::Avail,
    /// How the last command served, a read miss that disconnected, comes back for the bus:
    /// an arriving command may hold the bus then, and it reconnects later (`rebus`).
    bus_back: Option<BusBack>,
    /// The last command served, if it sends a whole buffer hit or takes a fast write's data
    /// without waiting for the media: when it holds the bus from, and its completion then
    /// (ns, unrounded). It keeps the bus to its completion, and a command arriving before
    /// that moves its transfer as a whole (`rebus`).
    bus_whole: Option<(f64, f64)>,
    /// When the last command served, if it reached an idle bus and disconnects after its
    /// command phase (a read miss, a write-through write), lets go of the bus (ns,
    /// unrounded): a command arriving before then waits for it (DiskSim's controller keeps
    /// the bus from a command's arrival to its disconnect). Minus infinity for the others.
    bus_released: f64,
    /// The write-back of the fast write last served, if it disconnected and takes its data
    /// when it reconnects: planned again if that reconnection is delayed (`delay_write_data`).
    write_back: Option<WriteBack>,
    /// The earliest a command's data may take the bus (ns, unrounded): the completion of
    /// the command before it when the drive chose it while that one still sent its data
    /// (bus overlap, `HddDevice`); minus infinity otherwise.
    pub(crate) bus_free_ns: f64,
    pub stats: BufferStats,
}

/// What a fast write's write-back was planned from, to plan it again with later data.
#[derive(Clone, Copy, Debug)]
struct WriteBack {
    head: HeadPosition,
    start: f64,
    lbn: u64,
    n: u32,
    data: media::DataReady,
}

/// A read miss's return to the bus: when it asks for it, and what it then moves.
#[derive(Clone, Copy, Debug)]
struct BusBack {
    asks_at: f64,
    lbn: u64,
    n: u32,
    stream: bus::Stream,
    reconnect: f64,
    completion: f64,
    /// When it gets the bus back: `asks_at`, or later when an arrival held the bus.
    given: f64,
}

impl Drive {
    pub fn new(spec: &HddSpec, mech: Arc<Mechanics>) -> Self {
        let c = spec.cache.as_ref().filter(|c| c.enabled);
        let never_disconnect = spec.cache.as_ref().is_some_and(|c| c.never_disconnect);
        let pol = match c {
            Some(c) => Policies {
                fast_write: c.fast_write_level > 0,
                zero_latency_read: ZeroLatency::of_reads(
                    c.immediate_buffer_read,
                    c.read_any_free_blocks,
                ),
                zero_latency_write: c.immediate_buffer_write,
                read_any_free_blocks: c.read_any_free_blocks,
                almost_read_hits: c.allow_almost_read_hits,
                read_hits_on_write_data: c.allow_read_hits_on_write_data,
                combine_sequential_writes: c.combine_sequential_writes,
                read_water: c.high_water_mark,
                write_water: c.low_water_mark,
                water_by_request: c.watermark_by_request_size,
                readahead: Policy::from_spec(c),
            },
            None => Policies {
                fast_write: false,
                zero_latency_read: ZeroLatency::Off,
                zero_latency_write: false,
                read_any_free_blocks: false,
                almost_read_hits: false,
                read_hits_on_write_data: false,
                combine_sequential_writes: false,
                read_water: 0.0,
                write_water: 0.0,
                water_by_request: true,
                readahead: Policy::from_spec(&Default::default()),
            },
        };
        let mut ovh = Overheads::from_spec(spec);
        ovh.fast_write = pol.fast_write;
        Drive {
            mech,
            ovh,
            bus: Bus::from_spec(&spec.bus, never_disconnect),
            cache: c.map(Cache::new),
            pol,
            hda: Hda::default(),
            last_op: Op::Read,
            last_write: None,
            last_seg: None,
            queued_ns: 0.0,
            avail: media::Avail::default(),
            bus_back: None,
            bus_whole: None,
            bus_released: f64::NEG_INFINITY,
            write_back: None,
            bus_free_ns: f64::NEG_INFINITY,
            stats: BufferStats::default(),
        }
    }

    /// Where the head was left by the last mechanical work planned (a read-ahead under way
    /// may since have moved it: see [`Drive::head_at`]).
    pub(crate) fn head(&self) -> HeadPosition {
        self.hda.head
    }

    /// Where the head is, as far as a scheduler inside the drive can tell at `t` (a
    /// read-ahead under way moves it).
    pub(crate) fn head_at(&self, t: SimTime) -> HeadPosition {
        match self.hda.ra() {
            Some(ra) => ra.head_at(t as f64),
            None => self.hda.head,
        }
    }

    /// DiskSim 4.0's state of the mechanism as its SPTF sees it at `t`
    /// ([`super::SptfAngle::LastMediaEvent`]): when the last sector the mechanism moved by
    /// `t` ended (or a read-ahead's first sector on a new track began), and the head's
    /// track then ([`super::readahead::ReadAhead::last_sector_by`]). The angle is the
    /// spindle's at that instant.
    // Off the default path: the option is for reproducing DiskSim, and inlined it would
    // cost every decision of the default ranking.
    #[cold]
    #[inline(never)]
    pub(crate) fn last_media_event(&self, t: SimTime) -> (SimTime, HeadPosition) {
        let tf = t as f64;
        let before = self.hda.free_at.min(tf);
        let (at, head) = match self.hda.ra() {
            Some(ra) => ra.last_sector_by(tf, before, self.hda.head),
            None => (before, self.hda.head),
        };
        (at.round() as SimTime, head)
    }

    /// When the mechanism can start positioning for a command chosen at `t`: after a
    /// write-back under way (a queued command waits for it; ranking the queue as if the arm
    /// were free at `t` puts every rotational estimate off by the rest of the write-back).
    /// Rounded down to the nanosecond, not up: the write-back ends at a fraction of a
    /// nanosecond, where the sector after its last passes under the head, and a choice made
    /// even a fraction later would rank that sector (a read continuing the write, DiskSim's
    /// cheapest candidate) a whole revolution away; the command chosen still waits for the
    /// exact end (`destaging` holds until then).
    pub fn positioning_free_at(&self, t: SimTime) -> SimTime {
        if self.destaging(t as f64) {
            self.hda.free_at.floor() as SimTime
        } else {
            t
        }
    }

    /// A one-line summary of the buffer and mechanism state (for debugging and examples).
    pub fn describe(&self, t: SimTime) -> String {
        let mut out = format!(
            "hda free {:.3} head {:?}",
            self.hda.free_at / 1e6,
            self.hda.head
        );
        if let Some(ra) = self.hda.ra() {
            out += &format!(
                " ra seg {} {}..{} end_by(t) {} done {:.3}",
                ra.seg,
                ra.base,
                ra.limit,
                ra.end_by(t as f64),
                ra.done_at() / 1e6
            );
        }
        if let Some(c) = &self.cache {
            for (i, s) in c.segs.iter().enumerate() {
                if s.state != SegState::Empty {
                    out += &format!(" [{i} {:?} {}..{}]", s.state, s.start(), s.end());
                }
            }
        }
        out
    }

    pub(crate) fn last_op(&self) -> Op {
        self.last_op
    }

    /// Blocks a segment holds (for tests and diagnostics).
    pub fn cached(&self, t: SimTime, lbn: u64) -> bool {
        let Some(c) = &self.cache else { return false };
        let ra = self.hda.ra().map(|r| (r.seg, r.end_by(t as f64)));
        c.segs.iter().enumerate().any(|(i, s)| {
            let end = match ra {
                Some((seg, e)) if seg == i => e.max(s.end()),
                _ => s.end(),
            };
            s.state != SegState::Empty && lbn >= s.start() && lbn < end
        })
    }

    /// When the mechanism finishes everything it has been given (write-back, read-ahead).
    pub fn idle_at(&self) -> f64 {
        let ra = self.hda.ra().map_or(0.0, |r| r.done_at());
        self.hda.free_at.max(ra)
    }

    fn watermark(&self, n: u32, water: f64) -> u32 {
        let size = self.cache.as_ref().map_or(n, |c| c.size);
        if self.pol.water_by_request {
            ((size.min(n) as f64 * water) as u32).max(1)
        } else {
            ((size as f64 * water + 0.9999999999) as u32).max(1)
        }
    }

    /// The write-back under way is over (or the next mechanical work is queued behind it):
    /// its segment holds clean data (or nothing, if reads may not hit write data).
    fn finish_destage(&mut self) {
        if let Some(s) = self.hda.destage.take() {
            if let Some(c) = &mut self.cache {
                if c.segs[s].state == SegState::Dirty {
                    let state = if self.pol.read_hits_on_write_data {
                        SegState::Clean
                    } else {
                        SegState::Empty
                    };
                    c.set_state(s, state);
                }
            }
        }
    }

    /// Bring background work up to `t`: a finished write-back leaves a clean segment; the
    /// read-ahead's blocks so far join its segment.
    fn settle(&mut self, t: f64) {
        if self.hda.destage.is_some() && self.hda.free_at <= t {
            self.finish_destage();
        }
        if let Some(ra) = self.hda.ra() {
            let (end, running) = ra.at_word(t, self.pol.readahead.stop_in_sector);
            let (seg, done, head) = (ra.seg, ra.done_at(), ra.plan.end_head);
            if let Some(c) = &mut self.cache {
                c.extend(seg, end);
            }
            match running {
                None => {
                    self.hda.head = head;
                    self.hda.free_at = self.hda.free_at.max(done);
                    self.hda.end_ra();
                }
                Some((stop, head)) => self.hda.ra_stop = Some((t, stop, head, end)),
            }
        }
    }

    /// Stop any read-ahead for a command at `t`; returns when the mechanism is free. Always
    /// inlined: nearly every read miss calls it, and the call cost it as much as its work.
    #[inline(always)]
    fn stop_readahead(&mut self, t: f64) -> f64 {
        if let Some(ra) = self.hda.ra() {
            let (stop, head, end) = match self.hda.ra_stop {
                Some((at, stop, head, end)) if at == t => (stop, head.head(), end),
                _ => ra.stop(t, self.pol.readahead.stop_in_sector),
            };
            if let Some(c) = &mut self.cache {
                c.extend(ra.seg, end);
            }
            self.hda.head = head;
            self.hda.free_at = stop;
            self.hda.end_ra();
        }
        self.hda.free_at
    }

    fn destaging(&self, t: f64) -> bool {
        self.hda.destage.is_some() && self.hda.free_at > t
    }

    /// Serve `op` on `lbn .. lbn + n`, the command reaching the drive at `t`.
    pub fn serve(&mut self, t: SimTime, lbn: u64, n: u32, op: Op) -> Served {
        let mut served = Served::default();
        self.serve_queued(t, t, lbn, n, op, &mut served);
        served
    }

    /// [`Drive::serve`] for a command that reached the drive at `arrived` and waited in its
    /// queue until `t`, the outcome written to `out`, where the caller keeps it (the command
    /// in service): returned, its 8-byte fields were copied on in 16-byte halves right
    /// after the stores, which cannot be forwarded (a stall every command).
    pub fn serve_queued(
        &mut self,
        t: SimTime,
        arrived: SimTime,
        lbn: u64,
        n: u32,
        op: Op,
        out: &mut Served,
    ) {
        let t0 = f64_of(t + self.ovh.per_request_ns);
        // A drive that never disconnects holds the bus from command to completion: no other
        // command reaches it before then, so none has its overhead done early.
        self.queued_ns = if self.bus.never_disconnect {
            0.0
        } else {
            f64_of(t.saturating_sub(arrived))
        };
        self.settle(t0);
        self.bus_back = None;
        self.bus_whole = None;
        self.bus_released = f64::NEG_INFINITY;
        self.write_back = None;
        let Outcome {
            done_at_ns,
            mut phases,
            cache_hit,
            head,
        } = match op {
            _ if n == 0 => self.seek_only(t0, lbn, op),
            Op::Read => self.read(t0, lbn, n),
            Op::Write => self.write(t0, lbn, n),
        };
        self.last_op = op;
        // Under bus overlap a command (a seek with no data) completes no earlier than the
        // one before it.
        let done_ns = ns_of(max_not_nan(done_at_ns.max(f64_of(t)), self.bus_free_ns) + 0.5);
        phases.start_ns = t;
        // Whatever the named phases do not cover (waiting, controller work) is overhead.
        let named = phases.seek_ns + phases.rotate_ns + phases.transfer_ns + phases.bus_ns;
        phases.overhead_ns = (done_ns - t).saturating_sub(named);
        *out = Served {
            done: done_ns,
            phases,
            cache_hit,
            head,
        };
    }

    /// When the command last served, a read miss that disconnected from the bus, asks for
    /// it back to send its data (ns); `None` for any other command.
    pub(crate) fn bus_asked_at(&self) -> Option<SimTime> {
        match (self.bus_back, self.bus_whole) {
            (Some(b), _) => Some(ns_of(b.asks_at)),
            (None, Some((asks, _))) => Some(ns_of(asks)),
            (None, None) => None,
        }
    }

    /// When the read last served, which completed as `served` says, asks for the bus for its
    /// data (ns): its reconnection after its disconnect, or the moment a hit sent at once
    /// takes the bus. A drive that never disconnects keeps the bus from the command's start;
    /// a hit that reads its last blocks from the media (partial or on the read-ahead under
    /// way) sends its first blocks at once and keeps the bus if it holds it through a read,
    /// else takes it back for the blocks the media brings after the rest.
    pub(crate) fn read_data_asks(&self, served: &Served) -> SimTime {
        if self.bus.never_disconnect {
            return served.phases.start_ns;
        }
        if let Some(asks) = self.bus_asked_at() {
            return asks;
        }
        if self.bus.hold_read {
            return served.phases.start_ns;
        }
        let tail = self.ovh.completion_ns[Op::Read as usize] + served.phases.bus_ns;
        served.done.saturating_sub(tail).max(served.phases.start_ns)
    }

    /// When the command last served lets go of the bus after its command phase, if it
    /// holds it then (ns): an arriving command reaches the drive no earlier.
    pub(crate) fn bus_released_at(&self) -> SimTime {
        if self.bus_released > 0.0 {
            ns_of(self.bus_released + 0.5)
        } else {
            0
        }
    }

    /// The command last served gets the bus back `by_ns` later than planned: a fast write's
    /// data comes that much later, and its write-back, which waits for the data, is planned
    /// again (DiskSim's media access follows the blocks' arrival in the buffer).
    pub(crate) fn delay_write_data(&mut self, by_ns: SimTime) {
        let Some(w) = &mut self.write_back else {
            return;
        };
        w.data.base += f64_of(by_ns);
        let w = *w;
        let mut plan = media::MediaPlan::default();
        media::plan_into(
            &mut plan,
            &self.mech,
            w.head,
            w.start,
            w.lbn,
            w.n,
            Op::Write,
            self.pol.zero_latency_write,
            self.ovh.min_write_seek_ns,
            Some(w.data),
            None,
        );
        self.hda.head = plan.end_head;
        self.hda.free_at = plan.end;
    }

    /// When that read completes if it gets the bus back only at `at` (an arriving command
    /// held it: DiskSim's controller keeps the bus for an arrival's command overhead).
    pub(crate) fn rebus(&self, at: SimTime) -> Option<SimTime> {
        if let (None, Some((asks, done))) = (self.bus_back, self.bus_whole) {
            return Some(ns_of(done + (f64_of(at) - asks).max(0.0) + 0.5));
        }
        let b = self.bus_back.as_ref()?;
        let e = bus::transfer_end(&self.avail, b.lbn, b.n, f64_of(at) + b.reconnect, &b.stream);
        Some(ns_of(e + b.completion + 0.5))
    }

    /// The read last served gets the bus back at `at` (`rebus`), not when it asked.
    pub(crate) fn bus_given(&mut self, at: SimTime) {
        if let Some(b) = &mut self.bus_back {
            b.given = b.given.max(f64_of(at));
        }
    }

    /// When the bus is free at or after `t` for another command while the read last served
    /// waits for the media in the middle of its transfer ([`bus::next_gap`]); from then on its
    /// return to the bus is that of the blocks still to move, asked for at the gap's end
    /// (`bus_asked_at`, `rebus`). `None`: it keeps the bus from `t` to its completion.
    pub(crate) fn bus_gap(&mut self, t: SimTime) -> Option<SimTime> {
        let b = self.bus_back.as_mut()?;
        let start = b.given + b.reconnect;
        let g = bus::next_gap(&self.avail, b.lbn, b.n, start, &b.stream, f64_of(t))?;
        b.n -= (g.lbn - b.lbn) as u32;
        b.lbn = g.lbn;
        b.asks_at = g.asks_at;
        b.given = g.asks_at;
        Some(ns_of(g.free_at + 0.5))
    }

    /// A command that only moves the head (a host scheduler's sweep to the edge).
    fn seek_only(&mut self, t0: f64, lbn: u64, op: Op) -> Outcome {
        let free = if self.destaging(t0) {
            self.hda.free_at
        } else {
            self.stop_readahead(t0)
        };
        self.finish_destage();
        let start = (t0 + self.ovh.mechanical_start_ns(self.last_op, op) as f64).max(free);
        let plan = media::plan(&self.mech, self.hda.head, start, lbn, 0, op, false, 0);
        self.hda.head = plan.end_head;
        self.hda.free_at = plan.end;
        let phases = Phases {
            seek_ns: plan.seek_ns,
            ..Phases::default()
        };
        Outcome {
            done_at_ns: plan.end,
            phases,
            cache_hit: false,
            head: plan.end_head,
        }
    }

    /// Segments that also hold blocks passed on their landing track ("read any free
    /// blocks") learn where those start when a write first reaches below their start (reads
    /// do it in their buffer lookup).
    fn resolve_free_blocks(&mut self, lbn: u64, n: u32) {
        if !self.pol.read_any_free_blocks {
            return;
        }
        let Some(c) = &mut self.cache else { return };
        if c.free_pending == 0 {
            return;
        }
        let size = c.size as u64;
        let mut resolved = 0;
        for seg in c.segs.iter_mut() {
            if let Some(FreeFrom { at, .. }) = seg.free_from {
                // The free blocks lie at most `at` blocks before the start (slots before it on
                // the same track; slipped slots hold none).
                let reach = lbn + n as u64 + at as u64;
                if lbn < seg.start() && reach > seg.start() && seg.state != SegState::Empty {
                    seg.start_at_free_blocks(free_blocks_start(&self.mech, seg), size);
                    resolved += 1;
                }
            }
        }
        c.free_pending -= resolved;
    }

    fn fill_phases(&self, ph: &mut Phases, plan: &media::MediaPlan, start: f64, e: f64) {
        ph.seek_ns = plan.seek_ns;
        ph.rotate_ns = plan.rotate_ns;
        let media_start = start + f64_of(plan.seek_ns + plan.rotate_ns);
        ph.transfer_ns = ns_of((plan.end - media_start).max(0.0));
        ph.bus_ns = ns_of((e - plan.end).max(0.0));
    }

    fn touch(&mut self, s: usize) {
        if let Some(c) = &mut self.cache {
            c.touch(s);
        }
        self.last_seg = Some(s);
    }

    /// DiskSim's maximum read-ahead for segment `s` after a read of `lbn .. lbn + n`.
    fn raise_max_ra(
        &mut self,
        s: usize,
        lbn: u64,
        n: u32,
        known: (Option<&Location>, Option<&Location>),
    ) -> u64 {
        let Some(c) = &mut self.cache else {
            return lbn + n as u64;
        };
        let m = self
            .pol
            .readahead
            .max_lbn(&self.mech, lbn, n, c.segs[s].start(), known)
            .max(c.segs[s].max_ra_lbn);
        c.segs[s].max_ra_lbn = m;
        m
    }

    /// "Read-ahead over requested = -1": the request's own blocks leave the segment once sent.
    fn erase_request_data(&mut self, s: usize, end: u64) {
        if self.pol.readahead.keep_request == -1 {
            if let Some(c) = &mut self.cache {
                let seg = &mut c.segs[s];
                seg.set_start(seg.start().max(end.min(seg.end())));
            }
        }
    }

    /// A read whose blocks came off the media into segment `s`: the mechanism goes on reading
    /// ahead from where the request ended.
    fn after_media_read(&mut self, s: usize, lbn: u64, n: u32, plan: &media::MediaPlan) {
        let end = lbn + n as u64;
        self.hda.head = plan.end_head;
        self.hda.free_at = plan.end;
        self.hda.destage = None;
        // The plan located the request's first block (when it started there) and the block
        // after it.
        let first = if plan.passes.first().is_some_and(|p| p.lbn == lbn) {
            plan.first_loc.as_ref()
        } else {
            None
        };
        // The read-ahead's reach is set when the request takes its segment, as DiskSim does,
        // before a request larger than the segment has wrapped its start past the first
        // block (DEC's scheme reads one more track when that start is on an earlier track).
        let maxra = self.raise_max_ra(s, lbn, n, (first, plan.next_loc.as_ref()));
        if let Some(c) = &mut self.cache {
            c.extend(s, end);
        }
        self.touch(s);
        self.erase_request_data(s, end);
        if self.pol.readahead.enabled() && maxra > end {
            let limit = self
                .pol
                .readahead
                .background_limit(&self.mech, end - 1, maxra);
            self.hda.start_ra(
                &self.mech,
                s,
                plan.end_head,
                plan.end,
                end,
                limit,
                self.pol.zero_latency_read,
                plan.next_loc,
            );
        }
    }

    /// A whole hit on segment `s`: read-ahead under way into it goes on (further, for this
    /// request); on a segment at rest it may resume ("Read-ahead on idle hit").
    fn after_hit(&mut self, s: usize, lbn: u64, n: u32, reading: bool, overhead_done: f64) {
        let end = lbn + n as u64;
        self.touch(s);
        let maxra = self.raise_max_ra(s, lbn, n, (None, None));
        let zl = self.pol.zero_latency_read;
        if reading {
            let bg = self
                .pol
                .readahead
                .background_limit(&self.mech, end - 1, maxra);
            if let Some(ra) = self.hda.ra_mut() {
                ra.extend(&self.mech, bg, zl);
            }
        } else if self.pol.readahead.on_idle_hit
            && self.hda.ra().is_none()
            && self.hda.destage.is_none()
        {
            let seg_end = self.cache.as_ref().map_or(end, |c| c.segs[s].end());
            if seg_end < maxra {
                let limit =
                    self.pol
                        .readahead
                        .background_limit(&self.mech, seg_end.max(1) - 1, maxra);
                // Background reading may not seek where the mode keeps it on its track or
                // cylinder.
                let to = self.mech.layout.locate(seg_end.min(limit.max(1) - 1));
                let head = self.hda.head;
                let may = match self.pol.readahead.mode {
                    super::readahead::ContinuousRead::TrackEnd => {
                        head.cylinder == to.cylinder && head.surface == to.surface
                    }
                    super::readahead::ContinuousRead::CylinderEnd => head.cylinder == to.cylinder,
                    _ => true,
                };
                if may {
                    let start = overhead_done.max(self.hda.free_at);
                    self.hda
                        .start_ra(&self.mech, s, head, start, seg_end, limit, zl, None);
                }
            }
        }
        self.erase_request_data(s, end);
    }
}

/// Where "read any free blocks" starts segment `seg` (whose `free_from` is set): the
/// mechanism caches every sector it passes on the first track from landing on, so the segment
/// begins at the landing sector if that comes before the request on the track, else (the head
/// wrapped round) at the track's first block.
fn free_blocks_start(mech: &Mechanics, seg: &Segment) -> u64 {
    let Some(f) = seg.free_from else {
        return seg.start();
    };
    let (cyl, surf, landing, at) = (f.cylinder, f.surface, f.landing_slot(), f.at);
    let lbn = seg.start();
    // Where the cached run would start if the track's slots up to the request hold
    // consecutive LBNs (no slip or spare in between): check that with one lookup, and ask the
    // layout the long way otherwise.
    let from_slot = if landing < at { landing } else { 0 };
    let back = (at - from_slot) as u64;
    if back == 0 {
        return lbn;
    }
    if let Some(cand) = lbn.checked_sub(back) {
        let c = mech.layout.locate(cand);
        if (c.cylinder, c.surface, c.sector) == (cyl, surf, from_slot)
            && c.run_sectors as u64 >= back
        {
            return cand;
        }
    }
    let first = mech
        .layout
        .first_lbn_on_track(cyl, surf)
        .unwrap_or(lbn)
        .min(lbn);
    match mech.layout.lbn_at(cyl, surf, landing) {
        Some(l) if l < lbn && l >= first => l,
        _ => first,
    }
}
