//! Calibrate a catalog drive by timing alone and print the extraction beside the truth.
//!
//! `cargo run --release -p headway --example extract -- st41601n`

use headway::calibrate::{compare, device_for, extract, ExtractOptions};
use headway::device::catalog;
use headway::link::Link;

fn main() -> headway::Result<()> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "st41601n".into());
    let spec = catalog::lookup(&name)?;
    let t = std::time::Instant::now();
    let drive = extract(
        device_for(&spec, &Default::default())?,
        Link::default(),
        &name,
        ExtractOptions {
            paper_min_offset: true,
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
