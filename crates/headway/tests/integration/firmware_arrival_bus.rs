//! A command arriving while a read miss is in service holds the bus for its command overhead,
//! as in DiskSim 4.0 (its controller owns the bus from a command's arrival until it
//! disconnects; docs/fidelity.md, `ArrivalHoldsBus`). Per request on the HP C2490A (3.6 ms
//! read-miss overhead), queue of 64, FCFS: a read of 8 blocks at 0 (14.727345 ms alone in
//! DiskSim), and reads arriving during it. DiskSim's completion times are printed by a
//! private copy whose `disksim_exectrace` writes to stderr, each run with a later request
//! DiskSim leaves in flight (`scripts/disksim_fixtures.py`'s `run_one`).

use crate::common::{self, fnv};

/// Replays `text` (a DiskSim ASCII trace) on `drive` with a queue of 64 ordered by
/// `scheduler` and checks every completion against DiskSim's (ms, trace order) within
/// `tol_ms`; `what` names the case in a failure.
fn follows_disksim(
    drive: &str,
    scheduler: &str,
    text: &str,
    disksim_ms: &[f64],
    tol_ms: f64,
    what: &str,
) {
    let dir = common::scratch("arrbus");
    let trace = dir.join(format!("{drive}_{scheduler}_{:016x}.trace", fnv(text)));
    std::fs::write(&trace, text).unwrap();
    let got: Vec<f64> = common::replay_by_id(drive, 64, scheduler, &trace)
        .into_iter()
        .map(|(_, done_ns)| done_ns as f64 / 1e6)
        .collect();
    std::fs::remove_file(&trace).ok();
    assert_eq!(got.len(), disksim_ms.len(), "{drive}, {what}: completions");
    for (k, (g, d)) in got.iter().zip(disksim_ms).enumerate() {
        assert!(
            (g - d).abs() < tol_ms,
            "{drive}, {what}: request {k} completes at {g} ms, DiskSim {d}"
        );
    }
}

/// The later reads (arrival in ms, block) and DiskSim's completions (ms) in trace order.
type Case = (&'static [(&'static str, u64)], &'static [f64]);

/// The first read asks for the bus back at about 13.46 ms (once its blocks are in). A read
/// arriving before then holds the bus for its overhead and disconnect (3.616 ms), and the
/// first read sends its data and completion (1.268 ms) only after: it completes 4.884 ms
/// after the arrival (headway completed it at 14.727 ms in every case before). A read
/// arriving during that hold waits for it and holds the bus in turn, ahead of the first
/// read, which asked for the bus later (11 and 12 ms: 19.500 ms). A read arriving after the
/// first read asked for the bus (13.5 ms) waits for its data and completion and changes
/// nothing for it. The arrivals' own times follow from when they reached the drive.
#[test]
fn an_arriving_read_holds_the_bus_for_its_overhead() {
    // (the later reads' arrivals in ms and blocks, DiskSim's completions in trace order)
    let cases: [Case; 6] = [
        (&[], &[14.727345]),
        (&[("10", 500_000)], &[14.884280, 26.787068]),
        (&[("12", 500_000)], &[16.884280, 26.787081]),
        (&[("13.5", 500_000)], &[14.727345, 26.787072]),
        (
            &[("11", 500_000), ("12", 300_000)],
            &[19.500280, 36.165022, 43.034836],
        ),
        (
            &[("8", 500_000), ("12", 300_000)],
            &[16.884280, 26.787081, 33.656895],
        ),
    ];
    for (later, disksim_ms) in cases.into_iter() {
        let mut text = String::from("0.000000 0 100000 8 1\n");
        for (at, lbn) in later {
            text += &format!("{at} 0 {lbn} 8 1\n");
        }
        let what = format!("arrivals {later:?}");
        follows_disksim("hp_c2490a", "fcfs", &text, disksim_ms, 0.0001, &what);
    }
}

/// A write arriving on a fast-write drive while a read miss is in service (DiskSim runs as
/// above, the first request a read of 8 blocks at block 100,000 at 0, the write 8 blocks at
/// block 500,000). DiskSim's `disk_write_arrive` holds the bus for the write-hit overhead
/// and the write disconnect, then the write waits to be taken up with its overhead done.
/// Before the read asks for the bus back the hold delays the read when it ends after that
/// ask (the Cheetah 4LP at 3.6 ms: the read completes 0.363 ms later, headway gave 4.5588 ms
/// and 5.4068 ms before); after the ask the write reaches the drive only once the read has
/// completed, and pays its whole overhead then (3.8 ms: 5.8808 ms, headway 5.4068 before).
/// On the Atlas 10K (no disconnect overheads, 0.186 ms write-hit overhead) the same three.
/// (A write reaching the HP C2490A, without fast writes, during a read miss stops DiskSim
/// from completing anything: its `disk_write_arrive` never sends that disconnect.)
#[test]
fn an_arriving_fast_write_holds_the_bus_for_its_overhead() {
    // (drive, the write's arrival in ms, DiskSim's completions of the read and the write)
    let cases: [(&str, &str, [f64; 2]); 6] = [
        ("cheetah4lp", "1", [4.558826, 5.406826]),
        ("cheetah4lp", "3.6", [4.922000, 5.770000]),
        ("cheetah4lp", "3.8", [4.558826, 5.880826]),
        ("atlas10k", "6", [7.619239, 8.411239]),
        ("atlas10k", "6.8", [7.778000, 8.570000]),
        ("atlas10k", "7.2", [7.619239, 8.597239]),
    ];
    for (drive, at, disksim_ms) in cases.into_iter() {
        let text = format!("0.0 0 100000 8 1\n{at} 0 500000 8 0\n");
        let what = format!("write at {at} ms");
        follows_disksim(drive, "fcfs", &text, &disksim_ms, 0.0001, &what);
    }
}

/// A command arriving while a whole buffer hit is being sent waits for it: the hit holds the
/// bus from its arrival to its completion (DiskSim's `disk_read_arrive` sends it at once,
/// without disconnecting), so the arrival reaches the drive only then and pays its whole
/// command overhead from there. DiskSim runs as above: a read of 8 blocks at block 100,000
/// at 0, a read of the next 8 (read ahead) at 20 ms, and a command of 8 blocks at block
/// 500,000 during that hit. Before, headway counted the arrival's overhead as done while it
/// waited: the Cheetah 4LP's write completed 0.474 ms early (21.764 against 22.238 ms).
#[test]
fn a_command_arriving_during_a_buffer_hit_waits_for_it() {
    // (drive, the third command's arrival in ms and whether it reads, DiskSim's completions)
    let cases: [(&str, &str, bool, [f64; 3]); 5] = [
        (
            "cheetah4lp",
            "20.1",
            false,
            [4.558826, 20.916000, 22.238000],
        ),
        ("cheetah4lp", "20.5", true, [4.558826, 20.916000, 31.516129]),
        ("atlas10k", "20.05", false, [7.619239, 20.976000, 21.954000]),
        (
            "barracuda",
            "20.2",
            false,
            [14.064826, 21.154000, 23.236000],
        ),
        (
            "cheetah9lp",
            "20.2",
            false,
            [8.741449, 20.906000, 22.494000],
        ),
    ];
    for (drive, at, read, disksim_ms) in cases.into_iter() {
        let text = format!(
            "0.0 0 100000 8 1\n20 0 100008 8 1\n{at} 0 500000 8 {}\n",
            read as u8
        );
        let what = format!("command at {at} ms");
        follows_disksim(drive, "fcfs", &text, &disksim_ms, 0.0002, &what);
    }
}

/// A read that asked for the bus after the read in service did reaches the drive only after
/// that read's completion, and DiskSim's firmware SPTF chooses the next command at that
/// completion without it: here the far read queued earlier is served first, though the late
/// read lies next to the head (headway served it first before: on the Cheetah 4LP the far
/// read completed at 24.737 ms and the near one at 11.919, DiskSim 18.757 and 29.860). DiskSim
/// runs as above, SPTF over a queue of 64: a read of 8 blocks at block 100,000 at 0, a far
/// one at 1 ms, a near one late in the first read's service.
#[test]
fn sptf_chooses_before_a_read_waiting_for_the_bus_reaches_the_drive() {
    // (drive, the far read's block, the near read's arrival and block, DiskSim's completions)
    let cases: [(&str, u64, &str, u64, [f64; 3]); 4] = [
        (
            "cheetah4lp",
            3_000_000,
            "4.5",
            99_000,
            [4.558826, 18.756822, 29.859964],
        ),
        (
            "cheetah4lp",
            3_000_000,
            "4.5",
            101_000,
            [4.558826, 18.756822, 33.080107],
        ),
        (
            "atlas10k",
            3_000_000,
            "7.5",
            101_000,
            [7.619239, 17.934340, 23.836212],
        ),
        (
            "hp_c2490a",
            1_000_000,
            "14",
            101_000,
            [14.727345, 25.182001, 34.351544],
        ),
    ];
    for (drive, far, at, near, disksim_ms) in cases.into_iter() {
        let text = format!("0.0 0 100000 8 1\n1 0 {far} 8 1\n{at} 0 {near} 8 1\n");
        let what = format!("near read at {at} ms");
        follows_disksim(drive, "sptf", &text, &disksim_ms, 0.0001, &what);
    }
}

/// A read arriving while the firmware waits for a write-back to end before it chooses
/// holds the bus for its overhead all the same, and the command chosen at the write-back's
/// end reconnects for its data only after that. DiskSim runs as above, SPTF over a queue of
/// 64 on the Cheetah 9LP: a write of 8 blocks at block 100,000 at 0 (its write-back ends at
/// 8.066 ms), a write of 8 at block 100,200 at 1.5 ms (chosen at that end), a read of 8 at
/// block 900,000 late in the write-back. Arriving at 8.0 or 8.05 ms the read delays the
/// second write to 8.927 and 8.977 ms (headway gave 8.906 before, as at 7.9 ms, where the
/// hold ends before the write asks for the bus).
#[test]
fn an_arrival_during_a_write_back_holds_the_bus_for_the_command_chosen_after_it() {
    let cases: [(&str, [f64; 3]); 3] = [
        ("7.9", [1.588000, 8.906051, 13.867990]),
        ("8.0", [1.588000, 8.926730, 13.867990]),
        ("8.05", [1.588000, 8.976730, 13.867990]),
    ];
    for (at, disksim_ms) in cases.into_iter() {
        let text = format!("0.0 0 100000 8 0\n1.5 0 100200 8 0\n{at} 0 900000 8 1\n");
        let what = format!("read at {at} ms");
        follows_disksim("cheetah9lp", "sptf", &text, &disksim_ms, 0.0001, &what);
    }
}

/// The command in service keeps the bus through its own command phase, and a later holder
/// delays what it sends after. DiskSim runs as above (FCFS over a queue of 64; completions
/// from a private copy printing `disk_request_complete`'s times, each run ending with a far
/// later read so nothing is left in flight). On the HP C2490A:
/// - a write-through write of 8 blocks at block 100,000 at 0 (14.067 ms alone): a read
///   arriving once the write has asked for the bus back to send its completion holds the bus
///   for its overhead after the last *completed* op, a read (3.616 ms, DiskSim's `lastflags`
///   is set at a completion): the write completes at the hold's end (headway ignored it);
/// - a read larger than its segment (400 blocks): it asks for the bus back as any read miss,
///   and its whole transfer moves with a hold (headway let the arrival through at once);
/// - a partial hit (blocks 100,120..100,160 after a read of 8 at 100,000 left its read-ahead
///   in the segment) and three reads in a row behind a read miss: an arrival during the
///   command's own overhead waits for its disconnect before holding the bus in turn (the
///   partial hit completed 0.227 ms early, the first read 1.005 ms early).
#[test]
fn the_command_in_service_keeps_the_bus_through_its_own_command_phase() {
    let cases: [(&str, &[f64], f64); 8] = [
        (
            "0 0 100000 8 0\n10.5 0 500000 8 1\n",
            &[14.116000, 26.787071],
            0.0001,
        ),
        (
            "0 0 100000 8 0\n12 0 500000 8 1\n",
            &[15.616000, 26.787068],
            0.0001,
        ),
        (
            "0 0 100000 8 0\n9 0 500000 8 1\n",
            &[14.066894, 26.787073],
            0.0001,
        ),
        (
            "0 0 100000 400 1\n11 0 500000 8 1\n",
            &[74.061000, 83.054945],
            0.0005,
        ),
        (
            "0 0 100000 400 1\n13.3 0 500000 8 1\n",
            &[76.361000, 92.432878],
            0.0005,
        ),
        (
            "0 0 100000 400 1\n15 0 500000 8 1\n",
            &[73.974442, 92.432876],
            0.0005,
        ),
        (
            "0 0 100000 8 1\n20 0 100120 40 1\n20.5 0 500000 8 1\n",
            &[14.727345, 33.249400, 45.543002],
            0.0002,
        ),
        (
            "0 0 100000 8 1\n1 0 300000 8 1\n4 0 500000 8 1\n7 0 700000 8 1\n",
            &[15.732280, 24.278949, 36.165015, 46.444673],
            0.0001,
        ),
    ];
    for (text, disksim_ms, tol) in cases {
        follows_disksim("hp_c2490a", "fcfs", text, disksim_ms, tol, text);
    }
}

/// A fast write that waited for a write-back and reconnects for its data while an arrival
/// holds the bus takes its data later, and its own write-back waits for that data: on the
/// Cheetah 4LP (DiskSim as above) a write of 8 blocks at 100,000 at 0, one at 1 ms (it
/// waits for the first's write-back and asks for the bus at about 3.9 ms), a read arriving
/// at 3.9 ms (it delays the second write's data 0.543 ms) and reading 40 blocks past it.
/// With the second write at 100,040 or 100,208 the late data misses its sector and the read
/// completes a revolution later (headway 7.687 and 6.859 ms before); at 100,016 and 100,232
/// nothing is lost.
#[test]
fn a_disconnected_fast_write_takes_its_data_and_writes_it_back_after_a_hold() {
    let cases: [(u64, [f64; 3]); 4] = [
        (100_016, [1.322000, 5.316830, 12.256577]),
        (100_040, [1.322000, 5.316830, 13.667305]),
        (100_208, [1.322000, 5.316830, 12.839270]),
        (100_232, [1.322000, 5.316830, 8.043669]),
    ];
    for (second, disksim_ms) in cases {
        let text = format!(
            "0 0 100000 8 0\n1 0 {second} 8 0\n3.9 0 {} 8 1\n",
            second + 40
        );
        let what = format!("second write at {second}");
        follows_disksim("cheetah4lp", "fcfs", &text, &disksim_ms, 0.0001, &what);
    }
}

/// A read that waited for the bus through a completion asked for it before the command
/// chosen there: it holds the bus for its overhead first, and the chosen command's own
/// reselection comes after. Cheetah 4LP (DiskSim as above): a read of 8 at 100,000 at 0, a
/// read of the next 8 at 1 ms (queued, a hit on the read-ahead, chosen at 4.559 ms), a read
/// far away at 4.3 or 4.5 ms (after the first asked for the bus back): the hit completes at
/// 6.015 ms (headway 5.407 before, the arrival waiting through the hit too); arriving at
/// 4.6 ms, after the hit asked, it waits. On the HP C2490A with the second read a miss the
/// arrival during its service holds the bus as in the first test.
#[test]
fn a_read_waiting_for_the_bus_through_a_completion_holds_it_before_the_next_command() {
    let cases: [(&str, &str, [f64; 3]); 5] = [
        (
            "cheetah4lp",
            "0 0 100000 8 1\n1 0 100008 8 1\n4.3 0 500000 8 1\n",
            [4.558826, 6.014556, 13.575256],
        ),
        (
            "cheetah4lp",
            "0 0 100000 8 1\n1 0 100008 8 1\n4.5 0 500000 8 1\n",
            [4.558826, 6.014556, 13.575256],
        ),
        (
            "cheetah4lp",
            "0 0 100000 8 1\n1 0 100008 8 1\n4.6 0 500000 8 1\n",
            [4.558826, 5.406826, 13.575245],
        ),
        (
            "hp_c2490a",
            "0 0 100000 8 1\n1 0 300000 8 1\n20 0 500000 8 1\n",
            [14.727345, 24.884280, 36.165015],
        ),
        (
            "hp_c2490a",
            "0 0 100000 8 1\n1 0 300000 8 1\n24 0 500000 8 1\n",
            [14.727345, 24.278943, 36.165012],
        ),
    ];
    for (drive, text, disksim_ms) in cases {
        follows_disksim(drive, "fcfs", text, &disksim_ms, 0.0001, text);
    }
}

/// An arriving command's overhead, and so its hold on the bus, is the one after the last
/// command the drive *completed* (DiskSim sets `lastflags` in `disk_request_complete`, and
/// `disk_read_arrive` / `disk_write_arrive` read it), not after the command still in service.
/// DiskSim runs as above, SPTF over a queue of 64 on the Cheetah 9LP: a fast write of 8 blocks
/// at block 100,000 at 0 (written back by 8.1 ms), a read of 8 at block 900,000 at 10 ms
/// (it asks for the bus back at about 13.2 ms), and a command of 8 at block 500,000 arriving
/// before that ask. A write holds the bus for the write-hit overhead after a write (0.500 ms),
/// not after a read (0.748); a read the read-miss overhead after a write (0.087 ms), not after
/// a read (0.284). headway before charged the overhead after the read in service: the read
/// completed 0.248 and 0.197 ms late. Found per request on the Cheetah 9LP's queue of reads and
/// writes, its 42nd completion (a write arriving during a read taken up after a write-back).
#[test]
fn an_arrivals_hold_follows_the_last_command_completed() {
    // (the arrival's time in ms and op, DiskSim's completions in trace order)
    let cases: [(&str, u8, [f64; 3]); 3] = [
        ("12.8", 0, [1.588000, 14.140000, 14.980000]),
        ("13", 0, [1.588000, 14.340000, 15.180000]),
        ("13", 1, [1.588000, 13.926730, 20.711223]),
    ];
    for (at, read, disksim_ms) in cases.into_iter() {
        let text = format!("0.0 0 100000 8 0\n10 0 900000 8 1\n{at} 0 500000 8 {read}\n");
        let what = format!("command (read {read}) at {at} ms");
        follows_disksim("cheetah9lp", "sptf", &text, &disksim_ms, 0.0001, &what);
    }
}

/// Who gets the bus when several arrivals and the read in service want it, as DiskSim's
/// controller and host have it (found per request on the HP C2490A's SPTF queue of reads,
/// its 3rd and 27th completions; DiskSim runs as above, FCFS, a read of 8 blocks at block
/// 100,000 at 0 that asks for the bus back at about 13.46 ms, later reads of 8 blocks):
/// * a read miss taken up at once holds the bus for its own overhead and disconnect (0 to
///   3.616 ms), so reads arriving at 1, 2, 3 and 4 ms hold it from 3.616 ms on, one after
///   another; the third hold covers the first read's ask;
/// * the read in service cannot ask while an arrival's overhead holds the bus: asking at 13.46
///   ms during a hold from 11 ms, it asks at the hold's end (14.616), after a read that
///   arrived at 13.8 ms, which holds the bus first (headway before sent the first read's
///   data at 14.616: 15.884 against DiskSim's 19.500).
#[test]
fn the_bus_goes_to_arrivals_and_the_read_in_service_in_disksims_order() {
    let cases: [Case; 2] = [
        (
            &[
                ("1", 500_000),
                ("2", 300_000),
                ("3", 700_000),
                ("4", 900_000),
            ],
            &[19.348280, 36.165026, 43.034840, 55.822627, 66.102294],
        ),
        (
            &[("11", 500_000), ("13.8", 300_000)],
            &[19.500280, 36.165022, 43.034836],
        ),
    ];
    replay_cases(&cases);
}

/// A read whose bus catches up with the media lets go of the bus until more blocks are in
/// (DiskSim's drive disconnects when it has nothing to send, unless it holds the bus for the
/// whole read), and a command waiting for the bus gets it then, before the read reconnects.
/// Barracuda (no disconnect overheads, 1.010 ms write-hit overhead after a read), FCFS: a
/// read of 8 blocks at block 3,162,792 at 0 crosses a track: connected 14.756-15.292 ms, free
/// until 16.614 (DiskSim's bus events, printed by the private copy). A write of 8 at block
/// 500,000 arriving at 15.0 ms (while the read sends its first blocks) or 15.5 (in the gap)
/// holds the bus for its overhead and is taken up at the read's completion with it done
/// (18.222 ms; headway before 19.232, the write waiting through the read for its overhead);
/// at 15.9 or 16.0 its hold ends after the read asks again, and the read's last blocks move
/// later (17.446, 17.546; before 17.150); at 16.7, after that ask, it waits for the
/// completion in both. A read arriving at 16.1 holds the bus for the read-miss overhead
/// (0.613 ms) in the gap. The Cheetah 9LP (0.748 ms write-hit and 0.284 ms read-miss
/// overheads after a read), a read of 8 at block 100,072 (connected 3.621-4.041 ms, free
/// until 5.997): a write at 3.8 ms changes nothing for the read, one at 5.5 ms delays it to
/// 6.668, a read at 5.8 ms to 6.504 (headway before 6.417 in all three). Found per request
/// on the Barracuda's SPTF queue of reads and writes, its 7th completion (a queued write
/// 1.010 ms late in headway: a write that had arrived during such a gap held the bus at the
/// completion).
#[test]
fn a_command_takes_the_bus_while_the_read_in_service_waits_for_the_media() {
    // (drive, the first read's block, the arrival's time in ms and op (1 read), DiskSim's
    // completions in trace order)
    let cases: [(&str, u64, &str, u8, [f64; 2]); 9] = [
        ("barracuda", 3_162_792, "15.0", 0, [17.149580, 18.221580]),
        ("barracuda", 3_162_792, "15.5", 0, [17.149580, 18.221580]),
        ("barracuda", 3_162_792, "15.9", 0, [17.446000, 18.518000]),
        ("barracuda", 3_162_792, "16.0", 0, [17.546000, 18.618000]),
        ("barracuda", 3_162_792, "16.7", 0, [17.149580, 19.231580]),
        ("barracuda", 3_162_792, "16.1", 1, [17.249070, 38.796020]),
        ("cheetah9lp", 100_072, "3.8", 0, [6.416634, 7.256634]),
        ("cheetah9lp", 100_072, "5.5", 0, [6.668000, 7.508000]),
        ("cheetah9lp", 100_072, "5.8", 1, [6.503620, 14.738097]),
    ];
    for (drive, lbn, at, read, disksim_ms) in cases {
        let text = format!("0 0 {lbn} 8 1\n{at} 0 500000 8 {read}\n");
        let what = format!("command (read {read}) at {at} ms");
        follows_disksim(drive, "fcfs", &text, &disksim_ms, 0.0001, &what);
    }
}

/// The command chosen at a completion asks for the bus at that completion, as the command
/// that waited through it gets the bus: it waits for that command's overhead, but ahead of
/// whatever arrives meanwhile (DiskSim's bus arbitration, "Arbitration type = 1", prefers the
/// drive's slot to the host's controller when both wait). Only a drive busy with an arrival's
/// overhead when it would ask asks after it (`the_bus_goes_to_arrivals_and_the_read_in_service_in_disksims_order`).
/// Cheetah 9LP, FCFS: a read of 8 at block 100,000 at 0 (asks for the bus at 7.901 ms), a
/// fast write at 1 ms (queued, chosen at 8.741), a read at 8 ms (it waits through the
/// completion and holds the bus 0.284 ms), a command at 8.9 ms during that hold: the write
/// completes at 9.865 ms in every case (headway before 10.613 with a write at 8.9, whose
/// 0.748 ms hold went first). Found per request on the Cheetah 9LP's SPTF queue of reads and
/// writes, its 83rd completion.
#[test]
fn the_command_chosen_at_a_completion_gets_the_bus_before_later_arrivals() {
    let cases: [(&str, &[f64]); 3] = [
        ("", &[8.741449, 9.865069, 20.711223]),
        (
            "8.9 0 700000 8 0\n",
            &[8.741449, 9.865069, 20.711223, 21.551223],
        ),
        (
            "8.9 0 700000 8 1\n",
            &[8.741449, 9.865069, 20.711223, 27.648523],
        ),
    ];
    for (later, disksim_ms) in cases {
        let text = format!("0 0 100000 8 1\n1 0 900000 8 0\n8 0 500000 8 1\n{later}");
        follows_disksim("cheetah9lp", "fcfs", &text, disksim_ms, 0.0001, &text);
    }
}

/// The drive gets the bus at the first release after it asks, before every host command
/// still waiting, however early that one asked: DiskSim's arbitration ("Arbitration type =
/// 1") prefers the drive's slot to the host's at every release, not only against later
/// arrivals. (It still cannot ask during an arrival's overhead: it asks at that hold's end,
/// after the command already waiting then.) Cheetah 9LP, FCFS, as above with a read at 8 ms
/// and a read or a write at 8.1 ms, both waiting through the completion at 8.741 ms: the
/// write chosen there completes at 9.865 ms in DiskSim (headway 10.149 with a read at 8.1,
/// 10.613 with a write, whose holds go first). HP C2490A, FCFS: a read at 0 and seven at
/// 0.1-0.7 ms, 600 blocks apart (`predict_queued_rules.rs`'s burst): DiskSim completes
/// them at 19.348, 31.465, 36.088, 39.735, 44.945, 50.155, 55.365 and 59.012 ms; headway at
/// 30.196, 38.693, 45.466, ... (7.2 to 10.8 ms late, every one). Found per request on the
/// Barracuda's SPTF queue of reads and writes against the decision-angle DiskSim, its 71st
/// completion (a queued fast write 1.009 ms late). Followed in the drive and the host's
/// predictor (docs/fidelity.md, "the drive's slot on the bus").
#[test]
fn the_drive_gets_the_bus_before_every_host_command_still_waiting() {
    let cases: [(&str, &[f64]); 2] = [
        ("1", &[8.741449, 9.865069, 20.711223, 24.826576]),
        ("0", &[8.741449, 9.865069, 20.711223, 21.551223]),
    ];
    for (read, disksim_ms) in cases {
        let text =
            format!("0 0 100000 8 1\n1 0 900000 8 0\n8 0 500000 8 1\n8.1 0 300000 8 {read}\n");
        follows_disksim("cheetah9lp", "fcfs", &text, disksim_ms, 0.0001, &text);
    }
    let mut text = String::from("0 0 100000 8 1\n");
    for k in 1..8 {
        text += &format!("0.{k} 0 {} 8 1\n", 100_000 + 600 * k);
    }
    let disksim_ms = [
        19.348280, 31.464560, 36.088241, 39.735218, 44.945187, 50.155159, 55.365128, 59.012114,
    ];
    follows_disksim("hp_c2490a", "fcfs", &text, &disksim_ms, 0.0001, &text);
}

/// At a completion the bus goes first to one host command (waiting for it, or sent by the
/// host as the completion reaches it), then to the command the firmware chose there, before
/// any other host command still waiting: DiskSim's controller picks the next command after
/// the completion has let the bus go, and its arbitration prefers the drive's slot at every
/// release after that. Atlas 10K (no read-miss overhead, so a read's hold on the bus lasts
/// no time; write-hit overhead after a read 0.186 ms), FCFS: a read of 64 blocks at 0
/// (17.031480 ms), a fast write of 64 at 8.068 ms (queued; its data take 6.336 ms on the
/// bus once it is taken up at the read's completion), and commands arriving during the
/// read's transfer (16.5, 16.6 ms, queue of 64) or held by the host until the completion
/// (10, 10.1 ms, queue of 2). The queued write completes at 23.367480 ms unless the first
/// host command is a write (23.553480: its 0.186 ms hold goes first). DiskSim's times are
/// from the private copy of the method above, each run with a later request DiskSim leaves
/// in flight. headway before: 23.553484 behind a read and a write waiting (the write's hold
/// went first; the Atlas 10K's fourth completion on its q4 SPTF mix), 23.367484 behind a
/// write sent at the completion (the drive went first; its 14th). The later commands'
/// completions are not checked: headway has the read 0.11 us early and the write after the
/// write-back 1.02 ms early (30.430 against 31.452), differences of their own.
#[test]
fn the_first_host_command_at_a_completion_takes_the_bus_then_the_drive() {
    // (queue depth, the later commands, DiskSim's first two completions)
    let cases: [(usize, &str, [f64; 2]); 5] = [
        (
            64,
            "16.5 0 500000 8 1\n16.6 0 300000 8 0\n",
            [17.031480, 23.367480],
        ),
        (64, "16.6 0 300000 8 0\n", [17.031480, 23.553480]),
        (64, "16.5 0 500000 8 1\n", [17.031480, 23.367480]),
        (2, "10 0 300000 8 0\n", [17.031480, 23.553480]),
        (
            2,
            "10 0 500000 8 1\n10.1 0 300000 8 0\n",
            [17.031480, 23.367480],
        ),
    ];
    for (depth, later, disksim_ms) in cases {
        let text = format!("0 0 8282024 64 1\n8.067987 0 758232 64 0\n{later}");
        let dir = common::scratch("arrbus");
        let trace = dir.join(format!("atlas10k_{depth}_{:016x}.trace", fnv(&text)));
        std::fs::write(&trace, &text).unwrap();
        let got = common::replay_by_id("atlas10k", depth, "fcfs", &trace);
        std::fs::remove_file(&trace).ok();
        for (k, d) in disksim_ms.iter().enumerate() {
            let g = got[k].1 as f64 / 1e6;
            assert!(
                (g - d).abs() < 0.0001,
                "atlas10k, queue {depth}, {later:?}: request {k} completes at {g} ms, DiskSim {d}"
            );
        }
    }
}

/// DiskSim's host passes one command at a time: of reads arriving at 13 and 13.2 ms (DiskSim
/// runs as above), the second asks for the bus only once the first has reached the drive
/// (14.616 ms), with the read in service, which goes first (19.500 ms in DiskSim; headway
/// 23.116 before the drive's slot priority, the second arrival holding the bus before the
/// read too). headway's host does not pass one command at a time, but the drive's slot
/// priority at every release (the test above) gives these times too.
#[test]
fn the_host_passes_one_command_at_a_time_as_in_disksim() {
    let cases: [Case; 1] = [(
        &[("11", 500_000), ("13", 300_000), ("13.2", 700_000)],
        &[19.500280, 36.165022, 43.034836, 55.822632],
    )];
    replay_cases(&cases);
}

/// The instant a read miss asks for the bus back, to a tenth of a microsecond: at its first
/// sector's end. An arrival 0.05 us before it holds the bus for its overhead ahead of the
/// read's data; one 0.05 us after it waits for the data and completion. HP C2490A, FCFS: a
/// read of block 541,488 at 0 (its media from 17.132751 ms, 104 sectors a track, the first
/// sector's end 17.222851) and a read of block 1,316,208 at 17.222851 or 17.222951 ms
/// (DiskSim 22.107131 and 35.310184, then 18.491199 and 35.310162). IBM 18ES: a read of block
/// 7,085,624 at 0 (media from 10.502953 ms, 338 sectors a track, the ask 10.527608) and a
/// read of block 6,270,880 at 10.5275 or 10.5277 ms (11.587790 and 19.136604, then
/// 11.335606 and 19.136599). In the long queues (docs/fidelity.md, "the IBM 18ES's 645th")
/// seven of the HP C2490A's FCFS cascades and the IBM 18ES's 1,327th completion begin with an
/// arrival within 50 us of this instant, on the other side of it in DiskSim only through
/// DiskSim's spindle drift (about 1 ppm, 1.6 ppm); this pins the instant itself.
#[test]
fn a_read_miss_asks_for_the_bus_at_its_first_sectors_end() {
    let cases: [(&str, &str, &str, &[f64]); 4] = [
        (
            "hp_c2490a",
            "fcfs",
            "0 0 541488 8 1\n17.222851 0 1316208 8 1\n",
            &[22.107131, 35.310184],
        ),
        (
            "hp_c2490a",
            "fcfs",
            "0 0 541488 8 1\n17.222951 0 1316208 8 1\n",
            &[18.491199, 35.310162],
        ),
        (
            "ibm18es",
            "sptf",
            "0 0 7085624 8 1\n10.5275 0 6270880 8 1\n",
            &[11.587790, 19.136604],
        ),
        (
            "ibm18es",
            "sptf",
            "0 0 7085624 8 1\n10.5277 0 6270880 8 1\n",
            &[11.335606, 19.136599],
        ),
    ];
    for (drive, scheduler, text, disksim_ms) in cases {
        follows_disksim(drive, scheduler, text, disksim_ms, 0.0001, text);
    }
}

/// A command that gets the bus only after a write-back's end is not at the drive when the
/// firmware chooses there. IBM 18ES, SPTF: a fast write of block 14,364,312 at 0 (reported
/// done at 0.891 ms, written back until 15.530 ms), a far read (block 9,284,696) at 10 ms, a
/// read of block 1,352,584 at 15.0 or 15.2 ms and a read of block 14,294,392, next to the
/// written block, at 15.49 ms. With the third at 15.0 its hold has ended when the last
/// arrives, which holds the bus at once and is at the drive for the choice at 15.530: DiskSim
/// serves it first (19.281195 ms). With the third at 15.2 the last waits for the bus until
/// after 15.530: DiskSim chooses the far read without it (24.987484) and serves it after
/// (35.947877); headway chose it there before (19.281 ms). Found per request on the IBM
/// 18ES's SPTF queue of reads and writes (docs/fidelity.md, "the IBM 18ES's 645th"). DiskSim
/// 4.0 runs as above.
#[test]
fn a_command_waiting_for_the_bus_through_a_write_backs_end_misses_the_choice_there() {
    let cases: [(&str, [f64; 4]); 2] = [
        ("15.0", [0.891000, 24.987502, 39.488949, 19.281195]),
        ("15.2", [0.891000, 24.987484, 47.822287, 35.947877]),
    ];
    for (third, disksim_ms) in cases {
        let text = format!(
            "0 0 14364312 8 0\n10 0 9284696 8 1\n{third} 0 1352584 8 1\n15.49 0 14294392 8 1\n"
        );
        follows_disksim("ibm18es", "sptf", &text, &disksim_ms, 0.0001, &text);
    }
}

/// Replays each case on the HP C2490A, FCFS: a read of 8 blocks at block 100,000 at 0, then
/// the case's reads.
fn replay_cases(cases: &[Case]) {
    for &(later, disksim_ms) in cases {
        let mut text = String::from("0.000000 0 100000 8 1\n");
        for (at, lbn) in later {
            text += &format!("{at} 0 {lbn} 8 1\n");
        }
        let what = format!("arrivals {later:?}");
        follows_disksim("hp_c2490a", "fcfs", &text, disksim_ms, 0.0001, &what);
    }
}
