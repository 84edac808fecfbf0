//! The quick reproduction of Cello's evaluation, checked against bounds around the paper's
//! headline numbers (golden run), and the allocation figures' shape.

use headway::experiments::cello::{reproduce, ReproduceOptions};

#[test]
fn quick_reproduction_meets_the_headline_bounds() {
    let r = reproduce(&ReproduceOptions::quick(), &mut |_| Ok(())).unwrap();
    let h = &r.headline;
    if std::env::var("CELLO_PRINT").is_ok() {
        eprintln!("{}", serde_json::to_string_pretty(h).unwrap());
        for m in &r.mixes {
            eprintln!(
                "{:26} {:16} v{:2} t{:2} b{:2} util {:.3} text {:8.1} p99 {:8.1} bulk {:8.1} late {:.4} busy {:.1}",
                m.experiment, m.policy, m.video_clients, m.text_clients, m.throughput_clients,
                m.utilisation, m.text_mean_ms, m.text_p99_ms, m.throughput_mean_ms,
                m.video_miss_fraction, m.busy_s
            );
        }
    }
    // Paper: 2.5 at 6 text + 6 video.
    assert!(
        (1.5..=4.0).contains(&h.text_response_scan_over_cello),
        "{}",
        h.text_response_scan_over_cello
    );
    // Paper: Cello misses no video deadline.
    assert!(
        h.cello_video_miss_fraction < 1e-3,
        "{}",
        h.cello_video_miss_fraction
    );
    assert!(h.scan_video_miss_fraction >= h.cello_video_miss_fraction);
    // Paper: static partitioning far worse (about 100x; headway's is smaller, see docs).
    assert!(h.static_over_cello > 3.0, "{}", h.static_over_cello);
    // Paper: under 2% more busy time than SCAN on the same requests. With server rounds,
    // measured over quick seeds 1-5: 6.7-9.4% more service time, 0.4-5.0% more device
    // time (not reproduced, docs/cello.md); the bounds hold that measurement.
    assert!(h.cello_busy_overhead < 0.12, "{}", h.cello_busy_overhead);
    assert!(
        h.cello_device_busy_over_scan < 0.06,
        "{}",
        h.cello_device_busy_over_scan
    );
    // Paper: interactive best effort is served faster than throughput-intensive.
    assert!(h.interactive_mean_ms < h.throughput_mean_ms);
    // Cello misses no video deadline below 85% busy, and under 1% anywhere in the sweeps
    // (with server rounds: 0.17% at 16 text clients, 93% busy; 0.58% at 9 video clients,
    // 89% busy, where 1:1 weights give video less than it needs; seed 1, quick).
    for m in r.mixes.iter().filter(|m| {
        m.policy == "cello" && (m.experiment == "video_load" || m.experiment == "text_load")
    }) {
        assert!(m.video_miss_fraction < 1e-2, "{m:?}");
        if m.utilisation < 0.85 {
            assert_eq!(m.video_misses, 0, "{m:?}");
        }
    }
    // Server rounds everywhere; the random-phase sweep beside them: both policies at every
    // text load, the headline's keys from the largest.
    let o = ReproduceOptions::quick();
    for p in ["cello", "scan"] {
        let rows: Vec<_> = r
            .mixes
            .iter()
            .filter(|m| m.experiment == "random_phase_text_load" && m.policy == p)
            .collect();
        for m in &rows {
            eprintln!(
                "random phases {p:6} t{:2} util {:.3} text {:7.1} ms late {:.4}",
                m.text_clients, m.utilisation, m.text_mean_ms, m.video_miss_fraction
            );
        }
        assert_eq!(rows.len(), o.text_loads.len(), "{p}");
    }
    // Even with a round's requests arriving together, a SCAN sweep of the Elite 3 ends well
    // inside the round (docs/cello.md): neither policy misses 1% at 16 text clients.
    for (c, s) in [
        (
            h.cello_video_miss_fraction_synchronised,
            h.scan_video_miss_fraction_synchronised,
        ),
        (
            h.cello_video_miss_fraction_random_phases,
            h.scan_video_miss_fraction_random_phases,
        ),
    ] {
        let (c, s) = (c.unwrap(), s.unwrap());
        assert!(c < 1e-2 && s < 1e-2, "{c} {s}");
    }
    // Text response: Cello below SCAN at every load, both ways of starting rounds.
    let text = |exp: &str, p: &str, t: u32| {
        r.mixes
            .iter()
            .find(|m| m.experiment == exp && m.policy == p && m.text_clients == t)
            .unwrap()
            .text_mean_ms
    };
    for exp in ["text_load", "random_phase_text_load"] {
        for &t in &o.text_loads {
            assert!(text(exp, "cello", t) < text(exp, "scan", t), "{exp} {t}");
        }
    }
}

#[test]
fn reallocation_gives_best_effort_the_video_pause() {
    let o = ReproduceOptions::quick();
    let r = reproduce(&o, &mut |_| Ok(())).unwrap();
    let busy = |exp: &str, pol: &str, class: &str, from: u64, to: u64| {
        let v: Vec<f64> = r
            .intervals
            .iter()
            .filter(|i| {
                i.experiment == exp
                    && i.policy == pol
                    && i.class == class
                    && (from..to).contains(&i.interval)
            })
            .map(|i| i.busy_ms)
            .collect();
        v.iter().sum::<f64>() / (to - from) as f64
    };
    let (a, b) = o.pause;
    if std::env::var("CELLO_PRINT").is_ok() {
        for exp in [
            "proportional",
            "reallocation",
            "time_allocation",
            "bytes_allocation",
        ] {
            for pol in ["cello", "cello-bytes-1:1", "scan"] {
                for class in ["video", "text", "bulk"] {
                    let v: Vec<(f64, f64)> = r
                        .intervals
                        .iter()
                        .filter(|i| i.experiment == exp && i.policy == pol && i.class == class)
                        .map(|i| (i.busy_ms, i.bytes as f64))
                        .collect();
                    if v.is_empty() {
                        continue;
                    }
                    let n = v.len() as f64;
                    let mean = v.iter().map(|x| x.0).sum::<f64>() / n;
                    let sd = (v.iter().map(|x| (x.0 - mean).powi(2)).sum::<f64>() / n).sqrt();
                    let mb = v.iter().map(|x| x.1).sum::<f64>() / n / 1e6;
                    eprintln!("{exp:18} {pol:16} {class:6} n {n:4} busy {mean:7.1} sd {sd:6.1} MB {mb:.3}");
                }
            }
        }
    }
    // During the pause text has the disk; outside it the two share it about evenly.
    assert!(busy("reallocation", "cello", "text", a + 2, b - 1) > 900.0);
    let text = busy("reallocation", "cello", "text", 5, a - 1);
    let video = busy("reallocation", "cello", "video", 5, a - 1);
    assert!(
        (400.0..650.0).contains(&text) && (350.0..600.0).contains(&video),
        "{text} {video}"
    );
    // Three saturated classes 1:1:1: about a third each.
    for class in ["video", "text", "bulk"] {
        let x = busy(
            "proportional",
            "cello",
            class,
            5,
            o.allocation_intervals - 5,
        );
        assert!((250.0..420.0).contains(&x), "{class}: {x}");
    }
}
