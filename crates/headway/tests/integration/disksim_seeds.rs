//! DiskSim's multi-processor closed experiments judged over seeds, not one draw: which of the
//! five processors keep working is a matter of each run's completions, so one run's mean is
//! one draw of a wide distribution (synthmixed: 21 to 50 ms over DiskSim's own seeds).
//! headway's mean over its own seeds 1..N is held against DiskSim's mean over N draws of its
//! run seed (`tests/fixtures/disksim_valid/seeds/`, written by
//! `scripts/disksim_valid_fixtures.py --seeds N`) within the two-sided 99% Welch interval of
//! the difference of the two means (docs/disksim-params.md).

/// Mean and sample variance.
fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// Welch's comparison of two samples' means: (difference a - b, its standard error, the
/// Welch-Satterthwaite degrees of freedom).
fn welch(a: &[f64], b: &[f64]) -> (f64, f64, f64) {
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let (qa, qb) = (va / a.len() as f64, vb / b.len() as f64);
    let se = (qa + qb).sqrt();
    let df = (qa + qb).powi(2)
        / (qa.powi(2) / (a.len() as f64 - 1.0) + qb.powi(2) / (b.len() as f64 - 1.0));
    (ma - mb, se, df)
}

/// Student's t quantile at 0.995 (two-sided 99%) for `df` degrees of freedom, by the
/// Cornish-Fisher expansion about the normal quantile (within 0.002 from 10 degrees up).
fn t_995(df: f64) -> f64 {
    let z: f64 = 2.575_829_3;
    let g1 = (z.powi(3) + z) / 4.0;
    let g2 = (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / 96.0;
    let g3 = (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / 384.0;
    z + g1 / df + g2 / df.powi(2) + g3 / df.powi(3)
}

#[test]
fn welch_matches_a_hand_computed_case() {
    // a: mean 3, variance 2.5; b: mean 4, variance 4. se^2 = 2.5/5 + 4/3 = 11/6;
    // df = (11/6)^2 / (0.5^2/4 + (4/3)^2/2) = 3.5328.
    let (d, se, df) = welch(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 4.0, 6.0]);
    assert!((d + 1.0).abs() < 1e-12, "{d}");
    assert!((se - (11.0f64 / 6.0).sqrt()).abs() < 1e-12, "{se}");
    assert!((df - 3.5328).abs() < 1e-4, "{df}");
}

#[test]
fn t_quantile_matches_the_tables() {
    // Student's t at 0.995: 3.169 (10), 2.845 (20), 2.750 (30), 2.704 (40), 2.576 (inf).
    for (df, t) in [(10.0, 3.169), (20.0, 2.845), (30.0, 2.750), (40.0, 2.704)] {
        assert!((t_995(df) - t).abs() < 0.002, "df {df}: {}", t_995(df));
    }
    assert!((t_995(1e9) - 2.576).abs() < 0.001);
}

mod shared_data {
    use super::*;
    use crate::disksim_valid::{fixture, run};

    /// headway's runs of `name` over seeds 1..N (N the fixture's) against DiskSim's N: the
    /// difference of the means within `t_995(df) * se`.
    fn compare_over_seeds(name: &str) {
        let fx = fixture(&format!("seeds/{name}"));
        let runs = fx["runs"].as_array().unwrap();
        let theirs: Vec<f64> = runs
            .iter()
            .map(|r| r["mean_ms"].as_f64().unwrap())
            .collect();
        let mut ours = vec![];
        println!("| seed | DiskSim, ms | run, s | headway, ms | run, s |");
        for r in runs {
            let seed = r["seed"].as_u64().unwrap();
            let (_, res) = run(name, &|cfg| cfg.seed = seed);
            ours.push(res.summary.response.mean_ms);
            println!(
                "| {seed} | {:.3} | {:.1} | {:.3} | {:.1} |",
                r["mean_ms"].as_f64().unwrap(),
                r["run_s"].as_f64().unwrap(),
                res.summary.response.mean_ms,
                res.summary.elapsed_s
            );
        }
        let (d, se, df) = welch(&ours, &theirs);
        let (mo, vo) = mean_var(&ours);
        let (mt, vt) = mean_var(&theirs);
        let half = t_995(df) * se;
        println!(
            "{name}: DiskSim {mt:.3} ms (sd {:.3}), headway {mo:.3} ms (sd {:.3}) over {} \
             seeds: {:+.3} ms ({:+.1}%), 99% Welch half-width {half:.3} ms (se {se:.3}, df {df:.1})",
            vt.sqrt(),
            vo.sqrt(),
            runs.len(),
            d,
            100.0 * d / mt
        );
        assert!(
            d.abs() <= half,
            "{name}: headway's mean over seeds {mo:.3} ms against DiskSim's {mt:.3}: {d:+.3} ms, \
             outside the 99% Welch interval (+/-{half:.3} ms)"
        );
    }

    #[test]
    #[ignore = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)"]
    fn synthmixed_over_seeds() {
        compare_over_seeds("synthmixed");
    }

    #[test]
    #[ignore = "needs DiskSim's valid/ files from ../shared/disksim-oracle (not shipped)"]
    fn synthsimpledisk_over_seeds() {
        compare_over_seeds("synthsimpledisk");
    }
}
