//! Open synthetic workloads, driven without an engine: arrivals, sizes, directions, places.

use crate::common::workload::{mean, requests, run_open, workload};
use headway::engine::RngStreams;
use headway::Op;
use rand::Rng;

const CAP: u64 = 1_000_000;

#[test]
fn same_seed_same_requests_other_seed_other_requests() {
    let cfg = workload(
        r#"requests = 2000
           read_fraction = 0.5
           size = { kind = "exponential", mean_sectors = 32 }
           locality = { kind = "local", mean_distance_sectors = 5000 }"#,
    );
    let a = requests(&cfg, CAP, 11);
    let b = requests(&cfg, CAP, 11);
    let c = requests(&cfg, CAP, 12);
    assert_eq!(a.len(), 2000);
    assert_eq!(a, b);
    assert_ne!(
        a.iter().map(|r| r.lbn).collect::<Vec<_>>(),
        c.iter().map(|r| r.lbn).collect::<Vec<_>>()
    );
    assert_ne!(
        a.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(),
        c.iter().map(|r| r.arrival_ns).collect::<Vec<_>>()
    );
}

#[test]
fn other_components_drawing_random_numbers_do_not_change_the_workload() {
    let cfg = workload("requests = 500\nread_fraction = 0.5");
    let rng = RngStreams::new(5);
    let alone = run_open(&mut *cfg.build(CAP, &rng, None).unwrap());
    // Another component takes its own stream and draws heavily from it, before and while the
    // workload runs.
    let mut other = rng.stream("device0.jitter");
    let _: Vec<u64> = (0..1000).map(|_| other.random()).collect();
    let mut w = cfg.build(CAP, &rng, None).unwrap();
    let _: u64 = other.random();
    assert_eq!(run_open(&mut *w), alone);
}

#[test]
fn each_request_property_has_its_own_stream() {
    let base = workload("requests = 3000\nread_fraction = 0.5");
    let more_writes = workload("requests = 3000\nread_fraction = 0.1");
    let bigger = workload(
        "requests = 3000\nread_fraction = 0.5\nsize = { kind = \"uniform\", min_sectors = 8, max_sectors = 256 }",
    );
    let a = requests(&base, CAP, 9);
    let b = requests(&more_writes, CAP, 9);
    let c = requests(&bigger, CAP, 9);
    // Changing the read fraction changes only directions.
    assert!(a
        .iter()
        .zip(&b)
        .all(|(x, y)| x.arrival_ns == y.arrival_ns && x.lbn == y.lbn && x.sectors == y.sectors));
    assert!(a.iter().zip(&b).any(|(x, y)| x.op != y.op));
    // Changing sizes leaves arrival times and directions alone.
    assert!(a
        .iter()
        .zip(&c)
        .all(|(x, y)| x.arrival_ns == y.arrival_ns && x.op == y.op));
    assert!(a.iter().zip(&c).any(|(x, y)| x.sectors != y.sectors));
}

#[test]
fn poisson_mean_interarrival_is_as_configured() {
    for (body, mean_ns) in [
        ("interarrival_ms = 4.0", 4e6),
        ("rate_iops = 250.0", 4e6),
        ("interarrival_ms = 0.05", 5e4),
    ] {
        let cfg = workload(&format!("requests = 100000\n{body}"));
        let reqs = requests(&cfg, CAP, 3);
        assert_eq!(reqs.len(), 100_000);
        let gaps: Vec<f64> = std::iter::once(reqs[0].arrival_ns as f64)
            .chain(
                reqs.windows(2)
                    .map(|w| (w[1].arrival_ns - w[0].arrival_ns) as f64),
            )
            .collect();
        let m = mean(gaps.iter().copied());
        // Standard error of the mean is mean / sqrt(1e5) = 0.32%; allow about 4 of them.
        assert!((m / mean_ns - 1.0).abs() < 0.013, "{body}: mean gap {m} ns");
        // Exponential: the standard deviation equals the mean (a fixed process would give 0).
        let sd = (mean(gaps.iter().map(|g| (g - m) * (g - m)))).sqrt();
        assert!((sd / m - 1.0).abs() < 0.03, "{body}: sd {sd} vs mean {m}");
    }
}

#[test]
fn fixed_arrivals_are_exact_and_do_not_drift() {
    let cfg = workload("requests = 1000\narrival = \"fixed\"\ninterarrival_ms = 2.5");
    let reqs = requests(&cfg, CAP, 1);
    for (k, r) in reqs.iter().enumerate() {
        assert_eq!(r.arrival_ns, (k as u64 + 1) * 2_500_000);
    }
    // 3 per second does not divide a second into whole nanoseconds: the k-th arrival is
    // still k/3 s rounded, never an accumulated rounding error.
    let cfg = workload("requests = 300000\narrival = \"fixed\"\nrate_iops = 3.0");
    let reqs = requests(&cfg, CAP, 1);
    assert_eq!(reqs.last().unwrap().arrival_ns, 100_000_000_000_000);
    assert_eq!(reqs[0].arrival_ns, 333_333_333);
    assert_eq!(reqs[1].arrival_ns, 666_666_667);
}

#[test]
fn read_fraction_is_respected() {
    for rf in [0.0, 0.3, 1.0] {
        let cfg = workload(&format!("requests = 100000\nread_fraction = {rf:?}"));
        let reqs = requests(&cfg, CAP, 4);
        let reads = reqs.iter().filter(|r| r.op == Op::Read).count() as f64 / 1e5;
        assert!(
            (reads - rf).abs() < 0.006,
            "read fraction {rf}: got {reads}"
        );
    }
}

#[test]
fn sizes_and_alignment_are_respected_and_requests_fit() {
    // A capacity that is not a multiple of the alignment, so the last slot is partial.
    let cap = 100_003;
    let cases = [
        ("size_sectors = 24", 8, 24, 24),
        ("size_sectors = 3\nalign_sectors = 1", 1, 3, 3),
        ("size = { kind = \"uniform\", min_sectors = 5, max_sectors = 64 }", 8, 8, 64),
        ("size = { kind = \"exponential\", mean_sectors = 40 }", 8, 8, 100_000),
        (
            "size = { kind = \"exponential\", mean_sectors = 40, max_sectors = 100 }\nalign_sectors = 4",
            4,
            4,
            100,
        ),
    ];
    for (body, align, lo, hi) in cases {
        for loc in [
            "{ kind = \"uniform\" }",
            "{ kind = \"sequential\", run_length = 50 }",
            "{ kind = \"local\", mean_distance_sectors = 30000 }",
            "{ kind = \"hot\", regions = [{ start_fraction = 0.99, size_fraction = 0.01, access_fraction = 0.5 }] }",
        ] {
            let cfg = workload(&format!("requests = 20000\n{body}\nlocality = {loc}"));
            for r in requests(&cfg, cap, 8) {
                assert!(r.sectors >= lo && r.sectors <= hi, "{body}: {r:?}");
                assert_eq!(r.sectors % align, 0, "{body}: {r:?}");
                assert_eq!(r.lbn % align as u64, 0, "{body} {loc}: {r:?}");
                assert!(r.end_lbn() <= cap, "{body} {loc}: {r:?}");
            }
        }
    }
}

#[test]
fn size_distributions_have_the_configured_shape() {
    let cfg = workload(
        "requests = 50000\nsize = { kind = \"uniform\", min_sectors = 8, max_sectors = 64 }",
    );
    let reqs = requests(&cfg, CAP, 2);
    for s in (8..=64).step_by(8) {
        let n = reqs.iter().filter(|r| r.sectors == s).count();
        assert!((n as f64 / 50000.0 - 0.125).abs() < 0.01, "size {s}: {n}");
    }
    // Rounded up to whole sectors: the realised mean is about half a sector above.
    let cfg = workload(
        "requests = 100000\nalign_sectors = 1\nsize = { kind = \"exponential\", mean_sectors = 64 }",
    );
    let m = mean(requests(&cfg, CAP, 2).iter().map(|r| r.sectors as f64));
    assert!((m - 64.5).abs() < 1.0, "mean size {m}");
}

#[test]
fn sequential_runs_are_sequential() {
    let cfg = workload(
        "requests = 20000\nsize = { kind = \"uniform\", min_sectors = 8, max_sectors = 128 }\nlocality = { kind = \"sequential\", run_length = 16 }",
    );
    let reqs = requests(&cfg, 10_000_000, 6);
    let mut new_starts = 0;
    for (i, w) in reqs.windows(2).enumerate() {
        let k = i + 1;
        if k % 16 != 0 {
            assert!(
                w[1].lbn == w[0].end_lbn()
                    || (w[1].lbn == 0 && w[0].end_lbn() + w[1].sectors as u64 > 10_000_000),
                "request {k} breaks its run: {:?} after {:?}",
                w[1],
                w[0]
            );
        } else if w[1].lbn != w[0].end_lbn() {
            new_starts += 1;
        }
    }
    // Runs restart at random places (a run continuing by chance is vanishingly rare).
    assert_eq!(new_starts, 20000 / 16 - 1);

    // Without run_length, one endless run that wraps at the end of the disk.
    let cfg = workload("requests = 300\nsize_sectors = 8\nlocality = { kind = \"sequential\" }");
    let reqs = requests(&cfg, 800, 6);
    let wraps = reqs
        .windows(2)
        .filter(|w| w[1].lbn != w[0].end_lbn())
        .count();
    assert!(reqs
        .windows(2)
        .all(|w| w[1].lbn == w[0].end_lbn() || w[1].lbn == 0));
    assert!((2..=3).contains(&wraps), "{wraps} wraps");
}

#[test]
fn hot_regions_get_their_share() {
    let cfg = workload(
        r#"requests = 100000
           locality = { kind = "hot", regions = [
               { start_fraction = 0.10, size_fraction = 0.05, access_fraction = 0.6 },
               { start_fraction = 0.50, size_fraction = 0.10, access_fraction = 0.3 },
           ] }"#,
    );
    let cap = 10_000_000u64;
    let reqs = requests(&cfg, cap, 13);
    let share = |lo: f64, hi: f64| {
        reqs.iter()
            .filter(|r| {
                r.lbn >= (lo * cap as f64) as u64 && r.end_lbn() <= (hi * cap as f64) as u64
            })
            .count() as f64
            / reqs.len() as f64
    };
    // Hot share plus the uniform remainder (10%) landing there by chance.
    let a = share(0.10, 0.15);
    let b = share(0.50, 0.60);
    assert!((a - (0.6 + 0.1 * 0.05)).abs() < 0.008, "region 0: {a}");
    assert!((b - (0.3 + 0.1 * 0.10)).abs() < 0.008, "region 1: {b}");
    // The cold rest of the disk sees only the uniform remainder.
    let cold = 1.0 - a - b;
    assert!((cold - 0.1 * 0.85).abs() < 0.006, "cold: {cold}");
}

#[test]
fn local_access_stays_near_the_previous_request() {
    for dist in ["normal", "exponential"] {
        let cfg = workload(&format!(
            "requests = 50000\nalign_sectors = 1\nlocality = {{ kind = \"local\", mean_distance_sectors = 2000, distribution = \"{dist}\" }}"
        ));
        let reqs = requests(&cfg, 1_000_000_000, 21);
        let d = mean(
            reqs.windows(2)
                .map(|w| (w[1].lbn as f64 - w[0].end_lbn() as f64).abs()),
        );
        assert!((d / 2000.0 - 1.0).abs() < 0.03, "{dist}: mean distance {d}");
        let forward = reqs
            .windows(2)
            .filter(|w| w[1].lbn >= w[0].end_lbn())
            .count() as f64;
        assert!(
            (forward / 49999.0 - 0.5).abs() < 0.02,
            "{dist}: forward share"
        );
    }
}

#[test]
fn the_default_workload_is_ten_thousand_random_4k_reads_every_10ms() {
    let reqs = requests(&Default::default(), CAP, 1);
    assert_eq!(reqs.len(), 10_000);
    assert!(reqs
        .iter()
        .all(|r| r.sectors == 8 && r.op == Op::Read && r.lbn % 8 == 0));
    let m = reqs.last().unwrap().arrival_ns as f64 / 1e4;
    assert!((m / 1e7 - 1.0).abs() < 0.04, "mean gap {m}");
    // And `[workload]` with only a count means the same kind.
    assert_eq!(
        workload("requests = 10000"),
        headway::workload::WorkloadConfig::default()
    );
}
