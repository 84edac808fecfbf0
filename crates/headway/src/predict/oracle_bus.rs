//! The oracle's exact bus tail for a read that misses the buffer: the drive's media plan
//! (zero-latency landing included) and its bus recurrence, evaluated for the given request
//! and head arrival. A read's tail is not a function of its size: a zero-latency read that
//! lands mid-request fetches its first sector last, so its bus starts late (measured on the
//! atlas10k, docs/freeblock.md: 7,193 of 7,194 read misses' tails reproduced to the ns).
//! The read-ahead that follows is held to its segment's room while the read's blocks wait
//! for the bus, as the drive holds it (`readahead_hold`): where and when it is stopped for
//! the next command depends on it for reads that overfill their segment with it.

use super::arrivals::{Arrival, ArrivalCosts, BusWhileMiss};
use super::{Access, Among};
use crate::device::hdd::bus::{self, Bus, Stream};
use crate::device::hdd::media::{self, Avail, MediaPlan, ZeroLatency};
use crate::device::hdd::readahead::{Policy, Room};
use crate::device::hdd::spec::HddSpec;
use crate::device::hdd::{arrival_hold_ns, Mechanics, Overheads};
use crate::request::{HeadPosition, Op};
use crate::time::SimTime;

/// A read miss whose bus arrivals may hold ([`ReadBus::held_done`]): its blocks' media
/// times, its bus stream, its blocks, when it asks for the bus back, and until when its own
/// command phase holds the bus (when it reached an idle bus).
#[derive(Clone, Copy)]
struct Held<'a> {
    avail: &'a Avail,
    stream: &'a Stream,
    lbn: u64,
    n: u32,
    asks: f64,
    released: Option<SimTime>,
}

/// The drive's read-side bus rules, resolved as the drive resolves them.
#[derive(Clone, Copy, Debug)]
pub struct ReadBus {
    stream: Stream,
    zero_latency: ZeroLatency,
    never_disconnect: bool,
    high_water: f64,
    water_by_request: bool,
    segment_sectors: Option<u32>,
    data_prep_ns: f64,
    completion_ns: f64,
    /// The read-ahead that follows a read miss, which the next command must stop first
    /// (at a sector boundary on the atlas10k) and whose track it then starts from.
    readahead: Option<Policy>,
    per_request_ns: f64,
    /// Buffer segments: how many recent commands' blocks the buffer can still hold.
    segments: u32,
    /// What arrivals during a read miss cost it (`super::arrivals`).
    arrival_costs: ArrivalCosts,
    /// Bus overlap (`device::hdd::overlap`): the next queued command starts when the
    /// read's media transfer ends, not at its completion.
    overlap: bool,
}

/// When a read miss completes, and when and where the mechanism is free for a command
/// already queued behind it (reaching the drive at that completion).
#[derive(Clone, Copy, Debug)]
pub struct ReadRelease {
    pub done_ns: f64,
    /// The read-ahead's stop: (when, head); `None` when no read-ahead follows.
    pub next: Option<(f64, HeadPosition)>,
    /// When it asks for the bus back (`None`: it never gave it up).
    pub asks_ns: Option<f64>,
    /// Under bus overlap, when the drive chooses the next queued command (its media
    /// transfer done, rounded as the drive rounds it); `None` without overlap.
    pub chosen_ns: Option<f64>,
}

impl ReadBus {
    pub(crate) fn from_spec(spec: &HddSpec, ovh: &Overheads) -> Self {
        let c = spec.cache.as_ref().filter(|c| c.enabled);
        let never_disconnect = spec.cache.as_ref().is_some_and(|c| c.never_disconnect);
        let b = Bus::from_spec(&spec.bus, never_disconnect);
        ReadBus {
            stream: Stream {
                block_ns: b.read_block_ns,
                hold: b.hold_read || b.never_disconnect,
                disconnect_ns: ovh.read_disconnect_ns[Op::Read as usize] as f64,
                reconnect_ns: (ovh.reselect_first_ns + ovh.data_prep_ns) as f64,
                watermark: 1,
            },
            zero_latency: c.map_or(ZeroLatency::Off, |c| {
                ZeroLatency::of_reads(c.immediate_buffer_read, c.read_any_free_blocks)
            }),
            never_disconnect,
            high_water: c.map_or(0.0, |c| c.high_water_mark),
            water_by_request: c.is_none_or(|c| c.watermark_by_request_size),
            segment_sectors: c.map(|c| c.segment_sectors),
            data_prep_ns: ovh.data_prep_ns as f64,
            completion_ns: ovh.completion_ns[Op::Read as usize] as f64,
            readahead: c.map(Policy::from_spec),
            per_request_ns: ovh.per_request_ns as f64,
            segments: c.map_or(0, |c| c.segments),
            // The drive's own rule, after the read miss in service.
            arrival_costs: ArrivalCosts {
                read_hold_ns: arrival_hold_ns(ovh, Op::Read, Op::Read).unwrap_or(0),
                write_hold_ns: arrival_hold_ns(ovh, Op::Read, Op::Write),
            },
            overlap: spec.bus.overlap && !never_disconnect,
        }
    }

    /// The LBNs the buffer may hold after serving `lbn .. lbn + n` (`op`), and how many
    /// such commands it can hold at once; `None` without a buffer.
    pub(crate) fn buffer_reach(
        &self,
        mech: &Mechanics,
        lbn: u64,
        n: u32,
        op: Op,
    ) -> Option<(u64, u64)> {
        if self.segments == 0 || n == 0 {
            return None;
        }
        let end = lbn + n as u64;
        Some(match (op, self.readahead) {
            (Op::Read, Some(ra)) => ra.segment_reach(mech, lbn, n),
            _ => (lbn, end),
        })
    }

    pub(crate) fn segments(&self) -> u32 {
        self.segments
    }

    fn watermark(&self, n: u32) -> u32 {
        let size = self.segment_sectors.unwrap_or(n);
        if self.water_by_request {
            ((size.min(n) as f64 * self.high_water) as u32).max(1)
        } else {
            ((size as f64 * self.high_water + 0.9999999999) as u32).max(1)
        }
    }

    /// When read miss `a` completes, its mechanism starting at `mech_start_ns` with the
    /// head at `from` (the command overhead done), and what the read-ahead after it leaves
    /// for the next command; `a.sectors` > 0. `among.arrivals`: the commands reaching the
    /// drive while it is in service, in order (`super::arrivals`); `among.began_idle`: the
    /// read reached an idle drive and began at once, so it holds the bus through its command
    /// overhead and disconnect (`Drive::bus_released_at`). `among.enters_ns` gets when each
    /// arrival enters the drive's queue ([`BusWhileMiss::arrive`]; its arrival if it holds
    /// nothing or comes after the completion).
    pub(crate) fn read_release(
        &self,
        mech: &Mechanics,
        from: HeadPosition,
        mech_start_ns: f64,
        a: Access,
        mut among: Among<'_>,
    ) -> ReadRelease {
        among.enter_as_they_arrive();
        let (lbn, n) = (a.lbn, a.sectors);
        let mut plan = MediaPlan::default();
        media::plan_into(
            &mut plan,
            mech,
            from,
            mech_start_ns,
            lbn,
            n,
            Op::Read,
            self.zero_latency,
            0,
            None,
            None,
        );
        let avail = Avail::from_plan(&plan, mech_start_ns);
        let s = Stream {
            watermark: self.watermark(n),
            ..self.stream
        };
        let (b0, asks) = if self.never_disconnect {
            (mech_start_ns + self.data_prep_ns, None)
        } else {
            let w = s.watermark.min(n).max(1);
            let ready = avail.time_of(lbn + w as u64 - 1).unwrap_or(mech_start_ns);
            // A read larger than its segment asks for the bus back as any other (the
            // drive's `bus_back`; its transfer after a later reconnection is bus-bound on
            // every drive here, so the media plan unstalled gives its end).
            let asks = ready.max(mech_start_ns + s.disconnect_ns);
            (asks + s.reconnect_ns, Some(asks))
        };
        let e = bus::transfer_end(&avail, lbn, n, b0, &s);
        let done = e + self.completion_ns;
        // The next command reaches the drive at the reported (rounded) completion.
        let mut done_ns = (done.max(mech_start_ns) + 0.5).floor();
        if let (Some(asks), false) = (asks, among.arrivals.is_empty()) {
            // A read that reached an idle bus holds it until it disconnects; one taken from
            // the queue had disconnected while it waited.
            let released = (among.began_idle && !self.never_disconnect)
                .then(|| (mech_start_ns + s.disconnect_ns + 0.5) as i64 as SimTime);
            let read = Held {
                avail: &avail,
                stream: &s,
                lbn,
                n,
                asks,
                released,
            };
            done_ns = self.held_done(&read, done_ns, among.arrivals, among.enters_ns);
        }
        // The read-ahead is held to its segment's room while the read's own blocks wait for
        // the bus (on the bus as the read alone would have it: the drive holds it when the
        // read is served, before any arrival moves its transfer).
        let room = self.segment_sectors.map(|size| Room {
            size,
            avail: &avail,
            bus_start: b0,
            bus_end: e,
            stream: &s,
        });
        // The next command is taken up at the completion, or under bus overlap as the
        // media transfer ends (the drive's completion less its bus tail, `overlap`).
        let chosen_ns = self
            .overlap
            .then(|| (done_ns - (done - plan.end).max(0.0).round()).max(mech_start_ns));
        let next = self.readahead.and_then(|ra| {
            ra.release_after_miss(
                mech,
                lbn,
                n,
                &plan,
                self.zero_latency,
                chosen_ns.unwrap_or(done_ns) + self.per_request_ns,
                room,
            )
        });
        ReadRelease {
            done_ns,
            next,
            asks_ns: asks,
            chosen_ns,
        }
    }

    /// The completion `done_ns` of read miss `read`, moved by the `arrivals` that hold the
    /// bus past when it asks for it back, as `HddDevice::arrival_on_bus` moves it
    /// (`Drive::rebus`: the transfer recomputed from the later reconnection).
    #[cold]
    fn held_done(
        &self,
        read: &Held<'_>,
        mut done_ns: f64,
        arrivals: &[Arrival],
        enters_ns: &mut [SimTime],
    ) -> f64 {
        let Held {
            avail,
            stream: s,
            lbn,
            n,
            asks,
            released,
        } = *read;
        let mut bus = BusWhileMiss::new(asks as i64 as u64);
        if let Some(at) = released {
            bus.held_until(at);
        }
        // The blocks still to move when the read next gets the bus, and when it does: the
        // drive's `BusBack` (`lbn`, `n`, `given`), moved on by each gap an arrival takes.
        let (mut rest_lbn, mut rest_n, mut given) = (lbn, n, asks);
        for (k, a) in arrivals.iter().enumerate() {
            let d = done_ns as u64;
            if a.at_ns >= d {
                break;
            }
            let back = bus.back_ns;
            let gap = |t: SimTime| {
                let start = given + s.reconnect_ns;
                let g = bus::next_gap(avail, rest_lbn, rest_n, start, s, t as i64 as f64)?;
                rest_n -= (g.lbn - rest_lbn) as u32;
                rest_lbn = g.lbn;
                given = g.asks_at;
                // Rounded and truncated as the drive's `bus_gap` and `bus_asked_at` give them.
                Some((
                    (g.free_at + 0.5) as i64 as SimTime,
                    g.asks_at as i64 as SimTime,
                ))
            };
            let entered = bus.arrive(*a, d, &self.arrival_costs, gap);
            if let Some(e) = enters_ns.get_mut(k) {
                *e = entered;
            }
            if let Some(at) = bus.back_ns.filter(|&b| Some(b) != back) {
                let at = at as i64 as f64;
                given = given.max(at);
                let e = bus::transfer_end(avail, rest_lbn, rest_n, at + s.reconnect_ns, s);
                done_ns = done_ns.max((e + self.completion_ns + 0.5).floor());
            }
        }
        done_ns
    }
}
