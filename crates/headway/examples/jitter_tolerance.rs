//! How often timing-only extraction recovers a drive exactly through a jittery round trip:
//! the two-zone drive of `tests/data/twozone_drive.toml` behind an emulated FUSE/NBD-like
//! round trip (`JitteredBlock` with `RoundTripJitter::fuse_nbd(2.0)`), over a range of seeds,
//! with the jitter measured as `extract --device` measures it.
//!
//! `cargo run --release -p headway --example jitter_tolerance -- FIRST_SEED END_SEED [TAIL]`
//!
//! TAIL is the chance that a leg of a round trip is late by the tail (up to 7 ms of drive
//! time) rather than the usual up to 0.2 ms: 0.01 by default, what was measured on a busy
//! two-core machine. Prints one line a seed and a summary; "exact" means both zones, every
//! track boundary and no false one, and every LBN on its true cylinder.

use std::path::Path;

use headway::calibrate::{
    compare, device_for, extract_measuring_jitter, BlockTarget, EmulatedBlock, ExtractOptions,
    JitteredBlock, Probe, RoundTripJitter,
};
use headway::device::catalog;
use headway::device::imperfect::Imperfections;
use headway::link::Link;

const TWO_ZONE: &str = include_str!("../../../tests/data/twozone_drive.toml");

fn main() -> headway::Result<()> {
    let arg = |i: usize, default: &str| std::env::args().nth(i).unwrap_or_else(|| default.into());
    let usage = "usage: jitter_tolerance FIRST_SEED END_SEED [TAIL_PROBABILITY]";
    let (Ok(first), Ok(end), Ok(tail)) = (
        arg(1, "1").parse::<u64>(),
        arg(2, "41").parse::<u64>(),
        arg(3, "0.01").parse::<f64>(),
    ) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    if !(0.0..=1.0).contains(&tail) || end <= first {
        eprintln!("{usage}: TAIL_PROBABILITY in [0, 1], END_SEED above FIRST_SEED");
        std::process::exit(2);
    }
    let spec = catalog::parse_toml_spec(TWO_ZONE, "twozone")?;
    let jitter = RoundTripJitter {
        tail_probability: tail,
        ..RoundTripJitter::fuse_nbd(2.0)
    };
    let (mut exact, mut refused) = (0, 0);
    for seed in first..end {
        let io = EmulatedBlock::new(
            device_for(&spec, &Imperfections::default())?,
            Link::default(),
        );
        let target = BlockTarget::new(
            JitteredBlock::new(io, jitter, seed),
            Path::new("emulated"),
            true,
        )?;
        let probe = Probe::of(Box::new(target));
        match extract_measuring_jitter(probe, "twozone", ExtractOptions::default()) {
            Ok(got) => {
                let c = compare(&got, &spec, 1)?;
                let cylinders: Vec<(u32, u32)> = got
                    .table
                    .zones
                    .iter()
                    .map(|z| (z.first_cylinder, z.last_cylinder))
                    .collect();
                let ok = c.extracted_zones == c.true_zones
                    && c.found_track_boundaries == c.true_track_boundaries
                    && c.wrong_track_boundaries == 0
                    && c.wrong_cylinder == 0;
                exact += ok as u32;
                println!(
                    "seed {seed}: {} zones {cylinders:?}, {} false boundaries, {} LBNs on a \
                     wrong cylinder, period {:+.1} ppm, {} commands",
                    if ok { "exact" } else { "WRONG" },
                    c.wrong_track_boundaries,
                    c.wrong_cylinder,
                    c.period_error_ppm,
                    got.commands
                );
            }
            Err(e) => {
                refused += 1;
                println!("seed {seed}: refused: {e}");
            }
        }
    }
    println!(
        "tail {tail}: {exact} of {} exact, {refused} refused with an error, {} wrong",
        end - first,
        (end - first) as u32 - exact - refused
    );
    Ok(())
}
