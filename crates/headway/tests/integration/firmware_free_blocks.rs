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

/// Replays `text` (validate format) on the IBM 18ES in validate mode and checks each
/// request's access time against DiskSim's (ms, trace order) within 1 us.
fn validates_as_disksim(text: &str, disksim_ms: &[f64], what: &str) {
    let dir = common::scratch("freeblk-room");
    let path = dir.join("ibm18es.trace");
    std::fs::write(&path, text).unwrap();
    let records = headway::validate::read_validate_trace(&path).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let spec = headway::device::catalog::lookup("ibm18es").unwrap();
    let r = headway::validate::validate(&spec, &records).unwrap();
    assert_eq!(r.pairs.len(), disksim_ms.len(), "{what}: requests");
    for (k, ((_, got), want)) in r.pairs.iter().zip(disksim_ms).enumerate() {
        assert!(
            (got - want).abs() < 0.001,
            "{what}: request {k} takes {got} ms, DiskSim {want}"
        );
    }
}

/// The IBM 18ES's validation trace (DiskSim 4.0's `ibm18es.trace`, its COPYRIGHT in
/// `catalog/validation/`), replayed in validate mode in two excerpts: a read 44 blocks below
/// the read before it (trace requests 1,928-1,932) and one 64 below (5,648-5,653). The free
/// blocks the earlier read passed on its landing track count against its segment's size, so
/// by the time the read below arrives its read-ahead has pushed them out: a miss, as on the
/// real drive (measured 5.508 and 9.819 ms; from the buffer they would take 0.486 and
/// 0.890 ms). Expected: DiskSim 4.0's access times for the same excerpts
/// (validate mode, a private copy printing each request's physical access time).
#[test]
fn free_blocks_pushed_out_by_the_read_ahead_are_no_hit() {
    validates_as_disksim(
        "W Hit   11678936   8    907.00000  64348.00000
R Hit   10901260   4  12632.00000  39420.00000
R Hit   15006424   4   9821.00000  18041.00000
R Hit   15006380   4   5508.00000  26079.00000
R Hit   15006384   4    540.00000  28576.00000
",
        &[0.891, 7.707728, 14.991122, 5.616146, 0.486],
        "44 blocks below",
    );
    validates_as_disksim(
        "R Hit    1302176   4    498.00000  38586.00000
R Hit    7024840  16  16879.00000  73224.00000
R Hit   13489248   8  10475.00000  14195.00000
R Hit   13489184   8   9819.00000  70635.00000
W Hit   13772516   4    499.00000  21902.00000
R Hit   14433752   8   9313.00000  42738.00000
",
        &[6.130371, 10.524136, 15.263591, 8.940433, 0.487, 9.452952],
        "64 blocks below",
    );
}
