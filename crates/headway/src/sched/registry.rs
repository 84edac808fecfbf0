use super::*;
use crate::error::{HeadwayError, Result};

/// Names accepted by [`scheduler_by_name`], in the order `headway` lists them.
pub const SCHEDULER_NAMES: &[&str] = &["fcfs", "sstf", "scan", "look", "cscan", "clook", "sptf"];

/// Build a built-in scheduler from its lower-case name.
pub fn scheduler_by_name(name: &str) -> Result<Box<dyn Scheduler>> {
    Ok(match name {
        "fcfs" => Box::new(Fcfs::new()),
        "sstf" => Box::new(Sstf::new()),
        "scan" => Box::new(Scan::new()),
        "look" => Box::new(Look::new()),
        "cscan" | "c-scan" => Box::new(CScan::new()),
        "clook" | "c-look" => Box::new(CLook::new()),
        "sptf" | "stf" => Box::new(Sptf::new()),
        _ => {
            return Err(HeadwayError::Unknown {
                kind: "scheduler",
                name: name.to_string(),
                known: SCHEDULER_NAMES.iter().map(|s| s.to_string()).collect(),
            })
        }
    })
}
