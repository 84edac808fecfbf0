//! headway against DiskSim 4.0 on synthetic workloads (the differential harness).
//!
//! `tests/fixtures/disksim/<drive>.json` hold what DiskSim 4.0 printed for each workload
//! (means, standard deviations, the response-time distribution in ~1% bins), written by
//! `scripts/disksim_fixtures.py` from `../shared/disksim-oracle` (DiskSim's notice:
//! `tests/fixtures/disksim/COPYRIGHT`). Each workload is regenerated here from its
//! description with the script's generator (splitmix64, repeated bit for bit), replayed on
//! the catalog drive with the same drive queue and firmware policy, and compared: the mean,
//! and the demerit between DiskSim's binned distribution and headway's times put into the
//! same bins.
//!
//! Tolerances (stated once, per class of workload, never per drive): see `tolerance`. A
//! workload beyond them is listed in `KNOWN` with the mechanism that explains it
//! (docs/fidelity.md, "headway against DiskSim"); the test fails on any other, and on a
//! `KNOWN` entry that has come within tolerance (so the list cannot go stale).

use crate::common;

use std::fmt::Write as _;
use std::path::PathBuf;

use headway::config::{build_simulation, ExperimentConfig};
use serde_json::Value;

const DRIVES: &[&str] = &[
    "atlas10k",
    "atlas_iii",
    "barracuda",
    "cheetah4lp",
    "cheetah9lp",
    "dec_rz26",
    "hp_c2247a",
    "hp_c2490a",
    "hp_c3323a",
    "ibm18es",
    "st41601n",
];

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (2.0f64).powi(-53)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `workload_lines` of scripts/disksim_fixtures.py, draw for draw.
fn trace_text(w: &Value) -> String {
    let mut rng = SplitMix64(w["seed"].as_u64().unwrap());
    let sizes: Vec<u64> = w["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let span_total = w["span_sectors"].as_u64().unwrap();
    let span = span_total - sizes.iter().max().unwrap();
    let ia = w["interarrival_ms"].as_f64().unwrap();
    let (rf, sf) = (
        w["read_fraction"].as_f64().unwrap(),
        w["sequential_fraction"].as_f64().unwrap(),
    );
    let mut t = 0.0f64;
    let mut t0 = None;
    let mut next = 0u64;
    let mut out = String::new();
    for i in 0..w["requests"].as_u64().unwrap() {
        t += -ia * (1.0 - rng.unit()).ln();
        let size = sizes[rng.below(sizes.len() as u64) as usize];
        let read = rng.unit() < rf;
        let seq = rng.unit() < sf;
        let mut lbn = rng.below(span / 8) * 8;
        if i > 0 && seq && next + size <= span_total {
            lbn = next;
        }
        next = lbn + size;
        // From the first arrival, at 0, as the script gives DiskSim (its spindle starts at
        // angle 0 at time 0; headway replays from the first record).
        let first = *t0.get_or_insert(t);
        writeln!(out, "{:.6} 0 {lbn} {size} {}", t - first, u8::from(read)).unwrap();
    }
    out
}

/// headway's response times (ms) for workload `w` on `drive`, in the trace's order, of the
/// requests DiskSim counts: those complete by the trace's last arrival. DiskSim ends its run
/// there, with the last requests still in flight and left out of its statistics (on the q4
/// mixes 2 to 15 of 2,000, the busiest: on ibm18es's FCFS mix the 15 left out took 147-152
/// ms in headway, and counting them put headway's mean 3.7% above the one over the requests
/// DiskSim counted). `None` for the others.
fn run_headway(
    drive: &str,
    drive_name: &str,
    w: &Value,
    dir: &std::path::Path,
) -> Vec<Option<f64>> {
    let name = w["name"].as_str().unwrap();
    let text = trace_text(w);
    let last_arrival_ms: f64 = text
        .lines()
        .last()
        .and_then(|l| l.split(' ').next())
        .map_or(0.0, |t| t.parse().unwrap());
    let trace = dir.join(format!("{drive}_{name}.trace"));
    std::fs::write(&trace, text).unwrap();
    run_trace_done(drive_name, w, &trace)
        .into_iter()
        .map(|(resp, done)| (done <= last_arrival_ms).then_some(resp))
        .collect()
}

/// headway's response times (ms) for the DiskSim ASCII trace at `trace` on `drive`, with the
/// drive queue and firmware policy of `w`, in the trace's order.
fn run_trace(drive: &str, w: &Value, trace: &std::path::Path) -> Vec<f64> {
    run_trace_done(drive, w, trace)
        .into_iter()
        .map(|p| p.0)
        .collect()
}

/// [`run_trace`]'s response times with each request's completion time (ms). `drive` is the
/// drive's name, possibly followed by lines of more `[drive]` keys.
fn run_trace_done(drive: &str, w: &Value, trace: &std::path::Path) -> Vec<(f64, f64)> {
    let name = w["name"].as_str().unwrap();
    let (drive, keys) = drive.split_once('\n').unwrap_or((drive, ""));
    let toml = format!(
        "[drive]\nname = \"{drive}\"\n{keys}\nqueue_depth = {}\nfirmware_scheduler = \"{}\"\n\
         [host]\nscheduler = \"fcfs\"\n\
         [workload]\nkind = \"trace\"\npath = \"{}\"\nformat = \"disksim-ascii\"\n\
         [output]\nrecords = true\n",
        w["queue_depth"],
        w["policy"].as_str().unwrap(),
        trace.display()
    );
    let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap_or_else(|e| panic!("{drive} {name}: {e}"))
        .simulation
        .run()
        .unwrap();
    let rec = r.records.unwrap();
    // Records come in the order of completion; the trace's order is the requests' ids.
    let mut by_id: Vec<(u64, f64, f64)> = (0..rec.len())
        .map(|i| {
            let done = rec.done_ns[i] as f64 / 1e6;
            (rec.id[i], done - rec.arrival_ns[i] as f64 / 1e6, done)
        })
        .collect();
    by_id.sort_unstable_by_key(|p| p.0);
    by_id.into_iter().map(|p| (p.1, p.2)).collect()
}

/// DiskSim's bins: row label = exclusive upper edge (us); the row before gives the lower.
fn bin_uppers_us(bins: &Value) -> Vec<i64> {
    let start = bins["start_us"].as_i64().unwrap();
    let step = bins["step_us"].as_i64().unwrap();
    let grow = bins["grow_pct"].as_i64().unwrap();
    let n = bins["buckets"].as_u64().unwrap() as usize;
    let mut v = Vec::with_capacity(n);
    let mut b = start;
    for _ in 0..n {
        v.push(b);
        b += step + ((b.abs() * grow) as f64 / 100.0) as i64;
    }
    v
}

/// Demerit between two binned distributions: RMS horizontal distance of their CDFs sampled at
/// every 1/10000 of probability, a sample lying at the middle of its bin.
fn binned_demerit(uppers: &[i64], a: &[u64], b: &[u64]) -> f64 {
    let mid = |i: usize| -> f64 {
        let lo = if i == 0 { 0 } else { uppers[i - 1] };
        let hi = if i + 1 == uppers.len() { lo } else { uppers[i] };
        (lo + hi) as f64 / 2000.0
    };
    let quant = |c: &[u64], p: f64| -> f64 {
        let total: u64 = c.iter().sum();
        let want = (p * total as f64).ceil().max(1.0) as u64;
        let mut acc = 0;
        for (i, &n) in c.iter().enumerate() {
            acc += n;
            if acc >= want {
                return mid(i);
            }
        }
        mid(c.len() - 1)
    };
    let mut s = 0.0;
    for k in 1..=10_000 {
        let p = k as f64 / 10_000.0;
        let d = quant(a, p) - quant(b, p);
        s += d * d;
    }
    (s / 10_000.0).sqrt()
}

fn histogram(uppers: &[i64], times_ms: &[f64]) -> Vec<u64> {
    let mut c = vec![0u64; uppers.len()];
    for &t in times_ms {
        let us = (t * 1000.0) as i64;
        let i = uppers.partition_point(|&u| u <= us).min(uppers.len() - 1);
        c[i] += 1;
    }
    c
}

/// (mean, demerit) tolerances in ms; the reads' and the writes' means are each held to the
/// mean's relative tolerance too. One command at the drive, the two models are the same
/// machine and must agree closely: the mean within 5% (or 0.05 ms for sub-millisecond
/// means), the distribution within 10% of the mean (at least 0.25 ms: a bin of DiskSim's
/// distribution is 20 us to 1% wide and a hit's time sits on a few bins).
///
/// With a queue a request's time adds its wait behind every request before it, so a small
/// per-request difference accumulates; still, where headway follows DiskSim's rules the
/// queues agree as closely: the queue of four (FCFS and SPTF mixes) and the deep queue in
/// arrival order (FCFS) or in one sweep (C-LOOK) within 5% on the mean and 10% on the
/// demerit, the same as one command. Measured: the q4 mixes without combining within 1.6%
/// (demerit at most 3.7% of the mean), the q4 SPTF mixes within 2.6% but the Atlas 10K's,
/// q64 FCFS and C-LOOK within 4.5% but the HP C2490A's (docs/fidelity.md). A 5% mean and
/// a 10% demerit leave room for the bus the two model differently (an arriving write's
/// bus hold, not modelled: up to 1.8% here) and catch any 10% error. The deep queues ordered by SPTF, LOOK and SSTF
/// keep 15% and 25%: their rankings differ from DiskSim's for reasons shown apart (`Sptf`,
/// `Cylinder`), whose size varies with the drive.
fn tolerance(w: &Value, disksim_mean_ms: f64) -> (f64, f64) {
    let m = disksim_mean_ms;
    let tight = (0.05 * m, 0.10 * m);
    match (
        w["queue_depth"].as_u64().unwrap(),
        w["policy"].as_str().unwrap(),
    ) {
        (1, _) => ((0.05 * m).max(0.05), (0.10 * m).max(0.25)),
        (4, _) | (_, "fcfs") | (_, "clook") => tight,
        _ => (0.15 * m, 0.25 * m),
    }
}

/// Why a workload is beyond tolerance (docs/fidelity.md, "headway against DiskSim").
#[derive(Clone, Copy, Debug)]
enum Why {
    /// headway joins a sequential fast write to the write-back under way ("Combine seq
    /// writes"); DiskSim waits for it. The real Cheetah 4LP served such writes in 0.9 and
    /// 1.7 ms, DiskSim in 6.5 and 7.2 (fidelity.md point 9): DiskSim is wrong here. In a
    /// queue in arrival order the same: a write queued behind the write it continues is
    /// taken up as that write's data is in and joins its write-back in headway, while DiskSim
    /// (which matches a write to a segment only when it reaches the drive) waits for the
    /// write-back to end, a lost revolution. Without combining, the q4 FCFS mixes agree
    /// within 1.6% on every drive (`without_combining_headway_follows_disksim_on_the_fcfs_mixes`).
    Combine,
    /// DiskSim's LOOK, C-LOOK and SSTF give identical results on every drive: all three are
    /// C-LOOK in LBN order. Its `disk_get_mapping` calls the layout's `dm_translate_ltop`
    /// with the LBN and the mapping type swapped, so every request of the disk's queue gets
    /// the cylinder of block 4 (MAP_FULL's value), and `ioqueue_identify_request_on_cylinder`
    /// then takes, for every policy, the first request at or above the last one's block.
    /// With the arguments swapped back (a private copy) DiskSim's SSTF is within 2.6% of
    /// headway's on six drives, and its LOOK starves (its sweep direction is never stored on
    /// the disk's path). docs/fidelity.md, "Cylinder policies".
    Cylinder,
    /// headway's SPTF serves a deep queue 6-35% faster than DiskSim's (and the Atlas 10K's
    /// queue of four 5.7%): DiskSim's estimate (disk_buffer_estimate_servtime) ranks requests
    /// from the angle the disk had at its last media event. Shown by changing that one thing
    /// in DiskSim: `headway_sptf_follows_disksim_ranking_from_the_decision_time` (the Atlas
    /// 10K's queue of four -1.9% there, its first 64 completions agreeing per request; its
    /// deep queue of reads and writes -9.5%, demerit beyond, against DiskSim 4.0 and -1.9%
    /// there, the first 127 completions agreeing per request, the 128th two reads at the
    /// same angle that DiskSim's few-ns rounding orders: docs/fidelity.md, "the Atlas 10K's
    /// 128th completion"). Per request the same on the Barracuda's and the Cheetah 9LP's deep queues
    /// of reads and writes (within tolerance): their first choices apart from DiskSim 4.0's
    /// (the 55th and 101st completions) are candidates DiskSim reaches from the stale angle
    /// that the head has in fact just passed (a revolution more in headway); against the
    /// decision-angle DiskSim they agree to the 292nd and 521st (the Cheetah 9LP's 522nd is
    /// a tie DiskSim breaks by 0.36 ns; with ties rounded, to the 775th: docs/fidelity.md,
    /// "the stale angle per request" and "what carries the Cheetah 9LP's gap"). headway ranks
    /// from the decision by default (a drive ranks from where its head is) and offers
    /// DiskSim's ranking as `firmware_sptf_angle = "last-media-event"`: with it every SPTF
    /// workload is within against DiskSim 4.0 itself
    /// (`with_disksim_ranking_headway_sptf_follows_disksim_4`; these three -1.3%, -3.6% and
    /// -5.1%) and four deep queues agree per request on their first 73-324 completions
    /// (docs/fidelity.md, "DiskSim's SPTF ranking as an option").
    Sptf,
    /// Zero-latency reads ("Immediate buffer read"): DiskSim's controller leaves the parameter
    /// inert, headway reads from where the head lands. On the RZ26's 256 KiB sequential reads
    /// the rest of each read after its partial hit starts behind the head, so DiskSim waits
    /// about a revolution for it; with the parameter off in headway the two agree (172.356
    /// against 172.437 ms, -0.0%; every other RZ26 workload within 0.1%). The RZ26's real
    /// trace supports zero latency (its reads fit at 0.2415 ms with it, 0.2736 without:
    /// docs/fidelity.md).
    ZeroLatency,
}

/// Workloads beyond tolerance, with why: (drive, workload, why).
use Why::*;
const KNOWN: &[(&str, &str, Why)] = &[
    ("atlas10k", "q1_seq_write_4k", Combine),
    ("atlas10k", "q4_mixed_fcfs", Combine),
    ("atlas10k", "q4_mixed_sptf", Sptf),
    ("atlas10k", "q64_rand_rw_4k_sptf", Sptf),
    ("atlas_iii", "q1_seq_write_4k", Combine),
    ("atlas_iii", "q4_mixed_fcfs", Combine),
    ("atlas_iii", "q64_rand_read_4k_sstf", Cylinder),
    ("barracuda", "q1_seq_write_4k", Combine),
    ("barracuda", "q4_mixed_fcfs", Combine),
    ("cheetah4lp", "q1_seq_write_4k", Combine),
    ("cheetah4lp", "q4_mixed_fcfs", Combine),
    ("cheetah4lp", "q64_rand_read_4k_look", Cylinder),
    ("cheetah4lp", "q64_rand_read_4k_sstf", Cylinder),
    ("cheetah9lp", "q1_seq_write_4k", Combine),
    ("cheetah9lp", "q4_mixed_fcfs", Combine),
    ("dec_rz26", "q1_seq_read_256k", ZeroLatency),
    ("hp_c2247a", "q64_rand_read_4k_sptf", Sptf),
    ("ibm18es", "q1_seq_write_4k", Combine),
    ("ibm18es", "q4_mixed_fcfs", Combine),
    ("ibm18es", "q64_rand_read_4k_sstf", Cylinder),
    ("st41601n", "q64_rand_read_4k_sstf", Cylinder),
];

/// DiskSim with its SPTF ranking requests from the head's angle at the decision, not at the
/// disk's last media event (scripts/disksim_fixtures.py --variant decision-angle): SPTF
/// workloads still beyond tolerance against it.
/// (The IBM 18ES's queue of reads and writes, listed here as a saturated queue at -9.7% until
/// its read-ahead's track switch stopped reading free blocks, is within: docs/fidelity.md,
/// "read any free blocks, not at a track's start".)
const KNOWN_DECISION_ANGLE: &[(&str, &str, Why)] = &[];

fn fixtures_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn headway_follows_disksim_on_every_synthetic_workload() {
    compare_with(&fixtures_dir("disksim"), KNOWN, &|_| true, &|d, _| {
        d.to_string()
    });
}

/// The `Combine` entries of `KNOWN` on the queue of four in arrival order, tested: with
/// "Combine seq writes" off in headway, its q4 FCFS mixes are within the queue's tolerance of
/// DiskSim on every drive. (DiskSim combines only a write that reaches the drive while the
/// write-back it continues is under way, which a queue in arrival order rarely lets happen:
/// with the parameter off in DiskSim its means move by 0.1% at most, 23.598 to 23.622 ms on
/// the Atlas 10K, 25.137 to 25.161 on the Cheetah 9LP.)
#[test]
fn without_combining_headway_follows_disksim_on_the_fcfs_mixes() {
    compare_with(
        &fixtures_dir("disksim"),
        &[],
        &|name| name == "q4_mixed_fcfs",
        &without_combining,
    );
}

/// The catalog drive `drive` with "Combine seq writes" off, as a drive file in `dir`.
fn without_combining(drive: &str, dir: &std::path::Path) -> String {
    let mut spec = headway::device::catalog::lookup(drive).unwrap();
    spec.cache.as_mut().unwrap().combine_sequential_writes = false;
    let path = dir.join(format!("{drive}_without_combining.toml"));
    std::fs::write(&path, toml::to_string(&spec).unwrap()).unwrap();
    path.display().to_string()
}

/// The `Sptf` entries of `KNOWN`, tested: with DiskSim's estimate taken at the decision time,
/// headway's SPTF agrees with it on the deep random-read queue of eight of ten drives.
#[test]
fn headway_sptf_follows_disksim_ranking_from_the_decision_time() {
    compare_with(
        &fixtures_dir("disksim_decision_angle"),
        KNOWN_DECISION_ANGLE,
        &|_| true,
        &|d, _| d.to_string(),
    );
}

/// SPTF workloads beyond tolerance against DiskSim 4.0 with headway's firmware ranking as
/// DiskSim's does (`firmware_sptf_angle = "last-media-event"`).
const KNOWN_LAST_MEDIA_EVENT: &[(&str, &str, Why)] = &[];

/// The `Sptf` entries of `KNOWN`, tested against DiskSim 4.0 itself: with the firmware's
/// SPTF ranking from the last media event, as DiskSim's, every SPTF workload of the
/// fixtures (the queues of four and the deep ones) is within the ordinary tolerance but
/// those listed (docs/fidelity.md, "DiskSim's SPTF ranking as an option").
#[test]
fn with_disksim_ranking_headway_sptf_follows_disksim_4() {
    compare_with(
        &fixtures_dir("disksim"),
        KNOWN_LAST_MEDIA_EVENT,
        &|name| name.ends_with("_sptf"),
        &|d, _| format!("{d}\nfirmware_sptf_angle = \"last-media-event\""),
    );
}

/// Every workload of the fixtures in `dir` that `only` takes (by name), on the drive
/// `drive_name` makes of a catalog name (a drive file it may write in the scratch folder).
fn compare_with(
    dir: &std::path::Path,
    known_list: &[(&str, &str, Why)],
    only: &dyn Fn(&str) -> bool,
    drive_name: &dyn Fn(&str, &std::path::Path) -> String,
) {
    let tmp = common::scratch(&dir.file_name().unwrap().to_string_lossy());
    let mut report = String::new();
    let mut failures = Vec::new();
    let mut known_fixed = Vec::new();
    for drive in DRIVES {
        let path = dir.join(format!("{drive}.json"));
        let fx: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if fx.get("error").is_some() {
            writeln!(report, "{drive}: DiskSim fails: {}", fx["error"]).unwrap();
            continue;
        };
        let uppers = bin_uppers_us(&fx["bins"]);
        for entry in fx["workloads"].as_array().unwrap() {
            let w = &entry["workload"];
            let name = w["name"].as_str().unwrap();
            if !only(name) {
                continue;
            }
            let ds = &entry["disksim"];
            if let Some(e) = ds.get("error") {
                writeln!(report, "{drive:10} {name:24} DiskSim fails: {e}").unwrap();
                continue;
            }
            let ds_mean = ds["all"]["mean_ms"].as_f64().unwrap();
            let mut ds_counts = vec![0u64; uppers.len()];
            for b in ds["all"]["bins"].as_array().unwrap() {
                let us = b[0].as_i64().unwrap();
                let i = uppers.iter().position(|&u| u == us).unwrap();
                ds_counts[i] = b[1].as_u64().unwrap();
            }
            let counted = run_headway(drive, &drive_name(drive, &tmp), w, &tmp);
            let hw: Vec<f64> = counted.iter().flatten().copied().collect();
            let hw_mean = hw.iter().sum::<f64>() / hw.len() as f64;
            let d = binned_demerit(&uppers, &ds_counts, &histogram(&uppers, &hw));
            let (tol_mean, tol_dem) = tolerance(w, ds_mean);
            let rel = hw_mean / ds_mean - 1.0;
            // Reads' and writes' means against DiskSim's, where it printed both.
            let reads: Vec<bool> = trace_text(w).lines().map(|l| l.ends_with(" 1")).collect();
            let mut by_dir = String::new();
            // Reads and writes each held to the mean's relative tolerance too: a model can
            // get the mix's mean right with one side fast and the other slow.
            let mut dirs_ok = true;
            for (key, want) in [("read", true), ("write", false)] {
                let t: Vec<f64> = counted
                    .iter()
                    .zip(&reads)
                    .filter_map(|(t, &r)| t.filter(|_| r == want))
                    .collect();
                if let (Some(m), false) = (ds[key]["mean_ms"].as_f64(), t.is_empty()) {
                    let h = t.iter().sum::<f64>() / t.len() as f64;
                    dirs_ok &= (h / m - 1.0).abs() <= tol_mean / ds_mean;
                    write!(by_dir, " {key}s {:+.1}%", 100.0 * (h / m - 1.0)).unwrap();
                }
            }
            // The requests each counts (the rule of `run_headway`): the same but for the
            // few that complete near the trace's end in one and not the other (more where
            // a listed mechanism makes one faster, and up to 0.25% on a queue at saturation:
            // the HP C2490A's SPTF queue against the decision-angle DiskSim, +1.0% on the
            // mean, leaves 6 of 3,000 more in flight at the trace's end).
            let completed = ds["completed"].as_u64().unwrap() as usize;
            let known = known_list.iter().find(|k| k.0 == *drive && k.1 == name);
            let slack = 3.max(completed / 400);
            if hw.len().abs_diff(completed) > slack && known.is_none() {
                failures.push(format!(
                    "{drive} {name}: headway counts {} requests, DiskSim {completed}",
                    hw.len()
                ));
            }
            let ok = (hw_mean - ds_mean).abs() <= tol_mean && d <= tol_dem && dirs_ok;
            writeln!(
                report,
                "{drive:10} {name:24} DiskSim {ds_mean:10.3} headway {hw_mean:10.3} ms ({:+6.1}%) demerit {d:8.3} {}{by_dir}",
                100.0 * rel,
                match (ok, known) {
                    (true, _) => "ok".to_string(),
                    (false, Some(k)) => format!("known: {:?}", k.2),
                    (false, None) => "FAIL".to_string(),
                }
            )
            .unwrap();
            match (ok, known.is_some()) {
                (false, false) => failures.push(format!("{drive} {name}")),
                (true, true) => known_fixed.push(format!("{drive} {name}")),
                _ => {}
            }
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
    println!("{report}");
    assert!(
        failures.is_empty() && known_fixed.is_empty(),
        "beyond tolerance: {failures:?}; listed as known but now within: {known_fixed:?}\n{report}"
    );
}

/// (fixtures folder, drive, workload, DiskSim's completions: (request index, ms)).
type PerRequest = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(usize, f64)],
);

/// Per request against DiskSim 4.0, on two deep queues of the fixtures, DiskSim's completion
/// times (ms) of requests by their index in the trace, printed by a private DiskSim copy
/// (`iodriver_access_complete`, under an environment variable; the decision-angle change of
/// `scripts/disksim_fixtures.py` for the SPTF queue), taken where the earlier code went
/// astray (docs/fidelity.md, "the choice at a completion, and the read-ahead's stop in a
/// sector"):
///
/// * the HP C2247A's random reads under SPTF (decision-angle fixture): requests 12-17 came
///   out 11-22 ms off, one to two revolutions, because a read that reached the drive only
///   after the completion it waited behind on the bus was a candidate for the choice made
///   at that completion; requests 10, 23, 28 and 25 a revolution late, because the
///   read-ahead under way finished its sector before the next seek although the drive's
///   "Stop prefetch in sector" lets it give way at once;
/// * the Cheetah 4LP's C-LOOK queue: requests 81-84 6-12 ms late, the first reason.
#[test]
fn the_firmware_choice_and_the_read_ahead_stop_follow_disksim_per_request() {
    let cases: &[PerRequest] = &[
        (
            "disksim_decision_angle",
            "hp_c2247a",
            "q64_rand_read_4k_sptf",
            &[
                (12, 126.142224),
                (14, 138.873725),
                (15, 147.670037),
                (17, 158.549671),
                (16, 176.605238),
                (10, 237.870720),
                (23, 249.444805),
                (28, 263.245558),
                (25, 277.531239),
            ],
        ),
        (
            "disksim",
            "cheetah4lp",
            "q64_rand_read_4k_clook",
            &[
                (81, 711.779801),
                (86, 716.535203),
                (75, 725.541635),
                (76, 736.807230),
                (83, 748.427596),
            ],
        ),
    ];
    let tmp = common::scratch("perreq");
    for (dir, drive, name, want) in cases {
        assert_completions(&tmp, dir, drive, drive, name, want);
    }
    std::fs::remove_dir_all(&tmp).ok();
}

/// (drive, workload, DiskSim's completions: (request index, ms)).
type Completions = (&'static str, &'static str, &'static [(usize, f64)]);

/// Per request against DiskSim 4.0 with the firmware ranking as DiskSim's
/// (`firmware_sptf_angle = "last-media-event"`): DiskSim's completion times (ms) of requests
/// by their index in the trace, printed by a private DiskSim copy (`iodriver_access_complete`,
/// under an environment variable). Each queue agrees with DiskSim per request from its first
/// completion to the last listed (its 324th, 284th, 64th and 112th in DiskSim's order;
/// within 5 us); the first four listed of each are where headway's default ranking (from
/// the decision) first goes apart, a revolution or more (docs/fidelity.md, "DiskSim's SPTF
/// ranking as an option").
#[test]
fn with_disksim_ranking_headway_sptf_follows_disksim_4_per_request() {
    let cases: &[Completions] = &[
        (
            "atlas10k",
            "q64_rand_read_4k_sptf",
            &[
                (33, 186.937810),
                (19, 190.736709),
                (38, 197.707541),
                (28, 205.094178),
                (332, 1782.765184),
            ],
        ),
        (
            "cheetah9lp",
            "q64_rand_read_4k_sptf",
            &[
                (24, 138.290653),
                (22, 150.797009),
                (19, 156.664383),
                (23, 169.162188),
                (229, 1562.948434),
            ],
        ),
        (
            "hp_c2247a",
            "q64_rand_read_4k_sptf",
            &[
                (15, 169.892260),
                (18, 186.327455),
                (16, 198.827472),
                (19, 218.661899),
                (80, 866.295132),
            ],
        ),
        (
            "barracuda",
            "q64_rand_rw_4k_sptf",
            &[
                (57, 570.667182),
                (37, 585.982501),
                (72, 594.541073),
                (53, 604.775208),
                (70, 1063.010009),
            ],
        ),
    ];
    let tmp = common::scratch("lme");
    for (drive, name, want) in cases {
        let keys = format!("{drive}\nfirmware_sptf_angle = \"last-media-event\"");
        assert_completions(&tmp, "disksim", drive, &keys, name, want);
    }
    std::fs::remove_dir_all(&tmp).ok();
}

/// The workload `name` of the fixtures in `dir` for `drive`, replayed (in the scratch
/// folder `tmp`) on `drive_keys` (the drive's name and any more `[drive]` keys, as
/// `run_trace_done` takes them): each request of `want` completes within 0.01 ms of
/// DiskSim's time for it.
fn assert_completions(
    tmp: &std::path::Path,
    dir: &str,
    drive: &str,
    drive_keys: &str,
    name: &str,
    want: &[(usize, f64)],
) {
    let path = fixtures_dir(dir).join(format!("{drive}.json"));
    let fx: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let w = fx["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["workload"])
        .find(|w| w["name"] == name)
        .unwrap();
    let trace = tmp.join(format!("{drive}_{name}.trace"));
    std::fs::write(&trace, trace_text(w)).unwrap();
    let done = run_trace_done(drive_keys, w, &trace);
    for &(id, disksim_ms) in want {
        assert!(
            (done[id].1 - disksim_ms).abs() < 0.01,
            "{drive} {name} request {id}: done at {:.6} ms, DiskSim {disksim_ms}",
            done[id].1
        );
    }
}

#[test]
fn the_generator_repeats_the_scripts_stream() {
    // First lines of scripts/disksim_fixtures.py's `workload_lines` for this workload.
    let w: Value = serde_json::json!({
        "seed": 11, "sizes": [1, 8, 512], "span_sectors": 1_000_000, "interarrival_ms": 10.0,
        "read_fraction": 0.5, "sequential_fraction": 0.5, "requests": 3
    });
    let text = trace_text(&w);
    assert_eq!(text, EXPECTED_STREAM, "{text}");
}

const EXPECTED_STREAM: &str = "0.000000 0 7584 8 0\n8.028230 0 7592 1 0\n9.817380 0 339912 8 0\n";

/// A write larger than its segment comes over the bus a segment ahead of the media at most:
/// on the Atlas III (64-block segments, bus 0.106 ms a block), one 128-block and one
/// 512-block fast write, each alone on an idle drive, complete when DiskSim 4.0 completes
/// them (its printed write means for these two traces: 17.005350 and 81.965370 ms). Without
/// the limit the bus would take them in at its own pace, 0.106 ms a block.
#[test]
fn a_write_larger_than_its_segment_waits_for_room_as_in_disksim() {
    let tmp = common::scratch("segfull");
    for (blocks, disksim_ms) in [(128u32, 17.005350), (512, 81.965370)] {
        let w = serde_json::json!({
            "name": format!("w{blocks}"), "queue_depth": 1, "policy": "fcfs",
        });
        let trace = tmp.join(format!("atlas_iii_w{blocks}.trace"));
        std::fs::write(
            &trace,
            format!("0.000000 0 1000000 {blocks} 0\n300.0 0 5000 8 1\n"),
        )
        .unwrap();
        let times = run_trace("atlas_iii", &w, &trace);
        assert!(
            (times[0] - disksim_ms).abs() < 0.01,
            "{blocks} blocks: {} ms, DiskSim {disksim_ms}",
            times[0]
        );
    }
    std::fs::remove_dir_all(&tmp).ok();
}

/// The read-ahead after a read fills the read's segment: while the read's blocks wait for the
/// bus it may not get more than a segment ahead of them (`readahead_hold`); a read larger than
/// its segment that the read-ahead under way brings owns the segment and holds it the same
/// way; and DEC's read-ahead (one more track when the segment began on an earlier one) is
/// judged from the segment's start when the read took it. On the Atlas III (64-block
/// segments, bus 0.106 ms a block against 0.013 on the media), a read and then a sequential
/// read, as DiskSim 4.0 times them (its printed read means, less the first read's time
/// alone). Before: the second read took 3.400, 1.222, 1.101 and 117.167 ms.
#[test]
fn the_read_ahead_waits_for_room_in_its_segment_as_in_disksim() {
    let tmp = common::scratch("rahold");
    let w = serde_json::json!({"name": "rahold", "queue_depth": 1, "policy": "fcfs"});
    // (first read's blocks, the second's arrival in ms and blocks, DiskSim's second time)
    let cases = [
        (65u32, "16.1", 8u32, 1.222000),
        (400, "66.0", 8, 8.514167),
        (512, "79.5", 8, 9.434918),
        // Queued behind the first, it finds the read-ahead under way (DiskSim's read mean
        // 99.125653 ms, the first alone 72.521718).
        (512, "10.0", 512, 2.0 * 99.125653 - 72.521718),
    ];
    for (i, (n, at, m, disksim_ms)) in cases.into_iter().enumerate() {
        let trace = tmp.join(format!("atlas_iii_rahold{i}.trace"));
        let second = 1_000_000 + n as u64;
        std::fs::write(
            &trace,
            format!("0.000000 0 1000000 {n} 1\n{at} 0 {second} {m} 1\n"),
        )
        .unwrap();
        let times = run_trace("atlas_iii", &w, &trace);
        assert!(
            (times[1] - disksim_ms).abs() < 0.01,
            "{n} then {m} blocks at {at} ms: {} ms, DiskSim {disksim_ms}",
            times[1]
        );
    }
    std::fs::remove_dir_all(&tmp).ok();
}
