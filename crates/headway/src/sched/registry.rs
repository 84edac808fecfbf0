use super::options::{OptionReader, SchedOptions};
use super::*;
use crate::error::{HeadwayError, Result};

/// Names accepted by [`scheduler_by_name`], in the order `headway` lists them.
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
];

/// Build a built-in scheduler from its lower-case name, with default options.
pub fn scheduler_by_name(name: &str) -> Result<Box<dyn Scheduler>> {
    scheduler_with_options(name, &SchedOptions::new())
}

/// Build a built-in scheduler from its name and `[host.options]`. Keys the scheduler does
/// not take, and values of the wrong type or range, are errors naming `host.options.<key>`.
pub fn scheduler_with_options(name: &str, opts: &SchedOptions) -> Result<Box<dyn Scheduler>> {
    let o = OptionReader::new(name, opts);
    let s: Box<dyn Scheduler> = match name {
        "fcfs" => Box::new(Fcfs::new()),
        "sstf" => Box::new(Sstf::new()),
        "scan" => Box::new(Scan::new()),
        "look" => Box::new(Look::new()),
        "cscan" | "c-scan" => Box::new(CScan::new()),
        "clook" | "c-look" => Box::new(CLook::new()),
        "vscan" => Box::new(VScan::from_options(&o)?),
        "fscan" => Box::new(FScan::new()),
        "sstf-lbn" => Box::new(LbnScheduler::sstf()),
        "look-lbn" => Box::new(LbnScheduler::look()),
        "clook-lbn" | "c-look-lbn" => Box::new(LbnScheduler::clook()),
        "sptf" => Box::new(Sptf::from_options("sptf", &o)?),
        "stf" => Box::new(Sptf::from_options("stf", &o)?),
        "satf" => Box::new(Sptf::from_options("satf", &o)?),
        "gstf" => Box::new(Gstf::from_options(&o)?),
        "wstf" => Box::new(Wstf::from_options(&o)?),
        "aged-sptf" => Box::new(AgedSptf::from_options(&o)?),
        "sptf-sw" => Box::new(SptfSw::from_options(&o)?),
        _ => {
            return Err(HeadwayError::Unknown {
                kind: "scheduler",
                name: name.to_string(),
                known: SCHEDULER_NAMES.iter().map(|s| s.to_string()).collect(),
            })
        }
    };
    o.finish()?;
    Ok(s)
}
