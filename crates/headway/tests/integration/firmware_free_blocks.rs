//! "Read any free blocks" gives a read zero latency only where the head lands for a block
//! that is not its track's first, as in DiskSim 4.0 (`disk_buffer_seekdone` sets zero latency
//! for such a landing; a seek to a track's first block is zero-latency only with "Immediate
//! buffer read"). So a read-ahead switching to the next track waits for that track's first
//! block, and a command taken up in that wait starts at the block's start (DiskSim's next
//! event there, `disk_seek_stoptime`; docs/fidelity.md, "read any free
//! blocks, not at a track's start"). Per request on the IBM 18ES (the one
//! catalog drive that reads free blocks without immediate reads), queue of 64, FCFS: a read
//! of 8 blocks ending 4 blocks before its track's end (15.884919 ms alone in DiskSim), whose
//! read-ahead switches heads at 15.359 ms and waits until 16.615 for the next track's first
//! block. DiskSim's completions are printed by a private copy (`DONE` lines from `iodriver`'s
//! completion), each run with a later request DiskSim leaves in flight
//! (`scripts/disksim_fixtures.py`'s `run_one`).

use crate::common::{self, fnv};

/// Replays `text` (a DiskSim ASCII trace) on the IBM 18ES with a queue of 64, FCFS, and
/// checks every completion against DiskSim's (ms, trace order) within 0.1 us.
fn follows_disksim(text: &str, disksim_ms: &[f64], what: &str) {
    let dir = common::scratch("freeblk");
    let trace = dir.join(format!("ibm18es_{:016x}.trace", fnv(text)));
    std::fs::write(&trace, text).unwrap();
    let got: Vec<f64> = common::replay_by_id("ibm18es", 64, "fcfs", &trace)
        .into_iter()
        .map(|(_, done_ns)| done_ns as f64 / 1e6)
        .collect();
    std::fs::remove_file(&trace).ok();
    assert_eq!(got.len(), disksim_ms.len(), "{what}: completions");
    for (k, (g, d)) in got.iter().zip(disksim_ms).enumerate() {
        assert!(
            (g - d).abs() < 1e-4,
            "{what}: request {k} completes at {g} ms, DiskSim {d}"
        );
    }
}

const FIRST: &str = "0.000000 0 8967936 8 1\n";

/// A read arriving at 16.0 ms, in the read-ahead's wait for the next track's first block,
/// starts its seek after that block's start and misses its sector by a hair: a revolution
/// more (28.715504 ms). Before, the read-ahead read the new track's blocks as they came (zero
/// latency) and gave way at the next sector's end, so the read began after its overhead,
/// 0.36 ms earlier, and caught its sector (about 20.38 ms).
#[test]
fn a_read_in_the_wait_for_the_next_track_s_first_block_starts_after_it() {
    follows_disksim(
        &format!("{FIRST}16.0 0 3189130 8 1\n"),
        &[15.884919, 28.715504],
        "a read at 16.0 ms",
    );
}

/// A fast write queued during the first read is written back from the first read's
/// completion (15.885 ms), its overhead long done: its seek starts when the read-ahead gives
/// way at the next track's first block, 16.615 ms, the start of that block (DiskSim's next
/// event, a sector event that reads nothing), not its end, 0.026 ms later. The read queued
/// behind the write-back then either misses its sector after the write-back (block
/// 3,189,146: 29.264964 ms) or, a block further, catches it (20.954519 ms; a revolution
/// later when the stop waited for the block's end).
#[test]
fn a_write_back_in_that_wait_starts_at_the_first_block_s_start() {
    for (wb, read, disksim_ms) in [
        (3_189_146u64, 3_189_154u64, 29.264964),
        (3_189_147, 3_189_155, 20.954519),
    ] {
        follows_disksim(
            &format!("{FIRST}10.0 0 {wb} 8 0\n10.5 0 {read} 8 1\n"),
            &[15.884919, 16.692919, disksim_ms],
            &format!("a write-back of block {wb}, then a read of {read}"),
        );
    }
}
