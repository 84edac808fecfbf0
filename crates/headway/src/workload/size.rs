//! Request sizes. Every size a synthetic workload draws is a whole number of alignment
//! units, so that sequential runs stay aligned and a request never straddles an alignment
//! boundary the user asked to respect.

use rand::Rng;
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;
use serde::Deserialize;

use crate::error::{HeadwayError, Result};

/// A size distribution, written `size = { kind = "...", ... }` (sectors of 512 bytes).
/// `size_sectors = N` is shorthand for `{ kind = "fixed", sectors = N }`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum SizeConfig {
    /// Every request has `sectors` sectors (a multiple of `align_sectors`).
    Fixed { sectors: u32 },
    /// Uniform over the multiples of `align_sectors` in `[min_sectors, max_sectors]`.
    Uniform { min_sectors: u32, max_sectors: u32 },
    /// Exponential with mean `mean_sectors`, rounded up to a multiple of `align_sectors`
    /// (so the realised mean is about `align_sectors / 2` above `mean_sectors`), and capped
    /// at `max_sectors` (default: the drive's capacity).
    Exponential {
        mean_sectors: f64,
        #[serde(default)]
        max_sectors: Option<u32>,
    },
}

/// A validated size distribution, ready to draw from.
#[derive(Clone, Debug)]
pub(crate) enum SizeSampler {
    Fixed(u32),
    Uniform {
        min_units: u32,
        max_units: u32,
        align: u32,
    },
    Exponential {
        exp: Exp<f64>,
        align: u32,
        max_units: u32,
    },
}

impl SizeSampler {
    /// Every request `sectors` long; `key` names the setting in errors.
    pub(crate) fn fixed(
        sectors: u32,
        align_sectors: u32,
        capacity_sectors: u64,
        key: &str,
    ) -> Result<Self> {
        if sectors == 0 {
            return Err(HeadwayError::config(key, "must be at least 1 sector"));
        }
        // `%`, not `is_multiple_of`: the workspace's rust-version (1.85) predates it.
        #[allow(clippy::manual_is_multiple_of)]
        if sectors % align_sectors != 0 {
            return Err(HeadwayError::config(
                key,
                format!(
                    "{sectors} sectors is not a multiple of align_sectors = {align_sectors} \
                     (set align_sectors to a divisor of the size, e.g. 1)"
                ),
            ));
        }
        if sectors as u64 > capacity_sectors {
            return Err(HeadwayError::config(
                key,
                format!("{sectors} sectors does not fit the drive ({capacity_sectors} sectors)"),
            ));
        }
        Ok(SizeSampler::Fixed(sectors))
    }

    /// `key` names the distribution's table in errors (`workload.size`).
    pub fn new(
        cfg: &SizeConfig,
        align_sectors: u32,
        capacity_sectors: u64,
        key: &str,
    ) -> Result<Self> {
        let align = align_sectors;
        debug_assert!(align >= 1, "align_sectors is validated before sizes");
        // The largest whole number of units that fits both the disk and a u32 sector count.
        let cap_units = (capacity_sectors.min(u32::MAX as u64) / align as u64) as u32;
        let too_big = |field: &str, sectors: u64| {
            HeadwayError::config(
                format!("{key}{field}"),
                format!("{sectors} sectors does not fit the drive ({capacity_sectors} sectors)"),
            )
        };
        match *cfg {
            SizeConfig::Fixed { sectors } => {
                Self::fixed(sectors, align, capacity_sectors, &format!("{key}.sectors"))
            }
            SizeConfig::Uniform {
                min_sectors,
                max_sectors,
            } => {
                if min_sectors == 0 {
                    return Err(HeadwayError::config(
                        format!("{key}.min_sectors"),
                        "must be at least 1 sector",
                    ));
                }
                if max_sectors < min_sectors {
                    return Err(HeadwayError::config(
                        format!("{key}.max_sectors"),
                        format!("{max_sectors} is below min_sectors = {min_sectors}"),
                    ));
                }
                if max_sectors as u64 > capacity_sectors {
                    return Err(too_big(".max_sectors", max_sectors as u64));
                }
                let min_units = min_sectors.div_ceil(align);
                let max_units = max_sectors / align;
                if min_units > max_units {
                    return Err(HeadwayError::config(
                        format!("{key}.max_sectors"),
                        format!(
                            "no multiple of align_sectors = {align} lies between \
                             {min_sectors} and {max_sectors} sectors"
                        ),
                    ));
                }
                Ok(SizeSampler::Uniform {
                    min_units,
                    max_units,
                    align,
                })
            }
            SizeConfig::Exponential {
                mean_sectors,
                max_sectors,
            } => {
                if !(mean_sectors > 0.0 && mean_sectors.is_finite()) {
                    return Err(HeadwayError::config(
                        format!("{key}.mean_sectors"),
                        format!("must be a positive number of sectors, got {mean_sectors}"),
                    ));
                }
                if mean_sectors > capacity_sectors as f64 {
                    return Err(too_big(".mean_sectors", mean_sectors.ceil() as u64));
                }
                let max_units = match max_sectors {
                    None => cap_units,
                    Some(m) => {
                        if m as u64 > capacity_sectors {
                            return Err(too_big(".max_sectors", m as u64));
                        }
                        if m < align {
                            return Err(HeadwayError::config(
                                format!("{key}.max_sectors"),
                                format!("{m} is below align_sectors = {align}"),
                            ));
                        }
                        m / align
                    }
                };
                if max_units == 0 {
                    return Err(too_big("", align as u64));
                }
                Ok(SizeSampler::Exponential {
                    // Exp::new only fails for a negative or NaN rate, excluded above.
                    exp: Exp::new(1.0 / mean_sectors).map_err(|e| {
                        HeadwayError::config(format!("{key}.mean_sectors"), e.to_string())
                    })?,
                    align,
                    max_units,
                })
            }
        }
    }

    #[inline]
    pub(crate) fn sample(&self, rng: &mut Pcg64Mcg) -> u32 {
        match *self {
            SizeSampler::Fixed(s) => s,
            SizeSampler::Uniform {
                min_units,
                max_units,
                align,
            } => rng.random_range(min_units..=max_units) * align,
            SizeSampler::Exponential {
                ref exp,
                align,
                max_units,
            } => {
                let x = exp.sample(rng);
                // `as` saturates, so an enormous draw lands on the cap rather than wrapping.
                let units = ((x / align as f64).ceil() as u32).clamp(1, max_units);
                units * align
            }
        }
    }

    /// The largest size this sampler can draw.
    pub(crate) fn max_sectors(&self) -> u32 {
        match *self {
            SizeSampler::Fixed(s) => s,
            SizeSampler::Uniform {
                max_units, align, ..
            }
            | SizeSampler::Exponential {
                max_units, align, ..
            } => max_units * align,
        }
    }
}
