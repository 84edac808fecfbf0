//! The bursty ON/OFF (MMPP) open workload.

use crate::common::workload::{mean, requests, workload};
use headway::config::ExperimentConfig;

const CAP: u64 = 1_000_000;

fn gaps_ms(body: &str, seed: u64) -> Vec<f64> {
    let r = requests(&workload(body), CAP, seed);
    r.windows(2)
        .map(|w| (w[1].arrival_ns - w[0].arrival_ns) as f64 / 1e6)
        .collect()
}

#[test]
fn long_run_rate_is_the_time_weighted_mean_of_the_two_states() {
    // ON 200/s for 500 ms on average, OFF 10/s for 1500 ms: (100 + 15) / 2 s = 57.5/s.
    let body = "kind = \"bursty\"\nrequests = 40000\non_rate_iops = 200\noff_rate_iops = 10\non_mean_ms = 500\noff_mean_ms = 1500";
    let gaps = gaps_ms(body, 3);
    let rate = 1000.0 / mean(gaps.iter().copied());
    assert!((rate - 57.5).abs() / 57.5 < 0.05, "rate {rate}");
}

#[test]
fn arrivals_are_burstier_than_poisson() {
    let cv = |g: &[f64]| {
        let m = mean(g.iter().copied());
        (mean(g.iter().map(|x| (x - m) * (x - m))).sqrt()) / m
    };
    let bursty = gaps_ms(
        "kind = \"bursty\"\nrequests = 20000\non_rate_iops = 300\non_mean_ms = 300\noff_mean_ms = 2000",
        4,
    );
    let poisson = gaps_ms("requests = 20000\nrate_iops = 100", 4);
    assert!(
        (cv(&poisson) - 1.0).abs() < 0.05,
        "Poisson CV {}",
        cv(&poisson)
    );
    assert!(cv(&bursty) > 2.0, "bursty CV {}", cv(&bursty));
    // With no arrivals while OFF, gaps longer than anything ON produces do appear.
    assert!(bursty.iter().any(|&g| g > 500.0));
}

#[test]
fn same_seed_same_arrivals() {
    let body = "kind = \"bursty\"\nrequests = 500\non_rate_iops = 300\non_mean_ms = 300\noff_mean_ms = 2000\nread_fraction = 0.33";
    assert_eq!(
        requests(&workload(body), CAP, 8),
        requests(&workload(body), CAP, 8)
    );
    assert_ne!(
        requests(&workload(body), CAP, 8),
        requests(&workload(body), CAP, 9)
    );
}

#[test]
fn bad_bursty_configs_name_the_key() {
    let err = |body: &str| {
        ExperimentConfig::from_toml_str(&format!("[workload]\n{body}"), None)
            .unwrap_err()
            .to_string()
    };
    let e = err("kind = \"bursty\"\non_rate_iops = 100\non_mean_ms = 10");
    assert!(e.contains("off_mean_ms"), "{e}");
    let e = err("kind = \"bursty\"\non_rate_iops = -1\non_mean_ms = 10\noff_mean_ms = 10");
    assert!(e.contains("workload.on_rate_iops"), "{e}");
    let e = err("on_rate_iops = 100");
    assert!(e.contains("on_rate_iops") && e.contains("bursty"), "{e}");
    let e = err(
        "kind = \"bursty\"\non_rate_iops = 100\non_mean_ms = 10\noff_mean_ms = 10\nprocesses = 3",
    );
    assert!(e.contains("processes"), "{e}");
}
