//! The Andrew stand-in's time per phase (the paper's Figure 8 breaks the benchmark's time
//! down by phase): each client's requests, in issue order, are split at the script's phase
//! boundaries ([`andrew::phase_steps`]), and a phase ends when the client can start the
//! next one (the completion of its last waited request, or the issue of its last
//! asynchronous write).

use serde::Serialize;

use crate::config::{build_simulation, ExperimentConfig};
use crate::error::{HeadwayError, Result};
use crate::stats::{RequestRecords, Summary};
use crate::workload::app::andrew::{self, PHASES};

/// One phase's time under one configuration, averaged over the clients.
#[derive(Clone, Debug, Serialize)]
pub struct PhaseRow {
    pub drive: String,
    pub scheduler: String,
    pub heuristic: String,
    pub clients: u32,
    /// One of [`PHASES`], or "total" (each client's finishing time).
    pub phase: String,
    /// Mean over the clients of the phase's duration in each client.
    pub time_s: f64,
}

/// The phase names of the table, [`PHASES`] then "total".
pub const PHASE_NAMES: [&str; 6] = ["mkdir", "cp", "stat", "scan", "gcc", "total"];

/// Run `text` (Andrew clients of `files` files each, workloads 0..`clients`) and return its
/// summary with the mean time of each of [`PHASE_NAMES`].
pub(super) fn run(text: &str, clients: u32, files: u64) -> Result<(Summary, [f64; 6])> {
    let cfg = ExperimentConfig::from_toml_str(&format!("{text}[output]\nrecords = true\n"), None)?;
    let r = build_simulation(&cfg, None)?.simulation.run()?;
    let rec = r.records.as_ref().ok_or_else(|| {
        HeadwayError::config("output.records", "the Andrew phases need request records")
    })?;
    let mut mean = [0.0; 6];
    for c in 0..clients {
        let ends = phase_ends_ns(rec, c as u16, files)?;
        let mut before = 0u64;
        for (k, &end) in ends.iter().enumerate() {
            mean[k] += end.saturating_sub(before) as f64 / 1e9 / clients as f64;
            before = end;
        }
        mean[5] += before as f64 / 1e9 / clients as f64;
    }
    Ok((r.summary, mean))
}

/// The moment client `origin` finished each phase, in ns.
fn phase_ends_ns(rec: &RequestRecords, origin: u16, files: u64) -> Result<[u64; 5]> {
    let mut mine: Vec<usize> = (0..rec.len())
        .filter(|&i| rec.origin[i] == origin)
        .collect();
    mine.sort_by_key(|&i| (rec.arrival_ns[i], rec.id[i]));
    let counts = andrew::phase_steps(files);
    if mine.len() as u64 != counts.iter().sum::<u64>() {
        return Err(HeadwayError::config(
            "workloads",
            format!(
                "Andrew client {origin} completed {} requests, its script has {}",
                mine.len(),
                counts.iter().sum::<u64>()
            ),
        ));
    }
    let mut ends = [0u64; 5];
    let mut at = 0usize;
    for (k, &n) in counts.iter().enumerate() {
        let steps = &mine[at..at + n as usize];
        at += n as usize;
        // Reads and mkdir's metadata writes are waited for; cp's copies are not.
        let waited = |i: usize| rec.is_read[i] || PHASES[k] == "mkdir";
        ends[k] = steps
            .iter()
            .map(|&i| {
                if waited(i) {
                    rec.done_ns[i]
                } else {
                    rec.arrival_ns[i]
                }
            })
            .max()
            .unwrap_or(if k > 0 { ends[k - 1] } else { 0 });
    }
    Ok(ends)
}
