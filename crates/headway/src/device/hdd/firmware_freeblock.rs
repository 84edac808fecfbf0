//! Freeblock scheduling inside the drive's firmware: the paper's simulated upper bound
//! (Lumb, Schindler, Ganger, FAST 2002, "simulation" and "simulation, 1 request per track").
//!
//! Whenever the drive starts a read from its own queue (chosen by its firmware scheduler,
//! e.g. SPTF), the same greedy track search as the host's freeblock planner
//! ([`crate::order::freeblock::planner`]) fills the time between the arm becoming free and
//! the read's first sector coming under the head, with the drive's exact model of itself
//! and the head where the drive knows it is: no prediction error, no bus tail between a
//! free read and the foreground read (the free data stay in the drive), and reading on on
//! the source track is allowed.
//!
//! - **Unrestricted** (default): after one free read, the search runs again from where it
//!   ends, for the same foreground read, up to `max_reads_per_gap` times: a gap may hold
//!   reads on the source track, intermediate tracks and the destination track, and several
//!   runs (both sides of a wrap) on one track.
//! - **One request per track** (`one_per_track = true`): a track read once in a gap is not
//!   chosen again in that gap (one contiguous run per track).
//!
//! [TEAM CHOICE] Free reads are planned on the drive's model and not re-simulated: the
//! foreground read is served exactly as without them (the planner admits a free read only if
//! the head, after it, still reaches the foreground read's first sector when the direct path
//! would), its data cross no bus and do not enter the buffer's segments (the free data go to
//! the background task, the paper's upper bound). A gap is planned only when the drive's own
//! service of the foreground read matches the model (same seek, rotational latency and
//! transfer: no zero-latency start, no buffer hit); other gaps are counted as
//! `inexact_gaps`. Blocks leave the wanted bitmap when planned, so each is read once.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::mechanics::Mechanics;
use super::overheads::Overheads;
use super::self_model::SelfModel;
use crate::error::{HeadwayError, Result};
use crate::order::freeblock::planner::{self, FreeRead, Pair, PlanLimits, Tail};
use crate::order::freeblock::wanted::WantedBlocks;
use crate::order::{Access, Geometry, Moment};
use crate::request::{Command, Completion, HeadPosition, Op, Phases, Request};
use crate::time::SimTime;

/// `[drive.firmware_freeblock]`: the background scan the firmware fills its gaps with.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FirmwareFreeblockConfig {
    /// Seek conservatism of the planner (ms); 0: the drive knows its seeks exactly.
    #[serde(default)]
    pub c_fb_ms: f64,
    /// The paper's "1 request per track" restriction.
    #[serde(default)]
    pub one_per_track: bool,
    /// First sector of the region to scan.
    #[serde(default)]
    pub start_lbn: u64,
    /// Sectors to scan; default: to the end of the drive.
    #[serde(default)]
    pub sectors: Option<u64>,
    /// Tracks examined per search (anytime bound, as the host planner's).
    #[serde(default = "default_max_tracks")]
    pub max_tracks: u64,
    /// Free reads per gap at most.
    #[serde(default = "default_max_reads")]
    pub max_reads_per_gap: u32,
    /// Keep every free read (`lbn`, `sectors`, when it was planned) in the report (tests).
    #[serde(default)]
    pub log: bool,
}

fn default_max_tracks() -> u64 {
    512
}
fn default_max_reads() -> u32 {
    8
}

impl Default for FirmwareFreeblockConfig {
    fn default() -> Self {
        FirmwareFreeblockConfig {
            c_fb_ms: 0.0,
            one_per_track: false,
            start_lbn: 0,
            sectors: None,
            max_tracks: default_max_tracks(),
            max_reads_per_gap: default_max_reads(),
            log: false,
        }
    }
}

/// What the firmware read for free over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FirmwareFreeReport {
    /// The device's name (set when the run's summary is made).
    pub device: String,
    pub free_reads: u64,
    pub free_sectors: u64,
    /// Foreground reads whose gap was searched.
    pub gaps_planned: u64,
    /// Foreground reads whose service the model did not match (not planned).
    pub inexact_gaps: u64,
    /// Sectors of the region still wanted at the end.
    pub wanted_remaining: u64,
    /// When the last wanted sector was read, if the scan finished.
    pub scan_done_ns: Option<SimTime>,
    /// Every free read (`lbn`, `sectors`, planned at), with `log = true`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<(u64, u32, SimTime)>,
}

pub struct FirmwareFreeblock {
    pred: SelfModel,
    wanted: WantedBlocks,
    limits: PlanLimits,
    one_per_track: bool,
    max_reads: u32,
    surfaces: u32,
    log: bool,
    report: FirmwareFreeReport,
}

impl FirmwareFreeblock {
    /// Errors are keyed under `firmware_freeblock.<key>` (the caller adds the table).
    pub fn new(
        cfg: &FirmwareFreeblockConfig,
        mech: Arc<Mechanics>,
        ovh: Overheads,
    ) -> Result<FirmwareFreeblock> {
        let key = |k: &str| format!("firmware_freeblock.{k}");
        if !cfg.c_fb_ms.is_finite() || cfg.c_fb_ms < 0.0 {
            return Err(HeadwayError::config(
                key("c_fb_ms"),
                format!("must be a finite number of ms >= 0, got {}", cfg.c_fb_ms),
            ));
        }
        if cfg.max_tracks == 0 {
            return Err(HeadwayError::config(
                key("max_tracks"),
                "must be at least 1",
            ));
        }
        if cfg.max_reads_per_gap == 0 {
            return Err(HeadwayError::config(
                key("max_reads_per_gap"),
                "must be at least 1",
            ));
        }
        let capacity = mech.layout.capacity_sectors();
        if cfg.start_lbn >= capacity {
            return Err(HeadwayError::config(
                key("start_lbn"),
                format!("{} is beyond the drive's {capacity} sectors", cfg.start_lbn),
            ));
        }
        let sectors = cfg.sectors.unwrap_or(capacity - cfg.start_lbn);
        if sectors == 0
            || cfg
                .start_lbn
                .checked_add(sectors)
                .is_none_or(|e| e > capacity)
        {
            return Err(HeadwayError::config(
                key("sectors"),
                format!(
                    "{} sectors from {} do not fit the drive's {capacity} sectors",
                    sectors, cfg.start_lbn
                ),
            ));
        }
        let mut wanted = WantedBlocks::new(capacity);
        wanted.want(cfg.start_lbn, sectors);
        let surfaces = mech.layout.surfaces();
        Ok(FirmwareFreeblock {
            pred: SelfModel::new(mech, ovh, 0),
            wanted,
            limits: PlanLimits {
                c_fb_ns: (cfg.c_fb_ms * 1e6).round() as SimTime,
                max_tracks: cfg.max_tracks,
                allow_source_track: true,
            },
            one_per_track: cfg.one_per_track,
            max_reads: cfg.max_reads_per_gap,
            surfaces,
            log: cfg.log,
            report: FirmwareFreeReport {
                wanted_remaining: sectors,
                ..Default::default()
            },
        })
    }

    fn take_read(&mut self, lbn: u64, sectors: u32, planned_ns: SimTime, end_ns: SimTime) {
        self.wanted.take(lbn, sectors as u64);
        self.report.free_reads += 1;
        self.report.free_sectors += sectors as u64;
        if self.log {
            self.report.reads.push((lbn, sectors, planned_ns));
        }
        if self.wanted.remaining() == 0 {
            self.report.scan_done_ns = Some(end_ns);
        }
    }

    pub fn report(&self) -> FirmwareFreeReport {
        let mut r = self.report.clone();
        r.wanted_remaining = self.wanted.remaining();
        r
    }

    /// The drive has just started `cmd`: its mechanism starts at `free_ns` (after the
    /// command's own overhead) with the head at `head` after a command in direction
    /// `last_op`, and the drive served `cmd` as `served` (its phases). Fill the gap before
    /// `cmd`'s first sector with free reads.
    pub fn fill_gap(
        &mut self,
        free_ns: SimTime,
        head: HeadPosition,
        last_op: Op,
        cmd: &Command,
        served: &Phases,
        cache_hit: bool,
    ) -> Result<()> {
        if cmd.op != Op::Read || cmd.sectors == 0 || cache_hit || self.wanted.remaining() == 0 {
            return Ok(());
        }
        // The model starts from the drive's state, as the firmware queue's does.
        self.pred.observe(&Completion {
            command: Command::single(Request::new(free_ns, 0, 1, last_op)),
            done_ns: free_ns,
            phases: Phases::default(),
            cache_hit: false,
            head,
            head_lbn: 0,
        });
        let mut pair = Pair {
            from: head,
            start_ns: free_ns,
            b_lbn: cmd.lbn,
            b_sectors: cmd.sectors,
            b_op: cmd.op,
            tail: Tail::default(),
        };
        let e = self.pred.estimate(
            Moment::new(head, free_ns),
            Access::new(cmd.lbn, cmd.sectors, cmd.op),
        );
        // Phases are rounded to the nanosecond separately.
        let close = |a: SimTime, b: SimTime| a.abs_diff(b) <= 2;
        if e.overhead_ns != 0
            || e.seek_ns != served.seek_ns
            || !close(e.rotate_ns, served.rotate_ns)
            || !close(e.transfer_ns, served.transfer_ns)
        {
            self.report.inexact_gaps += 1;
            return Ok(());
        }
        self.report.gaps_planned += 1;
        let b_start = planner::direct(&self.pred, &pair).b_start_ns;
        let mut visited: Vec<HeadPosition> = Vec::new();
        for _ in 0..self.max_reads {
            // From a free read's end, B must still come at the direct path's instant.
            if planner::direct(&self.pred, &pair).b_start_ns != b_start {
                break;
            }
            let exclude: &[HeadPosition] = if self.one_per_track { &visited } else { &[] };
            let (plan, _) = planner::plan_excluding(
                &self.pred,
                &pair,
                &self.wanted,
                &self.limits,
                self.surfaces,
                exclude,
            )?;
            let Some(plan) = plan else { break };
            let (lbn, sectors) = match plan.read {
                FreeRead::Between { lbn, sectors } => (lbn, sectors),
                FreeRead::Prepend { lbn } => (lbn, (cmd.lbn - lbn) as u32),
            };
            let f = self.pred.estimate(
                Moment::new(pair.from, pair.start_ns),
                Access::new(lbn, sectors, Op::Read),
            );
            let end_ns = pair.start_ns + f.service_ns();
            if !self.one_per_track {
                // Unrestricted: the head is on the track from its arrival, so every wanted
                // run passing before the chosen read begins (the other side of a wrap,
                // runs split by blocks already read) is read too, B's timing untouched.
                let arrive = pair.start_ns + f.overhead_ns + f.seek_ns + self.limits.c_fb_ns;
                let first = pair.start_ns + f.positioning_ns();
                if arrive < first {
                    for run in self.pred.passing(f.end, arrive, first) {
                        // Each run taken leaves the bitmap, so this ends.
                        while let Some((l, n)) =
                            self.wanted.longest_run(run.lbn, run.sectors as u64)
                        {
                            self.take_read(l, n as u32, free_ns, end_ns);
                        }
                    }
                }
            }
            // The planner's own check, restated: the head still reaches B in time.
            debug_assert!(
                matches!(plan.read, FreeRead::Prepend { .. })
                    || end_ns
                        + self
                            .pred
                            .estimate(
                                Moment::new(f.end, end_ns),
                                Access::new(cmd.lbn, cmd.sectors, cmd.op)
                            )
                            .positioning_ns()
                        <= b_start
            );
            self.take_read(lbn, sectors, free_ns, end_ns);
            if matches!(plan.read, FreeRead::Prepend { .. }) {
                break;
            }
            visited.push(f.end);
            pair.from = f.end;
            // The next sector begins as this read ends: planned from that very nanosecond,
            // rounding may put the head just past it and cost a whole rotation, so the next
            // read is planned from a nanosecond earlier.
            pair.start_ns = end_ns - 1;
            // Later reads in the gap come after a read: the model's direction is a read's.
            self.pred.observe(&Completion {
                command: Command::single(Request::new(end_ns, 0, 1, Op::Read)),
                done_ns: end_ns,
                phases: Phases::default(),
                cache_hit: false,
                head: f.end,
                head_lbn: 0,
            });
        }
        Ok(())
    }
}
