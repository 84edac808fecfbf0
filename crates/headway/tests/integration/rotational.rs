//! Rotation-aware scheduling end to end: options in experiment files, the decision CPU
//! cost, media utilisation and the prediction-gap statistics.

use crate::common;

use headway::config::{build_simulation, ExperimentConfig};
use headway::error::HeadwayError;
use headway::stats::Summary;

fn run(text: &str) -> Summary {
    let cfg = ExperimentConfig::from_toml_str(text, None).unwrap_or_else(|e| panic!("{e}"));
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
        .summary
}

fn closed(sched: &str, pred: &str, q: u32, host_extra: &str, options: &str) -> String {
    format!(
        "seed = 2\n[drive]\nname = \"st41601n\"\n[host]\nscheduler = \"{sched}\"\npredictor = \"{pred}\"\n{host_extra}\n[host.options]\n{options}\n[workload]\nkind = \"closed\"\nprocesses = {q}\nrequests = {}\nsize_sectors = 8\nread_fraction = 0.25\n",
        100 * q
    )
}

#[test]
fn bad_scheduler_options_name_file_and_key() {
    let dir = common::scratch("rot");
    let path = dir.join("bad.toml");
    std::fs::write(
        &path,
        "[host]\nscheduler = \"gstf\"\n[host.options]\ngroup_cylinder = 700\n",
    )
    .unwrap();
    let e = ExperimentConfig::from_toml_file(&path).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(&e, HeadwayError::Config { key: Some(k), file: Some(_), .. } if k == "host.options.group_cylinder"),
        "{text}"
    );
    assert!(
        text.contains("bad.toml") && text.contains("group_cylinders"),
        "{text}"
    );
    std::fs::write(
        &path,
        "[host]\nscheduler = \"wstf\"\n[host.options]\nmax_response_ms = \"long\"\n",
    )
    .unwrap();
    let text = ExperimentConfig::from_toml_file(&path)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("host.options.max_response_ms") && text.contains("a number"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn media_utilisation_is_transfer_time_over_elapsed_time() {
    let s = run(&closed("fcfs", "oracle", 4, "", ""));
    assert!(s.utilisation > 0.99, "{}", s.utilisation);
    // 8 sectors at 85..61 per 11.1 ms turn is 1.0..1.5 ms out of about 20 ms per request.
    let expected = s.mean_transfer_ms * s.requests as f64 / (s.elapsed_s * 1e3);
    assert!((s.media_utilisation - expected).abs() < 1e-3, "{s:?}");
    assert!(
        (0.04..0.09).contains(&s.media_utilisation),
        "{}",
        s.media_utilisation
    );
}

#[test]
fn decision_cost_delays_every_command_by_the_estimates_it_took() {
    let free = run(&closed("stf", "oracle", 50, "", "prune = false"));
    let charged = run(&closed(
        "stf",
        "oracle",
        50,
        "decision_ns_per_estimate = 8000",
        "prune = false",
    ));
    // A full scan of up to 50 requests costs up to 0.4 ms per decision, serialised before
    // the command leaves: the disk idles for it.
    assert!(
        charged.utilisation < free.utilisation - 0.01,
        "{} vs {}",
        charged.utilisation,
        free.utilisation
    );
    assert!(charged.media_utilisation < free.media_utilisation);
    // FCFS makes no estimates: nothing is charged.
    let a = run(&closed("fcfs", "oracle", 10, "", ""));
    let b = run(&closed(
        "fcfs",
        "oracle",
        10,
        "decision_ns_per_estimate = 8000",
        "",
    ));
    assert_eq!(a, b);
}

#[test]
fn an_exact_model_predicts_every_service_time() {
    let s = run(&closed(
        "stf",
        "calibrated",
        20,
        "",
        "objective = \"service\"",
    ));
    let p = &s.prediction;
    assert_eq!(p.commands, s.requests);
    assert_eq!(p.mispredicted_fraction, 0.0, "{p:?}");
    assert!(p.mean_abs_error_ms < 0.05, "{p:?}");
}

#[test]
fn an_underestimated_seek_costs_a_rotation_and_shows_up_one_rotation_late() {
    let s = run(&closed(
        "stf",
        "calibrated",
        20,
        "[host.predictor_options]\nlag_error_ms = -1.0\ncmps_sectors = 0",
        "",
    ));
    let p = &s.prediction;
    assert!(p.mispredicted_fraction > 0.3, "{p:?}");
    // The error histogram has its mass about one rotation (11.1 ms) up.
    let near = |lo: f64, hi: f64| {
        p.error_histogram
            .iter()
            .filter(|b| b.from_ms >= lo && b.to_ms <= hi)
            .map(|b| b.count)
            .sum::<u64>()
    };
    assert!(near(8.0, 14.0) as f64 > 0.3 * p.commands as f64, "{p:?}");
}
