//! The adaptive adversary (spec experiment 5 as the paper ran it): two readers, each issuing
//! N rapid reads and then pausing just past the timeout the anticipation core has set for it
//! (`burst_pause_over_ms`: the reader mirrors the core's thinktime histogram of itself), so
//! every timeout the core arms after a burst expires. Swept over N with sequential reads
//! (`adversary-adaptive`, each burst a run of nearby pages anticipation can win on) and with
//! random reads within the file (`adversary-adaptive-random`, where the rapid reads gain
//! little), and over the timer granularity on the random adversary at one N (spec experiment
//! 8 where timeouts do expire: a coarse timer fires late, so the pause ends inside the
//! rounded-up timeout).

use serde::Serialize;

use super::options::{ReproduceOptions, CAPPED, HEURISTICS};
use super::runs::{config, fixed, run, two, SweepRow};
use crate::error::Result;

/// Rows of the `adversary-adaptive` and `adversary-adaptive-random` sweeps (x: N) and the
/// `granularity-adversary` sweep (x: timer granularity, µs).
pub(super) fn sweeps(
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<Vec<SweepRow>> {
    let mut rows = vec![];
    let capped = format!("max_expiry_rate = {:?}", o.max_expiry_rate);
    let mut point = |sweep: &str, x: f64, n: u64, label: &str, h: &str, extra: &str| {
        progress(&format!("{sweep} x={x} {label}"))?;
        let pattern = if sweep == "adversary-adaptive" {
            "seq"
        } else {
            "random"
        };
        let mut readers = two(pattern, "mmap", fixed(0.0), fixed(0.0));
        for r in &mut readers {
            r.extra = format!(
                "burst = {n}\nburst_pause_over_ms = {:?}",
                o.adversary_over_ms
            );
        }
        let s = run(&config(&o.drive, "aged-sptf", h, extra, &readers, o))?;
        rows.push(SweepRow {
            sweep: sweep.into(),
            x,
            heuristic: label.into(),
            throughput_mb_s: s.throughput_mb_s,
            utilisation: s.utilisation,
        });
        Ok::<_, crate::error::HeadwayError>(())
    };
    for sweep in ["adversary-adaptive", "adversary-adaptive-random"] {
        for &n in &o.bursts {
            for &h in HEURISTICS {
                point(sweep, n as f64, n, h, h, "")?;
            }
            point(sweep, n as f64, n, CAPPED, "cost-benefit", &capped)?;
        }
    }
    for &g in &o.granularities_us {
        let timer = format!("timer_granularity_us = {g:?}");
        for h in ["off", "cost-benefit"] {
            point(
                "granularity-adversary",
                g,
                o.granularity_burst,
                h,
                h,
                &timer,
            )?;
        }
    }
    Ok(rows)
}

/// The adaptive adversary's headline: throughput lost with the paper's heuristic (1 − with /
/// without; negative: a gain), mean and worst over N for the sequential and the random
/// adversary, the random one's worst with the expiry-rate cap, and the random adversary's
/// loss at the timer-granularity sweep's finest and coarsest timers.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AdversaryHeadline {
    pub adaptive_adversary_slowdown: f64,
    pub adaptive_adversary_worst_slowdown: f64,
    pub adaptive_adversary_random_slowdown: f64,
    pub adaptive_adversary_random_worst_slowdown: f64,
    pub adaptive_adversary_random_worst_slowdown_capped: f64,
    pub granularity_adversary_slowdown_finest: f64,
    pub granularity_adversary_slowdown_coarsest: f64,
}

pub(super) fn headline(sweeps: &[SweepRow], o: &ReproduceOptions) -> AdversaryHeadline {
    let loss = |sweep: &str, x: f64, h: &str| {
        let at = |h: &str| {
            sweeps
                .iter()
                .find(|r| r.sweep == sweep && r.x == x && r.heuristic == h)
                .map_or(f64::NAN, |r| r.throughput_mb_s)
        };
        1.0 - at(h) / at("off")
    };
    let over_n = |sweep: &str, h: &str| -> Vec<f64> {
        o.bursts.iter().map(|&n| loss(sweep, n as f64, h)).collect()
    };
    let worst = |v: &[f64]| v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let seq = over_n("adversary-adaptive", "cost-benefit");
    let random = over_n("adversary-adaptive-random", "cost-benefit");
    let timer = |g: Option<&f64>| {
        g.map_or(f64::NAN, |&g| {
            loss("granularity-adversary", g, "cost-benefit")
        })
    };
    AdversaryHeadline {
        adaptive_adversary_slowdown: mean(&seq),
        adaptive_adversary_worst_slowdown: worst(&seq),
        adaptive_adversary_random_slowdown: mean(&random),
        adaptive_adversary_random_worst_slowdown: worst(&random),
        adaptive_adversary_random_worst_slowdown_capped: worst(&over_n(
            "adversary-adaptive-random",
            CAPPED,
        )),
        granularity_adversary_slowdown_finest: timer(o.granularities_us.first()),
        granularity_adversary_slowdown_coarsest: timer(o.granularities_us.last()),
    }
}
