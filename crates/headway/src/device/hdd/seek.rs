//! Seek time as a function of cylinder distance, precomputed densely so that the hot path
//! is one array load.

use super::spec::SeekSpec;
use crate::error::{HeadwayError, Result};
use crate::time::{ms_to_ns, SimTime};

#[derive(Clone, Debug)]
pub struct SeekCurve {
    /// `ns[d]` = seek time for a distance of `d` cylinders; `ns[0] = 0`. Read at a random
    /// index every command, so its footprint is cache misses: 4 bytes an entry, as every
    /// seek must be under 2^32 ns (4.29 s; `new` refuses a curve that is not).
    ns: Box<[u32]>,
}

impl SeekCurve {
    /// Tabulate `spec` for every distance 0..cylinders.
    pub fn new(spec: &SeekSpec, cylinders: u32) -> Result<Self> {
        let bad = |msg: String| HeadwayError::params(None, None, Some("seek".into()), msg);
        let n = cylinders.max(1) as usize;
        let mut ns = vec![0; n];
        match spec {
            SeekSpec::Table { points } => {
                if points.is_empty() {
                    return Err(bad("seek table has no points".into()));
                }
                if points.windows(2).any(|w| w[1].0 <= w[0].0) {
                    return Err(bad("seek table distances must increase strictly".into()));
                }
                if points.iter().any(|p| !(p.1.is_finite() && p.1 >= 0.0)) {
                    return Err(bad("seek times must be finite and non-negative".into()));
                }
                // Linear interpolation between measured points; from 0 (cost 0) to the first
                // point; linear extrapolation from the last two points past the end.
                for (d, slot) in ns.iter_mut().enumerate().skip(1) {
                    let d = d as u32;
                    let i = points.partition_point(|p| p.0 < d);
                    let ms = if i < points.len() && points[i].0 == d {
                        points[i].1
                    } else if i == 0 {
                        points[0].1 * d as f64 / points[0].0 as f64
                    } else if i == points.len() {
                        if points.len() >= 2 {
                            let (a, b) = (points[i - 2], points[i - 1]);
                            b.1 + (b.1 - a.1) * (d - b.0) as f64 / (b.0 - a.0) as f64
                        } else {
                            points[0].1
                        }
                    } else {
                        let (a, b) = (points[i - 1], points[i]);
                        a.1 + (b.1 - a.1) * (d - a.0) as f64 / (b.0 - a.0) as f64
                    };
                    *slot = ms_to_ns(ms);
                }
            }
            SeekSpec::SqrtLinear {
                threshold,
                c1_ms,
                c2_ms,
                c3_ms,
                c4_ms,
                first_ms,
            } => {
                for (d, slot) in ns.iter_mut().enumerate().skip(1) {
                    let ms = if d <= first_ms.len() {
                        first_ms[d - 1]
                    } else if d as u32 <= *threshold {
                        c1_ms + c2_ms * (d as f64).sqrt()
                    } else {
                        c3_ms + c4_ms * d as f64
                    };
                    *slot = ms_to_ns(ms);
                }
            }
            SeekSpec::Poly { a_ms, b_ms, c_ms } => {
                for (d, slot) in ns.iter_mut().enumerate().skip(1) {
                    *slot = ms_to_ns(a_ms + b_ms * (d as f64).sqrt() + c_ms * d as f64);
                }
            }
            SeekSpec::Hpl { values } => {
                let [v1, v2, v3, v4, v5, v6] = *values;
                for (d, slot) in ns.iter_mut().enumerate().skip(1) {
                    let df = d as f64;
                    let ms = if d == 1 && v6 > 0.0 {
                        v6
                    } else if df < v1 {
                        v2 + v3 * df.sqrt()
                    } else {
                        v4 + v5 * df
                    };
                    *slot = ms_to_ns(ms);
                }
            }
        }
        if let Some((d, &t)) = ns
            .iter()
            .enumerate()
            .find(|(_, &t)| t > u32::MAX as SimTime)
        {
            return Err(bad(format!(
                "seek time {:.3} ms at a distance of {d} cylinders is over {:.3} ms, the longest \
                 seek a drive may have",
                t as f64 / 1e6,
                u32::MAX as f64 / 1e6
            )));
        }
        Ok(SeekCurve {
            ns: ns.into_iter().map(|t| t as u32).collect(),
        })
    }

    /// Seek time for a distance of `d` cylinders.
    #[inline]
    pub fn seek_ns(&self, d: u32) -> SimTime {
        // Distances beyond the table (never produced by a consistent drive) cost a full stroke.
        *self
            .ns
            .get(d as usize)
            .unwrap_or_else(|| self.ns.last().unwrap()) as SimTime
    }

    pub(crate) fn max_distance(&self) -> u32 {
        (self.ns.len() - 1) as u32
    }

    /// Mean seek time over uniformly random (source, destination) cylinder pairs, the usual
    /// "average seek" figure: distance d occurs with weight 2(N-d)/N^2 for d >= 1, 1/N for 0.
    pub(crate) fn mean_random_ns(&self) -> f64 {
        let n = self.ns.len() as f64;
        let mut sum = 0.0;
        for (d, &t) in self.ns.iter().enumerate().skip(1) {
            sum += 2.0 * (n - d as f64) * t as f64;
        }
        sum / (n * n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_interpolates_between_points() {
        let spec = SeekSpec::Table {
            points: vec![(1, 1.0), (3, 2.0), (10, 9.0)],
        };
        let c = SeekCurve::new(&spec, 20).unwrap();
        assert_eq!(c.seek_ns(0), 0);
        assert_eq!(c.seek_ns(1), 1_000_000);
        assert_eq!(c.seek_ns(2), 1_500_000);
        assert_eq!(c.seek_ns(3), 2_000_000);
        assert_eq!(c.seek_ns(5), 4_000_000);
        assert_eq!(c.seek_ns(10), 9_000_000);
    }

    #[test]
    fn seeks_past_u32_ns_are_refused_by_name() {
        // 5 s at 2 cylinders: past 2^32 ns, which the 4-byte table cannot hold.
        let spec = SeekSpec::Table {
            points: vec![(1, 1.0), (2, 5000.0)],
        };
        let err = SeekCurve::new(&spec, 20).unwrap_err().to_string();
        assert!(err.contains("seek") && err.contains("5000.000 ms"), "{err}");
        assert!(err.contains("distance of 2 cylinders"), "{err}");
        let ok = SeekCurve::new(
            &SeekSpec::Table {
                points: vec![(1, 1.0), (10, 4294.0)],
            },
            11,
        )
        .unwrap();
        assert_eq!(ok.seek_ns(10), 4_294_000_000);
        assert_eq!(ok.seek_ns(1000), ok.seek_ns(10));
    }

    #[test]
    fn sqrt_linear_matches_formula_and_first_values() {
        let spec = SeekSpec::SqrtLinear {
            threshold: 400,
            c1_ms: 3.82872,
            c2_ms: 0.3114,
            c3_ms: 7.2441,
            c4_ms: 0.00756,
            first_ms: vec![1.248, 2.782],
        };
        let c = SeekCurve::new(&spec, 2098).unwrap();
        assert_eq!(c.seek_ns(1), 1_248_000);
        assert_eq!(c.seek_ns(2), 2_782_000);
        assert_eq!(c.seek_ns(100), ms_to_ns(3.82872 + 0.3114 * 10.0));
        assert_eq!(c.seek_ns(2097), ms_to_ns(7.2441 + 0.00756 * 2097.0));
    }

    #[test]
    fn elite3_poly_mean_is_eleven_ms() {
        let spec = SeekSpec::Poly {
            a_ms: 1.4502,
            b_ms: 0.24659,
            c_ms: 0.0032039,
        };
        let c = SeekCurve::new(&spec, 2627).unwrap();
        assert!((c.seek_ns(1) as f64 / 1e6 - 1.70).abs() < 0.001);
        assert!((c.seek_ns(2626) as f64 / 1e6 - 22.50).abs() < 0.01);
        assert!(
            (c.mean_random_ns() / 1e6 - 11.0).abs() < 0.05,
            "{}",
            c.mean_random_ns() / 1e6
        );
    }
}
