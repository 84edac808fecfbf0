//! What a scheduler needs of the devices' predictors beyond the core calls, checked when
//! the run is built: a configuration that pairs a scheduler with a predictor lacking a
//! capability it needs is refused then, naming both keys, not at the scheduler's first
//! call. Every scheduler that uses the queue model ([`crate::predict::QueueModel`]: the
//! STF family, freeblock) also plans without it, so only geometry is required.

use super::DeviceConfig;
use crate::error::{HeadwayError, Result};
use crate::predict::Predictor;
use crate::sched::SchedSpec;

/// Schedulers that read the predictor's track geometry ([`crate::predict::Geometry`]):
/// freeblock plans its free reads from which blocks pass under the head when.
const NEEDS_GEOMETRY: &[&str] = &["freeblock"];

/// Refuse a run whose scheduler (or a scheduler it wraps, `[host.inner]`) needs geometry
/// that a device's predictor does not have. `devices` and `predictors` are in device
/// order; `single`: the `[drive]` form, whose predictor is `host.predictor`.
pub(crate) fn check(
    spec: &SchedSpec,
    devices: &[DeviceConfig],
    single: bool,
    predictors: &[Box<dyn Predictor>],
) -> Result<()> {
    let mut key = String::from("host");
    let mut at = Some(spec);
    while let Some(s) = at {
        if NEEDS_GEOMETRY.contains(&s.scheduler.as_str()) {
            for (i, (d, p)) in devices.iter().zip(predictors).enumerate() {
                if p.geometry().is_none() {
                    return Err(no_geometry(&key, &s.scheduler, d, i, single, p.name()));
                }
            }
        }
        key.push_str(".inner");
        at = s.inner.as_deref();
    }
    Ok(())
}

/// The error for scheduler `scheduler` (at `{table}.scheduler`) over device `index`, whose
/// predictor `predictor` has no geometry.
fn no_geometry(
    table: &str,
    scheduler: &str,
    d: &DeviceConfig,
    index: usize,
    single: bool,
    predictor: &str,
) -> HeadwayError {
    let key = match (single, d.drive.as_str()) {
        (true, _) => "host.predictor".to_string(),
        (false, "flash") => format!("devices[{index}].drive"),
        (false, _) => format!("devices[{index}].predictor"),
    };
    HeadwayError::config(
        key,
        format!(
            "scheduler `{scheduler}` ({table}.scheduler) needs the predictor's track \
             geometry, but predictor `{predictor}` has none; use `oracle` or `calibrated`"
        ),
    )
}

#[cfg(test)]
mod tests {
    use crate::config::{build_simulation, ExperimentConfig};

    fn build_error(text: &str) -> String {
        let cfg = ExperimentConfig::from_toml_str(text, None).unwrap();
        match build_simulation(&cfg, None) {
            Ok(_) => panic!("built a run that needs geometry its predictor lacks"),
            Err(e) => e.to_string(),
        }
    }

    const WORKLOAD: &str =
        "[workload]\nkind = \"closed\"\nprocesses = 2\nthink_ms = 30.0\nrequests = 10\n";

    #[test]
    fn freeblock_over_a_predictor_without_geometry_is_refused_when_built() {
        let e = build_error(&format!(
            "[drive]\nname = \"st41601n\"\nqueue_depth = 2\n\
             [host]\nscheduler = \"freeblock\"\npredictor = \"lbn-curve\"\nmax_outstanding = 2\n\
             [host.inner]\nscheduler = \"sptf\"\n{WORKLOAD}"
        ));
        assert!(
            e.contains("host.predictor")
                && e.contains("host.scheduler")
                && e.contains("`freeblock`")
                && e.contains("`lbn-curve`")
                && e.contains("geometry"),
            "{e}"
        );
    }

    #[test]
    fn a_wrapped_freeblock_over_a_flash_device_names_both_keys() {
        let e = build_error(
            "[[devices]]\nname = \"p\"\ndrive = \"atlas10k\"\nqueue_depth = 2\n\
             [[devices]]\nname = \"f\"\ndrive = \"flash\"\n\
             [[workloads]]\nrequests = 3\ndevice = \"p\"\n\
             [host]\nscheduler = \"idle-scan\"\n\
             [host.inner]\nscheduler = \"freeblock\"\n\
             [host.inner.inner]\nscheduler = \"sptf\"\n",
        );
        assert!(
            e.contains("host.inner.scheduler")
                && e.contains("devices[1].drive")
                && e.contains("`flash`"),
            "{e}"
        );
    }
}
