//! The validation table: `cargo run --release -p headway --example validate_all [NAME...]`
//! replays each shipped validation trace on its drive and prints measured and simulated means
//! and standard deviations and the demerit. With `PAIRS_DIR=dir`, writes
//! `dir/NAME.csv` with each request's measured and simulated times and simulated phases.
use headway::validate::{builtin_trace, builtin_trace_names, validate_builtin};

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    for name in builtin_trace_names() {
        if !wanted.is_empty() && !wanted.iter().any(|w| w.eq_ignore_ascii_case(&name)) {
            continue;
        }
        let r = validate_builtin(&name).unwrap();
        println!(
            "{name:12} n={} meas {:.3}/{:.3} sim {:.3}/{:.3} demerit {:.4} ({:.2}%)",
            r.requests,
            r.measured_mean_ms,
            r.measured_sd_ms,
            r.simulated_mean_ms,
            r.simulated_sd_ms,
            r.demerit_ms,
            100.0 * r.demerit_fraction
        );
        if let Ok(dir) = std::env::var("PAIRS_DIR") {
            let recs = builtin_trace(&name).unwrap();
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
