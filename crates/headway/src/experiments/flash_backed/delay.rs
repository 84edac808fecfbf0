//! The idle write-back delay sweep: FQueue size against how long the request queue must stay
//! empty before idle write-back starts, C-LOOK, each run against the paired baseline without
//! redirection. With no delay every idle gap empties the FQueue, so its size hardly matters
//! and few entries live long enough to be overwritten; a delay keeps them across short gaps.

use serde::Serialize;

use super::ratio;
use std::rc::Rc;

use super::replay::ReplayReport;

#[derive(Clone, Debug, Serialize)]
pub struct DelayRow {
    pub trace: String,
    pub fqueue_mib: f64,
    pub idle_delay_ms: f64,
    pub write_latency_norm: f64,
    pub total_latency_norm: f64,
    pub idle_share: f64,
    pub flush_share: f64,
    /// Redirected writes overwritten in the FQueue / redirected writes (the spec's Fig. 12
    /// reading).
    pub overwrite_fraction: f64,
    /// The same overwrites over all writes (the paper's "at most 15% of all writes").
    pub overwrites_of_writes: f64,
    pub redirected_fraction: f64,
}

/// One row per (F, delay) of trace `name`, each against `base` (the same trace without
/// redirection). `run(f, delay_ms)` is the trace's C-LOOK replay at F = `f` and that delay.
pub(crate) fn delay_rows(
    name: &str,
    base: &ReplayReport,
    fqueue_mib: &[f64],
    delays_ms: &[f64],
    run: &mut dyn FnMut(f64, f64) -> Rc<ReplayReport>,
) -> Vec<DelayRow> {
    let mut rows = Vec::new();
    for &f in fqueue_mib {
        for &d in delays_ms {
            let r = run(f, d);
            rows.push(DelayRow {
                trace: name.into(),
                fqueue_mib: f,
                idle_delay_ms: d,
                write_latency_norm: ratio(r.mean_write_ms(), base.mean_write_ms()),
                total_latency_norm: ratio(r.total_write_work_ms(), base.total_write_work_ms()),
                idle_share: r.idle_share(),
                flush_share: r.flush_share(),
                overwrite_fraction: r.overwrite_fraction(),
                overwrites_of_writes: r.fqueue_entries_overwritten as f64 / r.writes.max(1) as f64,
                redirected_fraction: r.redirected as f64 / r.writes.max(1) as f64,
            });
        }
    }
    rows
}
