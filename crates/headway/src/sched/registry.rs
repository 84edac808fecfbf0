//! Every built-in scheduler, one table entry each (its name and aliases, what it is in one
//! line, whether it wraps another or spans the devices, the options it takes, its
//! constructor), and the builder that nests wrappers around their inner schedulers
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
    /// The `[host.options]` keys it takes (what its constructor reads, in any case).
    pub options: &'static [&'static str],
}

/// Builds a wrapper's inner scheduler stack (`[host.inner]`): once for most wrappers, once
/// per queue for `priority`.
type BuildInner<'a> = &'a dyn Fn() -> Result<Box<dyn Scheduler>>;

/// Builds a scheduler from its `[host.options]`, the builder of its inner scheduler (a
/// wrapper's; `None` for the others) and the device its stack serves when each device has
/// its own (`None` for one stack over the run).
type Build = fn(&OptionReader, Option<BuildInner>, Option<DeviceId>) -> Result<Box<dyn Scheduler>>;

/// One built-in scheduler: everything about it, written once.
struct Entry {
    info: SchedulerInfo,
    /// Other names it answers to (`c-look`).
    aliases: &'static [&'static str],
    build: Build,
}

const fn leaf(
    name: &'static str,
    summary: &'static str,
    options: &'static [&'static str],
    build: Build,
) -> Entry {
    Entry {
        info: SchedulerInfo {
            name,
            wraps: false,
            spans_devices: false,
            summary,
            options,
        },
        aliases: &[],
        build,
    }
}

const fn wrapper(
    name: &'static str,
    summary: &'static str,
    options: &'static [&'static str],
    build: Build,
) -> Entry {
    let mut e = leaf(name, summary, options, build);
    e.info.wraps = true;
    e
}

impl Entry {
    const fn alias(self, aliases: &'static [&'static str]) -> Entry {
        Entry { aliases, ..self }
    }

    const fn spanning_devices(mut self) -> Entry {
        self.info.spans_devices = true;
        self
    }
}

/// A wrapper's inner scheduler, built from the `[host.inner]` that [`build_at`] checked.
fn inner(build: Option<BuildInner>) -> Result<Box<dyn Scheduler>> {
    build.expect("checked: wrappers have an inner scheduler")()
}

const STF: &[&str] = &["objective", "prune"];

/// Every built-in scheduler, in the order `headway schedulers` lists them.
const TABLE: &[Entry] = &[
    leaf("fcfs", "first come, first served", &[], |_, _, _| {
        Ok(Box::new(Fcfs::new()))
    }),
    leaf(
        "sstf",
        "shortest seek (cylinder distance) first",
        &[],
        |_, _, _| Ok(Box::new(Sstf::new())),
    ),
    leaf(
        "scan",
        "elevator sweeping to the disk's edges",
        &[],
        |_, _, _| Ok(Box::new(Scan::new())),
    ),
    leaf(
        "look",
        "elevator reversing at the last request",
        &[],
        |_, _, _| Ok(Box::new(Look::new())),
    ),
    leaf(
        "cscan",
        "one-way sweep to the edge, then back to cylinder 0",
        &[],
        |_, _, _| Ok(Box::new(CScan::new())),
    )
    .alias(&["c-scan"]),
    leaf(
        "clook",
        "one-way sweep, jumping back to the lowest request",
        &[],
        |_, _, _| Ok(Box::new(CLook::new())),
    )
    .alias(&["c-look"]),
    leaf(
        "vscan",
        "V(R): SSTF biased towards the sweep direction",
        &["r"],
        |o, _, _| Ok(Box::new(VScan::from_options(o)?)),
    ),
    leaf(
        "fscan",
        "LOOK over frozen batches of arrivals",
        &[],
        |_, _, _| Ok(Box::new(FScan::new())),
    ),
    leaf(
        "sstf-lbn",
        "shortest LBN distance first (no geometry)",
        &["sweep_from"],
        |o, _, _| Ok(Box::new(LbnScheduler::sstf_from_options(o)?)),
    ),
    leaf(
        "look-lbn",
        "LOOK by LBN (no geometry)",
        &["sweep_from"],
        |o, _, _| Ok(Box::new(LbnScheduler::look_from_options(o)?)),
    ),
    leaf(
        "clook-lbn",
        "C-LOOK by LBN (no geometry)",
        &["sweep_from"],
        |o, _, _| Ok(Box::new(LbnScheduler::clook_from_options(o)?)),
    )
    .alias(&["c-look-lbn"]),
    leaf(
        "sptf",
        "shortest positioning time first (predictor)",
        STF,
        |o, _, _| Ok(Box::new(Sptf::from_options("sptf", o)?)),
    ),
    leaf(
        "stf",
        "shortest time first: SPTF, objective selectable",
        STF,
        |o, _, _| Ok(Box::new(Sptf::from_options("stf", o)?)),
    ),
    leaf(
        "satf",
        "shortest access time first (positioning + transfer)",
        STF,
        |o, _, _| Ok(Box::new(Sptf::from_options("satf", o)?)),
    ),
    leaf(
        "gstf",
        "grouped STF: STF within cylinder bands or batches",
        &["group_cylinders", "group_requests", "objective", "prune"],
        |o, _, _| Ok(Box::new(Gstf::from_options(o)?)),
    ),
    leaf(
        "wstf",
        "weighted STF: time weighted by response-time budget left",
        &["max_response_ms", "objective", "prune"],
        |o, _, _| Ok(Box::new(Wstf::from_options(o)?)),
    ),
    leaf(
        "aged-sptf",
        "SPTF minus a credit for waiting (DiskSim's ASPTF)",
        &["age_weight", "prune"],
        |o, _, _| Ok(Box::new(AgedSptf::from_options(o)?)),
    ),
    leaf(
        "sptf-sw",
        "SPTF-SW(n): least seek among near-best positioning",
        &["prune", "window_percent"],
        |o, _, _| Ok(Box::new(SptfSw::from_options(o)?)),
    ),
    leaf(
        "edf",
        "earliest deadline first (no deadline: last)",
        &[],
        |_, _, _| Ok(Box::new(DeadlineScheduler::new(DeadlineRule::Edf))),
    ),
    leaf(
        "scan-edf",
        "EDF, equal deadlines in SCAN order",
        &[],
        |_, _, _| Ok(Box::new(DeadlineScheduler::new(DeadlineRule::ScanEdf))),
    ),
    leaf(
        "dscan",
        "deadline SCAN: towards the most urgent, serving what lies between",
        &[],
        |_, _, _| Ok(Box::new(DeadlineScheduler::new(DeadlineRule::DScan))),
    ),
    leaf(
        "timeslice",
        "static partitioning: each class its own slot of every interval",
        &["interval_ms", "weights"],
        |o, _, _| Ok(Box::new(TimeSlice::from_options(o)?)),
    ),
    leaf(
        "mclock",
        "mClock: per-class reservation, weight and limit by tags",
        &["limits_iops", "reservations_iops", "weights"],
        |o, _, _| Ok(Box::new(MClock::from_options(o)?)),
    ),
    leaf(
        "bfq",
        "budget fair queueing between classes (sectors, weights, no idling)",
        &["budget_sectors", "weights"],
        |o, _, _| Ok(Box::new(Bfq::from_options(o)?)),
    ),
    leaf(
        "cello",
        "two-level: time shares per class, slack-stealing insertion",
        &[
            "allocation",
            "beta",
            "early_start",
            "fit",
            "insertion",
            "interactive",
            "interval_ms",
            "reallocate",
            "reallocation",
            "realtime",
            "recompute_tau",
            "tau",
            "throughput",
            "weights",
        ],
        |o, _, _| Ok(Box::new(cello::Cello::from_options("cello", o)?)),
    ),
    leaf(
        "stride",
        "proportional share by virtual clocks (relaxed: relax_ms)",
        &["relax_ms"],
        |o, _, _| Ok(Box::new(Stride::from_options(o)?)),
    ),
    leaf(
        "mq-deadline",
        "Linux mq-deadline: read/write FIFOs with expiry, sorted batches",
        &[
            "conventional_zones",
            "fifo_batch",
            "read_expire_ms",
            "write_expire_ms",
            "writes_starved",
            "zone_size_sectors",
        ],
        |o, _, _| Ok(Box::new(MqDeadline::from_options(o)?)),
    ),
    wrapper(
        "idle-scan",
        "reads a region in the background whenever the inner scheduler idles",
        &[
            "chunk_sectors",
            "device",
            "idle_ms",
            "passes",
            "sectors",
            "start_lbn",
        ],
        |o, i, d| Ok(Box::new(IdleScan::from_options(o, inner(i)?, d)?)),
    ),
    wrapper(
        "freeblock",
        "background reads in the foreground's rotational latency (two commands at the drive)",
        &[
            "after_writes",
            "allow_source_track",
            "c_fb_ms",
            "choose_early",
            "free_slots",
            "idle_chunk_sectors",
            "idle_service",
            "max_tracks",
            "plan",
            "plan_when_idle",
            "sectors",
            "start_lbn",
        ],
        |o, i, d| Ok(Box::new(Freeblock::from_options(o, inner(i)?, d)?)),
    ),
    wrapper(
        "anticipatory",
        "waits briefly for a synchronous process's next read (anticipation)",
        &[
            "aged_clause",
            "antic_expire_ms",
            "bucket_us",
            "cscan_clause",
            "decay",
            "heuristic",
            "histogram_range_ms",
            "large_read_flag",
            "max_expiry_rate",
            "min_samples",
            "relax_ms",
            "seek_weight",
            "slice_idle_ms",
            "think_threshold_ms",
            "timer_granularity_us",
        ],
        |o, i, _| Ok(Box::new(Anticipatory::from_options(o, inner(i)?)?)),
    ),
    wrapper(
        "flash-backed",
        "redirects costly writes to the hybrid drive's flash (FQueue), writes them back later",
        &[
            "avoid_spinup",
            "flash_device",
            "fqueue_mib",
            "high_watermark",
            "idle_writeback",
            "look_ahead",
            "low_watermark",
            "nvcache_mib",
            "pin_us",
            "platter_device",
            "redirect",
            "serve_reads",
            "spindown_timeout_ms",
        ],
        |o, i, _| {
            Ok(Box::new(
                super::flash_backed::wrapper::FlashBacked::from_options(o, inner(i)?)?,
            ))
        },
    )
    .spanning_devices(),
    wrapper(
        "priority",
        "serves high-priority requests first, each queue in the inner scheduler's order",
        &[],
        |o, i, _| {
            let build = i.expect("checked: wrappers have an inner scheduler");
            Ok(Box::new(Priority::from_options(o, build)?))
        },
    ),
];

/// How many of [`TABLE`]'s entries the constant lists below hold: all, or the leaves only.
const fn count(wrappers: bool) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < TABLE.len() {
        if wrappers || !TABLE[i].info.wraps {
            n += 1;
        }
        i += 1;
    }
    n
}

const INFOS: [SchedulerInfo; count(true)] = {
    let mut out = [TABLE[0].info; count(true)];
    let mut i = 0;
    while i < TABLE.len() {
        out[i] = TABLE[i].info;
        i += 1;
    }
    out
};

const LEAF_NAMES: [&str; count(false)] = {
    let mut out = [""; count(false)];
    let (mut i, mut n) = (0, 0);
    while i < TABLE.len() {
        if !TABLE[i].info.wraps {
            out[n] = TABLE[i].info.name;
            n += 1;
        }
        i += 1;
    }
    out
};

/// Every built-in scheduler, in the order `headway schedulers` lists them.
pub const SCHEDULERS: &[SchedulerInfo] = &INFOS;

/// Names of the schedulers that stand alone (they wrap nothing), in listing order.
pub const SCHEDULER_NAMES: &[&str] = &LEAF_NAMES;

/// The entry called `name` (or one of its aliases).
fn entry(name: &str) -> Option<&'static Entry> {
    TABLE
        .iter()
        .find(|e| e.info.name == name || e.aliases.contains(&name))
}

/// What `headway schedulers` says about `name` (aliases such as `c-look` included).
pub fn scheduler_info(name: &str) -> Option<SchedulerInfo> {
    entry(name).map(|e| e.info)
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
    let entry = entry(name).ok_or_else(|| HeadwayError::Unknown {
        kind: "scheduler",
        name: name.to_string(),
        known: SCHEDULERS.iter().map(|s| s.name.to_string()).collect(),
    })?;
    let inner_table = format!("{table}.inner");
    let info = entry.info;
    let build_inner = |spec: &SchedSpec| {
        build_at(
            &inner_table,
            &spec.scheduler,
            &spec.options,
            spec.inner.as_deref(),
            stack_device,
        )
    };
    let inner = match (info.wraps, inner) {
        (true, Some(spec)) => Some(spec),
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
    let s = match inner {
        Some(spec) => (entry.build)(&o, Some(&|| build_inner(spec)), stack_device)?,
        None => (entry.build)(&o, None, stack_device)?,
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
    fn each_entry_lists_the_options_its_constructor_reads() {
        let none = SchedOptions::new();
        let mut wrong = vec![];
        for e in TABLE {
            let o = OptionReader::new(e.info.name, &none);
            let fcfs = || scheduler_by_name("fcfs");
            let inner: Option<BuildInner> = e.info.wraps.then_some(&fcfs);
            (e.build)(&o, inner, None).unwrap();
            let asked = o.asked();
            if asked != e.info.options {
                wrong.push(format!("{}: {asked:?}", e.info.name));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
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
