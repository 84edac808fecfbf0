//! What the anticipatory tables share: the two-reader experiment configuration, running
//! one, and the sweeps table's row.

use serde::Serialize;

use super::options::ReproduceOptions;
use crate::config::{build_simulation, ExperimentConfig};
use crate::error::Result;
use crate::stats::Summary;

#[derive(Clone, Debug, Serialize)]
pub struct SweepRow {
    /// "symmetric", "asymmetric", "random", "adversary", "granularity",
    /// "adversary-adaptive", "granularity-adversary", or a sensitivity sweep's name.
    pub sweep: String,
    /// Think time (ms), burst length or granularity (µs), by sweep.
    pub x: f64,
    pub heuristic: String,
    pub throughput_mb_s: f64,
    pub utilisation: f64,
}

/// One reader's `[[workloads]]` entry.
pub(super) struct Reader<'a> {
    pub(super) start_fraction: f64,
    pub(super) pattern: &'a str,
    pub(super) fs: &'a str,
    pub(super) think: String,
    pub(super) extra: String,
}

fn reader_toml(r: &Reader, o: &ReproduceOptions) -> String {
    format!(
        "[[workloads]]\nkind = \"sync\"\nrequests = {}\nsize_sectors = {}\npattern = \"{}\"\nfs = \"{}\"\n{}\n{}\n\
         region = {{ start_fraction = {}, size_fraction = 0.1 }}\n",
        o.requests, o.page_sectors, r.pattern, r.fs, r.think, r.extra, r.start_fraction
    )
}

pub(super) fn fixed(ms: f64) -> String {
    format!("think_ms = {ms:?}")
}

pub(super) fn config(
    drive: &str,
    scheduler: &str,
    heuristic: &str,
    host_extra: &str,
    readers: &[Reader],
    o: &ReproduceOptions,
) -> String {
    let mut t = format!(
        "seed = {}\n[[devices]]\nname = \"disk\"\ndrive = \"{drive}\"\n[host]\nscheduler = \"anticipatory\"\n\
         [host.options]\nheuristic = \"{heuristic}\"\n{host_extra}\n[host.inner]\nscheduler = \"{scheduler}\"\n",
        o.seed
    );
    for r in readers {
        t += &reader_toml(r, o);
    }
    t
}

/// `text` (from [`config`]) with `setting` (a `[[devices]]` key line) on its drive.
pub(super) fn on_device(text: &str, setting: &str) -> String {
    text.replacen("\n[host]", &format!("\n{setting}\n[host]"), 1)
}

pub(super) fn run(text: &str) -> Result<Summary> {
    let cfg = ExperimentConfig::from_toml_str(text, None)?;
    Ok(build_simulation(&cfg, None)?.simulation.run()?.summary)
}

pub(super) fn two<'a>(pattern: &'a str, fs: &'a str, a: String, b: String) -> [Reader<'a>; 2] {
    [
        Reader {
            start_fraction: 0.25,
            pattern,
            fs,
            think: a,
            extra: String::new(),
        },
        Reader {
            start_fraction: 0.65,
            pattern,
            fs,
            think: b,
            extra: String::new(),
        },
    ]
}
