//! The drive's side of the host bus: moving a command's blocks between buffer and host at
//! DiskSim's per-block transfer time, never ahead of the media, with the hold/disconnect
//! rules of DiskSim's controller.
//!
//! A connected bus moves block `i` at `e_i = max(e_{i-1}, a_i) + blk`, where `a_i` is when
//! the block is in the buffer. Holding the bus (or a drive whose reselect and disconnect cost
//! nothing) keeps that recurrence, which has a closed form per [`Piece`] of availability.
//! Otherwise a bus that catches up with the media disconnects and pays a reselection when
//! enough new blocks (the watermark) are in.

use super::media::{Avail, Piece};
use super::num::max_not_nan;
use super::spec::BusSpec;

/// Bus timing and connection rules, resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bus {
    pub read_block_ns: f64,
    pub write_block_ns: f64,
    pub hold_read: bool,
    pub hold_write: bool,
    pub never_disconnect: bool,
}

impl Bus {
    pub fn from_spec(b: &BusSpec, never_disconnect: bool) -> Self {
        let read = b.sector_transfer_ms.max(0.0) * 1e6;
        Bus {
            read_block_ns: read,
            write_block_ns: b
                .write_sector_transfer_ms
                .map_or(read, |w| w.max(0.0) * 1e6),
            hold_read: b.hold_bus_entire_read,
            hold_write: b.hold_bus_entire_write,
            never_disconnect,
        }
    }
}

/// How a transfer may wait for data.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stream {
    pub block_ns: f64,
    /// The bus stays connected while waiting for the media.
    pub hold: bool,
    /// Disconnect overhead when it does not.
    pub disconnect_ns: f64,
    /// Reselection (plus data preparation) to reconnect.
    pub reconnect_ns: f64,
    /// Blocks that must be ready before reconnecting (DiskSim's watermark, at least 1).
    pub watermark: u32,
}

/// When the last of blocks `lbn .. lbn + n` has crossed the bus, the bus being connected and
/// ready to move data from `start`. `avail` must cover the range.
pub(crate) fn transfer_end(avail: &Avail, lbn: u64, n: u32, start: f64, s: &Stream) -> f64 {
    if n == 0 {
        return start;
    }
    let end = lbn + n as u64;
    let blk = s.block_ns;
    if s.hold || (s.disconnect_ns == 0.0 && s.reconnect_ns == 0.0 && s.watermark <= 1) {
        // One piece (nearly every read miss): the loop's one turn, without its iterator.
        if let [p] = avail.pieces[..] {
            return held_through(start, &p, lbn, end, blk);
        }
        let mut e = start;
        for p in &avail.pieces {
            e = held_through(e, p, lbn, end, blk);
        }
        return e;
    }
    // Disconnecting bus: walk the blocks (only drives with costly reselection get here).
    let mut e = start;
    let mut l = lbn;
    let (mut blocks, mut marks) = (avail.walk(), avail.walk());
    while l < end {
        let a = blocks.time_of(l).unwrap_or(start);
        if a <= e {
            e += blk;
        } else {
            let w_lbn = (l + s.watermark.max(1) as u64 - 1).min(end - 1);
            let ready = marks.time_of(w_lbn).unwrap_or(a);
            e = ready.max(e + s.disconnect_ns) + s.reconnect_ns + blk;
        }
        l += 1;
    }
    e
}

/// A connected bus ready at `e` once it has moved the blocks of `lbn .. end` that piece `p`
/// holds (`e` itself when it holds none).
#[inline(always)]
fn held_through(e: f64, p: &Piece, lbn: u64, end: u64, blk: f64) -> f64 {
    let lo = p.lbn.max(lbn);
    let hi = p.end_lbn().min(end);
    if lo >= hi {
        return e;
    }
    let m = (hi - lo) as i64 as f64;
    let off = (lo - p.lbn) as i64 as f64;
    let a = p.first_done + off * p.step;
    // max over the piece of a_k + (m - k) * blk, a_k = max(floor, a + k * step): the
    // expression is linear in k apart from the floor, so its ends decide.
    let held = max_not_nan(e + m * blk, p.floor + m * blk);
    let held = max_not_nan(held, a + m * blk);
    max_not_nan(held, a + (m - 1.0) * p.step + blk)
}

/// A stretch of a transfer where the drive lets go of the bus to wait for the media.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gap {
    /// When the bus is free for another command (no earlier than the time asked about).
    pub free_at: f64,
    /// The first block still to move.
    pub lbn: u64,
    /// When the drive asks for the bus back for it.
    pub asks_at: f64,
}

/// The first gap of [`transfer_end`]'s transfer (connected from `start`) that a command
/// asking for the bus at `t` can use: DiskSim's drive disconnects when its bus catches up
/// with the media (unless it holds the bus) and asks again when the watermark's blocks are
/// in; a command waiting then gets the bus as it is released. `None`: the drive keeps the
/// bus from `t` to its last block.
pub(crate) fn next_gap(
    avail: &Avail,
    lbn: u64,
    n: u32,
    start: f64,
    s: &Stream,
    t: f64,
) -> Option<Gap> {
    if s.hold {
        return None;
    }
    let end = lbn + n as u64;
    let mut e = start;
    let (mut blocks, mut marks) = (avail.walk(), avail.walk());
    for l in lbn..end {
        let a = blocks.time_of(l).unwrap_or(e);
        if a <= e {
            e += s.block_ns;
            continue;
        }
        let free = e + s.disconnect_ns;
        let w_lbn = (l + s.watermark.max(1) as u64 - 1).min(end - 1);
        let asks = marks.time_of(w_lbn).unwrap_or(a).max(free);
        if t < asks {
            return Some(Gap {
                free_at: free.max(t),
                lbn: l,
                asks_at: asks,
            });
        }
        e = asks + s.reconnect_ns + s.block_ns;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn avail(first_done: f64, step: f64, n: u32) -> Avail {
        let mut a = Avail::default();
        a.push(Piece {
            lbn: 0,
            count: n,
            first_done,
            step,
            floor: 0.0,
        });
        a
    }

    fn stream(block_ns: f64) -> Stream {
        Stream {
            block_ns,
            hold: true,
            disconnect_ns: 0.0,
            reconnect_ns: 0.0,
            watermark: 1,
        }
    }

    #[test]
    fn data_already_in_the_buffer_moves_at_bus_speed() {
        let a = Avail::ready(0, 8, 0.0);
        assert_eq!(transfer_end(&a, 0, 8, 100.0, &stream(10.0)), 180.0);
    }

    #[test]
    fn a_slow_bus_trails_the_media_by_its_own_time() {
        // Media 2 per block, bus 10 per block: the bus decides after the first block.
        let a = avail(5.0, 2.0, 4);
        assert_eq!(transfer_end(&a, 0, 4, 0.0, &stream(10.0)), 45.0);
    }

    #[test]
    fn a_fast_bus_finishes_one_block_after_the_media() {
        let a = avail(5.0, 10.0, 4);
        assert_eq!(transfer_end(&a, 0, 4, 0.0, &stream(2.0)), 35.0 + 2.0);
    }

    #[test]
    fn closed_form_equals_the_recurrence() {
        let mut a = Avail::default();
        a.push(Piece {
            lbn: 0,
            count: 5,
            first_done: 50.0,
            step: 3.0,
            floor: 0.0,
        });
        a.push(Piece {
            lbn: 5,
            count: 7,
            first_done: 20.0,
            step: 3.0,
            floor: 0.0,
        });
        for blk in [0.5, 2.9, 3.0, 7.0] {
            let mut e = 10.0f64;
            for l in 0..12u64 {
                e = e.max(a.time_of(l).unwrap()) + blk;
            }
            let got = transfer_end(&a, 0, 12, 10.0, &stream(blk));
            assert!((got - e).abs() < 1e-9, "blk {blk}: {got} vs {e}");
        }
    }

    /// The held bus's loop over pieces as it was before the one-piece path, kept as the
    /// reference that path must reproduce bit for bit.
    fn held_loop(avail: &Avail, lbn: u64, n: u32, start: f64, blk: f64) -> f64 {
        let end = lbn + n as u64;
        let mut e = start;
        for p in &avail.pieces {
            let lo = p.lbn.max(lbn);
            let hi = p.end_lbn().min(end);
            if lo >= hi {
                continue;
            }
            let m = (hi - lo) as i64 as f64;
            let off = (lo - p.lbn) as i64 as f64;
            let a = p.first_done + off * p.step;
            e = (e + m * blk)
                .max(p.floor + m * blk)
                .max(a + m * blk)
                .max(a + (m - 1.0) * p.step + blk);
        }
        e
    }

    proptest::proptest! {
        /// One piece or several, covering the request or overlapping it in part: the same
        /// bits as the loop.
        #[test]
        fn the_one_piece_path_is_the_loop_bit_for_bit(
            pieces in proptest::collection::vec(
                (1u32..600, 0.0f64..2e7, 0.0f64..3e5, 0.0f64..2e7), 1..4),
            first_lbn in 0u64..1_000_000,
            skip in 0u64..700,
            n in 1u32..700,
            start in 0.0f64..3e7,
            blk in 0.0f64..2e5,
        ) {
            let mut a = Avail::default();
            let mut lbn = first_lbn;
            for (count, first_done, step, floor) in pieces {
                a.push(Piece { lbn, count, first_done, step, floor });
                lbn += count as u64;
            }
            let from = first_lbn + skip.min(lbn - first_lbn - 1);
            let got = transfer_end(&a, from, n, start, &stream(blk));
            let want = held_loop(&a, from, n, start, blk);
            proptest::prop_assert_eq!(got.to_bits(), want.to_bits());
        }
    }

    #[test]
    fn a_bus_that_catches_up_with_the_media_is_free_until_the_next_block_is_in() {
        // Blocks in at 10, 20, 30; the bus moves one in 2 from 12: connected 12-14, free
        // 14-20 (asked back at 20), 20-22, free 22-30, 30-32.
        let a = avail(10.0, 10.0, 3);
        let mut s = stream(2.0);
        s.hold = false;
        let gap = |t| next_gap(&a, 0, 3, 12.0, &s, t);
        let g = |free_at, lbn, asks_at| {
            Some(Gap {
                free_at,
                lbn,
                asks_at,
            })
        };
        assert_eq!(gap(13.0), g(14.0, 1, 20.0));
        assert_eq!(gap(15.0), g(15.0, 1, 20.0));
        assert_eq!(gap(20.0), g(22.0, 2, 30.0));
        assert_eq!(gap(30.0), None);
        s.hold = true;
        assert_eq!(next_gap(&a, 0, 3, 12.0, &s, 13.0), None);
    }

    #[test]
    fn a_disconnecting_bus_pays_reselection_each_time_it_waits() {
        let a = avail(10.0, 10.0, 3);
        let s = Stream {
            block_ns: 1.0,
            hold: false,
            disconnect_ns: 0.5,
            reconnect_ns: 2.0,
            watermark: 1,
        };
        // Each block waits: ready at 10, 20, 30; each costs reselect 2 + 1.
        assert_eq!(transfer_end(&a, 0, 3, 0.0, &s), 33.0);
    }
}
