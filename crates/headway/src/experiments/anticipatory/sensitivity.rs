//! Sensitivity of the anticipation core to its parameters (spec §5's sweeps), and the
//! paper's M-process C-SCAN example, as rows of the sweeps table:
//!
//! * `bucket_us`, `histogram_range_ms`, `decay`: the thinktime histogram, on two
//!   sequential readers with a 1 ms think time (where waiting pays only while T95 is read
//!   correctly);
//! * `seek_weight`: the decay of the expected seek distance behind E_pos, on two random
//!   readers (where E_pos decides the test);
//! * `bus_sector_ms`: the drive's bus time per sector, on the two-reader seq and alter
//!   pairs (mmap) with and without anticipation (`x` the ms per sector; `heuristic` names
//!   the pattern too: `off-seq`, `cost-benefit-alter`, ...): the stand-in's validated bus
//!   caps a sequential reader at about 5 MB/s, which sets the speedups;
//! * `cscan_m`: M sequential readers spread over the disk under C-SCAN, with and without
//!   anticipation (the paper's §2 example: work-conserving C-SCAN serves one page per
//!   process per sweep).

use super::options::ReproduceOptions;
use super::runs::{config, fixed, on_device, run, two, Reader, SweepRow};
use crate::error::Result;

pub(crate) fn sweeps(
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<Vec<SweepRow>> {
    let mut rows = vec![];
    let mut push = |sweep: &str, x: f64, h: &str, s: &crate::stats::Summary| {
        rows.push(SweepRow {
            sweep: sweep.into(),
            x,
            heuristic: h.into(),
            throughput_mb_s: s.throughput_mb_s,
            utilisation: s.utilisation,
        })
    };
    let params: [(&str, &[f64], &str); 4] = [
        ("bucket_us", &o.buckets_us, "seq"),
        ("histogram_range_ms", &o.ranges_ms, "seq"),
        ("decay", &o.decays, "seq"),
        ("seek_weight", &o.seek_weights, "random"),
    ];
    for (key, values, pattern) in params {
        let think = if pattern == "seq" {
            1.0
        } else {
            o.short_think_ms
        };
        for &v in values {
            progress(&format!("sensitivity {key} = {v}"))?;
            let s = run(&config(
                &o.drive,
                "aged-sptf",
                "cost-benefit",
                &format!("{key} = {v:?}"),
                &two(pattern, "mmap", fixed(think), fixed(think)),
                o,
            ))?;
            push(key, v, "cost-benefit", &s);
        }
    }
    let short = fixed(o.short_think_ms);
    for &ms in &o.bus_sector_ms {
        for pattern in ["seq", "alter"] {
            for h in ["off", "cost-benefit"] {
                progress(&format!("bus {ms} ms a sector, {pattern} {h}"))?;
                let readers = two(pattern, "mmap", short.clone(), short.clone());
                let text = config(&o.drive, "aged-sptf", h, "", &readers, o);
                let s = run(&on_device(
                    &text,
                    &format!("bus_sector_transfer_ms = {ms:?}"),
                ))?;
                push("bus_sector_ms", ms, &format!("{h}-{pattern}"), &s);
            }
        }
    }
    for &m in &o.cscan_processes {
        let readers: Vec<Reader> = (0..m)
            .map(|i| Reader {
                start_fraction: 0.9 * i as f64 / m as f64,
                pattern: "seq",
                fs: "mmap",
                think: fixed(o.short_think_ms),
                extra: String::new(),
            })
            .collect();
        for h in ["off", "cost-benefit"] {
            progress(&format!("C-SCAN with {m} processes, {h}"))?;
            let s = run(&config(&o.drive, "cscan", h, "", &readers, o))?;
            push("cscan_m", m as f64, h, &s);
        }
    }
    Ok(rows)
}
