//! Devices on one shared bus (`shared_bus` on `[[devices]]`): one command phase at a time,
//! hand-computed starts, every request served, and the keys checked.

use headway::config::{build_simulation, ExperimentConfig};
use headway::device::hdd::overheads::Overheads;
use headway::sim::RunResult;

const DRIVE: &str = "hp_c3323a";

fn device(name: &str, bus: Option<&str>) -> String {
    let bus = bus.map_or(String::new(), |b| format!("shared_bus = \"{b}\"\n"));
    format!("[[devices]]\nname = \"{name}\"\ndrive = \"{DRIVE}\"\n{bus}")
}

/// A closed reader of `requests` random 4 KiB reads on `device`, one at a time.
fn reader(device: &str, requests: u32) -> String {
    format!(
        "[[workloads]]\nkind = \"closed\"\nrequests = {requests}\nsize_sectors = 8\n\
         read_fraction = 1.0\ndevice = \"{device}\"\n"
    )
}

fn run(text: &str) -> headway::Result<(RunResult, Overheads)> {
    let text = format!("seed = 5\n{text}[host]\nscheduler = \"fcfs\"\n[output]\nrecords = true\n");
    let cfg = ExperimentConfig::from_toml_str(&text, None)?;
    let built = build_simulation(&cfg, None)?;
    let overheads = Overheads::from_spec(&built.specs[0]);
    Ok((built.simulation.run()?, overheads))
}

/// What a read after a read holds the bus for on this drive.
fn read_hold_ns(o: &Overheads) -> u64 {
    o.read_miss_ns[0] + o.read_disconnect_ns[0]
}

/// Each device's first request's start, ns.
fn first_starts(r: &RunResult, devices: u16) -> Vec<u64> {
    let rec = r.records.as_ref().unwrap();
    (0..devices)
        .map(|d| {
            (0..rec.len())
                .filter(|&i| rec.device[i] == d)
                .map(|i| rec.start_ns[i])
                .min()
                .unwrap()
        })
        .collect()
}

#[test]
fn two_reads_at_once_on_one_bus_take_turns_and_on_two_buses_overlap() {
    let both = |a: Option<&str>, b: Option<&str>| {
        run(&format!(
            "{}{}{}{}",
            device("d0", a),
            device("d1", b),
            reader("d0", 1),
            reader("d1", 1)
        ))
        .unwrap()
    };
    let (shared, o) = both(Some("scsi"), Some("scsi"));
    let hold = read_hold_ns(&o);
    assert!(
        hold > 1_000_000,
        "the drive's read command phase: {hold} ns"
    );
    let s = first_starts(&shared, 2);
    // Both sent at the same moment: the second's command starts once the first's phase ends.
    assert_eq!(s[0].max(s[1]) - s[0].min(s[1]), hold, "{s:?}");
    let (apart, _) = both(Some("a"), Some("b"));
    let s = first_starts(&apart, 2);
    assert_eq!(s[0], s[1], "separate buses overlap: {s:?}");
    let (own, _) = both(None, None);
    assert_eq!(
        first_starts(&own, 2),
        s,
        "a bus of one's own is a bus nobody shares"
    );
}

#[test]
fn devices_on_one_bus_serve_every_request_one_command_phase_at_a_time() {
    let mut text = String::new();
    for d in 0..4 {
        text += &device(&format!("d{d}"), Some("scsi"));
    }
    for d in 0..4 {
        text += &reader(&format!("d{d}"), 50);
    }
    let (shared, o) = run(&text).unwrap();
    let hold = read_hold_ns(&o);
    let rec = shared.records.as_ref().unwrap();
    assert_eq!(rec.len(), 200);
    for d in 0..4u16 {
        assert_eq!(rec.device.iter().filter(|&&x| x == d).count(), 50);
    }
    let mut starts = rec.start_ns.clone();
    starts.sort_unstable();
    for w in starts.windows(2) {
        assert!(w[1] - w[0] >= hold, "command phases overlap: {w:?}");
    }
    for i in 0..rec.len() {
        assert!(rec.start_ns[i] >= rec.dispatch_ns[i] && rec.done_ns[i] > rec.start_ns[i]);
    }
    let (alone, _) = run(&text.replace("shared_bus = \"scsi\"\n", "")).unwrap();
    assert_eq!(alone.summary.requests, shared.summary.requests);
    assert!(
        shared.summary.response.mean_ms > alone.summary.response.mean_ms,
        "waiting for the bus costs time: {} vs {}",
        shared.summary.response.mean_ms,
        alone.summary.response.mean_ms
    );
}

#[test]
fn a_shared_bus_needs_a_name_and_a_disk_drive() {
    let err = run(&format!("{}{}", device("d0", Some(" ")), reader("d0", 1)))
        .unwrap_err()
        .to_string();
    assert!(err.contains("devices[0].shared_bus"), "{err}");
    assert!(err.contains("needs a name"), "{err}");
    let flash = "[[devices]]\nname = \"f\"\ndrive = \"flash\"\nshared_bus = \"scsi\"\n";
    let err = run(&format!(
        "{}{flash}{}",
        device("d0", Some("scsi")),
        reader("d0", 1)
    ))
    .unwrap_err()
    .to_string();
    assert!(err.contains("devices[1].shared_bus"), "{err}");
    assert!(err.contains("only disk drives"), "{err}");
    let err = run(&format!(
        "{}{}",
        device("d0", None).replace("drive =", "shared_bus = 3\ndrive ="),
        reader("d0", 1)
    ))
    .unwrap_err()
    .to_string();
    assert!(err.contains("shared_bus"), "{err}");
}

/// Two drives on one bus replaying one DiskSim ASCII trace (`time_ms devno lbn sectors
/// flags`, 1 = read; trace device 0 onto `d0`, 1 onto `d1`, times from the trace's first
/// record), `buses` the run's `[[buses]]` tables: each request's `(device, start ns, done
/// ns)`, the drive's bus time per sector (ns) and its read completion message (ns).
fn replay(trace: &str, buses: &str) -> (Vec<(u16, u64, u64)>, f64, u64) {
    let dir = crate::common::scratch("shared_bus");
    std::fs::write(dir.join("bus.trace"), trace).unwrap();
    let mut toml = format!(
        "{}{}",
        device("d0", Some("scsi")),
        device("d1", Some("scsi"))
    );
    for d in 0..2 {
        toml += &format!(
            "[[workloads]]\ndevice = \"d{d}\"\nkind = \"trace\"\npath = \"bus.trace\"\n\
             format = \"disksim-ascii\"\ndevices = [{d}]\n"
        );
    }
    toml += &format!("{buses}[host]\nscheduler = \"fcfs\"\n[output]\nrecords = true\n");
    let path = dir.join("bus.toml");
    std::fs::write(&path, &toml).unwrap();
    let cfg = ExperimentConfig::from_toml_file(&path).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let built = build_simulation(&cfg, None).unwrap_or_else(|e| panic!("{e}"));
    let spec = built.specs[0].clone();
    let r = built.simulation.run().unwrap();
    let rec = r.records.as_ref().unwrap();
    let mut out: Vec<(u16, u64, u64)> = (0..rec.len())
        .map(|i| (rec.device[i], rec.start_ns[i], rec.done_ns[i]))
        .collect();
    out.sort_unstable();
    let completion = Overheads::from_spec(&spec).completion_ns[0];
    (out, spec.bus.sector_transfer_ms * 1e6, completion)
}

/// A trace time (ms) for `ns`, exact to the nanosecond.
fn at_ms(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000, ns % 1_000_000)
}

/// The hand-computed case: a read of 8 sectors on one drive, and a read on the other drive
/// sent the moment the first asks for the bus back to send its data. The second waits
/// exactly the first's data transfer (8 sectors at the bus's time per sector) and its
/// completion message, and starts as the first completes. Sent a millisecond earlier, the
/// second's command phase holds the bus when the first asks, and the first's data and
/// completion come that phase's remaining length later.
#[test]
fn a_command_waits_for_a_read_on_another_drive_to_send_its_data() {
    let read0 = "0.0 0 1000 8 1\n";
    let (alone, sector_ns, completion_ns) = replay(read0, "");
    let [(0, s0, done0)] = alone[..] else {
        panic!("{alone:?}")
    };
    assert_eq!(s0, 0);
    let transfer_ns = (8.0 * sector_ns).round() as u64;
    assert!(transfer_ns > 300_000, "{sector_ns} ns a sector");
    let asks = done0 - transfer_ns - completion_ns;

    let both_reads = |at: u64| format!("{read0}{} 1 500000 8 1\n", at_ms(at));
    let (both, _, _) = replay(&both_reads(asks), "");
    assert_eq!(both[0], (0, 0, done0), "the first read is not moved");
    let (dev, start1, _) = both[1];
    assert_eq!(dev, 1);
    assert_eq!(
        start1 - asks,
        transfer_ns + completion_ns,
        "waits the read's transfer and completion"
    );
    assert_eq!(start1, done0);

    // Without the read's data on the bus, the second goes at once.
    let free = "[[buses]]\nname = \"scsi\"\nhold_read_data = false\n";
    let (both, _, _) = replay(&both_reads(asks), free);
    assert_eq!(both[1].1, asks);

    // One millisecond earlier: the second's command phase (read-miss overhead and
    // disconnect) holds the bus past the first's request for it by its length less 1 ms.
    let early = asks - 1_000_000;
    let (both, _, _) = replay(&both_reads(early), "");
    let o = Overheads::from_spec(
        &build_simulation(
            &ExperimentConfig::from_toml_str(&device("d0", None), None).unwrap(),
            None,
        )
        .unwrap()
        .specs[0],
    );
    let hold = read_hold_ns(&o);
    assert_eq!(both[1].1, early, "the second's command goes at once");
    assert_eq!(
        both[0].2,
        done0 + (early + hold - asks),
        "the first's data waits"
    );
}

/// Each grant of the bus costs its arbitration time: a command alone on the bus reaches
/// its drive that much after it is sent, and its read's data moves that much after it asks.
#[test]
fn a_bus_arbitration_time_delays_each_grant() {
    let read0 = "0.0 0 1000 8 1\n";
    let bus = |hold: bool| {
        format!("[[buses]]\nname = \"scsi\"\narbitration_ms = 0.25\nhold_read_data = {hold}\n")
    };
    // The command's grant only (the read's data off the bus).
    let (command_only, _, _) = replay(read0, &bus(false));
    assert_eq!(command_only[0].1, 250_000, "the command's grant");
    // The data's grant too: the read completes 0.25 ms later still.
    let (both, _, _) = replay(read0, &bus(true));
    assert_eq!(both[0].1, 250_000);
    assert_eq!(both[0].2, command_only[0].2 + 250_000);
}

#[test]
fn bus_settings_are_checked_with_their_keys() {
    let reads = format!("{}{}", device("d0", Some("scsi")), reader("d0", 1));
    let err = |buses: &str| run(&format!("{reads}{buses}")).unwrap_err().to_string();
    let e = err("[[buses]]\nname = \"other\"\n");
    assert!(e.contains("buses[0].name") && e.contains("`other`"), "{e}");
    let e = err("[[buses]]\nname = \"scsi\"\n[[buses]]\nname = \"scsi\"\n");
    assert!(e.contains("buses[1].name") && e.contains("two"), "{e}");
    let e = err("[[buses]]\nname = \"scsi\"\narbitration_ms = -1.0\n");
    assert!(e.contains("buses[0].arbitration_ms"), "{e}");
    let e = err("[[buses]]\nname = \"scsi\"\narbitrate = 1.0\n");
    assert!(e.contains("arbitrate"), "{e}");
}
