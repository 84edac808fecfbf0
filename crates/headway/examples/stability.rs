//! The paper's Stability experiment on a drive with imperfections:
//! `cargo run --release -p headway --example stability -- '<[drive.imperfections] toml>' unit_ms measurements`

use headway::calibrate::{device_for, extract_cached, stability::stability, Probe};
use headway::device::catalog;
use headway::device::imperfect::Imperfections;
use headway::engine::RngStreams;
use headway::link::Link;
use headway::predict::PredictorOptions;

fn main() -> headway::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let imp: Imperfections =
        toml::from_str(&args.get(1).cloned().unwrap_or_default().replace(';', "\n"))
            .expect("imperfections");
    let unit_ms: u64 = args.get(2).map_or(500, |s| s.parse().unwrap());
    let n: usize = args.get(3).map_or(40, |s| s.parse().unwrap());
    let spec = catalog::lookup("st41601n")?;
    let drive = extract_cached(&spec, Link::default(), &imp)?;
    println!(
        "period {:.4} ms delta {:.2}",
        drive.period_ns / 1e6,
        drive.delta_sectors
    );
    let mut probe = Probe::new(device_for(&spec, &imp)?, Link::default());
    let mut rng = RngStreams::new(3).stream("stability");
    let s = stability(
        &mut probe,
        &drive,
        &PredictorOptions::default(),
        unit_ms * 1_000_000,
        n,
        5,
        &mut rng,
    )?;
    for p in &s.points {
        println!(
            "{:8.1} s  {}/{}  {:.2} ms",
            p.wait_ms / 1e3,
            p.correct,
            p.trials,
            p.mean_overhead_ms
        );
    }
    println!(
        "every prediction right up to {:.1} s; some right up to {:.1} s",
        s.stable_ms / 1e3,
        s.last_correct_ms / 1e3
    );
    Ok(())
}
