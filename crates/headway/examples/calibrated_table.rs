//! The calibrated predictor against the oracle on every catalog drive: SPTF at drive queue
//! depth 1, random 4 KiB requests at about 80% utilisation, reads only and two reads to
//! every write, on the nominal drive and with its imperfections. Arguments: drive names
//! (default: the whole catalog); `--requests N` (default 4000); `--nominal` / `--imperfect`
//! for one of the two.
use headway::device::catalog;
use headway::experiments::calibrated_table::{compare_predictors, Mix};

fn main() {
    let mut drives = Vec::new();
    let mut requests = 4000;
    let mut imperfect = vec![false, true];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--requests" => requests = args.next().and_then(|n| n.parse().ok()).unwrap_or(4000),
            "--nominal" => imperfect = vec![false],
            "--imperfect" => imperfect = vec![true],
            _ => drives.push(a),
        }
    }
    if drives.is_empty() {
        drives = catalog::names().iter().map(|s| s.to_string()).collect();
    }
    println!(
        "| drive | workload | imperfections | inter-arrival ms | utilisation | oracle ms | oracle mispredicted | calibrated ms | excess | mispredicted | target |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for d in &drives {
        for &imp in &imperfect {
            for mix in [Mix::Reads, Mix::TwoReadsOneWrite] {
                let r = match compare_predictors(d, mix, imp, requests, 1) {
                    Ok(r) => r,
                    Err(e) => {
                        println!("| {d} | {} | {imp} | error: {e} |", mix.label());
                        continue;
                    }
                };
                let cal = match (r.calibrated_mean_ms, r.mispredicted_fraction, r.excess()) {
                    (Some(c), Some(m), Some(x)) => format!(
                        "{c:.1} | {:+.1}% | {m:.3} | {}",
                        x * 100.0,
                        if r.meets_target() { "met" } else { "missed" }
                    ),
                    _ => format!(
                        "refused: {} | | |",
                        r.refused
                            .unwrap_or_default()
                            .chars()
                            .take(90)
                            .collect::<String>()
                    ),
                };
                println!(
                    "| {d} | {} | {} | {:.2} | {:.2} | {:.1} | {:.3} | {cal} |",
                    mix.label(),
                    if imp { "on" } else { "off" },
                    r.interarrival_ms,
                    r.utilisation,
                    r.oracle_mean_ms,
                    r.oracle_mispredicted_fraction
                );
            }
        }
    }
}
