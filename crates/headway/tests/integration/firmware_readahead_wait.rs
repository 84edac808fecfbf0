//! A command taken up while the read-ahead waits for the first sector of a track it has just
//! switched to starts when that sector has been read, as in DiskSim 4.0 (its controller stops
//! the read-ahead at its next event, `disk_seek_stoptime`; docs/fidelity.md, "The
//! read-ahead's track switch"). Per request on the Barracuda: a read of 8 blocks ending 4
//! before a track's end, its read-ahead (to the segment's end) going on over the following
//! tracks, then a second read arriving at an idle drive. DiskSim's times for the second read
//! are its printed read mean over both, less the first's alone (13.840812 ms), each run with
//! a later request DiskSim leaves in flight (`scripts/disksim_fixtures.py`'s `run_one`).

use crate::common;

/// Response times (ms) of a DiskSim ASCII trace replayed on `drive`, in trace order.
fn run_trace(drive: &str, trace: &std::path::Path) -> Vec<f64> {
    common::replay_by_id(drive, 1, "fcfs", trace)
        .into_iter()
        .map(|(arrival_ns, done_ns)| (done_ns - arrival_ns) as f64 / 1e6)
        .collect()
}

/// Arriving at 23.4 and 23.7 ms the second read finds the read-ahead waiting for its first
/// sector after a head switch, and (as in DiskSim) its head switch and rotation then miss
/// their sector by the wait: a revolution more (10.467788 and 10.167788 ms; before, headway
/// started the seek at once: 2.134366 and 1.834366). At 23.2 ms the read-ahead is still
/// reading its track, and a read 100 blocks earlier on the same track at 23.6 ms still
/// finds its sector in the same revolution after the wait: both as before, and as in DiskSim.
#[test]
fn a_command_waits_for_the_read_ahead_s_first_sector_after_a_track_switch() {
    let tmp = common::scratch("rawait");
    // (second read's arrival in ms and block, DiskSim's time for it)
    let cases = [
        ("23.4", 999_830u64, 10.467788),
        ("23.7", 999_830, 10.167788),
        ("23.2", 999_830, 2.334454),
        ("23.6", 999_730, 5.787504),
    ];
    for (i, (at, lbn, disksim_ms)) in cases.into_iter().enumerate() {
        let trace = tmp.join(format!("barracuda_rawait{i}.trace"));
        std::fs::write(
            &trace,
            format!("0.000000 0 1000090 8 1\n{at} 0 {lbn} 8 1\n"),
        )
        .unwrap();
        let times = run_trace("barracuda", &trace);
        assert!(
            (times[0] - 13.840812).abs() < 0.001,
            "the first read: {} ms, DiskSim 13.840812",
            times[0]
        );
        assert!(
            (times[1] - disksim_ms).abs() < 0.001,
            "a read of block {lbn} at {at} ms: {} ms, DiskSim {disksim_ms}",
            times[1]
        );
    }
    std::fs::remove_dir_all(&tmp).ok();
}

/// Completion times (ms) of a DiskSim ASCII trace replayed on `drive` with a drive queue of
/// two (FCFS), in trace order.
fn completions_queued(drive: &str, trace: &std::path::Path) -> Vec<f64> {
    common::replay_by_id(drive, 2, "fcfs", trace)
        .into_iter()
        .map(|(_, done_ns)| done_ns as f64 / 1e6)
        .collect()
}

/// A read that ends at its track's end: its read-ahead's first pass begins with a head switch
/// (or, at a cylinder's end, a seek), and a command queued behind the read and taken up at its
/// completion, while the read-ahead waits on the new track for its first sector, starts when
/// that sector starts, as in DiskSim 4.0 ("The read-ahead's first switch" in
/// docs/fidelity.md; the Barracuda's 101st completion on its q64 SPTF queue of reads and
/// writes). Barracuda, drive queue 2, FCFS: a read at 0 ms ending at a track's end (block
/// 1,000,102: the read-ahead switches at 13.262 ms and waits until 14.919 for the first
/// sector; block 1,000,474, a cylinder's end: it seeks until 18.520 and waits until 18.907),
/// a read at 5 ms taken up at the first's completion (14.020, 18.763). DiskSim's completions
/// from its printed events (a private copy printing each `DONE`), every one within 0.1 us.
/// Before, headway abandoned the wait and the four reads marked moved completed a revolution
/// early (15.632932, 16.080961, 20.023613, 20.113219 ms); the others are the controls: a
/// sector the head reaches after the stop either way, one it misses either way, and a
/// completion during the read-ahead's seek (the stop is the seek's end, as before).
#[test]
fn a_queued_command_waits_for_the_read_ahead_s_first_sector_after_the_read_s_track_end() {
    let tmp = common::scratch("rafirst");
    // (first read's block and size, its completion, second read's block, its completion)
    let cases = [
        // Head switch: moved, moved, control.
        (1_000_094u64, 8, 14.020023, 999_795u64, 23.966264),
        (1_000_094, 8, 14.020023, 999_805, 24.414293),
        (1_000_094, 8, 14.020023, 999_815, 16.528988),
        // Cylinder seek: moved, moved, controls.
        (1_000_450, 24, 18.762587, 1_000_809, 28.356950),
        (1_000_450, 24, 18.762587, 1_000_811, 28.446555),
        (1_000_450, 24, 18.762587, 1_000_812, 20.158029),
        (1_000_450, 24, 18.762587, 1_000_808, 28.312151),
        // Taken up during the seek.
        (1_000_458, 16, 18.049009, 1_000_600, 25.668773),
    ];
    for (i, (lbn1, n1, done1, lbn2, done2)) in cases.into_iter().enumerate() {
        let trace = tmp.join(format!("barracuda_rafirst{i}.trace"));
        std::fs::write(
            &trace,
            format!("0.000000 0 {lbn1} {n1} 1\n5.000000 0 {lbn2} 8 1\n"),
        )
        .unwrap();
        let done = completions_queued("barracuda", &trace);
        assert!(
            (done[0] - done1).abs() < 1e-4,
            "the read of {n1} at block {lbn1}: {} ms, DiskSim {done1}",
            done[0]
        );
        assert!(
            (done[1] - done2).abs() < 1e-4,
            "the queued read of block {lbn2} after the read at {lbn1}: {} ms, DiskSim {done2}",
            done[1]
        );
    }
    std::fs::remove_dir_all(&tmp).ok();
}

/// The same stop when the read-ahead's first pass is on another track: a read ending at its
/// track's end sends the read-ahead across a head switch, where it waits for the next track's
/// first block; DiskSim stops it there too, not at once (docs/fidelity.md, "What carries the
/// Cheetah 9LP's gap"). Per request on the Cheetah 9LP: a read of blocks 12,966,656-663 (its
/// track's last eight) at 0, then a read of block 12,334,512, queued behind it (14.0 ms) or
/// reaching the idle drive in the wait (15.0 ms): DiskSim's completions (printed per request by
/// an instrumented copy) are a revolution later than headway's were when it started at once
/// (19.472571 ms); arriving after the wait (16.0 ms), the read finds its sector as before.
#[test]
fn a_command_waits_for_the_read_ahead_s_first_sector_after_a_read_ending_at_its_track_s_end() {
    let tmp = common::scratch("racheetah");
    // (second read's arrival in ms, DiskSim's completion of it in ms)
    let cases = [
        ("14.0", 25.445691),
        ("15.0", 25.445691),
        ("16.0", 25.445691),
    ];
    for (i, (at, disksim_ms)) in cases.into_iter().enumerate() {
        let trace = tmp.join(format!("cheetah9lp_rafirst{i}.trace"));
        std::fs::write(
            &trace,
            format!("0.000000 0 12966656 8 1\n{at} 0 12334512 8 1\n"),
        )
        .unwrap();
        let done_ms: Vec<f64> = common::replay_by_id("cheetah9lp", 1, "fcfs", &trace)
            .into_iter()
            .map(|(_, done_ns)| done_ns as f64 / 1e6)
            .collect();
        assert!(
            (done_ms[0] - 14.153215).abs() < 1e-4,
            "the first read completes at {} ms, DiskSim 14.153215",
            done_ms[0]
        );
        assert!(
            (done_ms[1] - disksim_ms).abs() < 1e-4,
            "the read arriving at {at} ms completes at {} ms, DiskSim {disksim_ms}",
            done_ms[1]
        );
    }
    std::fs::remove_dir_all(&tmp).ok();
}
