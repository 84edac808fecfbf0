//! The I/O driver: its queue's scheduling policy becomes the host's scheduler.

use super::values::{num_or, sub_block};
use super::Notes;
use crate::device::disksim::parse::Block;
use crate::error::Result;
use crate::sched::SchedOptions;

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

/// The host scheduler the driver's `Scheduler` block names and its options, noting what
/// is left out.
pub(super) fn host_scheduler(driver: &Block, notes: &mut Notes) -> Result<(String, SchedOptions)> {
    let Some(queue) = sub_block(driver, "Scheduler") else {
        return Ok(("fcfs".into(), SchedOptions::new()));
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
        ("Scheduling timeout scheme", "scheduling timeouts"),
        ("Scheduling priority scheme", "priority scheduling"),
    ] {
        if num_or(queue, key, 0.0)? != 0.0 {
            notes.warn(queue, key, format!("{what} is not modelled; ignored"));
        }
    }
    if num_or(driver, "Constant access time", 0.0)? != 0.0 {
        notes.warn(
            driver,
            "Constant access time",
            "a constant-time driver model is not modelled; the devices are simulated",
        );
    }
    Ok((name.to_string(), options_for(policy)))
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
