//! The fingerprint's host-SPTF runs at a drive queue of 8 (20,000 requests at 4 ms, open and
//! saturated on the slower drives), each with its mean response, its reads' and writes'
//! mean response and its records' digest: what a change to the host's plan of the commands
//! at the drive moves (docs/fidelity.md, the host's predictor per op).
//!
//! ```text
//! cargo run --release -p headway --example host_sptf_qd8 [DRIVE ...]
//! ```
//!
//! Without drives: the five catalogue drives without fast writes and the two with.
use headway::config::{build_simulation, ExperimentConfig};
use std::hash::{DefaultHasher, Hash, Hasher};

const DRIVES: [&str; 7] = [
    "hp_c2490a",
    "dec_rz26",
    "st41601n",
    "hp_c3323a",
    "hp_c2247a",
    "atlas10k",
    "cheetah4lp",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let drives: Vec<&str> = match args.is_empty() {
        true => DRIVES.to_vec(),
        false => args.iter().map(String::as_str).collect(),
    };
    // The fingerprint's shapes (examples/fingerprint.rs).
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
    println!(
        "drive shape | mean response ms | reads' | writes' | last completion s | records digest"
    );
    for drive in drives {
        for (sname, shape) in shapes {
            let toml = format!(
                "[drive]\nname=\"{drive}\"\nqueue_depth=8\n[host]\nscheduler=\"sptf\"\n[workload]\nrequests=20000\ninterarrival_ms=4.0\n{shape}\n[output]\nrecords=true\n"
            );
            let built = ExperimentConfig::from_toml_str(&toml, None)
                .and_then(|cfg| build_simulation(&cfg, None));
            let r = match built.and_then(|b| b.simulation.run()) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("error: {drive} {sname}: {e}");
                    std::process::exit(1);
                }
            };
            let rec = r.records.as_ref().expect("records were asked for");
            let (mut sum, mut n) = ([0u128; 2], [0u64; 2]);
            let mut h = DefaultHasher::new();
            let last_ns = rec.done_ns.iter().copied().max().unwrap_or(0);
            for i in 0..rec.len() {
                let k = usize::from(!rec.is_read[i]);
                sum[k] += u128::from(rec.done_ns[i] - rec.arrival_ns[i]);
                n[k] += 1;
                (rec.id[i], rec.start_ns[i], rec.done_ns[i], rec.cache_hit[i]).hash(&mut h);
            }
            let mean = |k: usize| sum[k] as f64 / n[k].max(1) as f64 / 1e6;
            println!(
                "{drive} {sname} | {:.3} | {:.3} | {:.3} | {:.3} | {:016x}",
                r.summary.response.mean_ms,
                mean(0),
                mean(1),
                last_ns as f64 / 1e9,
                h.finish()
            );
        }
    }
}
