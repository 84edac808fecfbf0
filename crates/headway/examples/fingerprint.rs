//! A digest of every per-request result over the catalog drives, several schedulers and
//! workloads, and the validation traces: `cargo run --release -p headway --example
//! fingerprint`. Two builds that print the same digests simulate the same thing, request for
//! request, which is what a change meant only to be faster must keep.
//!
//! `ALL` covers host-ordered queues; `FIRMWARE` (printed after it, and kept apart so that
//! `ALL` stays comparable with older builds) covers the drive's own queue ordered by each
//! firmware scheduler, at the reference benchmark's depth of 64. `SUMMARY` (printed last)
//! covers every run's summary, with per-request records kept and without (the statistics
//! take a shorter path without them).
use headway::config::{build_simulation, ExperimentConfig};
use headway::device::catalog;
use headway::validate::{builtin_trace_names, validate_builtin};
use std::hash::{DefaultHasher, Hash, Hasher};

fn main() {
    let n = 20_000;
    let shapes = [
        ("random", "read_fraction = 0.7"),
        (
            "seq",
            "read_fraction = 0.6\nlocality = { kind = \"sequential\", run_length = 8 }",
        ),
        (
            "local",
            "read_fraction = 0.5\nsize = { kind = \"exponential\", mean_sectors = 16 }\nlocality = { kind = \"local\", mean_distance_sectors = 5000 }",
        ),
    ];
    let mut all = DefaultHasher::new();
    let mut summaries = DefaultHasher::new();
    // The conventional drives: a shingled drive's runs are another model's results.
    let conventional = catalog::names()
        .into_iter()
        .filter(|d| catalog::lookup(d).is_ok_and(|s| s.smr.is_none()));
    for drive in conventional {
        for sched in ["fcfs", "sptf", "clook"] {
            for (sname, shape) in shapes {
                for (qd, ia) in [(1, 8.0), (8, 4.0)] {
                    let toml = format!(
                        "[drive]\nname=\"{drive}\"\nqueue_depth={qd}\n[host]\nscheduler=\"{sched}\"\n[workload]\nrequests={n}\ninterarrival_ms={ia}\n{shape}\n[output]\nrecords=true\n"
                    );
                    let cfg = match ExperimentConfig::from_toml_str(&toml, None) {
                        Ok(c) => c,
                        Err(e) => {
                            println!("{drive} {sched} {sname} qd{qd}: config error {e}");
                            continue;
                        }
                    };
                    let sim = match build_simulation(&cfg, None) {
                        Ok(s) => s.simulation,
                        Err(e) => {
                            println!("{drive} {sched} {sname} qd{qd}: {e}");
                            continue;
                        }
                    };
                    let r = sim.run().unwrap();
                    format!("{:?}", r.summary).hash(&mut summaries);
                    let d = records_digest(r);
                    d.hash(&mut all);
                    println!("{drive} {sched} {sname} qd{qd}: {d:016x}");
                    let toml = toml.replace("records=true", "records=false");
                    let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
                    let sim = build_simulation(&cfg, None).unwrap().simulation;
                    format!("{:?}", sim.run().unwrap().summary).hash(&mut summaries);
                }
            }
        }
    }
    for name in builtin_trace_names() {
        let r = validate_builtin(&name).unwrap();
        let mut h = DefaultHasher::new();
        for (m, s) in &r.pairs {
            (m.to_bits(), s.to_bits()).hash(&mut h);
        }
        let d = h.finish();
        d.hash(&mut all);
        println!("validate {name}: {d:016x} demerit {:.6}", r.demerit_ms);
    }
    println!("ALL {:016x}", all.finish());
    let mut firmware = DefaultHasher::new();
    for drive in ["atlas10k", "hp_c3323a", "st41601n"] {
        for fw in headway::device::hdd::FIRMWARE_SCHEDULERS {
            for (sname, shape) in &shapes[..2] {
                let toml = format!(
                    "[drive]\nname=\"{drive}\"\nqueue_depth=64\nfirmware_scheduler=\"{fw}\"\n[host]\nscheduler=\"fcfs\"\n[workload]\nrequests={n}\ninterarrival_ms=4.0\n{shape}\n[output]\nrecords=true\n"
                );
                let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
                let sim = build_simulation(&cfg, None).unwrap().simulation;
                let d = records_digest(sim.run().unwrap());
                d.hash(&mut firmware);
                println!("{drive} firmware {fw} {sname} qd64: {d:016x}");
            }
        }
    }
    println!("FIRMWARE {:016x}", firmware.finish());
    println!("SUMMARY {:016x}", summaries.finish());
}

/// A digest of every request's record (times, phases, hit).
fn records_digest(r: headway::sim::RunResult) -> u64 {
    let rec = r.records.unwrap();
    let mut h = DefaultHasher::new();
    for i in 0..rec.len() {
        (
            rec.id[i],
            rec.arrival_ns[i],
            rec.dispatch_ns[i],
            rec.start_ns[i],
            rec.overhead_ns[i],
            rec.seek_ns[i],
            rec.rotate_ns[i],
            rec.transfer_ns[i],
            rec.bus_ns[i],
            rec.done_ns[i],
            rec.cache_hit[i],
        )
            .hash(&mut h);
    }
    h.finish()
}
