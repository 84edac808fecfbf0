//! The `[workload]` table: what parses, and every bad value naming its key.

use std::path::PathBuf;

use crate::common::workload::workload;
use headway::config::ExperimentConfig;
use headway::engine::RngStreams;
use headway::workload::{
    ArrivalKind, ClosedConfig, HotRegion, LocalDistribution, LocalityConfig, OpenConfig,
    ShapeConfig, SizeConfig, ThinkKind, TraceConfig, TraceFormat, WorkloadConfig,
};
use headway::HeadwayError;

#[test]
fn each_kind_parses_to_its_typed_config() {
    assert_eq!(
        workload(
            r#"kind = "open"
               requests = 50
               arrival = "fixed"
               rate_iops = 200.0
               size = { kind = "uniform", min_sectors = 8, max_sectors = 64 }
               align_sectors = 4
               read_fraction = 0.25
               locality = { kind = "hot", regions = [{ start_fraction = 0.1, size_fraction = 0.2, access_fraction = 0.9 }] }"#
        ),
        WorkloadConfig::Open(OpenConfig {
            requests: 50,
            arrival: ArrivalKind::Fixed,
            interarrival_ms: None,
            rate_iops: Some(200.0),
            shape: ShapeConfig {
                size_sectors: None,
                size: Some(SizeConfig::Uniform {
                    min_sectors: 8,
                    max_sectors: 64
                }),
                align_sectors: 4,
                read_fraction: 0.25,
                locality: LocalityConfig::Hot {
                    regions: vec![HotRegion {
                        start_fraction: 0.1,
                        size_fraction: 0.2,
                        access_fraction: 0.9
                    }]
                },
            },
        })
    );
    assert_eq!(
        workload(
            r#"kind = "closed"
               processes = 8
               requests = 400
               think = "exponential"
               think_ms = 1.5
               size_sectors = 16
               locality = { kind = "local", mean_distance_sectors = 100.0, distribution = "exponential" }"#
        ),
        WorkloadConfig::Closed(ClosedConfig {
            processes: 8,
            requests: 400,
            think: ThinkKind::Exponential,
            think_ms: Some(1.5),
            shape: ShapeConfig {
                size_sectors: Some(16),
                locality: LocalityConfig::Local {
                    mean_distance_sectors: 100.0,
                    distribution: LocalDistribution::Exponential
                },
                ..ShapeConfig::default()
            },
            ..ClosedConfig::default()
        })
    );
    assert_eq!(
        workload(
            r#"kind = "trace"
               path = "traces/a.trace.gz"
               format = "disksim-ascii"
               speed = 2.0
               limit = 1000
               device = 5"#
        ),
        WorkloadConfig::Trace(TraceConfig {
            path: PathBuf::from("traces/a.trace.gz"),
            format: TraceFormat::DisksimAscii,
            speed: 2.0,
            limit: Some(1000),
            device: Some(5),
            ..TraceConfig::new("traces/a.trace.gz")
        })
    );
    assert_eq!(
        workload("kind = \"trace\"\npath = \"t\""),
        WorkloadConfig::Trace(TraceConfig {
            path: PathBuf::from("t"),
            format: TraceFormat::Auto,
            speed: 1.0,
            limit: None,
            device: None,
            ..TraceConfig::new("t")
        })
    );
}

fn parse_error(body: &str) -> String {
    ExperimentConfig::from_toml_str(&format!("[workload]\n{body}"), None)
        .unwrap_err()
        .to_string()
}

#[test]
fn shape_errors_are_caught_when_the_file_is_read() {
    for (body, needle) in [
        ("kind = \"batch\"", "unknown variant `batch`"),
        ("kind = 3", "line 2"),
        ("favourite_colour = 3", "unknown field `favourite_colour`"),
        (
            "requests = 5\nthink_ms = 1.0",
            "field `think_ms` belongs to kind = \"closed\" workloads, but this one is kind = \"open\" (the default",
        ),
        (
            "kind = \"closed\"\nrate_iops = 1.0",
            "field `rate_iops` belongs to kind = \"open\" workloads",
        ),
        (
            "kind = \"trace\"\npath = \"t\"\nrequests = 4",
            "field `requests` belongs to kind = \"open\", \"closed\" and \"bursty\" workloads, but this one is kind = \"trace\"",
        ),
        ("kind = \"trace\"", "missing field `path`"),
        ("arrival = \"bursty\"", "unknown variant `bursty`"),
        ("locality = { kind = \"zipf\" }", "unknown variant `zipf`"),
        (
            "locality = { kind = \"sequential\", run = 3 }",
            "unknown field `run`",
        ),
        (
            "size = { kind = \"fixed\", sectors = 8, extra = 1 }",
            "unknown field `extra`",
        ),
        (
            "kind = \"trace\"\npath = \"t\"\nformat = \"spc2\"",
            "unknown variant `spc2`",
        ),
    ] {
        let e = parse_error(body);
        assert!(e.contains(needle), "{body}: {e}");
    }
    // Type errors point at the offending line.
    let e = ExperimentConfig::from_toml_str(
        "seed = 1\n[workload]\nkind = \"open\"\nrequests = -1\n",
        None,
    )
    .unwrap_err();
    assert!(
        matches!(e, HeadwayError::Config { line: Some(4), .. }),
        "{e}"
    );
    // Keys of the wrong kind are named as keys.
    let e = ExperimentConfig::from_toml_str("[workload]\nthink_ms = 1.0\n", None).unwrap_err();
    assert!(
        matches!(&e, HeadwayError::Config { key: Some(k), .. } if k == "think_ms"),
        "{e}"
    );
    // Unknown keys point at their own line and list the keys a workload takes.
    let e =
        ExperimentConfig::from_toml_str("seed = 1\n[workload]\nrequests = 5\nrqeuests = 5\n", None)
            .unwrap_err();
    assert!(
        matches!(&e, HeadwayError::Config { line: Some(4), key: Some(k), .. } if k == "rqeuests"),
        "{e}"
    );
    assert!(
        e.to_string().contains("expected one of `kind`, `requests`"),
        "{e}"
    );
    // A type error in a kind's own key (read after `kind`, or before it) keeps its line.
    for body in [
        "kind = \"trace\"\npath = \"t\"\nspeed = \"fast\"\n",
        "speed = \"fast\"\npath = \"t\"\nkind = \"trace\"\n",
    ] {
        let e = ExperimentConfig::from_toml_str(&format!("[workload]\n{body}"), None).unwrap_err();
        let line = 2 + body.lines().position(|l| l.starts_with("speed")).unwrap();
        assert!(
            matches!(&e, HeadwayError::Config { line: Some(l), .. } if *l == line),
            "{body}: {e}"
        );
    }
}

/// Errors found by [`WorkloadConfig::build`] for a drive of `cap` sectors.
fn build_error(body: &str, cap: u64) -> HeadwayError {
    let cfg = workload(body);
    match cfg.build(cap, &RngStreams::new(1), None) {
        Ok(_) => panic!("{body}: accepted"),
        Err(e) => e,
    }
}

#[test]
fn bad_values_name_their_key() {
    let cases = [
        ("requests = 0", "workload.requests"),
        ("interarrival_ms = 0.0", "workload.interarrival_ms"),
        ("interarrival_ms = -3.0", "workload.interarrival_ms"),
        ("interarrival_ms = nan", "workload.interarrival_ms"),
        ("rate_iops = 0.0", "workload.rate_iops"),
        ("rate_iops = inf", "workload.rate_iops"),
        ("rate_iops = 1e-300", "workload.rate_iops"),
        ("interarrival_ms = 1e12\nrequests = 10000", "workload.interarrival_ms"),
        ("rate_iops = 10.0\ninterarrival_ms = 1.0", "workload.rate_iops"),
        ("read_fraction = 1.5", "workload.read_fraction"),
        ("read_fraction = -0.1", "workload.read_fraction"),
        ("align_sectors = 0", "workload.align_sectors"),
        ("size_sectors = 0", "workload.size_sectors"),
        ("size_sectors = 12", "workload.size_sectors"),
        ("size_sectors = 8\nsize = { kind = \"fixed\", sectors = 8 }", "workload.size"),
        ("size = { kind = \"fixed\", sectors = 0 }", "workload.size.sectors"),
        ("size = { kind = \"uniform\", min_sectors = 0, max_sectors = 8 }", "workload.size.min_sectors"),
        ("size = { kind = \"uniform\", min_sectors = 16, max_sectors = 8 }", "workload.size.max_sectors"),
        ("size = { kind = \"uniform\", min_sectors = 9, max_sectors = 15 }", "workload.size.max_sectors"),
        ("size = { kind = \"exponential\", mean_sectors = 0.0 }", "workload.size.mean_sectors"),
        ("size = { kind = \"exponential\", mean_sectors = 8.0, max_sectors = 4 }", "workload.size.max_sectors"),
        ("locality = { kind = \"sequential\", run_length = 0 }", "workload.locality.run_length"),
        ("locality = { kind = \"local\", mean_distance_sectors = 0.0 }", "workload.locality.mean_distance_sectors"),
        (
            "locality = { kind = \"hot\", regions = [{ start_fraction = 0.0, size_fraction = 0.1, access_fraction = 0.7 }, { start_fraction = 0.5, size_fraction = 0.1, access_fraction = 0.4 }] }",
            "workload.locality.regions",
        ),
        (
            "locality = { kind = \"hot\", regions = [{ start_fraction = 0.95, size_fraction = 0.1, access_fraction = 0.5 }] }",
            "workload.locality.regions[0].size_fraction",
        ),
        (
            "locality = { kind = \"hot\", regions = [{ start_fraction = 0.1, size_fraction = 0.0, access_fraction = 0.5 }] }",
            "workload.locality.regions[0].size_fraction",
        ),
        (
            "locality = { kind = \"hot\", regions = [{ start_fraction = 0.1, size_fraction = 0.1, access_fraction = 1.5 }] }",
            "workload.locality.regions[0].access_fraction",
        ),
        ("kind = \"closed\"\nprocesses = 0", "workload.processes"),
        ("kind = \"closed\"\nprocesses = 4000000000", "workload.processes"),
        ("kind = \"closed\"\nthink = \"exponential\"", "workload.think_ms"),
        ("kind = \"closed\"\nthink = \"exponential\"\nthink_ms = 0.0", "workload.think_ms"),
        ("kind = \"closed\"\nthink_ms = -1.0", "workload.think_ms"),
        ("kind = \"closed\"\nthink_ms = 1e300", "workload.think_ms"),
        ("kind = \"closed\"\nthink = \"uniform\"\nthink_max_ms = 2.0", "workload.think_min_ms"),
        ("kind = \"closed\"\nthink = \"uniform\"\nthink_min_ms = 3.0\nthink_max_ms = 2.0", "workload.think_max_ms"),
        ("kind = \"closed\"\nthink = \"uniform\"\nthink_ms = 2.0", "workload.think_ms"),
        ("kind = \"closed\"\nthink_min_ms = 2.0", "workload.think_min_ms"),
        ("kind = \"trace\"\npath = \"x\"\nspeed = 0.0", "workload.speed"),
        ("kind = \"trace\"\npath = \"x\"\nlimit = 0", "workload.limit"),
    ];
    for (body, key) in cases {
        // Everything here is wrong whatever the drive, so reading the experiment file
        // already refuses it, naming the file and the key.
        let text = format!("[workload]\n{body}\n");
        let e = ExperimentConfig::from_toml_str(&text, Some(std::path::Path::new("exp.toml")))
            .expect_err(body);
        match &e {
            HeadwayError::Config {
                key: Some(k),
                file: Some(f),
                ..
            } => {
                assert_eq!(k, key, "{body}");
                assert_eq!(f, std::path::Path::new("exp.toml"), "{body}");
            }
            other => panic!("{body}: {other}"),
        }
        assert!(e.to_string().contains(key), "{body}: {e}");
    }
}

#[test]
fn requests_larger_than_the_drive_are_refused() {
    for (body, key) in [
        ("size_sectors = 1024", "workload.size_sectors"),
        (
            "size = { kind = \"uniform\", min_sectors = 8, max_sectors = 2048 }",
            "workload.size.max_sectors",
        ),
        (
            "size = { kind = \"exponential\", mean_sectors = 4096.0 }",
            "workload.size.mean_sectors",
        ),
        (
            "kind = \"closed\"\nsize_sectors = 1024",
            "workload.size_sectors",
        ),
    ] {
        let e = build_error(body, 1000);
        assert!(
            matches!(&e, HeadwayError::Config { key: Some(k), msg, .. } if k == key && msg.contains("1000 sectors")),
            "{body}: {e}"
        );
        // ...but the same config is fine on a bigger drive.
        workload(body)
            .build(1 << 20, &RngStreams::new(1), None)
            .unwrap();
    }
}

#[test]
fn the_examples_in_the_module_docs_are_valid() {
    let docs: String = include_str!("../../src/workload/mod.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
        .collect();
    let blocks: Vec<&str> = docs
        .split("```toml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert_eq!(blocks.len(), 5);
    let kinds: Vec<&str> = blocks
        .iter()
        .map(|b| {
            let cfg =
                ExperimentConfig::from_toml_str(b, None).unwrap_or_else(|e| panic!("{e}\n{b}"));
            // A `[[workloads]]` example is its first entry.
            let w = cfg.workload_list().remove(0).config;
            w.validate().unwrap();
            w.kind().name()
        })
        .collect();
    assert_eq!(kinds, ["open", "closed", "trace", "bursty", "app"]);
}
