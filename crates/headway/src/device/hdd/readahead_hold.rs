//! The read-ahead after a read is held to the segment's room until the read's data has
//! crossed the bus.
//!
//! A segment holds at most its size of blocks not yet sent to the host. The read-ahead that
//! follows a read fills the same segment, so while the read's own blocks wait for the bus
//! the read-ahead may not get more than a segment ahead of them: a block whose sector comes
//! with the segment full passes under the head unread and waits for its next pass, whole
//! revolutions later, as the read's own blocks do when it is larger than its segment
//! (`segment_full`). Once the read's last block has crossed the bus (its completion is
//! sent), the read-ahead goes on freely (it may wrap round its segment over blocks nobody has
//! asked for yet).
//!
//! DiskSim 4.0 does the same: a block may be read only while it lies less than a segment
//! beyond the first block the segment's owner has not sent, until the owner's completion is
//! sent. It matters when the read-ahead reaches a segment beyond the read's first block
//! before the bus is done: reads near or above the segment size on a drive whose bus is
//! slower than its media. Without it the read-ahead ran through its segment and, on a drive
//! whose read-ahead is longer than a segment (DEC's to the end of the next track), wrapped
//! over the very blocks a sequential reader asks for next.
//!
//! [TEAM CHOICE] A read-ahead the room holds back is read in order, without zero latency (as
//! `segment_full` does for a read whose first track's tail alone would fill the segment): a
//! ring segment short of room cannot keep a track's tail until its front comes round. So the
//! blocks held are counted in LBN order, DiskSim's positional rule (DiskSim never reads out
//! of order: its controller leaves "Immediate buffer read" inert).

use super::media::MediaPlan;
use super::num::ceil;
use super::segment_full::shift_from;

/// Hold the read-ahead `ra` that starts after a read of `n` blocks into a segment of `size`
/// blocks: its `k`-th block (in the order the head reads it) may begin only once the read's
/// block `n + k - size` has crossed the bus (the read's last block for any beyond it).
/// `bus_end` is when the last block has; `sent` gives every block's time and is asked for only
/// when the read-ahead could outrun the bus; `replan_in_order` plans the read-ahead again
/// without zero latency. Returns whether the plan changed.
pub(super) fn hold(
    ra: &mut MediaPlan,
    replan_in_order: impl FnOnce(&mut MediaPlan),
    n: u32,
    size: u32,
    bus_end: f64,
    period_ns: f64,
    sent: impl FnOnce() -> Vec<f64>,
) -> bool {
    if n == 0 {
        return false;
    }
    // The first read-ahead block that could find the segment full, and when it begins.
    let first = size.saturating_sub(n);
    let mut k = 0u32;
    let mut begins = None;
    for p in ra.passes.iter() {
        if first < k + p.count {
            begins = Some(p.first_done + ((first - k) as f64 - 1.0) * p.step);
            break;
        }
        k += p.count;
    }
    match begins {
        Some(b) if b < bus_end => {}
        _ => return false,
    }
    let sent = sent();
    let (n, size) = (n as usize, size as usize);
    let mut changed = false;
    // A read-ahead that would read a track's tail before its front (zero latency) reads in
    // order instead: a ring segment short of room cannot hold the tail until the front comes.
    if ra.passes.windows(2).any(|w| w[1].lbn != w[0].end_lbn()) {
        replan_in_order(ra);
        changed = true;
    }
    let mut c = n;
    let mut pi = 0;
    'passes: while pi < ra.passes.len() {
        let p = ra.passes[pi];
        for q in 0..p.count {
            let begins = p.first_done + (q as f64 - 1.0) * p.step;
            if begins >= bus_end {
                // Everything the read holds has crossed the bus by now.
                return changed;
            }
            if c >= size {
                let room_at = sent[(c - size).min(n - 1)];
                if room_at > begins {
                    let turns = ceil((room_at - begins) / period_ns).max(1.0);
                    shift_from(ra, pi, q, turns * period_ns);
                    changed = true;
                    // The shifted blocks are a pass of their own now: look at it again.
                    if q > 0 {
                        pi += 1;
                    }
                    continue 'passes;
                }
            }
            c += 1;
        }
        pi += 1;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::hdd::media::{Avail, Pass};
    use crate::request::HeadPosition;

    fn ra_plan(base: u64, n: u32, first_done: f64, step: f64) -> MediaPlan {
        let mut plan = MediaPlan::default();
        plan.passes.push(Pass {
            lbn: base,
            count: n,
            first_done,
            step,
            on_track: first_done - step,
            track: HeadPosition::default(),
        });
        plan.end = first_done + (n - 1) as f64 * step;
        plan
    }

    #[test]
    fn a_read_ahead_that_stays_within_the_segment_is_untouched() {
        // A read of 4 blocks into a segment of 8: the read-ahead's first 4 blocks always fit.
        let mut plan = ra_plan(4, 4, 5.0, 1.0);
        assert!(!hold(&mut plan, |_| unreachable!(), 4, 8, 40.0, 100.0, || unreachable!()));
    }

    #[test]
    fn a_read_ahead_begun_after_the_bus_is_done_is_untouched() {
        let mut plan = ra_plan(4, 20, 50.0, 1.0);
        assert!(!hold(&mut plan, |_| unreachable!(), 4, 8, 40.0, 100.0, || unreachable!()));
    }

    #[test]
    fn the_read_ahead_waits_a_revolution_for_room_behind_a_slow_bus() {
        // A read of 6 blocks (bus: block i sent at 10 + 10 i), segment of 8, revolution 100.
        // The read-ahead reads blocks 6, 7 at once (2 and 3 held beside the read's 6); block
        // 8 needs the read's block 0 sent (at 10), its sector began at 8: it waits a turn
        // (done at 109), and so does block 9 behind it; then block 10 needs block 2 (30),
        // long sent.
        let mut plan = ra_plan(6, 6, 7.0, 1.0);
        let sent: Vec<f64> = (0..6).map(|i| 10.0 + 10.0 * i as f64).collect();
        assert!(hold(&mut plan, |_| unreachable!(), 6, 8, 60.0, 100.0, || sent));
        let done: Vec<f64> = (6..12u64)
            .map(|l| Avail::from_plan(&plan, 0.0).time_of(l).unwrap())
            .collect();
        assert_eq!(done, vec![7.0, 8.0, 109.0, 110.0, 111.0, 112.0]);
        assert_eq!(plan.end, 112.0);
    }

    #[test]
    fn beyond_the_read_the_read_ahead_waits_for_its_last_block() {
        // A read of 2 blocks into a segment of 2 whose bus is done at 50: every read-ahead
        // block holds one beyond the read's, so none begins before 50.
        let mut plan = ra_plan(2, 3, 3.0, 1.0);
        assert!(hold(&mut plan, |_| unreachable!(), 2, 2, 50.0, 100.0, || vec![40.0, 50.0]));
        assert!(plan.passes.iter().all(|p| p.start() >= 50.0), "{plan:?}");
        assert_eq!(plan.end, 105.0);
    }
}
