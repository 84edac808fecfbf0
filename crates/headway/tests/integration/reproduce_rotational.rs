//! Golden test: the rotational-scheduling paper's evaluation at a small size; its headline
//! ratios must stay inside the bounds `docs/rotational.md` states.

use headway::experiments::rotational::{reproduce, ReproduceOptions};

#[test]
fn headline_ratios_stay_inside_their_bounds() {
    let o = ReproduceOptions {
        queue_lengths: vec![1, 20, 100],
        requests_per_queued: 20,
        light_requests: 3000,
        heavy_requests: 3000,
        stability_waits: 36,
        stability_trials: 4,
        large_queue_lengths: vec![1, 20],
        large_requests_per_queued: 10,
        ..ReproduceOptions::full()
    };
    let r = reproduce(&o, &mut |_| Ok(())).unwrap();
    let h = &r.headline;
    let check = |name: &str, v: f64, lo: f64, hi: f64| {
        assert!(
            (lo..=hi).contains(&v),
            "{name} = {v:.3}, outside [{lo}, {hi}]\n{h:#?}"
        );
    };
    // STF class well above FCFS; above C-SCAN by less (see the docs for why).
    check("STF/FCFS at STF's peak", h.stf_over_fcfs_at_peak, 1.5, 2.6);
    check(
        "STF/C-SCAN at STF's peak",
        h.stf_over_cscan_at_peak,
        0.95,
        1.5,
    );
    check("pruned STF/FCFS", h.pruned_stf_over_fcfs, 1.6, 2.8);
    // GSTF and WSTF bound starvation at little utilisation cost.
    check("GSTF max / STF max", h.gstf_max_over_stf_max, 0.0, 0.6);
    check("WSTF max / STF max", h.wstf_max_over_stf_max, 0.0, 0.6);
    check("GSTF util / STF", h.gstf_util_over_stf, 0.9, 1.2);
    check("WSTF util / STF", h.wstf_util_over_stf, 0.9, 1.05);
    check(
        "calibrated misprediction",
        h.calibrated_mispredicted,
        0.0,
        0.1,
    );
    // 256 KB requests: transfer dominates, so reordering wins little (the paper: little or
    // none), and far less than with 4 KiB requests.
    eprintln!(
        "large: STF/FCFS {:.3} STF/C-SCAN {:.3}",
        h.large_stf_over_fcfs, h.large_stf_over_cscan
    );
    check("256 KB STF/FCFS", h.large_stf_over_fcfs, 0.95, 1.3);
    check("256 KB STF/C-SCAN", h.large_stf_over_cscan, 0.9, 1.1);
    assert!(h.large_stf_over_fcfs - 1.0 < (h.stf_over_fcfs_at_peak - 1.0) / 2.0);
    assert_eq!(r.large.len(), 2 * 5);
    assert!(r
        .large
        .iter()
        .all(|u| u.requests == 10 * u.queue_length as u64));
    // Every scheduler ran at every queue length; at Q = 1 there is nothing to choose.
    assert_eq!(r.utilisation.len(), 3 * 6);
    let q1: Vec<f64> = r
        .utilisation
        .iter()
        .filter(|u| u.queue_length == 1)
        .map(|u| u.utilisation)
        .collect();
    assert!(q1.iter().all(|&u| (u - q1[0]).abs() < 1e-9), "{q1:?}");
    // The stand-in traces: the heavy day favours STF over FCFS more than the light day.
    let eff = |w: &str, s: &str| {
        r.traces
            .iter()
            .find(|t| t.workload == w && t.scheduler == s)
            .unwrap()
            .utilisation
    };
    let heavy = eff("heavy", "stf") / eff("heavy", "fcfs");
    let light = eff("light", "stf") / eff("light", "fcfs");
    assert!(
        heavy > light && heavy > 1.15,
        "heavy {heavy:.3} light {light:.3}"
    );
    // The prediction table has every predictor; the LBN-distance curve, blind to rotation,
    // mispredicts some.
    assert_eq!(r.prediction.len(), 6);
    check(
        "calibrated misprediction, imperfect drive",
        h.calibrated_mispredicted_imperfect,
        0.0,
        0.1,
    );
    // Stability on the drive that moves its heads every 15 s: predictions older than that
    // always fail, younger ones fail when a movement fell in between.
    check(
        "last correct prediction (s)",
        h.stability_last_correct_s,
        10.0,
        15.0,
    );
    assert!(h.stability_all_correct_s < h.stability_last_correct_s);
    let lbn = r
        .prediction
        .iter()
        .find(|p| p.predictor == "lbn-curve")
        .unwrap();
    assert!(lbn.mispredicted_fraction > 0.01, "{lbn:?}");
}
