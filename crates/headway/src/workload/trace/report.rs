//! What a replay (or a stats pass) did with a trace beyond replaying it: records skipped as
//! bad in lenient mode, requests moved or dropped to fit the drive, records filtered out.
//! It reaches the run result (`RunResult::trace_report`, `RunResult::warnings`) so that a
//! lenient run never hides what it skipped.

use serde::Serialize;

/// Bad records whose line and message are kept (the rest are only counted).
pub(crate) const BAD_EXAMPLES: usize = 10;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraceReport {
    pub path: String,
    /// The format read (after detection).
    pub format: String,
    /// Well-formed records read (before filters).
    pub records_read: u64,
    /// Requests handed to the simulation.
    pub replayed: u64,
    /// Records left out by the device, op or time-window filters.
    pub filtered: u64,
    /// Records skipped as bad (lenient mode only; strict mode fails at the first).
    pub bad_records: u64,
    /// The first few bad records: `line N: what was wrong`.
    pub bad_examples: Vec<String>,
    /// `fit` in force: fail, wrap, scale or truncate.
    pub fit: String,
    /// Requests moved or shortened to fit the drive.
    pub fitted: u64,
    /// Requests dropped because they lay wholly past the drive's end (fit = truncate).
    pub dropped_by_fit: u64,
    /// Records the reader skipped by design (HP SRT suspect records).
    pub skipped_by_reader: u64,
    /// One past the highest sector any well-formed record addressed (512-byte sectors).
    pub max_end_sector: u64,
    /// Anything else the user should know (e.g. a closed replay of a trace without pids).
    pub notes: Vec<String>,
}

impl TraceReport {
    pub(crate) fn bad(&mut self, line: usize, msg: &str) {
        self.bad_records += 1;
        if self.bad_examples.len() < BAD_EXAMPLES {
            self.bad_examples.push(format!("line {line}: {msg}"));
        }
    }

    /// One line per thing worth a warning; empty when the trace replayed as it is.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.bad_records > 0 {
            w.push(format!(
                "{}: skipped {} bad record(s) (skip_bad); first: {}",
                self.path,
                self.bad_records,
                self.bad_examples.join("; ")
            ));
        }
        if self.fitted > 0 {
            w.push(format!(
                "{}: {} request(s) moved or shortened to fit the drive (fit = {})",
                self.path, self.fitted, self.fit
            ));
        }
        if self.dropped_by_fit > 0 {
            w.push(format!(
                "{}: {} request(s) past the end of the drive dropped (fit = {})",
                self.path, self.dropped_by_fit, self.fit
            ));
        }
        if self.skipped_by_reader > 0 {
            w.push(format!(
                "{}: {} suspect record(s) skipped, as DiskSim does",
                self.path, self.skipped_by_reader
            ));
        }
        for n in &self.notes {
            w.push(format!("{}: {n}", self.path));
        }
        w
    }
}
