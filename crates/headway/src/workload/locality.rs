//! Where requests go: the spatial pattern of a synthetic workload.
//!
//! A `Placer` is shared by all the streams of a workload; each stream (the single stream of
//! an open workload, or each process of a closed one) keeps its own `Cursor`, so that one
//! process's sequential run is not broken by another's requests.

use rand::Rng;
use rand_distr::{Distribution, Exp1, StandardNormal};
use rand_pcg::Pcg64Mcg;
use serde::Deserialize;

use crate::error::{HeadwayError, Result};

/// `locality = { kind = "...", ... }`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum LocalityConfig {
    /// Every request starts at an independent, uniformly random aligned sector.
    #[default]
    Uniform,
    /// Runs of `run_length` requests, each starting where the previous one ended, then a
    /// new random start. Without `run_length`, one endless run. A run that reaches the end
    /// of the disk continues at sector 0.
    Sequential {
        #[serde(default)]
        run_length: Option<u64>,
    },
    /// Each request goes to region `i` with probability `regions[i].access_fraction`
    /// (uniformly inside it); the remaining accesses are uniform over the whole disk.
    Hot { regions: Vec<HotRegion> },
    /// DiskSim-style "local access": each request starts a random signed distance from where
    /// the previous one ended, with mean absolute distance `mean_distance_sectors`.
    Local {
        mean_distance_sectors: f64,
        #[serde(default)]
        distribution: LocalDistribution,
    },
}

/// One hot region, as fractions of the drive's capacity.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HotRegion {
    /// Where the region begins (0 = first sector, 1 = end of the disk).
    pub start_fraction: f64,
    /// How much of the disk it covers.
    pub size_fraction: f64,
    /// Fraction of all requests sent to it.
    pub access_fraction: f64,
}

/// The distribution of the signed distance of a `local` request.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LocalDistribution {
    /// Normal with mean 0, scaled so that E|distance| = `mean_distance_sectors`.
    #[default]
    Normal,
    /// |distance| exponential with mean `mean_distance_sectors`, sign equally likely.
    Exponential,
}

/// Per-stream position state.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cursor {
    /// One past the last sector of the stream's previous request.
    end_lbn: u64,
    /// Requests left in the current sequential run; 0 means "start a new run".
    run_left: u64,
    started: bool,
}

#[derive(Clone, Debug)]
struct Region {
    lo_lbn: u64,
    hi_lbn: u64,
    /// Cumulative access fraction up to and including this region.
    cum_access: f64,
}

#[derive(Clone, Debug)]
enum Model {
    Uniform,
    /// `u64::MAX` for an endless run.
    Sequential {
        run_length: u64,
    },
    Hot {
        regions: Vec<Region>,
    },
    /// `scale` turns a unit draw into sectors.
    Local {
        distribution: LocalDistribution,
        scale: f64,
    },
}

/// A validated locality model over one drive.
#[derive(Clone, Debug)]
pub(crate) struct Placer {
    model: Model,
    capacity_sectors: u64,
    align: u64,
}

const FRACTION_SLACK: f64 = 1e-9;

fn fraction(key: String, v: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(HeadwayError::config(
            key,
            format!("must be a fraction in [0, 1], got {v}"),
        ))
    }
}

impl Placer {
    /// `key` names the config key in errors (`workload.locality`). Request sizes must fit the
    /// drive; the size sampler guarantees it.
    pub fn new(
        cfg: &LocalityConfig,
        capacity_sectors: u64,
        align_sectors: u32,
        key: &str,
    ) -> Result<Self> {
        let model = match cfg {
            LocalityConfig::Uniform => Model::Uniform,
            LocalityConfig::Sequential { run_length } => match *run_length {
                Some(0) => {
                    return Err(HeadwayError::config(
                        format!("{key}.run_length"),
                        "must be at least 1 request (omit it for one endless run)",
                    ))
                }
                Some(n) => Model::Sequential { run_length: n },
                None => Model::Sequential {
                    run_length: u64::MAX,
                },
            },
            LocalityConfig::Hot { regions } => {
                let mut cum = 0.0;
                let mut out = Vec::with_capacity(regions.len());
                for (i, r) in regions.iter().enumerate() {
                    let k = |f: &str| format!("{key}.regions[{i}].{f}");
                    let start = fraction(k("start_fraction"), r.start_fraction)?;
                    let size = fraction(k("size_fraction"), r.size_fraction)?;
                    let access = fraction(k("access_fraction"), r.access_fraction)?;
                    if size == 0.0 {
                        return Err(HeadwayError::config(
                            k("size_fraction"),
                            "a hot region must cover some of the disk",
                        ));
                    }
                    if start + size > 1.0 + FRACTION_SLACK {
                        return Err(HeadwayError::config(
                            k("size_fraction"),
                            format!(
                                "the region runs past the end of the disk \
                                 (start_fraction + size_fraction = {})",
                                start + size
                            ),
                        ));
                    }
                    cum += access;
                    let lo_lbn = (start * capacity_sectors as f64) as u64;
                    let hi_lbn =
                        (((start + size) * capacity_sectors as f64) as u64).min(capacity_sectors);
                    out.push(Region {
                        lo_lbn,
                        hi_lbn,
                        cum_access: cum,
                    });
                }
                if cum > 1.0 + FRACTION_SLACK {
                    return Err(HeadwayError::config(
                        format!("{key}.regions"),
                        format!("access fractions sum to {cum}, more than 1"),
                    ));
                }
                Model::Hot { regions: out }
            }
            LocalityConfig::Local {
                mean_distance_sectors: d,
                distribution,
            } => {
                if !(*d > 0.0 && d.is_finite()) {
                    return Err(HeadwayError::config(
                        format!("{key}.mean_distance_sectors"),
                        format!("must be a positive number of sectors, got {d}"),
                    ));
                }
                let scale = match distribution {
                    // E|N(0, s)| = s * sqrt(2 / pi), so s = mean * sqrt(pi / 2).
                    LocalDistribution::Normal => d * (std::f64::consts::PI / 2.0).sqrt(),
                    LocalDistribution::Exponential => *d,
                };
                Model::Local {
                    distribution: *distribution,
                    scale,
                }
            }
        };
        Ok(Placer {
            model,
            capacity_sectors,
            align: align_sectors as u64,
        })
    }

    /// Choose where a request of `sectors` sectors starts, and move the cursor past it.
    /// The result always satisfies `start + sectors <= capacity` and `start % align == 0`.
    #[inline]
    pub(crate) fn place(&self, cur: &mut Cursor, sectors: u32, rng: &mut Pcg64Mcg) -> u64 {
        let size = sectors as u64;
        let start = match &self.model {
            Model::Uniform => self.random_in(0, self.capacity_sectors, size, rng),
            Model::Sequential { run_length } => {
                if !cur.started || cur.run_left == 0 {
                    cur.run_left = *run_length;
                    self.random_in(0, self.capacity_sectors, size, rng)
                } else if cur.end_lbn + size > self.capacity_sectors {
                    0
                } else {
                    cur.end_lbn
                }
            }
            Model::Hot { regions } => {
                let u: f64 = rng.random();
                match regions.iter().find(|r| u < r.cum_access) {
                    Some(r) => self.random_in(r.lo_lbn, r.hi_lbn, size, rng),
                    None => self.random_in(0, self.capacity_sectors, size, rng),
                }
            }
            Model::Local {
                distribution,
                scale,
            } => {
                if !cur.started {
                    self.random_in(0, self.capacity_sectors, size, rng)
                } else {
                    let unit: f64 = match distribution {
                        LocalDistribution::Normal => StandardNormal.sample(rng),
                        LocalDistribution::Exponential => {
                            let m: f64 = Exp1.sample(rng);
                            if rng.random::<bool>() {
                                m
                            } else {
                                -m
                            }
                        }
                    };
                    self.near(cur.end_lbn, unit * scale, size)
                }
            }
        };
        cur.started = true;
        cur.run_left = cur.run_left.saturating_sub(1);
        cur.end_lbn = start + size;
        start
    }

    /// A uniformly random aligned start with the whole request inside `[lo, hi)`; when the
    /// request is larger than that range, the aligned start nearest `lo` that fits the disk.
    #[inline]
    fn random_in(&self, lo: u64, hi: u64, size: u64, rng: &mut Pcg64Mcg) -> u64 {
        let first = lo.div_ceil(self.align);
        match hi.checked_sub(size) {
            Some(last_start) if last_start / self.align >= first => {
                rng.random_range(first..=last_start / self.align) * self.align
            }
            _ => self.clamp(lo as f64, size),
        }
    }

    /// `from + offset`, reflected off the ends of the disk, aligned and clamped to fit.
    #[inline]
    fn near(&self, from: u64, offset: f64, size: u64) -> u64 {
        let last = (self.capacity_sectors - size) as f64;
        let mut t = from as f64 + offset;
        if t < 0.0 {
            t = -t;
        }
        if t > last {
            t = 2.0 * last - t;
        }
        self.clamp(t, size)
    }

    /// Nearest aligned start at or below `t` such that the request fits the disk.
    #[inline]
    fn clamp(&self, t: f64, size: u64) -> u64 {
        let last = self.capacity_sectors - size;
        // `as` saturates: negatives become 0 and huge values u64::MAX.
        let s = (t as u64).min(last);
        s / self.align * self.align
    }
}
