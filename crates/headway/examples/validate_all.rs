//! Validation sweep: `cargo run --release -p headway --example validate_all [DRIVE...]`.
//! Reads the traces from `../shared/reference/disksim/validation/`.
use headway::device::catalog;
use headway::validate::{read_validate_trace, validate};
use std::path::Path;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let drives: Vec<(&str, &str)> = vec![
        ("atlas10k", "atlas10k"),
        ("cheetah4lp", "cheetah4LP"),
        ("hp_c2247a", "hp_c2247a"),
        ("dec_rz26", "dec_rz26"),
        ("st41601n", "st41601n"),
    ];
    for (name, file) in drives {
        if !a.is_empty() && !a.iter().any(|x| x == name) {
            continue;
        }
        let p = format!("/work/shared/reference/disksim/validation/{file}.trace");
        let recs = read_validate_trace(Path::new(&p)).unwrap();
        let spec = catalog::lookup(name).unwrap();
        let r = validate(&spec, &recs).unwrap();
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
            let mut s = String::from(
                "index,op,lbn,sectors,measured_ms,simulated_ms,hit,seek,rot,xfer,bus,ovh\n",
            );
            let rr = &r.records;
            for (i, ((m, sim), rec)) in r.pairs.iter().zip(&recs).enumerate() {
                let ms = |v: u64| v as f64 / 1e6;
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
