//! DiskSim ASCII trace flags mark requests high priority as DiskSim's trace reader does
//! (time-critical 0x2, time-limited 0x4, synchronous 0x80, asynchronous reads 0x100), and
//! the `priority` scheduler serves those first.

use headway::config::{build_simulation, ExperimentConfig};

use crate::common::scratch;

/// The lbns of a replay of `trace` on one drive under `priority` over FCFS, in the order
/// the drive served them.
fn served_order(trace: &str) -> Vec<u64> {
    let dir = scratch("trace_priority");
    std::fs::write(dir.join("t.trace"), trace).unwrap();
    let toml = "[drive]\nname = \"hp_c3323a\"\nqueue_depth = 1\n\
                [workload]\nkind = \"trace\"\npath = \"t.trace\"\nformat = \"disksim-ascii\"\n\
                [host]\nscheduler = \"priority\"\nmax_outstanding = 1\n\
                [host.inner]\nscheduler = \"fcfs\"\n\
                [output]\nrecords = true\n";
    let path = dir.join("p.toml");
    std::fs::write(&path, toml).unwrap();
    let cfg = ExperimentConfig::from_toml_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let rec = r.records.as_ref().unwrap();
    let mut by_start: Vec<(u64, u64)> = (0..rec.len())
        .map(|i| (rec.start_ns[i], rec.lbn[i]))
        .collect();
    by_start.sort_unstable();
    by_start.into_iter().map(|(_, lbn)| lbn).collect()
}

#[test]
fn time_critical_and_time_limited_trace_requests_go_first() {
    // The first read keeps the drive busy while the rest arrive; plain requests (flags 1
    // and 0) first, then a time-critical read (3), a time-limited write (4) and an
    // asynchronous read (101, time-limited as DiskSim's reader marks it).
    let trace = "0.0 0 1000 8 1\n\
                 0.1 0 2000 8 1\n\
                 0.2 0 3000 8 0\n\
                 0.3 0 4000 8 3\n\
                 0.4 0 5000 8 4\n\
                 0.5 0 6000 8 101\n";
    assert_eq!(
        served_order(trace),
        [1000, 4000, 5000, 6000, 2000, 3000],
        "the marked requests overtake the plain ones, in their own order"
    );
    // Without the marks, first come first served.
    let plain = trace
        .replace(" 3\n", " 1\n")
        .replace(" 4\n", " 0\n")
        .replace(" 101\n", " 1\n");
    assert_eq!(served_order(&plain), [1000, 2000, 3000, 4000, 5000, 6000]);
}
