//! The freeblock wrapper: the two-command pipeline around an inner foreground scheduler,
//! with the planner's free reads slotted between foreground commands.
//!
//! State of the spec's §3.2: the inner scheduler holds the pool; `held` and `chosen` are
//! the host's dispatch queue (foreground commands already committed to the inner
//! scheduler: `held` waits behind a free read, `chosen` waits for its free read to be
//! planned); the drive holds at most two commands. When a slot opens, a held command goes
//! first; otherwise the chosen one (or the inner scheduler's proposal) is planned for, from
//! the predicted end of the command ahead of it.
//!
//! With `choose_early`, when a held command leaves, the next foreground command is chosen
//! at once (the spec's step 2c: select from the tail of the dispatch queue). Off by
//! default: choosing when the slot opens sees more pending requests, and measured on the
//! OLTP workload it harms the foreground less (docs/freeblock.md).

use super::measured::Model;
use super::planner::{self, FreeRead, Pair, Plan, PlanLimits};
use super::tail::TailFit;
use super::task::{apply_changes, BackgroundTask, BlockSink, TaskKind, WantChange};
use super::wanted::WantedBlocks;
use crate::error::{HeadwayError, Result};
use crate::order::freeblock::planner::PlanModel;
use crate::predict::{self, Access, Moment};
use crate::request::{Command, Completion, DeviceId, HeadPosition, Op, Request};
use crate::sched::options::OptionReader;
use crate::sched::{Decision, FreeReads, Hints, Placement, SchedCtx, Scheduler};
use crate::time::{SimTime, NS_PER_MS};

/// Commands kept at the drive: one in service, one queued.
const PIPELINE_DEPTH: usize = 2;

/// What committing the current proposal does.
#[derive(Clone, Debug)]
enum Proposed {
    /// The held foreground command leaves the dispatch queue.
    Held,
    /// The inner scheduler's command as it proposed it.
    Plain { end: (HeadPosition, SimTime) },
    /// Free sectors prepended to the inner command `b`.
    Merged {
        b: Command,
        end: (HeadPosition, SimTime),
    },
    /// A free read on another track; `b` waits in the dispatch queue behind it.
    Between {
        b: Command,
        end: (HeadPosition, SimTime),
    },
    /// The chosen foreground command, with no free read before it.
    Chosen { end: (HeadPosition, SimTime) },
    /// An idle-time read.
    Idle,
}

/// Counters a run of the wrapper keeps (read by tests and experiments through
/// [`Freeblock::stats`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FreeblockStats {
    /// Pairs planned (foreground commands dispatched behind another).
    pub pairs: u64,
    /// Free reads chosen: prepended to B, and on other tracks.
    pub prepended: u64,
    pub between: u64,
    /// Idle-time reads.
    pub idle_reads: u64,
    /// Wanted sectors taken by committed free (and idle) reads.
    pub free_sectors: u64,
    pub idle_sectors: u64,
    /// Tracks the planner examined in all.
    pub tracks_examined: u64,
}

pub struct Freeblock {
    inner: Box<dyn Scheduler>,
    device: DeviceId,
    limits: PlanLimits,
    plan_enabled: bool,
    idle_service: bool,
    idle_chunk_sectors: u32,
    task: BackgroundTask,
    /// Built on first use (the device's capacity is known only from a context).
    wanted: Option<WantedBlocks>,
    surfaces: u32,
    /// The dispatch queue: a foreground command committed to the inner scheduler, waiting
    /// behind a free read.
    held: Option<Command>,
    /// The next foreground command, chosen when the held one left, with where and when the
    /// command ahead of it ends.
    chosen: Option<(Command, (HeadPosition, SimTime))>,
    proposed: Option<(u64, Proposed)>,
    /// Predicted head position and media end of the last command sent (in drive order).
    last_end: Option<(HeadPosition, SimTime)>,
    /// The commands at the drive, in the order it serves them (its queue is FCFS, or holds
    /// one command behind the one in service).
    at_drive: std::collections::VecDeque<AtDrive>,
    /// The predicted media end of the command that completed last, for a predictor whose
    /// tail the wrapper measures (see [`TailFit::add_measured`]).
    done_media_end_ns: Option<SimTime>,
    /// How much later than `last_end` the command ahead may release the drive: the tail
    /// line's excess over the predictor's tail for it (see [`Freeblock::plan_for`]).
    last_slack_ns: SimTime,
    fg_outstanding: usize,
    idle_cursor: u64,
    /// The upper line of the predictor's read tail over the reads seen.
    tail_fit: TailFit,
    choose_early: bool,
    /// Plan a free read before a request sent to an idle drive (off: an idle drive reads
    /// ahead into its buffer and moves its head where the host cannot see).
    plan_when_idle: bool,
    /// Plan free reads after a foreground write too (off: a write the drive absorbs into
    /// its buffer is written back at a moment the host cannot see, so the head is not
    /// where the predictor believes).
    after_writes: bool,
    /// The last foreground command sent was a write.
    last_fg_write: bool,
    /// Free reads do not take the foreground's two slots: the drive holds up to two
    /// foreground commands plus the free reads between them (it needs a deeper FCFS queue),
    /// so the foreground is chosen at the instants, and from the pool, it would be without
    /// free reads.
    free_slots: bool,
    /// Tracks the drive's buffer may hold blocks of, for each of the recent commands sent
    /// (oldest first): no free read is planned there (see [`Freeblock::remember_buffered`]).
    buffered: std::collections::VecDeque<smallvec::SmallVec<[HeadPosition; 4]>>,
    pub stats: FreeblockStats,
    /// Receives the blocks as their reads complete (see [`Freeblock::with_sink`]).
    sink: Option<Box<dyn BlockSink>>,
    /// The host origin of the free reads, once one is made: only these are background
    /// (the member operations of an array are host work too, but foreground here).
    free_origin: Option<u16>,
}

/// A command at the drive.
#[derive(Clone, Copy, Debug)]
struct AtDrive {
    first_id: u64,
    lbn: u64,
    sectors: u32,
    op: Op,
    /// Its predicted media end from when the drive began it, for a predictor whose tail the
    /// wrapper measures (set when it begins).
    media_end_ns: Option<SimTime>,
}

fn first_id(cmd: &Command) -> u64 {
    cmd.requests.first().map_or(u64::MAX, |r| r.id)
}

impl Freeblock {
    pub fn from_options(
        o: &OptionReader,
        inner: Box<dyn Scheduler>,
        stack_device: Option<DeviceId>,
    ) -> Result<Self> {
        let c_fb_ms = o.f64("c_fb_ms", 0.0, 0.0, 100.0)?;
        let kind = if o.has("sectors") || o.has("start_lbn") {
            let start = o.u64("start_lbn", 0, 0, u64::MAX / 4)?;
            let n = o.u64("sectors", u64::MAX / 4, 1, u64::MAX / 4)?;
            TaskKind::Ranges(vec![(start, n)])
        } else {
            TaskKind::FullScan
        };
        // The pipeline plans B from the inner scheduler's chain and the free reads from
        // its own (`last_end`, on `QueueModel::release`): the inner keeps that rule, so that
        // both agree (on the Atlas 10K the queued rules give the same plan for a read
        // miss; docs/fidelity.md, "The host plans with the queued rules").
        let mut inner = inner;
        inner.set_queued_planning(false);
        Ok(Freeblock {
            inner,
            device: stack_device.unwrap_or(0),
            limits: PlanLimits {
                c_fb_ns: (c_fb_ms * NS_PER_MS as f64).round() as SimTime,
                max_tracks: o.u64("max_tracks", 512, 0, 1 << 24)?,
                allow_source_track: o.bool("allow_source_track", false)?,
            },
            plan_enabled: o.bool("plan", true)?,
            idle_service: o.bool("idle_service", false)?,
            idle_chunk_sectors: o.u64("idle_chunk_sectors", 512, 1, 1 << 20)? as u32,
            task: BackgroundTask::new(kind),
            wanted: None,
            surfaces: 0,
            held: None,
            chosen: None,
            proposed: None,
            last_end: None,
            at_drive: Default::default(),
            done_media_end_ns: None,
            last_slack_ns: 0,
            fg_outstanding: 0,
            idle_cursor: 0,
            tail_fit: TailFit::default(),
            choose_early: o.bool("choose_early", false)?,
            plan_when_idle: o.bool("plan_when_idle", false)?,
            after_writes: o.bool("after_writes", false)?,
            last_fg_write: false,
            free_slots: o.bool("free_slots", false)?,
            buffered: Default::default(),
            stats: FreeblockStats::default(),
            sink: None,
            free_origin: None,
        })
    }

    /// Deliver the task's blocks to `sink` as their reads complete; its replies add or
    /// remove wanted blocks.
    pub fn with_sink(mut self, sink: Box<dyn BlockSink>) -> Self {
        self.sink = Some(sink);
        self
    }

    /// One of this wrapper's own background reads.
    #[inline]
    fn is_free(&self, r: &Request) -> bool {
        Some(r.origin) == self.free_origin
    }

    /// Hand the host-made reads of a completed command to the sink and apply its changes.
    fn deliver(&mut self, done: &Completion, ctx: &SchedCtx) -> Result<()> {
        let Some(sink) = self.sink.as_mut() else {
            return Ok(());
        };
        let free = self.free_origin;
        for r in done
            .command
            .requests
            .iter()
            .filter(|r| Some(r.origin) == free)
        {
            let changes = sink.delivered(r.lbn, r.sectors, ctx.now)?;
            if let Some(w) = self.wanted.as_mut() {
                apply_changes(w, &changes)?;
                if w.remaining() > 0 {
                    self.task.completed_ns = None;
                }
            }
        }
        Ok(())
    }

    /// Check the device and build the bitmap the first time a context is seen.
    fn ready(&mut self, ctx: &SchedCtx) -> Result<()> {
        if self.wanted.is_some() {
            return Ok(());
        }
        let p = ctx.predictor(self.device);
        // The predictor's own error names it and says which predictors have tracks (a run
        // built from a configuration was refused before it started).
        let g = predict::require_geometry(p)?;
        let depth = if self.free_slots {
            2 * PIPELINE_DEPTH
        } else {
            PIPELINE_DEPTH
        };
        if self.free_slots && ctx.max_outstanding[self.device as usize] < depth {
            return Err(HeadwayError::config(
                "host.max_outstanding",
                format!(
                    "freeblock with free_slots keeps two foreground commands and the free \
                     reads between them at the drive, up to {depth}, but the host may send \
                     only {} (set [drive] queue_depth = {depth}, firmware_scheduler = \"fcfs\" \
                     and [host] max_outstanding = {depth})",
                    ctx.max_outstanding[self.device as usize]
                ),
            ));
        }
        if ctx.max_outstanding[self.device as usize] < PIPELINE_DEPTH {
            return Err(HeadwayError::config(
                "host.max_outstanding",
                format!(
                    "freeblock keeps {PIPELINE_DEPTH} commands at the drive, but the host may \
                     send only {} (set [drive] queue_depth = 2 and [host] max_outstanding = 2)",
                    ctx.max_outstanding[self.device as usize]
                ),
            ));
        }
        let mut surfaces = 0;
        while surfaces < 1024
            && g.track_info(HeadPosition {
                cylinder: 0,
                surface: surfaces,
            })
            .is_some()
        {
            surfaces += 1;
        }
        self.surfaces = surfaces.max(1);
        self.wanted = Some(self.task.wanted(p.capacity_sectors())?);
        Ok(())
    }

    /// Where and when the next command would begin: after the command at the drive, or now.
    fn origin(&self, ctx: &SchedCtx) -> (HeadPosition, SimTime) {
        match self.last_end {
            Some((pos, end)) if ctx.outstanding[self.device as usize] > 0 => {
                (pos, end.max(ctx.now))
            }
            _ => (ctx.predictor(self.device).head(), ctx.now),
        }
    }

    fn plan_for(
        &self,
        b: &Command,
        origin: (HeadPosition, SimTime),
        ctx: &SchedCtx,
    ) -> Result<(Decision, Proposed)> {
        let model = self.model(ctx);
        let p = &model;
        let from = origin.0;
        // The command ahead releases the drive at the predictor's tail (what the inner
        // scheduler plans with) or, at the latest, at the tail line's: free reads are
        // planned from the later, and only when B's direct path is the same from both (a
        // free read planned where B's first sector might be missed by a rotation would
        // cost B that rotation).
        let early_ns = origin.1.max(ctx.now);
        let slack_ns = if ctx.outstanding[self.device as usize] > 0 {
            self.last_slack_ns
        } else {
            0
        };
        let start_ns = early_ns + slack_ns;
        let pair = Pair {
            from,
            start_ns,
            b_lbn: b.lbn,
            b_sectors: b.sectors,
            b_op: b.op,
            tail: self.tail_fit.tail().unwrap_or_default(),
        };
        let d = planner::direct(p, &pair);
        let d_early = planner::direct(
            p,
            &Pair {
                start_ns: early_ns,
                ..pair
            },
        );
        // Where the inner scheduler, planning alone, puts the next command's start.
        let release = p.release(
            Moment::new(pair.from, early_ns),
            Access::new(b.lbn, b.sectors, b.op),
        );
        let end = (release.head, d_early.b_end_ns + release.tail_ns);
        if d.b_start_ns != d_early.b_start_ns {
            return Ok((Decision::Dispatch(b.clone()), Proposed::Plain { end }));
        }
        let wanted = self.wanted.as_ref().expect("ready");
        let exact = p.exact_tail();
        if !self.plan_enabled
            || wanted.remaining() == 0
            || b.device != self.device
            || !self.tail_fit.known(exact)
            || (!self.plan_when_idle && ctx.outstanding[self.device as usize] == 0)
            || (!self.after_writes && (self.last_fg_write || b.op == Op::Write))
        {
            return Ok((Decision::Dispatch(b.clone()), Proposed::Plain { end }));
        }
        let mut limits = self.limits;
        // Anytime: the search may use the CPU time left before the head reaches A's end.
        if ctx.ns_per_estimate > 0 {
            let left = start_ns.saturating_sub(ctx.now) / ctx.ns_per_estimate;
            limits.max_tracks = limits.max_tracks.min(left);
        }
        let avoid: smallvec::SmallVec<[HeadPosition; 32]> =
            self.buffered.iter().flatten().copied().collect();
        let (plan, examined) =
            planner::plan_excluding(p, &pair, wanted, &limits, self.surfaces, &avoid)?;
        ctx.count_estimates(examined);
        let origin = ctx.host_origin("freeblock");
        Ok(match plan {
            Some(Plan {
                read: FreeRead::Prepend { lbn },
                ..
            }) => {
                let free = ctx.preview_host_request(
                    origin,
                    self.device,
                    lbn,
                    (b.lbn - lbn) as u32,
                    Op::Read,
                );
                let mut reqs: Vec<Request> = vec![free];
                reqs.extend(b.requests.iter().copied());
                let cmd = Command::spanning(
                    self.device,
                    lbn,
                    (b.end_lbn() - lbn) as u32,
                    Op::Read,
                    &reqs,
                )
                .ok_or_else(|| {
                    HeadwayError::Invariant("freeblock: prepended read does not span B".into())
                })?;
                (
                    Decision::Dispatch(cmd),
                    Proposed::Merged { b: b.clone(), end },
                )
            }
            Some(Plan {
                read: FreeRead::Between { lbn, sectors },
                ..
            }) => {
                let free = ctx.preview_host_request(origin, self.device, lbn, sectors, Op::Read);
                (
                    Decision::Dispatch(Command::single(free)),
                    Proposed::Between { b: b.clone(), end },
                )
            }
            None => (Decision::Dispatch(b.clone()), Proposed::Plain { end }),
        })
    }

    fn idle_read(&self, ctx: &SchedCtx) -> Option<Command> {
        let w = self.wanted.as_ref()?;
        let lbn = w.next_wanted(self.idle_cursor)?;
        let mut n = 0u64;
        while n < self.idle_chunk_sectors as u64 && w.is_wanted(lbn + n) {
            n += 1;
        }
        let origin = ctx.host_origin("freeblock");
        Some(Command::single(ctx.preview_host_request(
            origin,
            self.device,
            lbn,
            n as u32,
            Op::Read,
        )))
    }

    /// Make the previewed free request for real and take its sectors from the bitmap.
    fn make_free(&mut self, p: &Request, ctx: &SchedCtx) -> Result<u64> {
        let r = ctx.host_request(p.origin, p.device, p.lbn, p.sectors, p.op);
        self.free_origin = Some(p.origin);
        if r.id != p.id {
            return Err(HeadwayError::Invariant(format!(
                "freeblock committed a read previewed as request {} but made as {}",
                p.id, r.id
            )));
        }
        let w = self.wanted.as_mut().expect("ready");
        let got = w.take(p.lbn, p.sectors as u64);
        self.task.delivered_sectors += got;
        Ok(got)
    }

    /// Commit `b` to the inner scheduler, unless it was chosen (and committed) earlier.
    fn commit_fg(&mut self, b: &Command, ctx: &SchedCtx) -> Result<()> {
        match &self.chosen {
            Some((c, _)) if first_id(c) == first_id(b) => {
                self.chosen = None;
                Ok(())
            }
            _ => self.inner.commit(b, Placement::Device, ctx),
        }
    }

    /// The held command has gone to the drive: choose the one after it now, from its
    /// predicted end, as the pipeline without free reads would at this moment.
    fn choose_next(&mut self, ctx: &SchedCtx) -> Result<()> {
        if !self.choose_early || self.chosen.is_some() {
            return Ok(());
        }
        let Some(origin) = self.last_end else {
            return Ok(());
        };
        if let Decision::Dispatch(c) = self.inner.propose(ctx) {
            if c.device == self.device && c.requests.iter().all(|r| !self.is_free(r)) {
                self.inner.commit(&c, Placement::Device, ctx)?;
                self.chosen = Some((c, origin));
            } else {
                self.inner.declined(&c, ctx);
            }
        }
        Ok(())
    }

    /// A command completed: the commands still at the drive begin from this instant and
    /// from where it left the head, not from when and where it was predicted to end. A
    /// command that ran late (it lost a rotation, or a free read ahead of it did) would
    /// otherwise leave every later prediction stale: planned from a release already past,
    /// the next free read takes the drive for "now" while the commands ahead still hold it,
    /// and B loses a rotation behind it (measured: docs/freeblock.md). The drive begins
    /// the next queued command at this completion, so with the oracle the re-predicted chain
    /// is exact up to the bus tails.
    fn reanchor(&mut self, done: &Completion, ctx: &SchedCtx) {
        if done.command.device != self.device {
            return;
        }
        let id = first_id(&done.command);
        if let Some(i) = self.at_drive.iter().position(|c| c.first_id == id) {
            self.done_media_end_ns = self.at_drive.remove(i).and_then(|c| c.media_end_ns);
        }
        if self.at_drive.is_empty() {
            return;
        }
        self.note_begun(ctx);
        // Two chains, as for a single command ahead: on the predictor's tails (where the
        // inner scheduler would plan from) and on the tail line (the latest release).
        let (mut from, mut early) = (ctx.predictor(self.device).head(), ctx.now);
        let p = &self.model(ctx);
        let (mut late_from, mut late) = (from, early);
        for &AtDrive {
            lbn, sectors, op, ..
        } in &self.at_drive
        {
            let r = p.release(Moment::new(from, early), Access::new(lbn, sectors, op));
            from = r.head;
            early = r.next_start_ns(early);
            let r = p.release(Moment::new(late_from, late), Access::new(lbn, sectors, op));
            late_from = r.head;
            late = r.next_start_ns(late) + self.slack_ns(ctx, sectors, op);
        }
        self.last_end = Some((from, early));
        self.last_slack_ns = late.saturating_sub(early);
    }

    /// What the free reads are planned with: the predictor, or if it has no queue model
    /// the predictor releasing the drive at the centre of the tail the wrapper measured for
    /// it (see `measured.rs`); the tail line's margin above that centre is the slack the
    /// pair is also checked at.
    fn model<'a>(&self, ctx: &'a SchedCtx) -> Model<'a> {
        Model::of(
            ctx.predictor(self.device),
            self.tail_fit.measured_centre().unwrap_or_default(),
        )
    }

    /// The command at the head of the drive's queue begins now (the one ahead of it
    /// completed, or it went to an idle drive): for a predictor whose tail the wrapper
    /// measures, keep its predicted media end from here.
    fn note_begun(&mut self, ctx: &SchedCtx) {
        let p = ctx.predictor(self.device);
        if p.queue_model().is_some() {
            return;
        }
        let Some(c) = self.at_drive.front_mut() else {
            return;
        };
        if c.media_end_ns.is_none() {
            let e = p.estimate(
                Moment::new(p.head(), ctx.now),
                Access::new(c.lbn, c.sectors, c.op),
            );
            c.media_end_ns = Some(ctx.now + e.service_ns());
        }
    }

    /// Fit the line to the tail of each read that went to the media: the predictor's
    /// (it has already observed the completion, so its tail for this read's size is this
    /// read's own: media end to completion, less the queued command's overhead), or for a
    /// predictor without a queue model the one measured from the completion.
    fn learn_tail(&mut self, done: &Completion, ctx: &SchedCtx) {
        let c = &done.command;
        let media_end = self.done_media_end_ns.take();
        if c.op != Op::Read || done.cache_hit || c.sectors == 0 || c.device != self.device {
            return;
        }
        let p = ctx.predictor(self.device);
        if p.queue_model().is_some() {
            self.tail_fit.add(
                c.sectors as f64,
                predict::tail_ns(p, c.sectors, Op::Read) as f64,
            );
        } else if let (Some(end), Some(g)) = (media_end, p.geometry()) {
            self.tail_fit
                .add_measured(c.sectors, ctx.now as f64 - end as f64, g.period_ns());
        }
    }

    /// A command went to the drive: remember the tracks its buffer may then hold blocks of
    /// (the landing track's free blocks, the request, the read-ahead's reach), for as many
    /// commands as the buffer has segments, twice over (a hit keeps an older segment).
    /// [TEAM CHOICE] No free read is planned on them: the drive would serve it from its
    /// buffer (bus time only, and its read-ahead goes on), which the predictor's estimates
    /// of a media access do not model, and B could lose a rotation behind it (measured
    /// under SSTF: docs/freeblock.md).
    fn remember_buffered(&mut self, cmd: &Command, ctx: &SchedCtx) {
        let p = ctx.predictor(self.device);
        let (Some(q), Some(g)) = (p.queue_model(), p.geometry()) else {
            return;
        };
        let keep = 2 * q.buffer_segments() as usize;
        if keep == 0 {
            return;
        }
        let Some((first, reach)) = q.buffer_reach(Access::from(cmd)) else {
            return;
        };
        let mut tracks = smallvec::SmallVec::new();
        let mut lbn = first;
        while lbn < reach {
            let t = g.track_of(lbn);
            tracks.push(t);
            match g.track_info(t) {
                Some(info) => lbn = info.first_lbn + info.lbns as u64,
                None => break,
            }
        }
        if self.buffered.len() >= keep {
            self.buffered.pop_front();
        }
        self.buffered.push_back(tracks);
    }

    /// The tail line's excess over the predictor's tail for a command of `sectors`.
    fn slack_ns(&self, ctx: &SchedCtx, sectors: u32, op: Op) -> SimTime {
        match self.tail_fit.tail() {
            // The predictor's tail is the device's own: no margin over it.
            _ if predict::exact_tail(ctx.predictor(self.device)) => 0,
            Some(t) if op == Op::Read => {
                let line = (t.fixed_ns + t.per_sector_ns * sectors as f64).ceil() as SimTime;
                // The chains already carry the predictor's tail, or the measured line's
                // centre (see [`Freeblock::model`]).
                let base = match self.tail_fit.measured_centre() {
                    Some(c) => (c.fixed_ns + c.per_sector_ns * sectors as f64)
                        .ceil()
                        .max(0.0) as SimTime,
                    None => predict::tail_ns(ctx.predictor(self.device), sectors, op),
                };
                line.saturating_sub(base)
            }
            _ => 0,
        }
    }

    fn propose_inner(&mut self, ctx: &SchedCtx) -> Result<Decision> {
        self.ready(ctx)?;
        let dev = self.device as usize;
        let busy = if self.free_slots {
            self.fg_outstanding >= PIPELINE_DEPTH
        } else {
            ctx.outstanding[dev] >= PIPELINE_DEPTH
        };
        if busy || !ctx.has_slot(self.device) {
            self.proposed = None;
            return Ok(Decision::Idle);
        }
        if let Some(h) = &self.held {
            self.proposed = Some((first_id(h), Proposed::Held));
            return Ok(Decision::Dispatch(h.clone()));
        }
        if let Some((c, origin)) = &self.chosen {
            let (dec, prop) = self.plan_for(c, *origin, ctx)?;
            let prop = match prop {
                Proposed::Plain { end } => Proposed::Chosen { end },
                other => other,
            };
            if let Decision::Dispatch(cmd) = &dec {
                self.proposed = Some((first_id(cmd), prop));
            }
            return Ok(dec);
        }
        let d = self.inner.propose(ctx);
        match d {
            Decision::Dispatch(b) => {
                let (dec, prop) = self.plan_for(&b, self.origin(ctx), ctx)?;
                if let Decision::Dispatch(c) = &dec {
                    self.proposed = Some((first_id(c), prop));
                }
                Ok(dec)
            }
            Decision::Idle
                if self.idle_service
                    && self.inner.pending() == 0
                    && self.fg_outstanding == 0
                    && ctx.outstanding[dev] == 0 =>
            {
                match self.idle_read(ctx) {
                    Some(c) => {
                        self.proposed = Some((first_id(&c), Proposed::Idle));
                        Ok(Decision::Dispatch(c))
                    }
                    None => Ok(Decision::Idle),
                }
            }
            other => {
                self.proposed = None;
                Ok(other)
            }
        }
    }
}

/// The array layer's rebuild and scrub reads: the configured task is replaced by the
/// ranges it asks for.
impl FreeReads for Freeblock {
    fn clear_wanted(&mut self) {
        self.task = BackgroundTask::new(TaskKind::Ranges(Vec::new()));
        if let Some(w) = self.wanted.as_mut() {
            *w = WantedBlocks::new(w.capacity());
        }
    }
    fn want(&mut self, lbn: u64, sectors: u64) -> Result<()> {
        match self.wanted.as_mut() {
            Some(w) => apply_changes(w, &[WantChange::Want(lbn, sectors)])?,
            None => match &mut self.task.kind {
                TaskKind::Ranges(r) => r.push((lbn, sectors)),
                TaskKind::FullScan => {}
            },
        }
        self.task.completed_ns = None;
        Ok(())
    }
}

impl Scheduler for Freeblock {
    fn name(&self) -> &str {
        "freeblock"
    }
    fn on_arrival(&mut self, req: Request, ctx: &SchedCtx) {
        self.inner.on_arrival(req, ctx);
    }
    fn on_completion(&mut self, done: &Completion, ctx: &SchedCtx) {
        self.reanchor(done, ctx);
        self.learn_tail(done, ctx);
        if let Err(e) = self.deliver(done, ctx) {
            ctx.fail(e);
        }
        let fg: smallvec::SmallVec<[Request; 1]> = done
            .command
            .requests
            .iter()
            .filter(|r| !self.is_free(r))
            .copied()
            .collect();
        let w = self.wanted.as_ref();
        if self.task.completed_ns.is_none() && w.is_some_and(|w| w.remaining() == 0) {
            // The last wanted block was taken by a command now done (or earlier).
            if done.command.requests.iter().any(|r| self.is_free(r)) {
                self.task.completed_ns = Some(ctx.now);
            }
        }
        if fg.is_empty() {
            return;
        }
        self.fg_outstanding = self.fg_outstanding.saturating_sub(1);
        if fg.len() == done.command.requests.len() {
            self.inner.on_completion(done, ctx);
        } else {
            // The inner scheduler hears of its own command only, as if nothing was merged.
            let mut d = done.clone();
            let lo = fg.iter().map(|r| r.lbn).min().unwrap_or(d.command.lbn);
            d.command.sectors = (d.command.end_lbn() - lo) as u32;
            d.command.lbn = lo;
            d.command.requests = fg;
            self.inner.on_completion(&d, ctx);
        }
    }
    fn on_timer(&mut self, ctx: &SchedCtx) {
        self.inner.on_timer(ctx);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        match self.propose_inner(ctx) {
            Ok(d) => d,
            Err(e) => {
                ctx.fail(e);
                Decision::Idle
            }
        }
    }
    fn commit(&mut self, cmd: &Command, placement: Placement, ctx: &SchedCtx) -> Result<()> {
        if placement == Placement::Device {
            if let Some(r) = cmd.requests.iter().find(|r| !self.is_free(r)) {
                self.last_fg_write = r.op == Op::Write;
            }
        }
        if placement == Placement::Device && cmd.device == self.device {
            self.remember_buffered(cmd, ctx);
            self.at_drive.push_back(AtDrive {
                first_id: first_id(cmd),
                lbn: cmd.lbn,
                sectors: cmd.sectors,
                op: cmd.op,
                media_end_ns: None,
            });
            self.note_begun(ctx);
        }
        let prop = match self.proposed.take() {
            Some((id, p)) if id == first_id(cmd) => p,
            // Not a dispatch of ours (a Serve of the inner scheduler): pass it on.
            _ => return self.inner.commit(cmd, placement, ctx),
        };
        match prop {
            Proposed::Held => {
                self.held = None;
                self.fg_outstanding += 1;
                self.choose_next(ctx)?;
            }
            Proposed::Chosen { end } => {
                self.chosen = None;
                self.fg_outstanding += 1;
                self.last_end = Some(end);
                self.last_slack_ns = self.slack_ns(ctx, cmd.sectors, cmd.op);
                self.stats.pairs += 1;
            }
            Proposed::Plain { end } => {
                self.inner.commit(cmd, placement, ctx)?;
                if placement == Placement::Device {
                    self.fg_outstanding += 1;
                    self.last_end = Some(end);
                    self.last_slack_ns = self.slack_ns(ctx, cmd.sectors, cmd.op);
                    self.stats.pairs += 1;
                }
            }
            Proposed::Merged { b, end } => {
                let free = cmd.requests[0];
                let got = self.make_free(&free, ctx)?;
                self.stats.prepended += 1;
                self.stats.free_sectors += got;
                self.stats.pairs += 1;
                self.commit_fg(&b, ctx)?;
                self.fg_outstanding += 1;
                self.last_end = Some(end);
                self.last_slack_ns = self.slack_ns(ctx, b.sectors, b.op);
            }
            Proposed::Between { b, end } => {
                let free = cmd.requests[0];
                let got = self.make_free(&free, ctx)?;
                self.stats.between += 1;
                self.stats.free_sectors += got;
                self.stats.pairs += 1;
                self.commit_fg(&b, ctx)?;
                self.last_slack_ns = self.slack_ns(ctx, b.sectors, b.op);
                self.held = Some(b);
                self.last_end = Some(end);
            }
            Proposed::Idle => {
                let free = cmd.requests[0];
                let got = self.make_free(&free, ctx)?;
                self.stats.idle_reads += 1;
                self.stats.idle_sectors += got;
                self.idle_cursor = free.lbn + free.sectors as u64;
                let p = ctx.predictor(self.device);
                let r = predict::release(
                    p,
                    Moment::new(p.head(), ctx.now),
                    Access::new(free.lbn, free.sectors, Op::Read),
                );
                self.last_end = Some((r.head, r.next_start_ns(ctx.now)));
                self.last_slack_ns = self.slack_ns(ctx, free.sectors, Op::Read);
            }
        }
        Ok(())
    }
    fn declined(&mut self, cmd: &Command, ctx: &SchedCtx) {
        if let Some((_, Proposed::Plain { .. })) = &self.proposed {
            self.inner.declined(cmd, ctx);
        }
        self.proposed = None;
    }
    fn hints(&self) -> Hints {
        Hints::slot_driven_if(self.inner.hints())
    }
    fn pending(&self) -> usize {
        self.inner.pending() + self.held.is_some() as usize + self.chosen.is_some() as usize
    }
    fn take_failure(&mut self) -> Option<HeadwayError> {
        self.inner.take_failure()
    }
    fn free_reads(&mut self, device: DeviceId) -> Option<&mut dyn FreeReads> {
        (device == self.device).then_some(self as &mut dyn FreeReads)
    }
}
