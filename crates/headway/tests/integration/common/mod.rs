//! Helpers shared by the integration tests (`use crate::common;`): the toy drive, the path to
//! the reference data, replays of DiskSim traces; files in `files`, workloads in `workload`.
#![allow(dead_code)]

mod files;
pub mod workload;

pub use files::{fixture, fnv, scratch};

use headway::device::hdd::spec::{HddSpec, LayoutSpec, SeekSpec, Sparing, ZoneSpec};

/// A small single-zone drive with round numbers, so expected times can be written by hand:
/// 6000 RPM (10 ms per revolution), 100 sectors per track (0.1 ms per sector), 4 surfaces,
/// 1000 cylinders, seek(d) = 1 ms + 0.01 ms * d, head switch 0.5 ms, write settle 0.2 ms.
pub fn toy_spec(track_skew: f64, cylinder_skew: f64) -> HddSpec {
    HddSpec {
        name: "toy".into(),
        description: "hand-built test drive".into(),
        rpm: 6000.0,
        surfaces: 4,
        cylinders: 1000,
        block_count: 1000 * 4 * 100,
        layout: LayoutSpec {
            mapping_scheme: 0,
            sparing: Sparing::None,
            range_size: 1,
            zones: vec![ZoneSpec {
                first_cylinder: 0,
                last_cylinder: 999,
                sectors_per_track: 100,
                first_block_offset: 0.0,
                empty_space_front: 0,
                track_skew,
                cylinder_skew,
                spares: 0,
                slips: vec![],
                defects: vec![],
            }],
            exported_sectors: None,
        },
        seek: SeekSpec::SqrtLinear {
            threshold: 0,
            c1_ms: 0.0,
            c2_ms: 0.0,
            c3_ms: 1.0,
            c4_ms: 0.01,
            first_ms: vec![],
        },
        head_switch_ms: 0.5,
        write_settle_ms: 0.2,
        overheads: Default::default(),
        bus: Default::default(),
        cache: None,
        queue: Default::default(),
        actuators: 1,
        smr: None,
        zoned: None,
        reader_warnings: Vec::new(),
    }
}

pub const TOY_PERIOD_NS: u64 = 10_000_000;
pub const TOY_SPT: u64 = 100;
pub const TOY_SECTOR_NS: u64 = TOY_PERIOD_NS / TOY_SPT;
/// LBNs per cylinder of the toy drive.
pub const TOY_CYL: u64 = 400;

/// A path inside the project's reference data (not shipped): `$HEADWAY_SHARED`, else
/// `../shared` beside the clone. Tests that read it sit in a `shared_data` module and are
/// `#[ignore]`d with the reason; `scripts/test.sh` runs them (`cargo test -- --ignored
/// shared_data::`) when the data is present. Run explicitly, a missing file is a failure.
pub fn shared_path(rel: &str) -> std::path::PathBuf {
    let root = std::env::var_os("HEADWAY_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
        });
    let p = root.join(rel);
    assert!(
        p.exists(),
        "{} is absent: this test needs the reference data (../shared beside the clone, or HEADWAY_SHARED)",
        p.display()
    );
    p
}

/// (arrival ns, completion ns) of each request of `trace` (DiskSim ASCII) replayed on the
/// catalog drive `drive`, by request id: the host passes commands on in arrival order, and
/// the drive holds `queue_depth` of them, ordered by `firmware_scheduler`. The per-request
/// comparisons with DiskSim's printed times are written against this.
pub fn replay_by_id(
    drive: &str,
    queue_depth: usize,
    firmware_scheduler: &str,
    trace: &std::path::Path,
) -> Vec<(u64, u64)> {
    let rec = replay_records(drive, queue_depth, firmware_scheduler, trace);
    let mut by_id: Vec<(u64, u64, u64)> = (0..rec.len())
        .map(|i| (rec.id[i], rec.arrival_ns[i], rec.done_ns[i]))
        .collect();
    by_id.sort_unstable_by_key(|r| r.0);
    by_id.into_iter().map(|r| (r.1, r.2)).collect()
}

/// The records of [`replay_by_id`]'s run, in the order the simulation wrote them.
pub fn replay_records(
    drive: &str,
    queue_depth: usize,
    firmware_scheduler: &str,
    trace: &std::path::Path,
) -> headway::stats::RequestRecords {
    use headway::config::{build_simulation, ExperimentConfig};
    let toml = format!(
        "[drive]\nname = \"{drive}\"\nqueue_depth = {queue_depth}\n\
         firmware_scheduler = \"{firmware_scheduler}\"\n\
         [host]\nscheduler = \"fcfs\"\n\
         [workload]\nkind = \"trace\"\npath = \"{}\"\nformat = \"disksim-ascii\"\n\
         [output]\nrecords = true\n",
        trace.display()
    );
    let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
        .records
        .unwrap()
}

/// Submit one command at `now` to a device alone and run it until that command completes;
/// the completion and the wake-ups still pending (a device's own timers).
pub fn serve_alone(
    dev: &mut dyn headway::device::Device,
    now: u64,
    lbn: u64,
    sectors: u32,
    op: headway::Op,
) -> (headway::request::Completion, Vec<(u64, u64)>) {
    use headway::device::DeviceIo;
    use headway::request::{Command, Request};
    let mut io = DeviceIo::default();
    dev.submit(
        now,
        Command::single(Request::new(now, lbn, sectors, op)),
        &mut io,
    );
    let mut wakeups = io.wakeups;
    let mut done = io.completions.pop();
    while done.is_none() {
        wakeups.sort();
        let (t, tok) = wakeups.remove(0);
        let mut next = DeviceIo::default();
        dev.wake(t, tok, &mut next);
        wakeups.extend(next.wakeups);
        done = next.completions.pop();
    }
    (done.expect("completed"), wakeups)
}
