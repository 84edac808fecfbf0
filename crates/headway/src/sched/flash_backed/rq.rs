//! The request queue's scheduler (the paper's RQ: FCFS, SSTF or C-LOOK over LBNs). Each pick
//! is a pure function of the queue and the head, so "the next pick after n" is the same
//! function asked with n's end as the head and n left out.

use serde::{Deserialize, Serialize};

use crate::request::Op;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RqPolicy {
    Fcfs,
    Sstf,
    Clook,
}

impl RqPolicy {
    pub fn name(self) -> &'static str {
        match self {
            RqPolicy::Fcfs => "fcfs",
            RqPolicy::Sstf => "sstf",
            RqPolicy::Clook => "clook",
        }
    }
}

/// A request waiting in the RQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    pub id: u64,
    pub arrival_ns: SimTime,
    pub lbn: u64,
    pub end: u64,
    pub op: Op,
}

/// Index of the pick in `queue` (kept in arrival order) with the head at `head`, leaving
/// out index `skip`. Ties go to the earlier arrival.
pub(crate) fn pick(
    policy: RqPolicy,
    queue: &[Pending],
    head: u64,
    skip: Option<usize>,
) -> Option<usize> {
    let live = queue.iter().enumerate().filter(|(i, _)| Some(*i) != skip);
    match policy {
        RqPolicy::Fcfs => live.map(|(i, _)| i).next(),
        RqPolicy::Sstf => live
            .min_by_key(|(i, p)| (p.lbn.abs_diff(head), p.lbn, *i))
            .map(|(i, _)| i),
        RqPolicy::Clook => live
            .min_by_key(|(i, p)| (p.lbn < head, p.lbn, *i))
            .map(|(i, _)| i),
    }
}
