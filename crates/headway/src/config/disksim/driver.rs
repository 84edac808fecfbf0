//! The I/O driver: its queue's scheduling policy becomes the host's scheduler.

use super::values::{num_or, sub_block};
use super::Notes;
use crate::device::disksim::parse::Block;
use crate::error::Result;
use crate::sched::{SchedOptions, SchedSpec};

/// The headway host scheduler for DiskSim's `Scheduling policy` number, and whether it is
/// an approximation.
fn scheduler_for(policy: i64) -> (&'static str, Option<&'static str>) {
    match policy {
        1 => ("fcfs", None),
        2 => ("look-lbn", None),
        3 => ("clook-lbn", None),
        4 => ("sstf-lbn", None),
        5 => ("look", None),
        6 => ("clook", None),
        7 => ("sstf", None),
        8 => ("sptf", None),
        10 => ("satf", None),
        17 | 18 => ("vscan", Some("VSCAN(R) with headway's default R")),
        9 | 11..=16 | 19..=26 => ("sptf", Some("a weighted, aged or priority STF variant")),
        _ => ("fcfs", Some("a policy headway does not have")),
    }
}

/// The `[host.options]` that make the scheduler order as DiskSim's policy does:
/// `ELEVATOR_LBN` and `CYCLE_LBN` resume their sweep at the last dispatched request's first
/// LBN (`queue->lastblkno = temp->blkno` in `disksim_ioqueue.c`), so a RAID write issued
/// after its own old-data read at the same LBN is next, not a sweep later. `SSTF_LBN`
/// measures from one past the last request's end, `sstf-lbn`'s default.
fn options_for(policy: i64) -> SchedOptions {
    let mut o = SchedOptions::new();
    if policy == 2 || policy == 3 {
        o.insert("sweep_from".into(), toml::Value::String("start".into()));
    }
    o
}

/// The host scheduler stack the driver's `Scheduler` block names, noting what is left out:
/// its policy's scheduler, inside `priority` when `Scheduling priority scheme = 1`.
pub(super) fn host_scheduler(driver: &Block, notes: &mut Notes) -> Result<SchedSpec> {
    let Some(queue) = sub_block(driver, "Scheduler") else {
        return Ok(SchedSpec::named("fcfs"));
    };
    let policy = num_or(queue, "Scheduling policy", 1.0)? as i64;
    let (name, approx) = scheduler_for(policy);
    if let Some(why) = approx {
        notes.warn(
            queue,
            "Scheduling policy",
            format!("{policy} is {why}; the host schedules with `{name}`"),
        );
    }
    for (key, what) in [
        ("Read initiation delay", "a per-read host delay"),
        ("Write initiation delay", "a per-write host delay"),
        ("Maximum concat size", "request concatenation"),
        ("Overlapping request scheme", "overlapping-request merging"),
        ("Sequential stream scheme", "sequential stream detection"),
    ] {
        if num_or(queue, key, 0.0)? != 0.0 {
            notes.warn(queue, key, format!("{what} is not modelled; ignored"));
        }
    }
    timeouts(queue, notes)?;
    if num_or(driver, "Constant access time", 0.0)? != 0.0 {
        notes.warn(
            driver,
            "Constant access time",
            "a constant-time driver model is not modelled; the devices are simulated",
        );
    }
    let base = SchedSpec {
        scheduler: name.to_string(),
        options: options_for(policy),
        inner: None,
    };
    priorities(queue, policy, base, notes)
}

/// The base queue's scheduler, inside `priority` when `Scheduling priority scheme` is 1
/// (DiskSim's `TWOQUEUE`: time-critical and time-limited requests in a queue served first).
fn priorities(queue: &Block, policy: i64, base: SchedSpec, notes: &mut Notes) -> Result<SchedSpec> {
    let key = "Scheduling priority scheme";
    match num_or(queue, key, 0.0)? {
        0.0 => return Ok(base),
        1.0 => {}
        other => {
            let p = queue
                .get(key)
                .expect("a value other than the default was read");
            return Err(p.loc.error(
                Some(key),
                format!("{other} is not a priority scheme: 0 (all equal) or 1 (two queues)"),
            ));
        }
    }
    let high_policy = num_or(queue, "Priority scheduling", 1.0)? as i64;
    if high_policy != policy {
        notes.warn(
            queue,
            "Priority scheduling",
            format!(
                "{high_policy} differs from the scheduling policy {policy}; headway orders \
                 the priority queue as the base queue, with `{}`",
                base.scheduler
            ),
        );
    }
    Ok(SchedSpec {
        scheduler: "priority".into(),
        options: SchedOptions::new(),
        inner: Some(Box::new(base)),
    })
}

/// `Scheduling timeout scheme`: ignored, as DiskSim 4.0 ignores it (its parameter loader
/// only prints a warning and checks no range, leaving the scheme at 0, so no request is
/// ever moved for waiting; `Timeout time/weight` then serves only as the age weight of the
/// aged policies).
fn timeouts(queue: &Block, notes: &mut Notes) -> Result<()> {
    let key = "Scheduling timeout scheme";
    if num_or(queue, key, 0.0)? != 0.0 {
        notes.warn(
            queue,
            key,
            "DiskSim 4.0 ignores it (no request is moved for waiting); so does headway",
        );
    }
    Ok(())
}

#[cfg(test)]
mod lbn_sweep_tests {
    use super::*;

    /// DiskSim's LBN policies keep `lastblkno` at the dispatched request's first LBN for
    /// `ELEVATOR_LBN` (2) and `CYCLE_LBN` (3), and one past its end for `SSTF_LBN` (4).
    #[test]
    fn lbn_policies_sweep_from_where_disksim_keeps_the_arm() {
        let from = |p: i64| {
            let o = options_for(p);
            o.get("sweep_from")
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        assert_eq!(scheduler_for(2).0, "look-lbn");
        assert_eq!(from(2).as_deref(), Some("start"));
        assert_eq!(scheduler_for(3).0, "clook-lbn");
        assert_eq!(from(3).as_deref(), Some("start"));
        assert_eq!(scheduler_for(4).0, "sstf-lbn");
        assert_eq!(from(4), None);
        assert_eq!(from(1), None);
    }
}
