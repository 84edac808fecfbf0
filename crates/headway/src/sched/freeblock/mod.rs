//! `freeblock`: background reads in the foreground's rotational latency, planned outside
//! the firmware (Lumb, Schindler, Ganger, FAST 2002). A wrapper around any foreground
//! scheduler (SPTF, SSTF, SPTF-SW n, ...):
//!
//! - **Pipeline** ([`pipeline`]): exactly two commands at the drive. The inner scheduler
//!   plans each next foreground request B from the predicted end of the command ahead of it
//!   (A); the planner then fills the gap between A and B.
//! - **Planner** ([`planner`]): the greedy track search of the spec's §3.3. Free sectors on
//!   B's track are prepended to B (one merged command); a read on another track goes to the
//!   drive as its own command between A and B, and B waits in the host's dispatch queue
//!   until the drive has a slot.
//! - **Background task** ([`task`], [`wanted`]): a full-disk scan or a set of ranges, as a
//!   wanted-block bitmap; blocks leave it when a read of them is committed, so each is read
//!   once.
//! - **Idle-time service** (option, off by default as in the paper): when no foreground work
//!   is pending or outstanding, the background reads at full speed, one track-sized run at a
//!   time.
//!
//! Options (`[host.options]`): `c_fb_ms` (0.0: the freeblock seek conservatism),
//! `plan` (true; false gives the same pipeline without free reads, the paired baseline),
//! `max_tracks` (512: tracks examined per pair, anytime bound), `start_lbn` / `sectors`
//! (the region to scan; default the whole device), `idle_service` (false), `idle_chunk_sectors`
//! (the largest idle-time read, default 512), `allow_source_track` (false; reading on A's own
//! track, as the firmware could), `after_writes` (false: no free read next to a foreground
//! write, which the drive absorbs and writes back unseen), `plan_when_idle` (false: no free
//! read ahead of a request to an idle drive, whose read-ahead moves the head unseen),
//! `choose_early` (false), `free_slots` (false: free reads count against the two slots;
//! true: only foreground commands do, and the drive, `queue_depth = 4` with
//! `firmware_scheduler = "fcfs"`, holds the free reads between them, so the foreground is
//! chosen when it would be without free reads). The bus tail is the predictor's (`QueueModel::tail_ns`, learned
//! from completions), the same model the inner scheduler plans its pipeline with; a
//! predictor without a queue model gets the tail the wrapper measures (`tail.rs`).
//!
//! [TEAM CHOICE] the search examines at most `max_tracks` tracks per pair (512), counting
//! each examined track as one estimate of the host's decision-cost model; see
//! `docs/freeblock.md`.

mod measured;
mod pipeline;
mod tail;
pub mod task;

pub use crate::order::freeblock::{planner, wanted};

pub use pipeline::Freeblock;
