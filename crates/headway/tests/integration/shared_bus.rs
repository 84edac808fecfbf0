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
