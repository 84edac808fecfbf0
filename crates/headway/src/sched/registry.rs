//! Every built-in scheduler by name, with what it is in one line and whether it wraps
//! another, and the builder that nests wrappers around their inner schedulers
//! (`[host] scheduler = "idle-scan"` with `[host.inner] scheduler = "sptf"`).

use serde::Deserialize;

use super::options::{OptionReader, SchedOptions};
use super::per_device::PerDevice;
use super::*;
use crate::error::{HeadwayError, Result};
use crate::request::DeviceId;

/// One line about a scheduler, for `headway schedulers`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedulerInfo {
    pub name: &'static str,
    /// Holds an inner scheduler (`[host.inner]`), whose proposals it takes, delays or adds to.
    pub wraps: bool,
    /// Schedules every device of the run as one (a platter and its flash), rather than one
    /// copy per device behind a splitter.
    pub spans_devices: bool,
    pub summary: &'static str,
}

const fn leaf(name: &'static str, summary: &'static str) -> SchedulerInfo {
    SchedulerInfo {
        name,
        wraps: false,
        spans_devices: false,
        summary,
    }
}

const fn wrapper(name: &'static str, summary: &'static str) -> SchedulerInfo {
    SchedulerInfo {
        name,
        wraps: true,
        spans_devices: false,
        summary,
    }
}

/// Every built-in scheduler, in the order `headway schedulers` lists them.
pub const SCHEDULERS: &[SchedulerInfo] = &[
    leaf("fcfs", "first come, first served"),
    leaf("sstf", "shortest seek (cylinder distance) first"),
    leaf("scan", "elevator sweeping to the disk's edges"),
    leaf("look", "elevator reversing at the last request"),
    leaf(
        "cscan",
        "one-way sweep to the edge, then back to cylinder 0",
    ),
    leaf("clook", "one-way sweep, jumping back to the lowest request"),
    leaf("vscan", "V(R): SSTF biased towards the sweep direction"),
    leaf("fscan", "LOOK over frozen batches of arrivals"),
    leaf("sstf-lbn", "shortest LBN distance first (no geometry)"),
    leaf("look-lbn", "LOOK by LBN (no geometry)"),
    leaf("clook-lbn", "C-LOOK by LBN (no geometry)"),
    leaf("sptf", "shortest positioning time first (predictor)"),
    leaf("stf", "shortest time first: SPTF, objective selectable"),
    leaf(
        "satf",
        "shortest access time first (positioning + transfer)",
    ),
    leaf("gstf", "grouped STF: STF within cylinder bands or batches"),
    leaf(
        "wstf",
        "weighted STF: time weighted by response-time budget left",
    ),
    leaf(
        "aged-sptf",
        "SPTF minus a credit for waiting (DiskSim's ASPTF)",
    ),
    leaf(
        "sptf-sw",
        "SPTF-SW(n): least seek among near-best positioning",
    ),
    leaf("edf", "earliest deadline first (no deadline: last)"),
    leaf("scan-edf", "EDF, equal deadlines in SCAN order"),
    leaf(
        "dscan",
        "deadline SCAN: towards the most urgent, serving what lies between",
    ),
    leaf(
        "timeslice",
        "static partitioning: each class its own slot of every interval",
    ),
    leaf(
        "mclock",
        "mClock: per-class reservation, weight and limit by tags",
    ),
    leaf(
        "bfq",
        "budget fair queueing between classes (sectors, weights, no idling)",
    ),
    leaf(
        "cello",
        "two-level: time shares per class, slack-stealing insertion",
    ),
    leaf(
        "stride",
        "proportional share by virtual clocks (relaxed: relax_ms)",
    ),
    leaf(
        "mq-deadline",
        "Linux mq-deadline: read/write FIFOs with expiry, sorted batches",
    ),
    wrapper(
        "idle-scan",
        "reads a region in the background whenever the inner scheduler idles",
    ),
    wrapper(
        "freeblock",
        "background reads in the foreground's rotational latency (two commands at the drive)",
    ),
    wrapper(
        "anticipatory",
        "waits briefly for a synchronous process's next read (anticipation)",
    ),
    SchedulerInfo {
        spans_devices: true,
        ..wrapper(
            "flash-backed",
            "redirects costly writes to the hybrid drive's flash (FQueue), writes them back later",
        )
    },
];

/// Names of the schedulers that stand alone (they wrap nothing), in listing order.
pub const SCHEDULER_NAMES: &[&str] = &[
    "fcfs",
    "sstf",
    "scan",
    "look",
    "cscan",
    "clook",
    "vscan",
    "fscan",
    "sstf-lbn",
    "look-lbn",
    "clook-lbn",
    "sptf",
    "stf",
    "satf",
    "gstf",
    "wstf",
    "aged-sptf",
    "sptf-sw",
    "edf",
    "scan-edf",
    "dscan",
    "timeslice",
    "mclock",
    "bfq",
    "cello",
    "stride",
    "mq-deadline",
];

/// What `headway schedulers` says about `name` (aliases such as `c-look` included).
pub fn scheduler_info(name: &str) -> Option<SchedulerInfo> {
    let canonical = match name {
        "c-scan" => "cscan",
        "c-look" => "clook",
        "c-look-lbn" => "clook-lbn",
        n => n,
    };
    SCHEDULERS.iter().copied().find(|s| s.name == canonical)
}

/// A scheduler as configured: its name, its options and, for a wrapper, the scheduler it
/// wraps (`[host]`, `[host.inner]`, `[host.inner.inner]`, ...).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SchedSpec {
    pub scheduler: String,
    #[serde(default)]
    pub options: SchedOptions,
    #[serde(default)]
    pub inner: Option<Box<SchedSpec>>,
}

impl SchedSpec {
    pub fn named(name: &str) -> Self {
        SchedSpec {
            scheduler: name.to_string(),
            ..Default::default()
        }
    }
}

/// Build a built-in scheduler that wraps nothing, with default options.
pub fn scheduler_by_name(name: &str) -> Result<Box<dyn Scheduler>> {
    scheduler_with_options(name, &SchedOptions::new())
}

/// Build a built-in scheduler that wraps nothing from its name and `[host.options]`. Keys
/// the scheduler does not take, and values of the wrong type or range, are errors naming
/// `host.options.<key>`.
pub fn scheduler_with_options(name: &str, opts: &SchedOptions) -> Result<Box<dyn Scheduler>> {
    build_at("host", name, opts, None, None)
}

/// Build a scheduler and, for a wrapper, its inner schedulers; errors name the table of the
/// level they belong to (`host.inner.options.age_weight`).
pub fn build_scheduler(spec: &SchedSpec) -> Result<Box<dyn Scheduler>> {
    build_at(
        "host",
        &spec.scheduler,
        &spec.options,
        spec.inner.as_deref(),
        None,
    )
}

/// The scheduler stack for a run of `devices` devices: the configured stack itself for one
/// device, else one copy per device behind a [`PerDevice`] splitter (wrappers that work on
/// a device default to their copy's).
pub fn build_for_devices(spec: &SchedSpec, devices: usize) -> Result<Box<dyn Scheduler>> {
    let spans = scheduler_info(&spec.scheduler).is_some_and(|s| s.spans_devices);
    if devices <= 1 || spans {
        return build_scheduler(spec);
    }
    let stacks = (0..devices)
        .map(|d| {
            build_at(
                "host",
                &spec.scheduler,
                &spec.options,
                spec.inner.as_deref(),
                Some(d as DeviceId),
            )
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Box::new(PerDevice::new(stacks)))
}

fn build_at(
    table: &str,
    name: &str,
    opts: &SchedOptions,
    inner: Option<&SchedSpec>,
    stack_device: Option<DeviceId>,
) -> Result<Box<dyn Scheduler>> {
    let info = scheduler_info(name).ok_or_else(|| HeadwayError::Unknown {
        kind: "scheduler",
        name: name.to_string(),
        known: SCHEDULERS.iter().map(|s| s.name.to_string()).collect(),
    })?;
    let inner_table = format!("{table}.inner");
    let inner = match (info.wraps, inner) {
        (true, Some(spec)) => Some(build_at(
            &inner_table,
            &spec.scheduler,
            &spec.options,
            spec.inner.as_deref(),
            stack_device,
        )?),
        (true, None) => {
            return Err(HeadwayError::config(
                inner_table,
                format!(
                    "scheduler `{name}` wraps another scheduler: name it in [{table}.inner] \
                     (e.g. scheduler = \"sptf\")"
                ),
            ))
        }
        (false, Some(spec)) => {
            return Err(HeadwayError::config(
                inner_table,
                format!(
                    "scheduler `{name}` does not wrap another, so [{table}.inner] (`{}`) has no \
                     place; schedulers that wrap: {}",
                    spec.scheduler,
                    SCHEDULERS
                        .iter()
                        .filter(|s| s.wraps)
                        .map(|s| s.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ))
        }
        (false, None) => None,
    };
    let o = OptionReader::at(table, name, opts);
    let s: Box<dyn Scheduler> = match info.name {
        "fcfs" => Box::new(Fcfs::new()),
        "sstf" => Box::new(Sstf::new()),
        "scan" => Box::new(Scan::new()),
        "look" => Box::new(Look::new()),
        "cscan" => Box::new(CScan::new()),
        "clook" => Box::new(CLook::new()),
        "vscan" => Box::new(VScan::from_options(&o)?),
        "fscan" => Box::new(FScan::new()),
        "sstf-lbn" => Box::new(LbnScheduler::sstf()),
        "look-lbn" => Box::new(LbnScheduler::look()),
        "clook-lbn" => Box::new(LbnScheduler::clook()),
        "sptf" => Box::new(Sptf::from_options("sptf", &o)?),
        "stf" => Box::new(Sptf::from_options("stf", &o)?),
        "satf" => Box::new(Sptf::from_options("satf", &o)?),
        "gstf" => Box::new(Gstf::from_options(&o)?),
        "wstf" => Box::new(Wstf::from_options(&o)?),
        "aged-sptf" => Box::new(AgedSptf::from_options(&o)?),
        "sptf-sw" => Box::new(SptfSw::from_options(&o)?),
        "edf" => Box::new(DeadlineScheduler::new(DeadlineRule::Edf)),
        "scan-edf" => Box::new(DeadlineScheduler::new(DeadlineRule::ScanEdf)),
        "dscan" => Box::new(DeadlineScheduler::new(DeadlineRule::DScan)),
        "timeslice" => Box::new(TimeSlice::from_options(&o)?),
        "mclock" => Box::new(MClock::from_options(&o)?),
        "bfq" => Box::new(Bfq::from_options(&o)?),
        "cello" => Box::new(cello::Cello::from_options("cello", &o)?),
        "idle-scan" => Box::new(IdleScan::from_options(
            &o,
            inner.expect("checked: wrappers have an inner scheduler"),
            stack_device,
        )?),
        "freeblock" => Box::new(Freeblock::from_options(
            &o,
            inner.expect("checked: wrappers have an inner scheduler"),
            stack_device,
        )?),
        "stride" => Box::new(Stride::from_options(&o)?),
        "mq-deadline" => Box::new(MqDeadline::from_options(&o)?),
        "anticipatory" => Box::new(Anticipatory::from_options(
            &o,
            inner.expect("checked: wrappers have an inner scheduler"),
        )?),
        "flash-backed" => Box::new(super::flash_backed::wrapper::FlashBacked::from_options(
            &o,
            inner.expect("checked: wrappers have an inner scheduler"),
        )?),
        other => unreachable!("scheduler `{other}` is listed but not built"),
    };
    o.finish()?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_scheduler_builds_and_names_itself() {
        for info in SCHEDULERS {
            let mut spec = SchedSpec::named(info.name);
            if info.wraps {
                spec.inner = Some(Box::new(SchedSpec::named("fcfs")));
            }
            let s = build_scheduler(&spec).unwrap();
            assert_eq!(s.name(), info.name);
            assert!(!info.summary.is_empty());
        }
        let leaves: Vec<&str> = SCHEDULERS
            .iter()
            .filter(|s| !s.wraps)
            .map(|s| s.name)
            .collect();
        assert_eq!(leaves, SCHEDULER_NAMES);
    }

    #[test]
    fn nesting_is_checked_per_level_with_keyed_errors() {
        let e = build_scheduler(&SchedSpec::named("idle-scan"))
            .err()
            .unwrap();
        assert!(e.to_string().contains("host.inner"), "{e}");
        let mut spec = SchedSpec::named("sptf");
        spec.inner = Some(Box::new(SchedSpec::named("fcfs")));
        let e = build_scheduler(&spec).err().unwrap().to_string();
        assert!(
            e.contains("host.inner") && e.contains("does not wrap"),
            "{e}"
        );
        let mut spec = SchedSpec::named("idle-scan");
        let mut inner = SchedSpec::named("aged-sptf");
        inner
            .options
            .insert("age_weigth".into(), toml::Value::Float(0.1));
        spec.inner = Some(Box::new(inner));
        let e = build_scheduler(&spec).err().unwrap().to_string();
        assert!(e.contains("host.inner.options.age_weigth"), "{e}");
    }
}
