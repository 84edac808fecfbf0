//! The rotational-scheduling system: drive extraction by timing and the paper's
//! reproduction. Thin wrappers over `headway::calibrate` and
//! `headway::experiments::rotational`; results cross as JSON.

use headway::calibrate::drive_file::drive_spec;
use headway::calibrate::{
    compare, device_for, extract as run_extract, extract_device as run_extract_device,
    ExtractOptions,
};
use headway::config::resolve_drive;
use headway::device::imperfect::Imperfections;
use headway::experiments::rotational::{reproduce, ReproduceOptions};
use headway::link::Link;
use headway::HeadwayError;
use pyo3::prelude::*;

use crate::errors::to_pyerr;
use crate::reproduce::{at_least_one, run_reproduction};

/// `[drive.imperfections]` given as TOML text (keys as in an experiment file).
fn imperfections(toml_text: Option<&str>) -> headway::Result<Imperfections> {
    let Some(text) = toml_text else {
        return Ok(Imperfections::default());
    };
    let imp: Imperfections = toml::from_str(text).map_err(|e| {
        HeadwayError::config("drive.imperfections", e.message().trim_end().to_string())
    })?;
    imp.validate()?;
    Ok(imp)
}

/// Calibrate `drive` by timing alone and compare what was learned with the drive's own
/// model. Returns `(report_text, comparison_json)`.
#[pyfunction]
#[pyo3(signature = (drive, imperfections_toml=None, paper_min_offset=true, stride=97))]
pub fn extract(
    py: Python<'_>,
    drive: &str,
    imperfections_toml: Option<&str>,
    paper_min_offset: bool,
    stride: u64,
) -> PyResult<(String, String)> {
    let go = || -> headway::Result<(String, String)> {
        if stride == 0 {
            return Err(HeadwayError::config(
                "stride",
                "must be at least 1 (every stride-th LBN is checked)",
            ));
        }
        let spec = resolve_drive(drive, None)?;
        let imp = imperfections(imperfections_toml)?;
        let t = std::time::Instant::now();
        let extracted = run_extract(
            device_for(&spec, &imp)?,
            Link::default(),
            &spec.name,
            ExtractOptions {
                paper_min_offset,
                ..ExtractOptions::default()
            },
        )?;
        let wall_s = t.elapsed().as_secs_f64();
        let cmp = compare(&extracted, &spec, stride)?;
        let json = serde_json::json!({
            "drive": spec.name,
            "wall_s": wall_s,
            "commands": extracted.commands,
            "simulated_s": extracted.simulated_s,
            "period_ms": extracted.period_ns / 1e6,
            "delta_sectors": extracted.delta_sectors,
            "min_distance_sectors": extracted.min_distance_sectors,
            "zones": extracted.table.zones,
            "comparison": cmp,
        });
        Ok((cmp.to_string(), json.to_string()))
    };
    py.detach(go).map_err(|e| to_pyerr(py, e, None))
}

/// Calibrate the block device or file at `path` by timing O_DIRECT reads (and writes, which
/// put zeros on it, when `writable`). Returns `(report_text, drive_toml, extraction_json)`:
/// the drive file is headway's drive form of what was measured.
#[pyfunction]
#[pyo3(signature = (path, writable=false, jitter_us=None))]
pub fn extract_device(
    py: Python<'_>,
    path: &str,
    writable: bool,
    jitter_us: Option<f64>,
) -> PyResult<(String, String, String)> {
    let go = || -> headway::Result<(String, String, String)> {
        let p = std::path::Path::new(path);
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_else(|| "device".into());
        let t = std::time::Instant::now();
        let opts = match jitter_us {
            None => ExtractOptions::default(),
            Some(us) => ExtractOptions::for_jitter_ns(us * 1e3)
                .map_err(|msg| HeadwayError::config("jitter_us", msg))?,
        };
        let extracted = run_extract_device(p, writable, &name, opts)?;
        let wall_s = t.elapsed().as_secs_f64();
        let spec = drive_spec(&extracted)?;
        let toml_text = toml::to_string(&spec)
            .map_err(|e| HeadwayError::Invariant(format!("drive file: {e}")))?;
        let report = format!(
            "extracted {path} ({}): {} commands, {wall_s:.1} s\n\
             round trip jitter {}\n\
             rotation {:.4} ms ({:.1} RPM); {} zones; {} sectors; {} surfaces, {} cylinders\n",
            if writable {
                "reads and writes"
            } else {
                "reads only"
            },
            extracted.commands,
            match extracted.measured_round_trip_spread_ns {
                Some(ns) => format!("{:.1} us (measured)", ns / 1e3),
                None => format!("{:.1} us (given)", extracted.round_trip_jitter_ns / 1e3),
            },
            extracted.period_ns / 1e6,
            spec.rpm,
            spec.layout.zones.len(),
            spec.block_count,
            spec.surfaces,
            spec.cylinders,
        );
        let json = serde_json::json!({
            "device": path,
            "writable": writable,
            "wall_s": wall_s,
            "commands": extracted.commands,
            "period_ms": extracted.period_ns / 1e6,
            "delta_sectors": extracted.delta_sectors,
            "min_distance_sectors": extracted.min_distance_sectors,
            "zones": extracted.table.zones,
            "seek_lag_samples_ns": extracted.lags.seek_samples,
            "round_trip_jitter_us": extracted.round_trip_jitter_ns / 1e3,
            "measured_round_trip_spread_us":
                extracted.measured_round_trip_spread_ns.map(|ns| ns / 1e3),
        });
        Ok((report, toml_text, json.to_string()))
    };
    py.detach(go).map_err(|e| to_pyerr(py, e, None))
}

/// Run the rotational paper's evaluation. `quick` picks the reduced sizes; the other
/// arguments override single options. `progress(what)` is called before each run (with the
/// GIL; Ctrl-C stops the reproduction there). Returns the reproduction as JSON.
#[pyfunction]
#[pyo3(signature = (quick=false, seed=None, drive=None, queue_lengths=None, requests_per_queued=None, trace_requests=None, progress=None, stability_trials=None))]
#[allow(clippy::too_many_arguments)]
pub fn reproduce_rotational(
    py: Python<'_>,
    quick: bool,
    seed: Option<u64>,
    drive: Option<String>,
    queue_lengths: Option<Vec<u32>>,
    requests_per_queued: Option<u64>,
    trace_requests: Option<u64>,
    progress: Option<Py<PyAny>>,
    stability_trials: Option<usize>,
) -> PyResult<String> {
    let mut o = if quick {
        ReproduceOptions::quick()
    } else {
        ReproduceOptions::full()
    };
    if let Some(s) = seed {
        o.seed = s;
    }
    if let Some(d) = drive {
        o.drive = d;
    }
    if let Some(q) = queue_lengths {
        if q.is_empty() || q.contains(&0) {
            return Err(to_pyerr(
                py,
                HeadwayError::config("queue_lengths", "must be a non-empty list of lengths >= 1"),
                None,
            ));
        }
        o.queue_lengths = q;
    }
    if let Some(n) = requests_per_queued {
        o.requests_per_queued = at_least_one(py, "requests_per_queued", n)?;
    }
    if let Some(n) = trace_requests {
        o.light_requests = at_least_one(py, "trace_requests", n)?;
        o.heavy_requests = o.light_requests;
    }
    if let Some(n) = stability_trials {
        o.stability_trials = at_least_one(py, "stability_trials", n)?;
    }
    run_reproduction(py, progress, |on_progress| reproduce(&o, on_progress))
}
