//! Validation against real drives: replay a DiskSim validate-format trace (requests measured
//! on the real drive) in validate mode and compare simulated with measured access times.
//!
//! Validate mode: one request at the drive at a time; each record's last column is the delay
//! from that request's completion to the next request's issue. The figure of merit is
//! DiskSim's demerit: the RMS, in milliseconds, of the horizontal distance between the
//! simulated and measured access-time CDFs, sampled at probabilities 0.0001, 0.0002, ..., 1.

mod builtin;
mod demerit;
mod disksim_rms;
mod trace;
mod workload;

pub use builtin::{
    builtin_trace, builtin_trace_names, disksim_demerit_ms, BuiltinTrace, BUILTIN_TRACES,
};
pub use demerit::demerit_ms;
pub(crate) use disksim_rms::disksim_rms_ms;
pub use trace::{read_validate_trace, ValidateRecord};
pub use workload::ValidateWorkload;

use crate::device::hdd::{HddDevice, HddSpec, Overheads};
use crate::device::Device;
use crate::error::Result;
use crate::host::Host;
use crate::link::Link;
use crate::predict::OraclePredictor;
use crate::sched::Fcfs;
use crate::sim::{RunLimits, Simulation};
use crate::stats::{RequestRecords, StatsOptions};
use crate::time::SimTime;
use std::sync::Arc;

/// Outcome of a validation run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ValidationReport {
    pub drive: String,
    pub requests: usize,
    pub measured_mean_ms: f64,
    pub measured_sd_ms: f64,
    pub simulated_mean_ms: f64,
    pub simulated_sd_ms: f64,
    pub demerit_ms: f64,
    /// Demerit as a fraction of the measured mean access time.
    pub demerit_fraction: f64,
    /// The demerit by DiskSim's own formula (its binned, interpolated CDFs:
    /// `disksim_rms_ms`), the one its published figures use; compare those with this.
    pub disksim_formula_demerit_ms: f64,
    /// Settings of the drive's description that headway does not model.
    pub warnings: Vec<String>,
    /// (measured, simulated) access time in ms per request, in trace order.
    #[serde(skip)]
    pub pairs: Vec<(f64, f64)>,
    /// The simulator's per-request records (phases, cache hits), in completion order (which
    /// is trace order: one request at a time).
    #[serde(skip)]
    pub records: RequestRecords,
}

fn mean_sd(xs: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = xs.clone().count() as f64;
    let mean = xs.clone().sum::<f64>() / n;
    let var = xs.map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

/// Replay `records` on the drive `spec` in validate mode: one request at the drive at a time,
/// the drive's full firmware model (buffer, read-ahead, write-back, bus rules) in play.
pub fn validate(spec: &HddSpec, records: &[ValidateRecord]) -> Result<ValidationReport> {
    validate_from(spec, records, 0)
}

/// Validate the catalog drive a shipped trace was measured on against that trace (`name` as
/// in [`builtin_trace_names`]).
pub fn validate_builtin(name: &str) -> Result<ValidationReport> {
    let t = BuiltinTrace::get(name)?;
    let spec = crate::device::catalog::lookup(t.drive)?;
    validate(&spec, &builtin_trace(name)?)
}

/// [`validate`] with the first request issued at `start_ns` (the spindle's phase at the first
/// request is not recorded in a trace; this shows how much a result depends on it).
pub fn validate_from(
    spec: &HddSpec,
    records: &[ValidateRecord],
    start_ns: SimTime,
) -> Result<ValidationReport> {
    let device = HddDevice::new(spec, 1)?;
    let predictor = OraclePredictor::new(device.mechanics().clone(), Overheads::from_spec(spec), 0);
    let host = Host::new(Box::new(Fcfs::new()), vec![Box::new(predictor)], vec![1]);
    let workload = ValidateWorkload::starting_at(Arc::new(records.to_vec()), start_ns);
    let devices: Vec<Box<dyn Device>> = vec![Box::new(device)];
    let sim = Simulation::new(
        Box::new(workload),
        host,
        devices,
        Link::default(),
        StatsOptions {
            records: true,
            ..Default::default()
        },
        RunLimits::default(),
    )
    .with_warnings(spec.unmodelled_settings());
    let result = sim.run()?;
    let rec = result.records.expect("records were requested");
    // Requests are issued one at a time in trace order, so id i is record i.
    let mut simulated = vec![0.0; records.len()];
    for i in 0..rec.len() {
        simulated[rec.id[i] as usize] = (rec.done_ns[i] - rec.arrival_ns[i]) as f64 / 1e6;
    }
    let measured: Vec<f64> = records.iter().map(|r| r.measured_ms).collect();
    let (mm, ms) = mean_sd(measured.iter().copied());
    let (sm, ss) = mean_sd(simulated.iter().copied());
    let d = demerit_ms(&measured, &simulated);
    Ok(ValidationReport {
        drive: spec.name.clone(),
        requests: records.len(),
        measured_mean_ms: mm,
        measured_sd_ms: ms,
        simulated_mean_ms: sm,
        simulated_sd_ms: ss,
        demerit_ms: d,
        demerit_fraction: d / mm,
        disksim_formula_demerit_ms: disksim_rms_ms(&measured, &simulated),
        warnings: result.warnings,
        pairs: measured.into_iter().zip(simulated).collect(),
        records: rec,
    })
}
