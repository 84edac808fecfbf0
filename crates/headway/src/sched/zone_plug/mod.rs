//! Zone write plugging (`[host] zone_write_plugging`, `docs/smr.md`): a wrapper around any
//! scheduler that lets at most one write per sequential zone of a zoned drive past it at a
//! time, holding the zone's later writes in a per-zone FIFO (its plug) until that one
//! completes. Whatever order the inner scheduler picks, a zone's writes reach the drive in
//! the order they arrived. The wrapper also tracks each sequential zone's write pointer (from
//! the drive's zone report when the run is built, then from completed writes, appends, resets
//! and finishes) and, with `zone_append = "emulated"`, turns a ZONE APPEND into a plain write
//! at the tracked pointer when it leaves the plug. With merging on (`merge.rs`), the writes
//! waiting in the plug that continue the one it lets go leave with it as one command.

mod merge;

use std::collections::VecDeque;

use smallvec::SmallVec;

use super::{Decision, Hints, Placement, SchedCtx, Scheduler};
use crate::device::zoned::{Zone, ZoneType};
use crate::error::Result;
use crate::request::{Command, Completion, DeviceId, Op, Request};
use crate::request_marks::ZoneOp;
use merge::Merges;

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
    /// The id of the request of this zone that has left the plug and not completed (with
    /// merging, the first of the requests that left together).
    holder: Option<u64>,
    plug: VecDeque<Request>,
}

impl HostZone {
    /// Take from the plug's head the writes that continue `first` (already at its place)
    /// without a gap and keep the command within `max_sectors` and the zone: plain writes
    /// starting where the command ends, and with `emulated` appends, placed there.
    fn take_followers(&mut self, first: &Request, emulated: bool, max_sectors: u32) -> Parts {
        let mut parts = Parts::new();
        let mut end_lbn = first.end_lbn();
        let mut sectors = first.sectors as u64;
        while let Some(next) = self.plug.front() {
            let placed_lbn = match next.marks.zone_op() {
                None => next.lbn,
                Some(ZoneOp::Append) if emulated => end_lbn,
                Some(_) => break,
            };
            let fits = sectors + next.sectors as u64 <= max_sectors as u64
                && end_lbn + next.sectors as u64 <= self.end_lbn;
            if placed_lbn != end_lbn || !fits {
                break;
            }
            let mut r = self.plug.pop_front().expect("peeked");
            place(&mut r, end_lbn);
            end_lbn += r.sectors as u64;
            sectors += r.sectors as u64;
            parts.push(r);
        }
        parts
    }
}

/// Requests that leave a plug as one command, first the one the plug let go.
type Parts = SmallVec<[Request; 4]>;

/// An emulated append leaving the plug becomes a write at `write_pointer_lbn`.
fn place(r: &mut Request, write_pointer_lbn: u64) {
    if r.marks.zone_op() == Some(ZoneOp::Append) {
        r.marks.set_zone_op(None);
        r.marks.set_emulated_append(true);
        r.lbn = write_pointer_lbn;
    }
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
                    holder: None,
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

/// How zone write plugging treats the writes waiting in a zone's plug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlugSettings {
    pub(crate) append: ZoneAppend,
    /// The largest command a merge builds, in sectors; `None`: no merging.
    pub(crate) merge_max_sectors: Option<u32>,
}

pub struct ZonePlug {
    inner: Box<dyn Scheduler>,
    name: String,
    /// Per device: its sequential zones, or `None` for a device without zones.
    devices: Vec<Option<DeviceZones>>,
    settings: PlugSettings,
    /// Requests held in plugs (all devices).
    plugged: usize,
    merges: Merges,
    /// Requests merged behind another that the inner scheduler still holds (inside the
    /// one request it holds for them).
    riding: usize,
}

impl ZonePlug {
    /// Plug `inner`'s writes to the zoned devices among `reports` (one per device: its zone
    /// report when the run is built, `None` for a device without zones).
    pub(crate) fn new(
        inner: Box<dyn Scheduler>,
        reports: &[Option<&[Zone]>],
        settings: PlugSettings,
    ) -> Self {
        let name = format!("{}+zone-plug", inner.name());
        ZonePlug {
            inner,
            name,
            devices: reports
                .iter()
                .map(|r| r.and_then(DeviceZones::from_report))
                .collect(),
            settings,
            plugged: 0,
            merges: Merges::default(),
            riding: 0,
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
            Some(ZoneOp::Append) => self.settings.append == ZoneAppend::Emulated,
            Some(ZoneOp::Open) | Some(ZoneOp::Close) => false,
        }
    }

    fn zone_at(&mut self, device: DeviceId, lbn: u64) -> Option<&mut HostZone> {
        self.devices.get_mut(device as usize)?.as_mut()?.zone(lbn)
    }

    fn zone_of(&mut self, r: &Request) -> Option<&mut HostZone> {
        self.zone_at(r.device, r.lbn)
    }

    /// Let `r` (a write of a zone with none past the plug) go on to the inner scheduler:
    /// an emulated append becomes a write at the tracked write pointer, and with merging
    /// the plugged writes that continue it go with it.
    fn release(&mut self, mut r: Request, ctx: &SchedCtx) {
        let PlugSettings {
            append,
            merge_max_sectors,
        } = self.settings;
        let Some(z) = self.zone_of(&r) else {
            return self.inner.on_arrival(r, ctx);
        };
        z.holder = Some(r.id);
        place(&mut r, z.write_pointer_lbn);
        // Only a data write at the pointer gathers others: a command the drive refuses is
        // then refused alone, as it would have been unmerged.
        let gathers =
            r.marks.zone_op().is_none() && r.lbn == z.write_pointer_lbn && r.end_lbn() <= z.end_lbn;
        let followers = match merge_max_sectors {
            Some(max) if gathers => z.take_followers(&r, append == ZoneAppend::Emulated, max),
            _ => Parts::new(),
        };
        if followers.is_empty() {
            return self.inner.on_arrival(r, ctx);
        }
        self.plugged -= followers.len();
        self.riding += followers.len();
        let mut parts = Parts::with_capacity(followers.len() + 1);
        parts.push(r);
        parts.extend(followers);
        let whole = self.merges.insert(parts);
        self.inner.on_arrival(whole, ctx);
    }

    /// A request of a zone left the host for good (completed, or served from memory):
    /// follow the zone's write pointer.
    fn advance_pointer(&mut self, r: &Request) {
        let native_append = r.marks.zone_op() == Some(ZoneOp::Append);
        if !(self.ordered(r) || r.marks.emulated_append() || native_append) {
            return;
        }
        // A refused command left the drive's write pointer where it was.
        if r.marks.error().is_some() {
            return;
        }
        let Some(z) = self.zone_of(r) else {
            return;
        };
        z.write_pointer_lbn = match r.marks.zone_op() {
            Some(ZoneOp::Reset) => z.start_lbn,
            Some(ZoneOp::Finish) => z.end_lbn,
            _ => z.write_pointer_lbn.max(r.end_lbn()).min(z.end_lbn),
        };
    }

    /// If `r` held its zone, the zone is free again: let its next plugged write go.
    fn free_zone(&mut self, r: &Request, ctx: &SchedCtx) {
        // An emulated append placed at a full zone's end names the next zone's start.
        let before = r.lbn.checked_sub(1);
        let Some(z) = [Some(r.lbn), before].into_iter().flatten().find(|&lbn| {
            self.zone_at(r.device, lbn)
                .is_some_and(|z| z.holder == Some(r.id))
        }) else {
            return;
        };
        self.merges.remove(r.id);
        let z = self.zone_at(r.device, z).expect("found above");
        z.holder = None;
        let Some(next) = z.plug.pop_front() else {
            return;
        };
        self.plugged -= 1;
        self.release(next, ctx);
    }

    /// Requests that left the host for good: pointers first (an emulated append released
    /// next is placed at the pointer all of them moved), then the zones they held.
    fn finished(&mut self, reqs: &[Request], ctx: &SchedCtx) {
        for r in reqs {
            self.advance_pointer(r);
        }
        for r in reqs {
            self.free_zone(r, ctx);
        }
    }

    /// A command (or served requests) the inner scheduler let out, as the host must see it.
    fn expand(&self, d: &mut Decision) {
        match d {
            Decision::Dispatch(c) => {
                self.merges.expand(&mut c.requests);
            }
            Decision::Serve(reqs) => {
                self.merges.expand(reqs);
            }
            Decision::WaitUntil(_) | Decision::Idle => {}
        }
    }

    /// `cmd` as the inner scheduler proposed it, and the riders it carries.
    fn collapse(&self, cmd: &Command) -> Option<(Command, usize)> {
        let requests = self.merges.collapse(&cmd.requests)?;
        let riders = cmd.requests.len() - requests.len();
        Some((
            Command {
                requests,
                ..cmd.clone()
            },
            riders,
        ))
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
        if z.holder.is_some() {
            z.plug.push_back(req);
            self.plugged += 1;
            return;
        }
        self.release(req, ctx);
    }

    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        match self.collapse(&done.command) {
            // The inner scheduler hears of the command it proposed.
            Some((command, _)) => {
                let own = Completion {
                    command,
                    ..done.clone()
                };
                self.inner.on_completion(&own, ctx);
            }
            None => self.inner.on_completion(done, ctx),
        }
        self.finished(&done.command.requests, ctx);
    }

    fn on_timer(&mut self, ctx: &SchedCtx) {
        self.inner.on_timer(ctx);
    }

    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let mut d = self.inner.propose(ctx);
        self.expand(&mut d);
        d
    }

    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        match self.collapse(cmd) {
            Some((own, riders)) => {
                self.riding -= riders;
                self.inner.commit(&own, placement, ctx)
            }
            None => self.inner.commit(cmd, placement, ctx),
        }
    }

    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        match self.collapse(cmd) {
            Some((own, _)) => self.inner.declined(&own, ctx),
            None => self.inner.declined(cmd, ctx),
        }
    }

    fn decide(&mut self, ctx: &SchedCtx) -> Decision {
        let mut d = self.inner.decide(ctx);
        if let Decision::Dispatch(c) = &mut d {
            self.riding -= self.merges.expand(&mut c.requests);
        }
        // Requests served from host memory never complete at the drive: their zones are
        // free again now.
        if let Decision::Serve(reqs) = &mut d {
            self.riding -= self.merges.expand(reqs);
            self.finished(reqs, ctx);
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
        self.inner.pending() + self.plugged + self.riding
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
mod tests;
