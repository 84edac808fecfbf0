//! The TPC-B-like client [TEAM CHOICE, after the spec's experiment 9]: each transaction
//! reads one record page (4 KiB: the paper enlarged records to KB size) chosen uniformly in
//! the database (the entry's region, larger than memory: every read reaches the disk) after
//! [`TXN_MS`] of computation; an update also writes the page back, asynchronously (a
//! delayed write), after the read. One database for all clients: entries with the same
//! region; separate databases: disjoint regions.

use rand::Rng;
use rand_pcg::Pcg64Mcg;

use super::{Step, PAGE_SECTORS};
use crate::time::ms_to_ns;

pub const TXN_MS: f64 = 0.3;

pub(crate) fn script(
    transactions: u64,
    capacity: u64,
    update: bool,
    place: &mut Pcg64Mcg,
    _rng: &mut Pcg64Mcg,
) -> Result<Vec<Step>, String> {
    let slots = capacity / PAGE_SECTORS as u64;
    if slots == 0 {
        return Err("too small for one 4 KiB record page".into());
    }
    let mut steps = vec![];
    for _ in 0..transactions {
        let lbn = place.random_range(0..slots) * PAGE_SECTORS as u64;
        steps.push(Step::read(ms_to_ns(TXN_MS), lbn, PAGE_SECTORS));
        if update {
            steps.push(Step::write(0, lbn, PAGE_SECTORS));
        }
    }
    Ok(steps)
}
