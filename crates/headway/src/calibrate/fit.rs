//! Piecewise-linear fits: the paper stores MinOffset curves as "the slope and starting value"
//! of a few linear pieces.

use serde::{Deserialize, Serialize};

/// A piecewise-linear function of a distance: each piece starts at `x` with value `y` and
/// continues with `slope`; beyond the last start the last piece extends.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pieces {
    pub pieces: Vec<(f64, f64, f64)>,
}

impl Pieces {
    pub(crate) fn eval(&self, x: f64) -> f64 {
        let i = self.pieces.partition_point(|p| p.0 <= x).saturating_sub(1);
        let (x0, y0, s) = self.pieces[i];
        y0 + s * (x - x0)
    }

    /// Connect-the-dots fit: each piece runs from one sample to a later one as long as every
    /// sample in between is within `tol` of the line. `points` sorted by x, at least one.
    pub(crate) fn fit(points: &[(f64, f64)], tol: f64) -> Pieces {
        let mut pieces = vec![];
        let mut i = 0;
        if points.len() == 1 {
            return Pieces {
                pieces: vec![(points[0].0, points[0].1, 0.0)],
            };
        }
        while i + 1 < points.len() {
            let mut j = i + 1;
            while j + 1 < points.len() && within(points, i, j + 1, tol) {
                j += 1;
            }
            let (x0, y0) = points[i];
            let (x1, y1) = points[j];
            pieces.push((x0, y0, (y1 - y0) / (x1 - x0)));
            i = j;
        }
        Pieces { pieces }
    }

    /// The connect-the-dots fit with at most `n` pieces: the tolerance is raised until it
    /// fits. `n == 1` is one line from the first sample to the last.
    pub(crate) fn fit_at_most(points: &[(f64, f64)], n: usize) -> Pieces {
        let spread = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max)
            - points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let (mut lo, mut hi) = (0.0, spread.max(1.0) * 2.0);
        if Pieces::fit(points, lo).pieces.len() <= n {
            return Pieces::fit(points, lo);
        }
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if Pieces::fit(points, mid).pieces.len() <= n {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Pieces::fit(points, hi)
    }

    /// Largest |fit − sample|.
    #[cfg(test)]
    fn max_error(&self, points: &[(f64, f64)]) -> f64 {
        points
            .iter()
            .map(|&(x, y)| (self.eval(x) - y).abs())
            .fold(0.0, f64::max)
    }
}

fn within(p: &[(f64, f64)], i: usize, j: usize, tol: f64) -> bool {
    let (x0, y0) = p[i];
    let (x1, y1) = p[j];
    let s = (y1 - y0) / (x1 - x0);
    p[i + 1..j]
        .iter()
        .all(|&(x, y)| (y0 + s * (x - x0) - y).abs() <= tol)
}

/// Least-squares line y = a + b x: (a, b, rms residual, max |residual|).
pub(crate) fn least_squares(points: &[(f64, f64)]) -> (f64, f64, f64, f64) {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let a = my - b * mx;
    let res: Vec<f64> = points.iter().map(|p| p.1 - (a + b * p.0)).collect();
    let rms = (res.iter().map(|r| r * r).sum::<f64>() / n).sqrt();
    let max = res.iter().map(|r| r.abs()).fold(0.0, f64::max);
    (a, b, rms, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_follow_a_curve_within_tolerance() {
        let pts: Vec<(f64, f64)> = (1..=400).map(|d| (d as f64, (d as f64).sqrt())).collect();
        let f = Pieces::fit(&pts, 0.01);
        assert!(f.max_error(&pts) <= 0.01 + 1e-12);
        assert!(f.pieces.len() < 40, "{} pieces", f.pieces.len());
        let one = Pieces::fit_at_most(&pts, 1);
        assert_eq!(one.pieces.len(), 1);
        assert!(one.max_error(&pts) > 1.0);
        let (a, b, rms, _) = least_squares(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]);
        assert!((a - 1.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12 && rms < 1e-12);
    }
}
