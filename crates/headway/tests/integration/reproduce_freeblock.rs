//! The freeblock paper's quick reproduction: its headline within the bounds measured for
//! headway's model of the Atlas 10K (docs/freeblock.md says why they differ from the
//! paper's), and the shape of its figures.

use headway::experiments::freeblock::{reproduce, ReproduceOptions};

#[test]
fn quick_reproduction_headline_and_shapes() {
    let o = ReproduceOptions::quick();
    let r = reproduce(&o, &mut |_| Ok(())).unwrap();
    let h = &r.headline;
    eprintln!("{}", serde_json::to_string_pretty(h).unwrap());
    for q in &r.queue {
        eprintln!(
            "{:14} q {:3} {:8.2} ms",
            q.scheduler, q.queue_depth, q.mean_response_ms
        );
    }
    for s in &r.sweep {
        eprintln!(
            "{:10} c {:4} fg {:.3} MB/s ({:+.2}%) free {:.3} pot {:.3}",
            s.foreground,
            s.c_fb_ms,
            s.fg_bandwidth_mb_s,
            s.fg_response_increase * 100.0,
            s.free_bandwidth_mb_s,
            s.potential_free_bandwidth_mb_s
        );
    }
    assert!(h.free_bandwidth_mb_s > 0.2, "{h:?}");
    assert!(
        h.free_bandwidth_mb_s < h.potential_free_bandwidth_mb_s,
        "{h:?}"
    );
    assert!(h.free_fraction_of_potential > 0.03 && h.free_fraction_of_potential < 0.5);
    // The paper's "15% of potential media bandwidth" divides by the drive's media rate
    // over the whole disk (the Atlas 10K's zones read at about 18 to 28 MB/s), not by the
    // potential free bandwidth, a few MB/s.
    assert!(
        (15.0..30.0).contains(&h.media_bandwidth_mb_s),
        "{}",
        h.media_bandwidth_mb_s
    );
    assert!(
        (h.free_fraction_of_media_bandwidth - h.free_bandwidth_mb_s / h.media_bandwidth_mb_s).abs()
            < 1e-12
    );
    assert!(h.free_fraction_of_media_bandwidth < h.free_fraction_of_potential);
    let paper = h.paper_bus_free_fraction_of_media_bandwidth.unwrap();
    assert!(paper > h.free_fraction_of_media_bandwidth, "{h:?}");
    // The paper's "under 2%": -1.23% measured with the oracle's exact read tail (+0.72%
    // before it, +3.21% before the commands at the drive were re-predicted).
    assert!(h.fg_response_increase.abs() < 0.02, "{h:?}");
    assert!(h.scans_per_day > 1.0, "{h:?}");
    // Outside the firmware as a host can do it: the calibrated predictor plans free reads
    // (it made none before the wrapper measured the read tail itself), and
    // they leave the foreground where it was.
    // The target: at least 70% of the oracle's free bandwidth.
    assert!(h.calibrated_fraction_of_oracle >= 0.7, "{h:?}");
    assert!(h.fg_response_increase_calibrated.abs() < 0.02, "{h:?}");
    assert!(
        (0.0..1.0).contains(&h.mispredicted_fraction_calibrated)
            && (0.0..1.0).contains(&h.mispredicted_fraction_oracle),
        "{h:?}"
    );
    assert!(
        r.prediction
            .iter()
            .any(|p| p.case == "small-calibrated" && p.commands > 100),
        "{:?}",
        r.prediction
    );
    for label in ["sptf", "sptf-calibrated"] {
        let rows: Vec<_> = r
            .imperfect_sweep
            .iter()
            .filter(|s| s.foreground == label)
            .collect();
        for s in &rows {
            eprintln!(
                "imperfect {label:15} c {:4} free {:.3} ({:+.2}%)",
                s.c_fb_ms,
                s.free_bandwidth_mb_s,
                s.fg_response_increase * 100.0
            );
        }
        assert_eq!(rows.len(), o.c_fb_ms.len(), "{label}");
    }
    // External versus firmware: the firmware (exact knowledge, its own SPTF over every
    // request, reading on the source track and several runs per gap) takes far more than
    // the external scheduler, and the one-request-per-track restriction no more than it.
    for f in &r.firmware {
        eprintln!(
            "{:22} c {:4} free {:.3} pot {:.3} resp {:.2} paired {:.2}",
            f.variant,
            f.c_fb_ms,
            f.free_bandwidth_mb_s,
            f.potential_free_bandwidth_mb_s,
            f.fg_mean_response_ms,
            f.paired_fg_mean_response_ms
        );
    }
    // The paper's interface (80 MB/s) instead of the parameters' bus: a free sector costs
    // about its media time, and the external scheduler takes several times more.
    for b in &r.bus {
        eprintln!("{b:?}");
    }
    let paper_bus = h.paper_bus_free_bandwidth_mb_s.unwrap();
    assert!(paper_bus > 4.0 * h.free_bandwidth_mb_s, "{h:?}");
    assert!(
        paper_bus < h.paper_bus_potential_free_bandwidth_mb_s.unwrap(),
        "{h:?}"
    );
    assert!(
        h.paper_bus_fg_response_increase.unwrap().abs() < 0.03,
        "{h:?}"
    );
    // The interface sweep's overlapping drive: free reads are planned with a read tail the
    // drive no longer waits for, and the foreground pays (measured +61.5% at --quick, 1.30
    // MB/s free): the planner does not model an overlapping drive (docs/freeblock.md).
    let overlap = r
        .bus
        .iter()
        .find(|b| b.bus == "validated-overlap" && b.variant == "external-sptf")
        .expect("the overlapping bus ran");
    assert!(
        overlap.free_bandwidth_mb_s > h.free_bandwidth_mb_s,
        "{overlap:?}"
    );
    assert!(overlap.fg_response_increase > 0.1, "{overlap:?}");
    let fw = h
        .firmware_free_bandwidth_mb_s
        .expect("the firmware variant ran");
    let one = h.firmware_one_per_track_free_bandwidth_mb_s.unwrap();
    assert!(fw > 3.0 * h.free_bandwidth_mb_s, "{h:?}");
    assert!(one <= fw + 1e-9 && one > 0.5 * fw, "{h:?}");
    assert!(
        fw < h.firmware_potential_free_bandwidth_mb_s.unwrap(),
        "{h:?}"
    );
    // In the firmware "free" holds exactly: the foreground is the same at every c_fb.
    for f in r
        .firmware
        .iter()
        .filter(|f| f.variant.starts_with("firmware"))
    {
        assert_eq!(f.fg_mean_response_ms, f.paired_fg_mean_response_ms, "{f:?}");
    }
    // Free bandwidth falls as the conservatism grows, for every foreground scheduler.
    for fg in ["sstf", "sptf", "sptf-sw40"] {
        let rows: Vec<_> = r.sweep.iter().filter(|s| s.foreground == fg).collect();
        assert_eq!(rows.len(), o.c_fb_ms.len());
        let (first, last) = (rows[0], rows[rows.len() - 1]);
        assert!(
            first.free_bandwidth_mb_s > last.free_bandwidth_mb_s,
            "{fg}: {} at c=0, {} at the largest c",
            first.free_bandwidth_mb_s,
            last.free_bandwidth_mb_s
        );
    }
    for p in &r.prediction {
        eprintln!("{p:?}");
    }
    // Prediction errors, measured against the predictor the external schedulers plan with
    // (the oracle with the drive's own bus tail and read-ahead stop): the PDFs sum to one;
    // on the nominal drive every read, small or large, is predicted to within 50 µs (the
    // paper's spread of large requests came from a bus its predictor did not model:
    // docs/freeblock.md, "Prediction errors"); the drive's imperfections (seek jitter,
    // spindle drift), which no host model knows, spread the errors.
    for case in ["small", "large", "small-imperfect"] {
        let total: f64 = r
            .prediction_pdf
            .iter()
            .filter(|x| x.case == case)
            .map(|x| x.fraction)
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "{case}: {total}");
    }
    let pred = |c: &str| r.prediction.iter().find(|p| p.case == c).unwrap();
    for case in ["small", "large", "small-imperfect"] {
        assert!(pred(case).commands > 1000, "{:?}", pred(case));
    }
    for case in ["small", "large"] {
        assert!(pred(case).mean_abs_error_ms < 0.05, "{:?}", pred(case));
    }
    // Not one command a revolution late, small or large (the large case had one in 1,328
    // until the oracle held the read-ahead to its segment's room as the drive does:
    // docs/fidelity.md, "The oracle with commands queued at the drive").
    assert_eq!(pred("small").late_rotation, 0.0, "{:?}", pred("small"));
    assert_eq!(pred("large").late_rotation, 0.0, "{:?}", pred("large"));
    let imperfect = pred("small-imperfect");
    assert!(imperfect.mean_abs_error_ms > 0.05, "{imperfect:?}");
    assert!(imperfect.mean_abs_error_ms > 10.0 * pred("small").mean_abs_error_ms);
    assert!(pred("small").within_half_ms >= imperfect.within_half_ms);
    // Queue-depth validation: the firmware's SPTF, seeing every request, is at least as
    // good as the external schedulers that keep two at the drive (in headway's drive model
    // the drive takes its next command only after the bus transfer of the last, which the
    // external STF schedulers do not plan for: docs/freeblock.md).
    let at = |s: &str, q: u32| {
        r.queue
            .iter()
            .find(|x| x.scheduler == s && x.queue_depth == q)
            .unwrap()
            .mean_response_ms
    };
    for s in ["sstf", "sptf-sw40", "sptf"] {
        assert!(at("firmware-sptf", 20) < at(s, 20), "{s}");
        assert!(
            at(s, 1) == at("firmware-sptf", 1),
            "one request: no choice to make"
        );
    }
}

#[test]
#[ignore = "the full reproduction takes about a minute; run by hand for docs/freeblock.md"]
fn full_reproduction_prints_its_tables() {
    let r = reproduce(&ReproduceOptions::full(), &mut |_| Ok(())).unwrap();
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
}
