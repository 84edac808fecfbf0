//! How much a validation demerit owes to the spindle's unknown phase at the first request:
//! `phase DRIVE [STEPS]` replays the shipped trace with the first request issued at fractions
//! of a revolution and prints each demerit.
use headway::device::catalog;
use headway::validate::{builtin_trace, validate_from};
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let spec = catalog::lookup(&a[0]).unwrap();
    let steps: u64 = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(8);
    let recs = builtin_trace(&a[0]).unwrap();
    let period_ns = 60.0e9 / spec.rpm;
    let mut all = vec![];
    for k in 0..steps {
        let t = (period_ns * k as f64 / steps as f64) as u64;
        let r = validate_from(&spec, &recs, t).unwrap();
        println!(
            "{} start {:.3} ms: demerit {:.4}",
            a[0],
            t as f64 / 1e6,
            r.demerit_ms
        );
        all.push(r.demerit_ms);
    }
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    let max = all.iter().cloned().fold(0.0, f64::max);
    let min = all.iter().cloned().fold(f64::MAX, f64::min);
    println!("{}: mean {mean:.4} min {min:.4} max {max:.4}", a[0]);
}
