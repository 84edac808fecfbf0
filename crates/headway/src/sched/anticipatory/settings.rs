//! `[host.options]` of the `anticipatory` wrapper, with the spec's [TEAM CHOICE] defaults
//! (see `docs/anticipatory.md`).

use super::heuristic::Clauses;
use super::stats::StatsConfig;
use crate::error::Result;
use crate::sched::OptionReader;
use crate::time::{SimTime, NS_PER_MS, NS_PER_US};

/// Which rule decides whether to keep the disk idle for the last process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeuristicKind {
    /// The paper's SPTF cost-benefit test, with the aged and C-SCAN clauses where the
    /// wrapped scheduler needs them.
    CostBenefit,
    /// Linux 2.6's as-iosched: wait `antic_expire` after a synchronous read unless the
    /// process's mean thinktime exceeds it or the candidate is close.
    LinuxAs,
    /// CFQ's `slice_idle`: a fixed idle window after every synchronous read.
    SliceIdle,
    /// The paper's proportional-share heuristic for a stride scheduler: wait for LP iff its
    /// median thinktime is short and its virtual clock is below every pending process's.
    Stride,
    /// Relaxed stride plus the SPTF heuristic, with the paper's two corrections.
    Combination,
    /// Never wait (the wrapper is then transparent: the "without anticipation" runs).
    Off,
}

/// Thinktime buckets per process, at most.
pub const MAX_BUCKETS: f64 = 100_000.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub heuristic: HeuristicKind,
    pub stats: StatsConfig,
    /// Samples a process needs before the core waits for it.
    pub min_samples: u64,
    /// Honour the workload's large-read flag: later chunks of one large read are not
    /// thinktime (or seek) samples (`large_read_flag`, default true).
    pub large_read_flag: bool,
    /// Adversary mitigation: no waiting for a process whose timeout-expiry rate is above
    /// this (`max_expiry_rate`, default 1: never cut off, the paper's heuristic as is).
    pub max_expiry_rate: f64,
    /// An armed timeout fires at the next multiple of this (0: exactly).
    pub granularity_ns: SimTime,
    pub clauses: Clauses,
    pub antic_expire_ns: SimTime,
    pub slice_idle_ns: SimTime,
    /// Proportional share: longest median thinktime worth waiting for.
    pub think_threshold_ns: SimTime,
    /// R_v of the combination heuristic, in virtual-clock units (ns of service per share).
    pub relax_vc: f64,
}

impl Settings {
    /// `inner`: the wrapped scheduler's name, which selects the clauses by default.
    pub fn from_options(o: &OptionReader, inner: &str) -> Result<Self> {
        let heuristic = match o.choice(
            "heuristic",
            &[
                "cost-benefit",
                "linux-as",
                "slice-idle",
                "stride",
                "combination",
                "off",
            ],
        )? {
            "cost-benefit" => HeuristicKind::CostBenefit,
            "linux-as" => HeuristicKind::LinuxAs,
            "slice-idle" => HeuristicKind::SliceIdle,
            "stride" => HeuristicKind::Stride,
            "combination" => HeuristicKind::Combination,
            _ => HeuristicKind::Off,
        };
        let range_ms = o.f64("histogram_range_ms", 10.0, 0.0, 1e6)?;
        let bucket_us = o.f64("bucket_us", 100.0, 1.0, 1e9)?;
        if range_ms * 1000.0 < bucket_us {
            return Err(o.error(
                "histogram_range_ms",
                format!(
                    "the thinktime histogram range ({range_ms} ms) is smaller than one bucket \
                     (bucket_us = {bucket_us})"
                ),
            ));
        }
        // Every process holds one histogram: bound its size so a typo cannot exhaust memory.
        if range_ms * 1000.0 / bucket_us > MAX_BUCKETS {
            return Err(o.error(
                "bucket_us",
                format!(
                    "{range_ms} ms in buckets of {bucket_us} µs is more than {MAX_BUCKETS} buckets \
                     per process; use wider buckets"
                ),
            ));
        }
        let decay = o.f64("decay", 0.9, f64::MIN, f64::MAX)?;
        if !(decay > 0.0 && decay <= 1.0) {
            return Err(o.error(
                "decay",
                format!("the histogram decay must be above 0 and at most 1, got {decay}"),
            ));
        }
        let seek_weight = o.f64("seek_weight", 0.25, f64::MIN, f64::MAX)?;
        if !(seek_weight > 0.0 && seek_weight <= 1.0) {
            return Err(o.error(
                "seek_weight",
                format!("the weight of a new seek sample must be above 0 and at most 1, got {seek_weight}"),
            ));
        }
        let cscan_like = matches!(inner, "cscan" | "clook" | "clook-lbn");
        Ok(Settings {
            heuristic,
            stats: StatsConfig {
                range_ns: (range_ms * NS_PER_MS as f64).round() as SimTime,
                bucket_ns: (bucket_us * NS_PER_US as f64).round() as SimTime,
                decay,
                seek_weight,
            },
            min_samples: o.u64("min_samples", 3, 0, 1 << 20)?,
            large_read_flag: o.bool("large_read_flag", true)?,
            max_expiry_rate: o.f64("max_expiry_rate", 1.0, 0.0, 1.0)?,
            granularity_ns: (o.f64("timer_granularity_us", 0.0, 0.0, 1e7)? * NS_PER_US as f64)
                .round() as SimTime,
            clauses: Clauses {
                aged: o.bool("aged_clause", inner == "aged-sptf")?,
                cscan: o.bool("cscan_clause", cscan_like)?,
            },
            antic_expire_ns: (o.f64("antic_expire_ms", 6.0, 0.0, 1e4)? * NS_PER_MS as f64).round()
                as SimTime,
            slice_idle_ns: (o.f64("slice_idle_ms", 8.0, 0.0, 1e4)? * NS_PER_MS as f64).round()
                as SimTime,
            think_threshold_ns: (o.f64("think_threshold_ms", 3.0, 0.0, 1e4)? * NS_PER_MS as f64)
                .round() as SimTime,
            relax_vc: o.f64("relax_ms", 1000.0, 0.0, 1e9)? * NS_PER_MS as f64,
        })
    }
}
