//! Synthetic desktop traces, the stand-ins for the paper's Eng, WinPC and Mac traces
//! (spec section 5, [TEAM CHOICE]): ON/OFF bursts of a few to tens of requests at 1-10 ms
//! spacing, heavy-tailed idle gaps (log-normal, median about 1 s), 4-64 KiB requests, and an
//! LBA pattern with a large mass of near (< 1 MiB) moves, write "bands" (a few distant
//! regions revisited often: journal, metadata) and a flat remainder across the disk.

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, LogNormal};
use rand_pcg::Pcg64;
use serde::Serialize;

use super::replay::Io;
use crate::request::Op;

#[derive(Clone, Debug, Serialize)]
pub struct DesktopParams {
    pub name: &'static str,
    pub requests: usize,
    pub write_fraction: f64,
    /// Mean requests per burst (geometric).
    pub burst_mean: f64,
    /// Median idle gap between bursts, s, and the log-normal sigma (tail weight).
    pub idle_median_s: f64,
    pub idle_sigma: f64,
    /// Probability the next request continues sequentially / lands within 1 MiB.
    pub p_sequential: f64,
    pub p_near: f64,
    /// Probability a write goes to one of the bands.
    pub p_band: f64,
    pub bands: usize,
    /// Part of the disk the workload touches (the file system's used space), sectors.
    pub span_sectors: u64,
    pub seed: u64,
}

impl DesktopParams {
    /// Linux engineering workstation stand-in: write-heavy bursts with a journal band.
    pub fn eng(requests: usize) -> Self {
        DesktopParams {
            name: "eng",
            requests,
            write_fraction: 0.7,
            burst_mean: 12.0,
            idle_median_s: 1.0,
            idle_sigma: 2.0,
            p_sequential: 0.3,
            p_near: 0.25,
            p_band: 0.35,
            bands: 3,
            span_sectors: 40_000_000,
            seed: 11,
        }
    }
    /// Windows XP desktop stand-in: more random, shorter idle gaps, many bands.
    pub(crate) fn winpc(requests: usize) -> Self {
        DesktopParams {
            name: "winpc",
            requests,
            write_fraction: 0.55,
            burst_mean: 30.0,
            idle_median_s: 0.3,
            idle_sigma: 1.5,
            p_sequential: 0.2,
            p_near: 0.2,
            p_band: 0.2,
            bands: 12,
            span_sectors: 70_000_000,
            seed: 12,
        }
    }
    /// Mac OS X laptop stand-in: long bursts, widely spread writes.
    pub(crate) fn mac(requests: usize) -> Self {
        DesktopParams {
            name: "mac",
            requests,
            write_fraction: 0.6,
            burst_mean: 40.0,
            idle_median_s: 0.5,
            idle_sigma: 1.5,
            p_sequential: 0.25,
            p_near: 0.15,
            p_band: 0.15,
            bands: 8,
            span_sectors: 60_000_000,
            seed: 13,
        }
    }
}

const SIZES_KIB: [u64; 5] = [4, 8, 16, 32, 64];
const SIZE_WEIGHTS: [f64; 5] = [0.45, 0.2, 0.15, 0.1, 0.1];

/// Generate the trace (sorted by time, deterministic in the parameters).
pub fn generate(p: &DesktopParams) -> Vec<Io> {
    let mut rng = Pcg64::seed_from_u64(p.seed);
    let idle = LogNormal::new((p.idle_median_s * 1e9).ln(), p.idle_sigma).expect("valid");
    let bands: Vec<u64> = (0..p.bands)
        .map(|_| rng.random_range(0..p.span_sectors))
        .collect();
    let mut out = Vec::with_capacity(p.requests);
    let mut t: u64 = 0;
    let mut last_end: u64 = rng.random_range(0..p.span_sectors);
    let mut left_in_burst = 0u64;
    while out.len() < p.requests {
        if left_in_burst == 0 {
            t += idle.sample(&mut rng).min(3_600e9) as u64;
            // Geometric burst length with the given mean.
            let q = 1.0 / p.burst_mean;
            let mut n = 1;
            while !rng.random_bool(q) && n < 1000 {
                n += 1;
            }
            left_in_burst = n;
        } else {
            t += rng.random_range(1_000_000..10_000_000);
        }
        left_in_burst -= 1;
        let op = if rng.random_bool(p.write_fraction) {
            Op::Write
        } else {
            Op::Read
        };
        let mut u: f64 = rng.random();
        let mut kib = SIZES_KIB[0];
        for (s, w) in SIZES_KIB.iter().zip(SIZE_WEIGHTS) {
            if u < w {
                kib = *s;
                break;
            }
            u -= w;
        }
        let sectors = kib * 2;
        let x: f64 = rng.random();
        let lbn = if x < p.p_sequential {
            last_end
        } else if x < p.p_sequential + p.p_near {
            let d = rng.random_range(0..2048u64);
            if rng.random_bool(0.5) {
                last_end + d
            } else {
                last_end.saturating_sub(d + sectors)
            }
        } else if op == Op::Write && !bands.is_empty() && rng.random_bool(p.p_band) {
            bands[rng.random_range(0..bands.len())] + rng.random_range(0..512u64) / 8 * 8
        } else {
            rng.random_range(0..p.span_sectors)
        };
        let lbn = lbn.min(p.span_sectors - sectors);
        last_end = lbn + sectors;
        out.push(Io {
            time_ns: t,
            lbn,
            sectors: sectors as u32,
            op,
        });
    }
    out
}
