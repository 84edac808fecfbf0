//! `cargo run --release -p headway --example reproduce_freeblock [-- quick] [seed=N]
//! [json=PATH]`: the freeblock paper's evaluation for one seed, with the CPU time each step
//! took (from its progress message to the next) and each table's total, then the headline;
//! `json=PATH` writes the whole reproduction there.

use headway::experiments::freeblock::{reproduce, ReproduceOptions};

/// The table a progress step's runs fill, from its message.
fn table_of(step: &str) -> &'static str {
    if step.starts_with("calibrating") {
        "calibration"
    } else if step.contains("imperfect drive") {
        "imperfect_sweep"
    } else if step.starts_with("prediction errors") {
        "prediction"
    } else if step.contains("calibrated predictor") {
        "headline (calibrated)"
    } else if step.starts_with("queue depth") {
        "queue"
    } else if step.contains("paper's bus") || step.starts_with("sptf on ") {
        "bus"
    } else if step.starts_with("firmware") {
        "firmware"
    } else {
        "sweep"
    }
}

/// CPU seconds this process has used.
fn cpu_s() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn main() -> headway::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let mut o = if args.iter().any(|a| a == "quick") {
        ReproduceOptions::quick()
    } else {
        ReproduceOptions::full()
    };
    if let Some(s) = args
        .iter()
        .find_map(|a| a.strip_prefix("seed=")?.parse().ok())
    {
        o.seed = s;
    }
    let json = args.iter().find_map(|a| a.strip_prefix("json="));
    let start = cpu_s();
    let mut step: Option<(String, f64)> = None;
    let mut tables: Vec<(&'static str, f64)> = vec![];
    let mut close = |step: &mut Option<(String, f64)>| {
        if let Some((what, t)) = step.take() {
            let s = cpu_s() - t;
            eprintln!("{s:8.2} CPU-s {what}");
            let table = table_of(&what);
            match tables.iter_mut().find(|(n, _)| *n == table) {
                Some(e) => e.1 += s,
                None => tables.push((table, s)),
            }
        }
    };
    let r = reproduce(&o, &mut |what| {
        close(&mut step);
        step = Some((what.to_string(), cpu_s()));
        Ok(())
    })?;
    close(&mut step);
    for (table, s) in &tables {
        println!("{table:24} {s:8.2} CPU-s");
    }
    println!("{:24} {:8.2} CPU-s", "total", cpu_s() - start);
    println!("{:#?}", r.headline);
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&r).expect("the reproduction serializes");
        std::fs::write(path, text)
            .map_err(|e| headway::HeadwayError::Invariant(format!("{path}: {e}")))?;
    }
    Ok(())
}
