//! The validation table: `cargo run --release -p headway --example validate_all [NAME|FILE...]`
//! replays each shipped validation trace on its drive (or only those NAMEd; a FILE is a
//! validate-format trace replayed on the catalog drive its stem names, e.g. a copy of
//! DiskSim's `ibm18es.trace`) and prints measured and simulated means and standard
//! deviations, the demerit by headway's formula and by DiskSim's (its binned `rms`), and
//! DiskSim 4.0's own figure. With `PAIRS_DIR=dir`, writes `dir/NAME.csv` with each request's
//! measured and simulated times and simulated phases.
use std::path::Path;

use headway::validate::{
    builtin_trace, builtin_trace_names, disksim_demerit_ms, read_validate_trace, validate,
    ValidateRecord,
};

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    let mut runs: Vec<(String, Vec<ValidateRecord>)> = Vec::new();
    for w in &wanted {
        let path = Path::new(w);
        if path.is_file() {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            runs.push((stem.to_lowercase(), read_validate_trace(path).unwrap()));
        }
    }
    for name in builtin_trace_names() {
        if wanted.is_empty() || wanted.iter().any(|w| w.eq_ignore_ascii_case(&name)) {
            let recs = builtin_trace(&name).unwrap();
            runs.push((name, recs));
        }
    }
    for (name, recs) in runs {
        let spec = headway::device::catalog::lookup(&name).unwrap();
        let r = validate(&spec, &recs).unwrap();
        let disksim = disksim_demerit_ms(&name).map_or("-".into(), |d| format!("{d:.6}"));
        println!(
            "{name:12} n={} meas {:.3}/{:.3} sim {:.3}/{:.3} demerit {:.4} ({:.2}%) \
             disksim-formula {:.6} disksim {disksim}",
            r.requests,
            r.measured_mean_ms,
            r.measured_sd_ms,
            r.simulated_mean_ms,
            r.simulated_sd_ms,
            r.demerit_ms,
            100.0 * r.demerit_fraction,
            r.disksim_formula_demerit_ms,
        );
        if let Ok(dir) = std::env::var("PAIRS_DIR") {
            let rr = &r.records;
            let ms = |v: u64| v as f64 / 1e6;
            let mut s = String::from(
                "index,op,lbn,sectors,measured_ms,simulated_ms,hit,seek,rot,xfer,bus,ovh\n",
            );
            for (i, ((m, sim), rec)) in r.pairs.iter().zip(&recs).enumerate() {
                s += &format!(
                    "{i},{},{},{},{m},{sim},{},{},{},{},{},{}\n",
                    if rec.op.is_read() { "R" } else { "W" },
                    rec.lbn,
                    rec.sectors,
                    rr.cache_hit[i] as u8,
                    ms(rr.seek_ns[i]),
                    ms(rr.rotate_ns[i]),
                    ms(rr.transfer_ns[i]),
                    ms(rr.bus_ns[i]),
                    ms(rr.overhead_ns[i])
                );
            }
            std::fs::write(format!("{dir}/{name}.csv"), s).unwrap();
        }
    }
}
