/// The `p`-quantile of sorted samples: the smallest sample x with P(X <= x) >= p.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    let k = ((p * n as f64).ceil() as usize).clamp(1, n);
    sorted[k - 1]
}

/// DiskSim's demerit figure: RMS over p = 0.0001, 0.0002, ..., 1.0 of the difference between
/// the two samples' p-quantiles (the horizontal distance between their CDFs), in the
/// samples' unit.
pub fn demerit_ms(measured: &[f64], simulated: &[f64]) -> f64 {
    let mut a = measured.to_vec();
    let mut b = simulated.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    if a.is_empty() || b.is_empty() {
        return f64::NAN;
    }
    let steps = 10_000;
    let sum: f64 = (1..=steps)
        .map(|i| {
            let p = i as f64 / steps as f64;
            let d = quantile(&a, p) - quantile(&b, p);
            d * d
        })
        .sum();
    (sum / steps as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_samples_have_zero_demerit() {
        let x = [1.0, 5.0, 2.0, 9.0];
        assert_eq!(demerit_ms(&x, &x), 0.0);
    }

    #[test]
    fn a_constant_shift_is_the_demerit() {
        let x: Vec<f64> = (0..1000).map(|i| i as f64 * 0.01).collect();
        let y: Vec<f64> = x.iter().map(|v| v + 0.25).collect();
        assert!((demerit_ms(&x, &y) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn order_within_a_sample_does_not_matter() {
        let x = [3.0, 1.0, 2.0];
        let y = [2.5, 0.5, 1.5];
        assert!((demerit_ms(&x, &y) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn quantile_picks_the_smallest_sample_reaching_p() {
        let s = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&s, 0.0001), 1.0);
        assert_eq!(quantile(&s, 0.25), 1.0);
        assert_eq!(quantile(&s, 0.2501), 2.0);
        assert_eq!(quantile(&s, 1.0), 4.0);
    }
}
