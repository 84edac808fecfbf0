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

use super::mechanics::Mechanics;
use super::media::{self, MediaPlan};
use super::num::ceil;
use super::segment_full::shift_from;
use crate::request::{HeadPosition, Op};

/// Whether a read of `n` blocks and the read-ahead of `ra_blocks` after it fit a segment of
/// `size` blocks together: then no read-ahead block can find the segment full and [`hold`]
/// changes nothing (its first block at risk, the `size - n`-th, is beyond the read-ahead's
/// last), whatever the timing. One comparison, made after every read from the media before
/// the walk over the read-ahead's passes (a random 4 KiB read and DEC's read-ahead to its
/// track's end fit the Atlas 10K's 374-block segments unless the read crosses a track).
#[inline(always)]
pub(super) fn fits(n: u32, ra_blocks: u64, size: u32) -> bool {
    n as u64 + ra_blocks <= size as u64
}

/// Hold the read-ahead `ra` that starts after a read of `n` blocks into a segment of `size`
/// blocks: its `k`-th block (in the order the head reads it) may begin only once the read's
/// block `n + k - size` has crossed the bus (the read's last block for any beyond it).
/// `bus_end` is when the last block has; `sent` gives every block's time and is asked for only
/// when the read-ahead could outrun the bus. The read-ahead started at `t_start` with the head
/// at `head`. Returns whether the plan changed.
pub(super) fn hold(
    ra: &mut MediaPlan,
    mech: &Mechanics,
    (head, t_start): (HeadPosition, f64),
    n: u32,
    size: u32,
    bus_end: f64,
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
    let base = ra.passes.iter().map(|p| p.lbn).min().unwrap_or(0);
    let count = ra.passes.iter().map(|p| p.count).sum::<u32>();
    if ra.passes.windows(2).any(|w| w[1].lbn != w[0].end_lbn()) {
        media::plan_into(
            ra,
            mech,
            head,
            t_start,
            base,
            count,
            Op::Read,
            false,
            0,
            None,
            None,
        );
        changed = true;
    }
    let period_ns = mech.period_ns;
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

    /// The Atlas III's mechanics (a revolution of 8.33 ms); the plans below are made by hand
    /// on one track, in microseconds.
    fn mech() -> Mechanics {
        Mechanics::new(&crate::device::catalog::lookup("atlas_iii").unwrap()).unwrap()
    }

    const US: f64 = 1000.0;

    fn ra_plan(base: u64, n: u32, first_done_us: f64) -> MediaPlan {
        let mut plan = MediaPlan::default();
        plan.passes.push(Pass {
            lbn: base,
            count: n,
            first_done: first_done_us * US,
            step: US,
            on_track: (first_done_us - 1.0) * US,
            track: HeadPosition::default(),
        });
        plan.end = (first_done_us + (n - 1) as f64) * US;
        plan
    }

    fn at() -> (HeadPosition, f64) {
        (HeadPosition::default(), 0.0)
    }

    /// The gate ([`fits`]) is exact on both sides: a read-ahead that fits the segment with
    /// its read is left as it is without asking for the bus's progress, even behind the
    /// slowest bus; one block more and the walk holds it back (the read-ahead reads a block
    /// a microsecond from 2 us, the read's blocks cross the bus a millisecond apart).
    #[test]
    fn the_gate_passes_over_exactly_the_read_aheads_that_fit() {
        let m = mech();
        let (mut passed, mut walked) = (0, 0);
        for (n, size) in [
            (1u32, 8u32),
            (4, 8),
            (7, 8),
            (8, 8),
            (12, 8),
            (8, 374),
            (6, 20),
        ] {
            let sent: Vec<f64> = (0..n).map(|i| (1000.0 + 1000.0 * i as f64) * US).collect();
            let bus_end = sent[n as usize - 1];
            let room = size.saturating_sub(n);
            for count in [
                room.saturating_sub(2),
                room.saturating_sub(1),
                room,
                room + 1,
                room + 3,
            ] {
                if count == 0 {
                    continue;
                }
                // One pass in LBN order, and the same blocks as a zero-latency track's tail then
                // front (two passes, out of LBN order).
                let one = ra_plan(n as u64, count, 2.0);
                let mut two = ra_plan(n as u64 + count as u64 / 2, count - count / 2, 2.0);
                if count >= 2 {
                    two.passes.push(Pass {
                        lbn: n as u64,
                        ..ra_plan(n as u64, count / 2, 2.0 + (count - count / 2) as f64).passes[0]
                    });
                }
                for plan in [one, two] {
                    let mut held_plan = plan.clone();
                    if fits(n, count as u64, size) {
                        passed += 1;
                        let held = hold(&mut held_plan, &m, at(), n, size, bus_end, || {
                            unreachable!("a read-ahead that fits needs no bus progress")
                        });
                        assert!(!held, "n {n} size {size} count {count}");
                        assert_eq!(held_plan.passes, plan.passes);
                        assert_eq!(held_plan.end, plan.end);
                    } else {
                        walked += 1;
                        let held =
                            hold(&mut held_plan, &m, at(), n, size, bus_end, || sent.clone());
                        assert!(held, "n {n} size {size} count {count}");
                        assert!(held_plan.end > plan.end);
                    }
                }
            }
        }
        assert!(
            passed >= 20 && walked >= 20,
            "{passed} passed, {walked} walked"
        );
    }

    #[test]
    fn a_read_ahead_that_stays_within_the_segment_is_untouched() {
        // A read of 4 blocks into a segment of 8: the read-ahead's first 4 blocks always fit.
        let mut plan = ra_plan(4, 4, 5.0);
        let m = mech();
        assert!(!hold(
            &mut plan,
            &m,
            at(),
            4,
            8,
            40.0 * US,
            || unreachable!()
        ));
    }

    #[test]
    fn a_read_ahead_begun_after_the_bus_is_done_is_untouched() {
        let mut plan = ra_plan(4, 20, 50.0);
        let m = mech();
        assert!(!hold(
            &mut plan,
            &m,
            at(),
            4,
            8,
            40.0 * US,
            || unreachable!()
        ));
    }

    #[test]
    fn the_read_ahead_waits_a_revolution_for_room_behind_a_slow_bus() {
        // A read of 6 blocks (block i sent at 10 + 10 i us), segment of 8, a block a us on
        // the media. The read-ahead reads blocks 6 and 7 at once (held beside the read's 6);
        // block 8 needs the read's block 0 sent (at 10 us), its sector began at 8: it waits a
        // revolution, and so do the blocks behind it; by then the read is long sent.
        let m = mech();
        let period = m.period_ns;
        let mut plan = ra_plan(6, 6, 7.0);
        let sent: Vec<f64> = (0..6).map(|i| (10.0 + 10.0 * i as f64) * US).collect();
        assert!(hold(&mut plan, &m, at(), 6, 8, 60.0 * US, || sent));
        let done: Vec<f64> = (6..12u64)
            .map(|l| Avail::from_plan(&plan, 0.0).time_of(l).unwrap())
            .collect();
        let want: Vec<f64> = [7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
            .iter()
            .enumerate()
            .map(|(i, &d)| d * US + if i >= 2 { period } else { 0.0 })
            .collect();
        assert_eq!(done, want);
        assert_eq!(plan.end, 12.0 * US + period);
    }

    #[test]
    fn beyond_the_read_the_read_ahead_waits_for_its_last_block() {
        // A read of 2 blocks into a segment of 2 (sent at 4 and 5 revolutions' worth of us):
        // the read-ahead's first block needs the read's first block sent, its second the
        // read's last (any beyond the read needs the read's last block).
        let m = mech();
        let period = m.period_ns;
        let mut plan = ra_plan(2, 3, 3.0);
        let sent = vec![1.5 * period, 2.5 * period];
        assert!(hold(&mut plan, &m, at(), 2, 2, sent[1], || sent.clone()));
        let avail = Avail::from_plan(&plan, 0.0);
        let begins = |l: u64| avail.time_of(l).unwrap() - US;
        assert!(begins(2) >= sent[0] && begins(2) < sent[0] + period);
        assert!(begins(3) >= sent[1] && begins(4) >= sent[1]);
    }

    #[test]
    fn a_zero_latency_read_ahead_held_back_reads_in_order() {
        // A track's tail (blocks 10-14) then its front (5-9): held back, it is planned again
        // in order from where it started.
        let m = mech();
        let mut plan = ra_plan(10, 5, 2.0);
        plan.passes.push(Pass {
            lbn: 5,
            ..ra_plan(5, 5, 20.0).passes[0]
        });
        assert!(hold(&mut plan, &m, at(), 5, 6, 1.0e9, || vec![1.0e9; 5]));
        assert!(plan.passes.windows(2).all(|w| w[1].lbn == w[0].end_lbn()));
        assert_eq!(plan.passes[0].lbn, 5);
    }
}
