//! Zone write plugging (`[host] zone_write_plugging`, `docs/smr.md`): a wrapper around any
//! scheduler that lets at most one write per sequential zone of a zoned drive past it at a
//! time, holding the zone's later writes in a per-zone FIFO (its plug) until that one
//! completes. Whatever order the inner scheduler picks, a zone's writes reach the drive in
//! the order they arrived. The wrapper also tracks each sequential zone's write pointer (from
//! the drive's zone report when the run is built, then from completed writes, appends, resets
//! and finishes) and, with `zone_append = "emulated"`, turns a ZONE APPEND into a plain write
//! at the tracked pointer when it leaves the plug.

use std::collections::VecDeque;

use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::device::zoned::{Zone, ZoneType};
use crate::error::Result;
use crate::request::{Command, Completion, Op, Request};
use crate::request_marks::ZoneOp;

/// How a ZONE APPEND reaches the drive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ZoneAppend {
    /// The drive places it (ZBC's ZONE APPEND); appends pass the plug.
    #[default]
    Native,
    /// The host writes it at its tracked write pointer, one at a time per zone.
    Emulated,
}

/// One sequential zone as the host sees it.
struct HostZone {
    start_lbn: u64,
    end_lbn: u64,
    write_pointer_lbn: u64,
    /// A write of this zone has left the plug and not completed.
    busy: bool,
    plug: VecDeque<Request>,
}

/// The sequential zones of one zoned device (conventional zones are `None`).
struct DeviceZones {
    zone_size_sectors: u64,
    zones: Vec<Option<HostZone>>,
}

impl DeviceZones {
    fn from_report(report: &[Zone]) -> Option<Self> {
        let zone_size_sectors = report.first()?.size_sectors;
        let zones = report
            .iter()
            .map(|z| {
                (z.zone_type != ZoneType::Conventional).then(|| HostZone {
                    start_lbn: z.start_lbn,
                    end_lbn: z.start_lbn + z.size_sectors,
                    write_pointer_lbn: z.write_pointer_lbn,
                    busy: false,
                    plug: VecDeque::new(),
                })
            })
            .collect();
        Some(DeviceZones {
            zone_size_sectors,
            zones,
        })
    }

    fn zone(&mut self, lbn: u64) -> Option<&mut HostZone> {
        let i = (lbn / self.zone_size_sectors) as usize;
        self.zones.get_mut(i)?.as_mut()
    }
}

pub struct ZonePlug {
    inner: Box<dyn Scheduler>,
    name: String,
    /// Per device: its sequential zones, or `None` for a device without zones.
    devices: Vec<Option<DeviceZones>>,
    append: ZoneAppend,
    /// Requests held in plugs (all devices).
    plugged: usize,
}

impl ZonePlug {
    /// Plug `inner`'s writes to the zoned devices among `reports` (one per device: its zone
    /// report when the run is built, `None` for a device without zones).
    pub fn new(inner: Box<dyn Scheduler>, reports: &[Option<&[Zone]>], append: ZoneAppend) -> Self {
        let name = format!("{}+zone-plug", inner.name());
        ZonePlug {
            inner,
            name,
            devices: reports
                .iter()
                .map(|r| r.and_then(DeviceZones::from_report))
                .collect(),
            append,
            plugged: 0,
        }
    }

    /// The write pointer the host tracks for the zone holding `lbn` on `device` (`None`
    /// for a conventional zone or a device without zones).
    #[cfg(test)]
    fn write_pointer_lbn(&self, device: usize, lbn: u64) -> Option<u64> {
        let d = self.devices.get(device)?.as_ref()?;
        let i = (lbn / d.zone_size_sectors) as usize;
        Some(d.zones.get(i)?.as_ref()?.write_pointer_lbn)
    }

    /// Whether `r` is one of the zone's ordered writes: a plain write, a reset or finish
    /// (so that it lands after the writes before it), or an append the host emulates.
    fn ordered(&self, r: &Request) -> bool {
        if r.op != Op::Write {
            return false;
        }
        match r.marks.zone_op() {
            None | Some(ZoneOp::Reset) | Some(ZoneOp::Finish) => true,
            Some(ZoneOp::Append) => self.append == ZoneAppend::Emulated,
            Some(ZoneOp::Open) | Some(ZoneOp::Close) => false,
        }
    }

    fn zone_of(&mut self, r: &Request) -> Option<&mut HostZone> {
        self.devices
            .get_mut(r.device as usize)?
            .as_mut()?
            .zone(r.lbn)
    }

    /// Send `r` (the zone's one write past the plug) on to the inner scheduler; an emulated
    /// append becomes a write at the tracked write pointer.
    fn release(&mut self, mut r: Request, write_pointer_lbn: u64, ctx: &SchedCtx) {
        if r.marks.zone_op() == Some(ZoneOp::Append) {
            r.marks.set_zone_op(None);
            r.marks.set_emulated_append(true);
            r.lbn = write_pointer_lbn;
        }
        self.inner.on_arrival(r, ctx);
    }

    /// A request of a zone left the host for good (completed, or served from memory):
    /// follow the write pointer and let the zone's next plugged write go.
    fn finished(&mut self, r: &Request, ctx: &SchedCtx) {
        let native_append = r.marks.zone_op() == Some(ZoneOp::Append);
        let ordered = self.ordered(r) || r.marks.emulated_append();
        if !(ordered || native_append) {
            return;
        }
        let Some(z) = self.zone_of(r) else {
            return;
        };
        // A refused command left the drive's write pointer where it was.
        if r.marks.error().is_none() {
            z.write_pointer_lbn = match r.marks.zone_op() {
                Some(ZoneOp::Reset) => z.start_lbn,
                Some(ZoneOp::Finish) => z.end_lbn,
                _ => z.write_pointer_lbn.max(r.end_lbn()).min(z.end_lbn),
            };
        }
        if native_append {
            return;
        }
        z.busy = false;
        let Some(next) = z.plug.pop_front() else {
            return;
        };
        z.busy = true;
        let wp = z.write_pointer_lbn;
        self.plugged -= 1;
        self.release(next, wp, ctx);
    }
}

impl Scheduler for ZonePlug {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        if !self.ordered(&req) {
            return self.inner.on_arrival(req, ctx);
        }
        let Some(z) = self.zone_of(&req) else {
            return self.inner.on_arrival(req, ctx);
        };
        if z.busy {
            z.plug.push_back(req);
            self.plugged += 1;
            return;
        }
        z.busy = true;
        let wp = z.write_pointer_lbn;
        self.release(req, wp, ctx);
    }

    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        self.inner.on_completion(done, ctx);
        for r in &done.command.requests {
            self.finished(r, ctx);
        }
    }

    fn on_timer(&mut self, ctx: &SchedCtx) {
        self.inner.on_timer(ctx);
    }

    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        self.inner.propose(ctx)
    }

    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        self.inner.commit(cmd, placement, ctx)
    }

    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        self.inner.declined(cmd, ctx)
    }

    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        let d = self.inner.decide(ctx);
        // Requests served from host memory never complete at the drive: their zones are
        // free again now.
        if let Decision::Serve(reqs) = &d {
            for r in reqs.iter() {
                self.finished(r, ctx);
            }
        }
        d
    }

    fn hints(&self) -> Hints {
        // Every arrival must be seen (it may be plugged) and every completion may release a
        // plugged write; with nothing plugged the inner scheduler's other promises hold.
        let inner = self.inner.hints();
        Hints {
            ignores_completions: false,
            passes_through_when_empty: false,
            ..inner
        }
    }

    fn set_queued_planning(&mut self, on: bool) {
        self.inner.set_queued_planning(on)
    }

    fn pending(&self) -> usize {
        self.inner.pending() + self.plugged
    }

    fn take_failure(&mut self) -> Option<crate::error::HeadwayError> {
        self.inner.take_failure()
    }

    fn free_reads(
        &mut self,
        device: crate::request::DeviceId,
    ) -> Option<&mut dyn super::FreeReads> {
        self.inner.free_reads(device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::zoned::{ZoneCondition, ZoneType};
    use crate::request::{HeadPosition, Phases};
    use crate::sched::testkit::predictor;

    /// Dispatches the request that arrived last first: the worst order for a zone.
    #[derive(Default)]
    struct Lifo(Vec<Request>);

    impl Scheduler for Lifo {
        fn name(&self) -> &str {
            "lifo"
        }
        fn on_arrival(&mut self, req: Request, _: &SchedCtx) {
            self.0.push(req);
        }
        fn propose(&mut self, _: &SchedCtx) -> Decision {
            self.0
                .last()
                .map_or(Decision::Idle, |r| Decision::Dispatch(Command::single(*r)))
        }
        fn commit(&mut self, _: &Command, _: Placement, _: &SchedCtx) -> Result<()> {
            self.0.pop();
            Ok(())
        }
        fn pending(&self) -> usize {
            self.0.len()
        }
    }

    /// A conventional zone 0 and sequential zones 1-3 of 100 sectors; zone 2 holds 30.
    fn report() -> Vec<Zone> {
        (0..4)
            .map(|i| Zone {
                start_lbn: i * 100,
                size_sectors: 100,
                zone_type: if i == 0 {
                    ZoneType::Conventional
                } else {
                    ZoneType::SequentialWriteRequired
                },
                condition: ZoneCondition::Empty,
                write_pointer_lbn: i * 100 + if i == 2 { 30 } else { 0 },
            })
            .collect()
    }

    fn plug(append: ZoneAppend) -> ZonePlug {
        let r = report();
        ZonePlug::new(Box::new(Lifo::default()), &[Some(&r)], append)
    }

    fn write(id: u64, lbn: u64, zone_op: Option<ZoneOp>) -> Request {
        let mut r = Request::new(0, lbn, 10, Op::Write);
        r.id = id;
        r.marks.set_zone_op(zone_op);
        r
    }

    fn done(cmd: Command) -> Completion {
        Completion {
            command: cmd,
            done_ns: 0,
            phases: Phases::default(),
            cache_hit: false,
            head: HeadPosition::default(),
            head_lbn: 0,
        }
    }

    /// Dispatch everything the scheduler gives now: (id, lbn) of each command.
    fn drain(s: &mut ZonePlug, ctx: &SchedCtx) -> Vec<Command> {
        let mut out = Vec::new();
        while let Decision::Dispatch(c) = s.decide(ctx) {
            out.push(c);
        }
        out
    }

    #[test]
    fn a_zone_s_writes_leave_one_at_a_time_in_arrival_order() {
        let preds = predictor(HeadPosition::default());
        let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
        let mut s = plug(ZoneAppend::Native);
        // Zone 1: three writes in order; zone 0 (conventional) and a read pass the plug.
        for (id, lbn) in [(0, 100), (1, 110), (2, 120), (3, 5), (4, 50)] {
            s.on_arrival(write(id, lbn, None), &ctx);
        }
        let mut read = Request::new(0, 100, 10, Op::Read);
        read.id = 5;
        s.on_arrival(read, &ctx);
        assert_eq!(s.pending(), 6);
        let ids = |cs: &[Command]| cs.iter().map(|c| c.requests[0].id).collect::<Vec<_>>();
        // Without the plug the last-first order would send 120 first (unaligned at 100).
        let first = drain(&mut s, &ctx);
        assert_eq!(ids(&first), [5, 4, 3, 0]);
        assert_eq!(s.pending(), 2, "110 and 120 wait in zone 1's plug");
        for c in first {
            s.on_completion(&done(c), &ctx);
        }
        assert_eq!(s.write_pointer_lbn(0, 100), Some(110));
        let second = drain(&mut s, &ctx);
        assert_eq!(ids(&second), [1]);
        s.on_completion(&done(second[0].clone()), &ctx);
        let third = drain(&mut s, &ctx);
        assert_eq!(ids(&third), [2]);
        s.on_completion(&done(third[0].clone()), &ctx);
        assert_eq!((s.pending(), s.write_pointer_lbn(0, 100)), (0, Some(130)));
        assert_eq!(s.write_pointer_lbn(0, 5), None, "conventional: no pointer");
    }

    #[test]
    fn emulated_appends_get_consecutive_lbns_and_a_reset_rewinds_the_pointer() {
        let preds = predictor(HeadPosition::default());
        let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
        let mut s = plug(ZoneAppend::Emulated);
        // Zone 2 starts with 30 sectors written (its report): appends go at 230, 240, 250.
        for id in 0..3 {
            s.on_arrival(write(id, 200, Some(ZoneOp::Append)), &ctx);
        }
        s.on_arrival(write(3, 200, Some(ZoneOp::Reset)), &ctx);
        s.on_arrival(write(4, 200, Some(ZoneOp::Append)), &ctx);
        let mut placed = Vec::new();
        while let [c] = drain(&mut s, &ctx).as_slice() {
            let r = c.requests[0];
            placed.push((r.id, c.lbn, r.marks.zone_op(), r.marks.emulated_append()));
            s.on_completion(&done(c.clone()), &ctx);
        }
        let reset = Some(ZoneOp::Reset);
        assert_eq!(
            placed,
            [
                (0, 230, None, true),
                (1, 240, None, true),
                (2, 250, None, true),
                (3, 200, reset, false),
                (4, 200, None, true),
            ]
        );
        assert_eq!(s.write_pointer_lbn(0, 200), Some(210));
    }

    #[test]
    fn a_refused_write_leaves_the_pointer_and_native_appends_pass_the_plug() {
        let preds = predictor(HeadPosition::default());
        let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
        let mut s = plug(ZoneAppend::Native);
        s.on_arrival(write(0, 300, None), &ctx);
        s.on_arrival(write(1, 300, Some(ZoneOp::Append)), &ctx);
        s.on_arrival(write(2, 300, Some(ZoneOp::Append)), &ctx);
        let sent = drain(&mut s, &ctx);
        assert_eq!(sent.len(), 3, "appends are not plugged");
        let mut refused = sent[2].clone();
        assert_eq!(refused.requests[0].id, 0);
        refused.requests[0]
            .marks
            .set_error(Some(crate::request_marks::ZoneError::UnalignedWrite));
        s.on_completion(&done(refused), &ctx);
        assert_eq!(s.write_pointer_lbn(0, 300), Some(300));
        // The drive placed an append at 300: its completed request says so.
        let mut placed = sent[0].clone();
        placed.requests[0].lbn = 300;
        s.on_completion(&done(placed), &ctx);
        assert_eq!(s.write_pointer_lbn(0, 300), Some(310));
    }
}
