//! Calibrate a catalog drive by timing alone and print the extraction beside the truth.
//!
//! `cargo run --release -p headway --example extract -- st41601n [imperfect]`
//!
//! With `imperfect`, the drive has seek jitter up to 1 ms, a spindle wandering by 10 ppm and
//! a head movement of its own every 15 s (the rotational reproduction's imperfect drive).

use headway::calibrate::{compare, device_for, extract, ExtractOptions};
use headway::device::catalog;
use headway::device::imperfect::Imperfections;
use headway::link::Link;

fn main() -> headway::Result<()> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "st41601n".into());
    let spec = catalog::lookup(&name)?;
    let imperfections = if std::env::args().nth(2).as_deref() == Some("imperfect") {
        Imperfections {
            seek_jitter_ms: 1.0,
            rotation_drift_ppm: 10.0,
            drift_period_s: 120.0,
            recal_interval_s: 15.0,
            recal_cylinders: 1,
            recal_busy_ms: 0.0,
        }
    } else {
        Imperfections::default()
    };
    let t = std::time::Instant::now();
    let drive = extract(
        device_for(&spec, &imperfections)?,
        Link::default(),
        &name,
        ExtractOptions {
            paper_min_offset: true,
            ..ExtractOptions::default()
        },
    )?;
    eprintln!(
        "extraction took {:.1} s of wall time",
        t.elapsed().as_secs_f64()
    );
    print!("{}", compare(&drive, &spec, 97)?);
    println!(
        "lags: same-track WW {:.3} ms, head switch WW {:.3} ms, seek pieces {}",
        drive.lags.same_track_ns[1][1] / 1e6,
        drive.lags.head_switch_ns[1][1] / 1e6,
        drive.lags.seek_ww.pieces.len()
    );
    Ok(())
}
