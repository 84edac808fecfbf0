//! The demerit as DiskSim 4.0 publishes it, for comparing headway with DiskSim's figures on
//! equal terms.
//!
//! DiskSim's published demerits (0.267525 for the Atlas 10K, 0.089932 for the HP C2247A, ...)
//! are not computed from per-request times: its validation run prints the measured and the
//! simulated access times as histograms ("VALIDATE Trace access time distribution" and
//! "IOdriver Physical access time distribution"), and its `rms` tool scores the two printed
//! histograms. Three things make that figure differ from [`super::demerit_ms`] by a few
//! percent on the same times:
//!
//! * the bins: times truncated to whole microseconds, counted under the first bin edge above
//!   them; edges start at 0 and step by 1 us plus 1% of the edge (DiskSim's `statdefs` entry
//!   "Physical access time": 1,750 bins, scale 1000, start 0, step 1, grow 1);
//! * the CDF between bin edges is a straight line (a quantile is interpolated inside its bin,
//!   not taken from the samples);
//! * the cumulative fractions are those printed, to six decimals, which decides where the
//!   last few quantiles fall (the slowest requests weigh most in an RMS).
//!
//! With DiskSim's per-request times this gives DiskSim's published figure to the digit
//! (hp_c2247a 0.089932, dec_rz26 0.340575; docs/fidelity.md, "Which demerit").

/// Bins of DiskSim's "Physical access time" distribution.
const BINS: usize = 1750;
/// DiskSim's `rms` samples the CDFs at multiples of this probability.
const STEP: f64 = 0.0001;

/// Upper bin edges in whole microseconds.
fn edges_us() -> Vec<i64> {
    let mut e = Vec::with_capacity(BINS);
    let mut b: i64 = 0;
    for _ in 0..BINS {
        e.push(b);
        b += 1 + b.abs() / 100;
    }
    e
}

/// The printed CDF: (edge in ms, cumulative fraction at six decimals) per bin.
fn printed_cdf(times_ms: &[f64], edges: &[i64]) -> Vec<(f64, f64)> {
    let mut counts = vec![0u64; edges.len()];
    for &t in times_ms {
        let us = (t * 1000.0) as i64;
        let bin = edges.partition_point(|&e| e <= us).min(edges.len() - 1);
        counts[bin] += 1;
    }
    let n = times_ms.len() as f64;
    let mut cum = 0.0;
    edges
        .iter()
        .zip(&counts)
        .map(|(&e, &c)| {
            cum += c as f64 / n;
            // Rounded as DiskSim prints it (`%f`).
            let printed: f64 = format!("{cum:.6}").parse().expect("a formatted number");
            (e as f64 / 1000.0, printed)
        })
        .collect()
}

/// The time at which the piecewise-linear CDF reaches `p`, starting the search at `*i`.
fn crossing(cdf: &[(f64, f64)], p: f64, i: &mut usize) -> f64 {
    while *i + 1 < cdf.len() && cdf[*i].1 < p {
        *i += 1;
    }
    if *i == 0 {
        return cdf[0].0;
    }
    let (x0, y0) = cdf[*i - 1];
    let (x1, y1) = cdf[*i];
    x0 + (p - y0) / (y1 - y0) * (x1 - x0)
}

/// DiskSim 4.0's published demerit of `simulated` against `measured` (ms): the RMS of the
/// horizontal distance between the two binned, piecewise-linear CDFs printed as DiskSim
/// prints them, at p = 0.0001, 0.0002, ... up to 1 (accumulated as DiskSim's tool does).
pub(crate) fn disksim_rms_ms(measured: &[f64], simulated: &[f64]) -> f64 {
    if measured.is_empty() || simulated.is_empty() {
        return f64::NAN;
    }
    let edges = edges_us();
    let a = printed_cdf(measured, &edges);
    let b = printed_cdf(simulated, &edges);
    let (mut ia, mut ib) = (0, 0);
    let (mut sum, mut count) = (0.0, 0u32);
    let mut p = STEP;
    while p <= 1.0 {
        let d = crossing(&a, p, &mut ia) - crossing(&b, p, &mut ib);
        sum += d * d;
        count += 1;
        p += STEP;
    }
    (sum / count as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bin_edges_are_disksims() {
        let e = edges_us();
        assert_eq!(&e[..3], &[0, 1, 2]);
        assert_eq!(e[100], 100);
        assert_eq!(e[101], 102, "above 100 us a bin widens by 1% of its edge");
        assert_eq!(
            e[BINS - 1],
            2_049_165_458,
            "the last edge DiskSim prints, in us"
        );
    }

    #[test]
    fn identical_times_score_zero() {
        let x: Vec<f64> = (1..500).map(|i| i as f64 * 0.037).collect();
        assert_eq!(disksim_rms_ms(&x, &x), 0.0);
    }

    #[test]
    fn a_shift_of_whole_bins_scores_the_shift() {
        // Below 0.1 ms the bins are 1 us wide: times in the middle of bins, moved by 10 us.
        let x: Vec<f64> = (0..1000)
            .map(|i| ((i % 50) as f64 + 0.5) / 1000.0)
            .collect();
        let y: Vec<f64> = x.iter().map(|v| v + 0.010).collect();
        assert!((disksim_rms_ms(&x, &y) - 0.010).abs() < 1e-9);
    }

    #[test]
    fn inside_a_bin_the_cdf_is_a_line() {
        // Every measured time in the bin ending at 0.002 ms, every simulated time in the one
        // ending at 0.003 ms: the CDFs are parallel lines one bin apart, so every quantile
        // differs by 0.001 ms although the samples themselves all differ by exactly that.
        let x = vec![0.0015; 100];
        let y = vec![0.0025; 100];
        assert!((disksim_rms_ms(&x, &y) - 0.001).abs() < 1e-9);
    }
}
