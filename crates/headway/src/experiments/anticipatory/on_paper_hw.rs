//! The headline's two-reader pairs on the paper's own platforms (`_paper_hw` keys): the
//! same runs as the validated stand-ins', a handful of them, so they cost little.

use super::options::{ReproduceOptions, PAPER_HW, PAPER_HW_FAST};
use super::runs::{config, on_device, run, two};
use super::Headline;
use crate::error::Result;
use crate::experiments::paper_hw::PaperHw;

/// Throughput (MB/s) of two `pattern` mmap readers under aged SPTF with heuristic `h` on
/// `hw`.
fn mb_s(
    hw: PaperHw,
    pattern: &str,
    h: &str,
    short: &str,
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<f64> {
    progress(&format!(
        "paper hardware {} {pattern} mmap aged-sptf {h}",
        hw.label()
    ))?;
    let readers = two(pattern, "mmap", short.into(), short.into());
    let text = config(hw.drive, "aged-sptf", h, "", &readers, o);
    let text = on_device(&text, &format!("interface = \"{}\"", hw.interface));
    Ok(run(&text)?.throughput_mb_s)
}

/// Fill `headline`'s `_paper_hw` keys; `short` is the short think time's workload line.
pub(super) fn headline(
    headline: &mut Headline,
    short: &str,
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<()> {
    let mut pair = |hw: PaperHw, pattern: &str| -> Result<(f64, f64)> {
        let off = mb_s(hw, pattern, "off", short, o, progress)?;
        let on = mb_s(hw, pattern, "cost-benefit", short, o, progress)?;
        Ok((on, on / off))
    };
    let (seq_mb_s, seq) = pair(PAPER_HW, "seq")?;
    let (_, alter) = pair(PAPER_HW, "alter")?;
    let (_, fast) = pair(PAPER_HW_FAST, "seq")?;
    headline.paper_hw = format!(
        "{}; faster platform {}",
        PAPER_HW.label(),
        PAPER_HW_FAST.label()
    );
    headline.seq_mmap_mb_s_paper_hw = seq_mb_s;
    headline.seq_mmap_speedup_paper_hw = seq;
    headline.alter_mmap_speedup_paper_hw = alter;
    headline.fast_drive_seq_mmap_speedup_paper_hw = fast;
    Ok(())
}
