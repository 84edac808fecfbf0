use std::sync::Arc;

use super::oracle_bus::ReadBus;
use super::{
    Access, Among, Estimate, Geometry, Moment, Needs, Predictor, QueueModel, Release, Target,
    TrackInfo,
};
use crate::device::hdd::spec::HddSpec;
use crate::device::hdd::{Mechanics, Overheads, SelfModel};
use crate::order::PositionCost;
use crate::request::{Completion, HeadPosition, Op};
use crate::time::SimTime;

/// The device's own model of a command that misses its buffer ([`SelfModel`]: what an SPTF
/// inside the firmware knows) as the host's predictor. It shares the drive's [`Mechanics`]
/// and overheads and learns the head position from each completion. It does not model the
/// buffer (hits, read-ahead, write-back in the background): a host cannot see it, so its
/// estimates for hits are pessimistic and the head it believes in is where the last missing
/// command left it.
pub struct OraclePredictor {
    model: SelfModel,
    /// Per op, the last completion that went to the media: its sectors and the time from
    /// its media end to its completion (see [`QueueModel::tail_ns`]). The bus side is
    /// learned rather than modelled: the oracle shares the drive's mechanics and overheads,
    /// not its bus and buffer.
    tails: [Option<(u32, SimTime)>; 2],
    /// The drive's read-side bus rules: with them a read's tail is computed exactly
    /// ([`QueueModel::release`]) instead of learned.
    read_bus: Option<ReadBus>,
}

impl OraclePredictor {
    pub fn new(mech: Arc<Mechanics>, ovh: Overheads, link_ns: SimTime) -> Self {
        OraclePredictor {
            model: SelfModel::new(mech, ovh, link_ns),
            tails: [None; 2],
            read_bus: None,
        }
    }

    #[inline(always)]
    fn mech(&self) -> &Mechanics {
        self.model.mechanics()
    }

    #[inline(always)]
    fn ovh(&self) -> &Overheads {
        self.model.overheads()
    }

    /// Also share the drive's bus rules, so that a read's tail is the drive's own
    /// ([`QueueModel::release`]) rather than learned from completions (which free reads
    /// would then also steer).
    pub(crate) fn with_read_bus(mut self, bus: ReadBus) -> Self {
        self.read_bus = Some(bus);
        self
    }

    /// The exact predictor of a drive: its mechanics, overheads and read-side bus rules, all
    /// from its spec, as the host's `predictor = "oracle"` builds it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use headway::config::resolve_drive;
    /// use headway::device::hdd::Mechanics;
    /// use headway::predict::{Access, Moment, OraclePredictor, Predictor, QueueModel};
    /// use headway::request::Op;
    ///
    /// let spec = resolve_drive("atlas10k", None).unwrap();
    /// let p = OraclePredictor::of_drive(&spec, Arc::new(Mechanics::new(&spec).unwrap()), 0);
    /// // With the drive's bus rules a read's completion is computed, not learned.
    /// let read = p.release(Moment::new(p.head(), 0), Access::new(1_000, 8, Op::Read));
    /// assert!(read.done_ns.unwrap() > read.estimate.service_ns());
    /// ```
    pub fn of_drive(spec: &HddSpec, mech: Arc<Mechanics>, link_ns: SimTime) -> Self {
        let ovh = Overheads::from_spec(spec);
        let bus = ReadBus::from_spec(spec, &ovh);
        OraclePredictor::new(mech, ovh, link_ns).with_read_bus(bus)
    }

    /// A write the drive does not take into its buffer (no fast writes) completes once its
    /// blocks are on the media and it has the bus back (`service/write.rs`: the media end,
    /// the reselection, the completion overhead), and a command queued behind it had its
    /// command overhead done meanwhile, so it begins at that completion. Not followed: the
    /// arrivals holding the bus as it asks (the drive's `bus_whole`), the extra write
    /// disconnect's own reselection, and data slower than the media (the completion then
    /// follows the data's end and the write disconnect).
    #[cold]
    fn write_through_release(
        &self,
        estimate: Estimate,
        start_ns: SimTime,
        sectors: u32,
    ) -> Release {
        let w = Op::Write as usize;
        let done = start_ns
            + estimate.service_ns()
            + self.ovh().reselect_first_ns
            + self.ovh().completion_ns[w];
        Release {
            estimate,
            tail_ns: self.tail_ns(sectors, Op::Write),
            head: estimate.end,
            done_ns: Some(done),
            bus_asked_ns: None,
            // In the convention of the estimate that plans it (the overhead it adds).
            queued_next_ns: Some(done.saturating_sub(self.model.start_overhead_ns(Op::Read))),
        }
    }
}

impl Predictor for OraclePredictor {
    fn name(&self) -> &str {
        "oracle"
    }
    fn capacity_sectors(&self) -> u64 {
        self.mech().layout.capacity_sectors()
    }
    fn cylinders(&self) -> u32 {
        self.mech().seek.max_distance() + 1
    }
    #[inline]
    fn cylinder_of(&self, lbn: u64) -> u32 {
        PositionCost::cylinder_of(&self.model, lbn)
    }
    fn head(&self) -> HeadPosition {
        PositionCost::head(&self.model)
    }
    #[inline]
    fn estimate(&self, at: Moment, a: Access) -> Estimate {
        self.model.estimate(at, a)
    }
    #[inline]
    fn positioning_floor_ns(&self, distance: u32) -> SimTime {
        PositionCost::positioning_floor_ns(&self.model, distance)
    }
    #[inline]
    fn target(&self, a: Access, needs: Needs) -> Target {
        PositionCost::target(&self.model, a, needs)
    }
    #[inline(always)]
    fn positioning_to(&self, from: HeadPosition, start_ns: SimTime, t: &Target) -> SimTime {
        PositionCost::positioning_to(&self.model, from, start_ns, t)
    }
    fn observe(&mut self, c: &Completion) {
        if !c.cache_hit {
            let p = &c.phases;
            let media_end = p.start_ns + p.overhead_ns + p.seek_ns + p.rotate_ns + p.transfer_ns;
            if c.command.sectors > 0 && c.done_ns >= media_end {
                self.tails[c.command.op as usize] =
                    Some((c.command.sectors, c.done_ns - media_end));
            }
        }
        self.model.observe(c);
    }
    fn geometry(&self) -> Option<&dyn Geometry> {
        Some(self)
    }
    fn queue_model(&self) -> Option<&dyn QueueModel> {
        Some(self)
    }
}

impl QueueModel for OraclePredictor {
    fn tail_ns(&self, sectors: u32, op: Op) -> SimTime {
        // Under bus overlap the next command's positioning begins at the media end
        // (`release_among`), but its data still waits for this tail: a planner that slots a
        // command in between keeps the tail as that command's cost, so that the one after
        // it is not held up at the bus.
        // The completion overhead is fixed; the rest (the bus) scales with the sectors.
        let fixed = self.ovh().completion_ns[op as usize];
        let tail = match self.tails[op as usize] {
            Some((n, tail)) => fixed + tail.saturating_sub(fixed) * sectors as u64 / n as u64,
            None => fixed,
        };
        // A command queued at the drive behind this one has its command overhead done while
        // it waits (the drive's `overhead_done`), so its positioning begins at this one's
        // completion; estimates add that overhead from their start, so the start is moved
        // back by it (a read's, the common case).
        tail.saturating_sub(self.ovh().mechanical_start_ns(op, Op::Read))
    }

    fn exact_tail(&self) -> bool {
        self.read_bus.is_some()
    }
    fn overhead_done_while_queued(&self, op: Op) -> bool {
        op == Op::Read || self.ovh().fast_write
    }
    fn release_among(&self, at: Moment, a: Access, mut among: Among<'_>) -> Release {
        let estimate = self.estimate(at, a);
        if a.op == Op::Write && a.sectors > 0 && !self.ovh().fast_write && self.read_bus.is_some() {
            among.enter_as_they_arrive();
            return self.write_through_release(estimate, at.start_ns, a.sectors);
        }
        let Some(bus) = self.read_bus.filter(|_| a.op == Op::Read && a.sectors > 0) else {
            among.enter_as_they_arrive();
            return Release::after(estimate, self.tail_ns(a.sectors, a.op));
        };
        let mech_start = at.start_ns + estimate.overhead_ns;
        let r = bus.read_release(self.mech(), at.from, mech_start as f64, a, among);
        let done_ns = r.done_ns as SimTime;
        // The next command's mechanism starts at the completion (its overhead overlapped
        // this one, as in `tail_ns`), or under bus overlap as the media transfer ends, or
        // later if the read-ahead must first be stopped.
        let chosen_ns = r.chosen_ns.map_or(done_ns, |c| c as SimTime);
        let (free_ns, head) = match r.next {
            Some((stop, head)) => ((stop.ceil() as SimTime).max(chosen_ns), head),
            None => (chosen_ns, estimate.end),
        };
        let queued_next = free_ns.saturating_sub(self.ovh().mechanical_start_ns(a.op, Op::Read));
        Release {
            estimate,
            tail_ns: queued_next.saturating_sub(at.start_ns + estimate.service_ns()),
            head,
            done_ns: Some(done_ns),
            bus_asked_ns: r.asks_ns.map(|a| a as i64 as SimTime),
            queued_next_ns: Some(queued_next),
        }
    }

    fn buffer_reach(&self, a: Access) -> Option<(u64, u64)> {
        self.read_bus?
            .buffer_reach(self.mech(), a.lbn, a.sectors, a.op)
    }
    fn buffer_segments(&self) -> u32 {
        self.read_bus.map_or(0, |b| b.segments())
    }
}

impl Geometry for OraclePredictor {
    fn track_of(&self, lbn: u64) -> HeadPosition {
        self.model.track_of(lbn)
    }
    fn track_info(&self, track: HeadPosition) -> Option<TrackInfo> {
        self.model.track_info(track)
    }
    fn slot_lbn(&self, track: HeadPosition, slot: u32) -> Option<u64> {
        self.model.slot_lbn(track, slot)
    }
    fn angle_at(&self, t: SimTime) -> f64 {
        Geometry::angle_at(&self.model, t)
    }
    fn period_ns(&self) -> f64 {
        self.model.period_ns()
    }
    fn move_ns(&self, from: HeadPosition, to: HeadPosition, op: Op) -> SimTime {
        self.model.move_ns(from, to, op)
    }
    fn move_floor_ns(&self, distance: u32) -> SimTime {
        self.model.move_floor_ns(distance)
    }
}
