//! A command taken up while the read-ahead waits for the first sector of a track it has just
//! switched to starts when that sector has been read, as in DiskSim 4.0 (its controller stops
//! the read-ahead at its next event, `disk_seek_stoptime`; docs/fidelity.md, "The
//! read-ahead's track switch"). Per request on the Barracuda: a read of 8 blocks ending 4
//! before a track's end, its read-ahead (to the segment's end) going on over the following
//! tracks, then a second read arriving at an idle drive. DiskSim's times for the second read
//! are its printed read mean over both, less the first's alone (13.840812 ms), each run with
//! a later request DiskSim leaves in flight (`scripts/disksim_fixtures.py`'s `run_one`).

mod common;

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
    let tmp = std::env::temp_dir().join(format!("headway_rawait_{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
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
