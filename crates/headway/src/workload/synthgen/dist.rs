//! The five distributions of DiskSim's synthetic generator, with the parameter meanings of
//! its manual: `[uniform, min, max]`, `[normal, mean, variance]`, `[exponential, base,
//! mean]` (base plus an exponential of that mean), `[poisson, base, mean]` and `[twovalue,
//! default, second, probability of second]`.

use rand::Rng;

/// One distribution as a generator's parameter gives it; values in the parameter's unit
/// (ms for times, sectors for sizes and distances).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SynthDist {
    Uniform {
        min: f64,
        max: f64,
    },
    Normal {
        mean: f64,
        variance: f64,
    },
    Exponential {
        base: f64,
        mean: f64,
    },
    Poisson {
        base: f64,
        mean: f64,
    },
    TwoValue {
        default: f64,
        second: f64,
        probability: f64,
    },
}

/// Poisson draws count uniforms until their product falls below `exp(-mean)`: a mean above
/// this would take that many draws per sample.
pub const MAX_POISSON_MEAN: f64 = 1e6;

impl SynthDist {
    /// The distribution `name` with its parameters, or why not.
    pub fn new(name: &str, p: &[f64]) -> std::result::Result<Self, String> {
        let need = if name == "twovalue" { 3 } else { 2 };
        if p.len() != need {
            return Err(format!(
                "`{name}` takes {need} numbers after its name, got {}",
                p.len()
            ));
        }
        if p.iter().any(|v| !v.is_finite()) {
            return Err("the parameters must be finite numbers".into());
        }
        Ok(match name {
            "uniform" => SynthDist::Uniform {
                min: p[0],
                max: p[1],
            },
            "normal" => SynthDist::Normal {
                mean: p[0],
                variance: p[1],
            },
            "exponential" => SynthDist::Exponential {
                base: p[0],
                mean: p[1],
            },
            "poisson" => {
                if !(0.0..=MAX_POISSON_MEAN).contains(&p[1]) {
                    return Err(format!(
                        "a poisson mean must lie in [0, {MAX_POISSON_MEAN:e}], got {}",
                        p[1]
                    ));
                }
                SynthDist::Poisson {
                    base: p[0],
                    mean: p[1],
                }
            }
            "twovalue" => SynthDist::TwoValue {
                default: p[0],
                second: p[1],
                probability: p[2],
            },
            other => {
                return Err(format!(
                    "unknown distribution `{other}` (uniform, normal, exponential, poisson, \
                     twovalue)"
                ))
            }
        })
    }

    /// One sample.
    pub fn sample<R: Rng>(&self, rng: &mut R) -> f64 {
        match *self {
            SynthDist::Uniform { min, max } => min + (max - min) * rng.random::<f64>(),
            // DiskSim's normal takes the scale parameter as given (its manual calls it the
            // variance): the sample is mean + variance * z for a standard normal z.
            SynthDist::Normal { mean, variance } => mean + variance * standard_normal(rng),
            SynthDist::Exponential { base, mean } => base - mean * (1.0 - rng.random::<f64>()).ln(),
            SynthDist::Poisson { base, mean } => {
                let stop = (-mean).exp();
                let mut product = 1.0;
                let mut count = 0u64;
                while product >= stop {
                    product *= rng.random::<f64>();
                    count += 1;
                }
                base + count.saturating_sub(1) as f64
            }
            SynthDist::TwoValue {
                default,
                second,
                probability,
            } => {
                if rng.random::<f64>() < probability {
                    second
                } else {
                    default
                }
            }
        }
    }

    /// Whether every sample is certainly negative (a time or size that can never be drawn).
    pub fn never_positive(&self) -> bool {
        match *self {
            SynthDist::Uniform { min, max } => min.max(max) <= 0.0,
            SynthDist::Normal { variance, mean } => variance == 0.0 && mean <= 0.0,
            SynthDist::Exponential { base, mean } => base <= 0.0 && mean <= 0.0,
            SynthDist::Poisson { base, mean } => base <= 0.0 && mean == 0.0,
            SynthDist::TwoValue {
                default,
                second,
                probability,
            } => (default <= 0.0 || probability >= 1.0) && (second <= 0.0 || probability <= 0.0),
        }
    }
}

/// A standard normal sample (Box-Muller).
fn standard_normal<R: Rng>(rng: &mut R) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn mean_of(d: SynthDist) -> f64 {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        (0..200_000).map(|_| d.sample(&mut rng)).sum::<f64>() / 200_000.0
    }

    #[test]
    fn means_match_the_parameters() {
        let close = |a: f64, b: f64| (a - b).abs() < 0.02 * b.abs().max(1.0);
        assert!(close(
            mean_of(SynthDist::new("uniform", &[2.0, 6.0]).unwrap()),
            4.0
        ));
        assert!(close(
            mean_of(SynthDist::new("normal", &[30.0, 10.0]).unwrap()),
            30.0
        ));
        assert!(close(
            mean_of(SynthDist::new("exponential", &[1.0, 25.0]).unwrap()),
            26.0
        ));
        assert!(close(
            mean_of(SynthDist::new("poisson", &[2.0, 5.0]).unwrap()),
            7.0
        ));
        // 8 with probability 0.25, else 4: mean 5.
        assert!(close(
            mean_of(SynthDist::new("twovalue", &[4.0, 8.0, 0.25]).unwrap()),
            5.0
        ));
    }

    #[test]
    fn bad_parameters_are_refused_with_the_reason() {
        assert!(SynthDist::new("weibull", &[1.0, 2.0])
            .unwrap_err()
            .contains("unknown"));
        assert!(SynthDist::new("twovalue", &[1.0, 2.0])
            .unwrap_err()
            .contains("3 numbers"));
        assert!(SynthDist::new("poisson", &[0.0, 1e9])
            .unwrap_err()
            .contains("poisson mean"));
        assert!(SynthDist::new("normal", &[f64::NAN, 1.0])
            .unwrap_err()
            .contains("finite"));
    }

    #[test]
    fn never_positive_spots_a_distribution_that_cannot_draw_a_time() {
        assert!(SynthDist::new("normal", &[0.0, 0.0])
            .unwrap()
            .never_positive());
        assert!(!SynthDist::new("exponential", &[0.0, 25.0])
            .unwrap()
            .never_positive());
    }
}
