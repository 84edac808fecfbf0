//! The anticipation core in whole runs: the paper's motivating case (two synchronous
//! sequential readers in far-apart regions) gains, non-synchronous work never waits, and
//! every wrapped scheduler conserves requests and is deterministic.

use headway::config::{build_simulation, ExperimentConfig};
use headway::stats::Summary;

/// Two closed synchronous readers at 1/4 and 3/4 of the disk, each sequential.
fn two_readers(inner: &str, heuristic: &str, think_ms: f64, sectors: u32, requests: u64) -> String {
    let reader = |start: f64| {
        format!(
            "[[workloads]]\nkind = \"closed\"\nprocesses = 1\nrequests = {requests}\nthink_ms = {think_ms}\n\
             size_sectors = {sectors}\nread_fraction = 1.0\nlocality = {{ kind = \"sequential\" }}\n\
             region = {{ start_fraction = {start}, size_fraction = 0.2 }}\n"
        )
    };
    format!(
        "seed = 7\n[[devices]]\nname = \"disk\"\ndrive = \"ibm18es\"\n\
         [host]\nscheduler = \"anticipatory\"\n[host.options]\nheuristic = \"{heuristic}\"\n\
         [host.inner]\nscheduler = \"{inner}\"\n{}{}",
        reader(0.25),
        reader(0.65)
    )
}

fn run(text: &str) -> Summary {
    let cfg = ExperimentConfig::from_toml_str(text, None).unwrap();
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
        .summary
}

#[test]
fn two_sequential_readers_gain_from_anticipation_under_seek_reducing_schedulers() {
    for inner in ["sptf", "aged-sptf", "clook", "mq-deadline"] {
        let off = run(&two_readers(inner, "off", 0.05, 8, 600));
        let on = run(&two_readers(inner, "cost-benefit", 0.05, 8, 600));
        assert_eq!(off.requests, 1200);
        assert_eq!(on.requests, 1200);
        let gain = on.throughput_mb_s / off.throughput_mb_s;
        eprintln!(
            "{inner}: off {:.2} MB/s, on {:.2} MB/s, x{gain:.2}",
            off.throughput_mb_s, on.throughput_mb_s
        );
        assert!(gain > 2.0, "{inner}: anticipation gained only x{gain:.2}");
    }
}

#[test]
fn open_arrivals_are_never_waited_for() {
    // Poisson arrivals are not synchronous: the short-circuit must make the wrapper
    // transparent, to the nanosecond.
    let cfg = |h: &str| {
        format!(
            "seed = 3\n[drive]\nname = \"ibm18es\"\n[host]\nscheduler = \"anticipatory\"\n\
             [host.options]\nheuristic = \"{h}\"\n[host.inner]\nscheduler = \"sptf\"\n\
             [workload]\nrequests = 800\ninterarrival_ms = 6.0\nsize_sectors = 8\n\
             locality = {{ kind = \"sequential\", run_length = 20 }}\n"
        )
    };
    let off = run(&cfg("off"));
    for h in ["cost-benefit", "linux-as", "slice-idle"] {
        let on = run(&cfg(h));
        assert_eq!(on.elapsed_s, off.elapsed_s, "{h}");
        assert_eq!(on.response.mean_ms, off.response.mean_ms, "{h}");
    }
}

#[test]
fn every_wrapped_scheduler_conserves_requests_and_is_deterministic() {
    for inner in [
        "fcfs",
        "sptf",
        "aged-sptf",
        "clook",
        "cscan",
        "sstf",
        "stride",
        "mq-deadline",
    ] {
        for h in [
            "cost-benefit",
            "linux-as",
            "slice-idle",
            "stride",
            "combination",
        ] {
            // Think times around the anticipation window, so waits both pay off and expire.
            let text = two_readers(inner, h, 0.0, 16, 150)
                .replace("think_ms = 0", "think = \"exponential\"\nthink_ms = 1.5");
            let a = run(&text);
            let b = run(&text);
            assert_eq!(a.requests, 300, "{inner}/{h}");
            assert_eq!(a.sectors, 300 * 16, "{inner}/{h}");
            assert_eq!(
                (a.elapsed_s, a.response.mean_ms),
                (b.elapsed_s, b.response.mean_ms),
                "{inner}/{h}"
            );
        }
    }
}

#[test]
fn long_thinktimes_stop_the_cost_benefit_test_from_waiting() {
    // Thinktime 20 ms: far beyond the 10 ms histogram range (overflow bucket: never wait),
    // so anticipation changes nothing.
    let off = run(&two_readers("sptf", "off", 20.0, 8, 100));
    let on = run(&two_readers("sptf", "cost-benefit", 20.0, 8, 100));
    assert_eq!(on.elapsed_s, off.elapsed_s);
}

#[test]
fn bad_options_name_their_key() {
    let text = |opt: &str| {
        format!(
            "[drive]\nname = \"ibm18es\"\n[host]\nscheduler = \"anticipatory\"\n[host.options]\n{opt}\n\
             [host.inner]\nscheduler = \"sptf\"\n[workload]\nrequests = 10\n"
        )
    };
    for (opt, key) in [
        ("decay = -0.1", "host.options.decay"),
        (
            "histogram_range_ms = 0.01",
            "host.options.histogram_range_ms",
        ),
        ("min_sample = 3", "host.options.min_sample"),
    ] {
        let err = ExperimentConfig::from_toml_str(&text(opt), None)
            .and_then(|c| build_simulation(&c, None).map(drop))
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains(key), "{opt}: {err}");
    }
}

#[test]
fn quick_reproduction_headline_is_within_bounds() {
    use headway::experiments::anticipatory::{reproduce, ReproduceOptions};
    let r = reproduce(&ReproduceOptions::quick(), &mut |_| Ok(())).unwrap();
    let h = &r.headline;
    // Read mode: read-ahead keeps sequential readers fast without anticipation (paper:
    // near full bandwidth both ways); alternate blocks defeat it. Measured: 1.00, 8.8x
    // over mmap, alter 6.6x.
    assert!((0.9..1.2).contains(&h.seq_read_speedup), "{h:?}");
    assert!(h.seq_read_over_mmap_original > 3.0, "{h:?}");
    assert!(h.alter_read_speedup > 3.0, "{h:?}");
    // Proportional share, shares 1:2 (paper: about 1:1 without anticipation, the
    // contracted ratio with it; the combination heuristic adds throughput). Measured at
    // seed 1: 1.00, 1.99, 1.91, throughput x1.26.
    let ratio = |v: Option<f64>| v.expect("measured");
    assert!(
        (0.85..1.15).contains(&ratio(h.prop_share_ratio_original)),
        "{h:?}"
    );
    assert!(
        (1.8..2.2).contains(&ratio(h.prop_share_ratio_stride)),
        "{h:?}"
    );
    assert!(
        (1.7..2.3).contains(&ratio(h.prop_share_ratio_combination)),
        "{h:?}"
    );
    assert!(
        ratio(h.prop_share_throughput_gain_combination) > 1.1,
        "{h:?}"
    );
    // Measured 7.13 at seed 1 (paper: about 4); the band allows model changes, not a
    // broken core (which gives about 1).
    assert!((3.0..12.0).contains(&h.seq_mmap_speedup), "{h:?}");
    assert!(h.alter_mmap_speedup > 3.0, "{h:?}");
    // Random reads: only the seeks between the two files are saved.
    assert!((1.0..2.5).contains(&h.random_mmap_speedup), "{h:?}");
    assert!(h.fast_drive_seq_mmap_speedup > 2.0, "{h:?}");
    // Symmetric sweep: at T = 12 ms (beyond the histogram's reach) the heuristic no longer
    // waits and converges to the original.
    let at = |x: f64, hname: &str| {
        r.sweeps
            .iter()
            .find(|row| row.sweep == "symmetric" && row.x == x && row.heuristic == hname)
            .unwrap()
            .throughput_mb_s
    };
    assert!((at(12.0, "cost-benefit") / at(12.0, "off") - 1.0).abs() < 0.05);
    assert!(at(0.0, "cost-benefit") > 3.0 * at(0.0, "off"));
    assert!(at(1.0, "cost-benefit") > at(3.0, "cost-benefit"));
    // The bus decides the sequential speedup: behind a 33 MB/s bus the anticipated pair
    // is no longer capped at the validated bus's 5 MB/s, and the speedup grows several
    // times; alternate pages gain far less there.
    let fast_seq = h.seq_mmap_speedup_fastest_bus.expect("bus sweep");
    let fast_alter = h.alter_mmap_speedup_fastest_bus.expect("bus sweep");
    eprintln!("fastest bus: seq {fast_seq:.2}x alter {fast_alter:.2}x");
    assert!(fast_seq > 2.0 * h.seq_mmap_speedup, "{h:?}");
    assert!(fast_alter < h.alter_mmap_speedup, "{h:?}");
    // The adaptive adversary: the random one loses at its worst N and a coarse timer
    // takes part of that back; the sequential one gains (its bursts are runs of nearby pages).
    let adv = &h.adaptive_adversary;
    eprintln!("adaptive adversary: {adv:?}");
    assert!(
        adv.adaptive_adversary_random_worst_slowdown > 0.0,
        "{adv:?}"
    );
    assert!(
        adv.granularity_adversary_slowdown_coarsest < adv.granularity_adversary_slowdown_finest,
        "{adv:?}"
    );
    assert!(adv.adaptive_adversary_slowdown < 0.0, "{adv:?}");
    for sweep in ["adversary-adaptive", "adversary-adaptive-random"] {
        assert_eq!(
            r.sweeps.iter().filter(|row| row.sweep == sweep).count(),
            5 * ReproduceOptions::quick().bursts.len()
        );
    }
    // Application stand-ins (measured at seed 1, quick sizes, in docs/anticipatory.md).
    let a = &h.apps;
    // The process-count sweep: the mmap gain shrinks as processes are added (2 against
    // the quick run's 8).
    eprintln!(
        "web gains at the fewest processes: read {:+.3} mmap {:+.3}",
        a.apache_read_gain_fewest_processes, a.apache_mmap_gain_fewest_processes
    );
    assert!(
        a.apache_mmap_gain_fewest_processes > a.apache_mmap_gain,
        "{a:?}"
    );
    // Andrew: total 18.5%, scan 13.9% faster with 2 clients, no change with 1 (paper: 8%,
    // 54%, no effect).
    assert!(a.andrew_time_reduction > 0.05, "{a:?}");
    assert!(a.andrew_scan_time_reduction > 0.05, "{a:?}");
    assert!(a.andrew_scan_time_reduction_1client.abs() < 0.01, "{a:?}");
    // Andrew per phase: each client's phases add up to its total, and the scan phase
    // (streams of synchronous reads) gains with anticipation.
    for h in ["off", "cost-benefit"] {
        let t = |p: &str| {
            r.phases
                .iter()
                .find(|row| row.heuristic == h && row.phase == p)
                .unwrap()
                .time_s
        };
        let sum: f64 = ["mkdir", "cp", "stat", "scan", "gcc"]
            .iter()
            .map(|p| t(p))
            .sum();
        assert!(
            (sum / t("total") - 1.0).abs() < 1e-9,
            "{h}: {sum} {}",
            t("total")
        );
        assert!(t("mkdir") > 0.0 && t("stat") > 0.0, "{h}");
    }
    assert!(a.andrew_scan_phase_time_reduction > 0.05, "{a:?}");
    assert!(a.apache_mixed_gain.is_finite(), "{a:?}");
    // Web server: mmap gains more than read (paper: 71% and 29%); measured 17.9% and 1.1%.
    assert!(a.apache_mmap_gain > 0.08, "{a:?}");
    assert!(a.apache_mmap_gain > a.apache_read_gain, "{a:?}");
    assert!(a.apache_read_gain > -0.03, "{a:?}");
    // Linker: 2 instances take far more than 2x one without anticipation, near 2x with it
    // under aged SPTF, C-SCAN between (measured 4.7, 2.6, 3.2).
    assert!(a.linker_two_over_one_original > 3.5, "{a:?}");
    assert!(
        (1.8..3.0).contains(&a.linker_two_over_one_anticipatory),
        "{a:?}"
    );
    assert!(a.linker_two_over_one_cscan_anticipatory > a.linker_two_over_one_anticipatory);
    assert!(a.linker_two_over_one_cscan_anticipatory < a.linker_two_over_one_original);
    // TPC-B: select with separate databases gains most (paper: 60%), update with one
    // database least (paper: 2%); measured -0.4%, 6.8%, 3.5%, 31.4%.
    let g = a.tpcb_gain;
    assert!(g[3] > 0.15 && g.iter().all(|&x| x <= g[3]), "{a:?}");
    assert!(g[0].abs() < 0.05, "{a:?}");
    // The faster platform: positive gains where the IDE disk had them.
    assert!(a.fast_drive_apache_mmap_gain > 0.08, "{a:?}");
    assert!(a.fast_drive_tpcb_gain[3] > 0.15, "{a:?}");
    assert!(r
        .apps
        .iter()
        .all(|row| row.elapsed_s > 0.0 && row.ops_per_s > 0.0));
    // The M-process C-SCAN example: anticipation beats work-conserving C-SCAN at every M
    // (measured 3.4 vs 0.23 MB/s at M = 2, 0.75 vs 0.34 at M = 8).
    let sw = |name: &str, x: f64, h: &str| {
        r.sweeps
            .iter()
            .find(|row| row.sweep == name && row.x == x && row.heuristic == h)
            .unwrap()
            .throughput_mb_s
    };
    for m in [2.0, 4.0, 8.0] {
        assert!(sw("cscan_m", m, "cost-benefit") > 1.5 * sw("cscan_m", m, "off"));
    }
    // A histogram range below the 1 ms thinktime: T95 is unknown, no waiting (0.53 MB/s,
    // the original's) against 2.08 MB/s with the default 10 ms.
    assert!(
        sw("histogram_range_ms", 1.0, "cost-benefit")
            < 0.5 * sw("histogram_range_ms", 10.0, "cost-benefit")
    );
    // R_v: 0 is strict stride (the contract, stride's throughput); larger R_v buys
    // throughput and gives up the ratio (measured 1.99 / 85, 1.99 / 100, 1.33 / 110).
    let rv: Vec<_> = r
        .shares
        .iter()
        .filter(|s| s.config == "combination-rv")
        .collect();
    assert_eq!(rv.len(), 3);
    assert!((rv[0].service_ratio - 2.0).abs() < 0.2, "{rv:?}");
    assert!(
        rv[2].throughput_iops > rv[0].throughput_iops * 1.1,
        "{rv:?}"
    );
    assert!(rv[2].service_ratio < rv[0].service_ratio, "{rv:?}");
    // The cumulative-service series: non-decreasing, ending at the window's totals.
    let orig: Vec<_> = r
        .service
        .iter()
        .filter(|p| p.config == "original")
        .collect();
    assert_eq!(orig.len(), 40);
    assert!(orig
        .windows(2)
        .all(|w| w[1].share_low_service_s >= w[0].share_low_service_s));
    let total = r.shares.iter().find(|s| s.config == "original").unwrap();
    assert!((orig.last().unwrap().share_high_service_s - total.share_high_busy_s).abs() < 1e-9);
}

#[test]
fn stride_holds_shares_on_a_saturated_workload() {
    // Four closed processes per client, no think time: both always have requests queued,
    // so strict stride alone must deliver the 1:2 service ratio (disk busy time).
    let mut text = String::from(
        "seed = 2\n[[devices]]\nname = \"disk\"\ndrive = \"ibm18es\"\n[host]\nscheduler = \"stride\"\n",
    );
    for (start, share) in [(0.1, 1.0), (0.6, 2.0)] {
        text += &format!(
            "[[workloads]]\nkind = \"closed\"\nprocesses = 4\nrequests = 4000\nsize_sectors = 8\n\
             read_fraction = 1.0\nshare = {share:?}\nregion = {{ start_fraction = {start}, size_fraction = 0.2 }}\n"
        );
    }
    text += "[output]\nrecords = true\n";
    let cfg = ExperimentConfig::from_toml_str(&text, None).unwrap();
    let rec = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
        .records
        .unwrap();
    // While both clients are active: up to the first client's last completion.
    let last = |lo: u32, hi: u32| {
        (0..rec.len())
            .filter(|&i| (lo..hi).contains(&rec.process[i]))
            .map(|i| rec.done_ns[i])
            .max()
            .unwrap()
    };
    let end = last(0, 4).min(last(4, 8));
    let busy = |lo: u32, hi: u32| -> f64 {
        (0..rec.len())
            .filter(|&i| rec.done_ns[i] <= end && (lo..hi).contains(&rec.process[i]))
            .map(|i| (rec.done_ns[i] - rec.start_ns[i]) as f64)
            .sum()
    };
    let ratio = busy(4, 8) / busy(0, 4);
    assert!((1.9..2.1).contains(&ratio), "service ratio {ratio}");
}

#[test]
fn zero_shares_are_keyed_errors() {
    let text =
        "[[devices]]\nname = \"disk\"\ndrive = \"ibm18es\"\n[host]\nscheduler = \"stride\"\n\
                [[workloads]]\nkind = \"sync\"\nrequests = 10\nshare = 0.0\n";
    let err = ExperimentConfig::from_toml_str(text, None)
        .and_then(|c| build_simulation(&c, None).map(drop))
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("key `share`") && err.contains("positive"),
        "{err}"
    );
}

#[test]
fn expiry_rate_mitigation_stops_waiting_for_a_process_that_often_makes_waits_expire() {
    // Think times uniform on [0, 2 ms]: about 5% of the waits to T95 expire, so a cap of 1%
    // cuts both readers off (back to about the original's throughput), while a cap of 1
    // (the default) changes nothing.
    let text = |extra: &str| {
        let mut t = format!(
            "seed = 3\n[[devices]]\nname = \"disk\"\ndrive = \"ibm18es\"\n[host]\nscheduler = \"anticipatory\"\n\
             [host.options]\n{extra}\n[host.inner]\nscheduler = \"aged-sptf\"\n"
        );
        for start in [0.25, 0.65] {
            t += &format!(
                "[[workloads]]\nkind = \"sync\"\nrequests = 400\nthink = \"uniform\"\nthink_min_ms = 0.0\n\
                 think_max_ms = 2.0\nregion = {{ start_fraction = {start}, size_fraction = 0.1 }}\n"
            );
        }
        t
    };
    let mb_s = |extra: &str| run(&text(extra)).throughput_mb_s;
    let plain = mb_s("");
    let off = mb_s("heuristic = \"off\"");
    assert!(plain > 1.5 * off, "{plain} {off}");
    assert_eq!(mb_s("max_expiry_rate = 1.0"), plain);
    let capped = mb_s("max_expiry_rate = 0.01");
    assert!(capped < 0.8 * plain, "{capped} {plain} {off}");
}

/// Two adaptive adversaries (`burst_pause_over_ms`) reading random pages of their files: `n`
/// rapid reads, then a pause 0.05 ms past the timeout the core set for them.
fn adaptive_adversaries(n: u64, host_options: &str) -> String {
    let mut t = format!(
        "seed = 5\n[[devices]]\nname = \"disk\"\ndrive = \"ibm18es\"\n[host]\nscheduler = \"anticipatory\"\n\
         [host.options]\n{host_options}\n[host.inner]\nscheduler = \"aged-sptf\"\n"
    );
    for start in [0.25, 0.65] {
        t += &format!(
            "[[workloads]]\nkind = \"sync\"\nrequests = 400\nthink_ms = 0.0\npattern = \"random\"\n\
             burst = {n}\nburst_pause_over_ms = 0.05\nregion = {{ start_fraction = {start}, size_fraction = 0.1 }}\n"
        );
    }
    t
}

#[test]
fn adaptive_adversary_makes_anticipation_lose_unless_the_timer_is_coarse() {
    // One read per burst: every read follows a pause 50 µs past the timeout the core armed,
    // so every wait expires and is pure idle time. Measured at seed 5: 0.311 MB/s without
    // anticipation, 0.293 (-6%) with the exact timer, 0.320 (+3%) with a 1 ms timer, whose
    // rounded-up timeouts outlast the pause.
    let mb_s = |opts: &str| run(&adaptive_adversaries(1, opts)).throughput_mb_s;
    let off = mb_s("heuristic = \"off\"");
    let exact = mb_s("");
    let coarse = mb_s("timer_granularity_us = 1000.0");
    assert!(exact < 0.97 * off, "{exact} {off}");
    assert!(coarse > exact * 1.05, "{coarse} {exact}");
    // Ten reads per burst: the rapid reads' anticipation outweighs the expired waits.
    let burst = |opts: &str| run(&adaptive_adversaries(10, opts)).throughput_mb_s;
    assert!(burst("") > 1.2 * burst("heuristic = \"off\""));
    // Both pause keys at once are a keyed error, not a silent choice.
    let both = adaptive_adversaries(1, "").replace(
        "burst_pause_over_ms = 0.05",
        "burst_pause_over_ms = 0.05\nburst_pause_ms = 0.1",
    );
    let err = ExperimentConfig::from_toml_str(&both, None)
        .and_then(|c| build_simulation(&c, None).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("burst_pause_over_ms"), "{err}");
}
