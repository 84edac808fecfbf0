//! Bus overlap and named interfaces: the drive positions for its next queued command while
//! the previous one's data still crosses the bus, checked by hand on the toy drive (10 ms
//! per revolution, 100 sectors per track, no cache, no overheads) behind a slow bus.

use crate::common;

use common::*;
use headway::config::{build_simulation, ExperimentConfig};
use headway::device::hdd::spec::HddSpec;
use headway::device::hdd::HddDevice;
use headway::device::{Device, DeviceIo};
use headway::request::{Command, Completion, Op, Request};
use headway::sim::RunResult;

const MS: u64 = 1_000_000;

/// The toy drive with a 1 ms/sector bus: an 8-sector read takes 0.8 ms off the media and
/// 8 ms over the bus.
fn slow_bus_spec(overlap: bool) -> HddSpec {
    let mut s = toy_spec(0.0, 0.0);
    s.bus.sector_transfer_ms = 1.0;
    s.bus.overlap = overlap;
    s
}

/// Submit every `(lbn, op)` at time 0 to a drive holding them all (FCFS), and run its
/// wake-ups in time order until each has completed; the completions in order.
fn run_queued(spec: &HddSpec, cmds: &[(u64, Op)]) -> Vec<Completion> {
    let mut dev = HddDevice::new(spec, cmds.len()).unwrap();
    let mut io = DeviceIo::default();
    for &(lbn, op) in cmds {
        dev.submit(0, Command::single(Request::new(0, lbn, 8, op)), &mut io);
    }
    let mut done = vec![];
    let mut pending: Vec<(u64, u64)> = vec![];
    while done.len() < cmds.len() {
        pending.append(&mut io.wakeups);
        done.append(&mut io.completions);
        if done.len() == cmds.len() {
            break;
        }
        pending.sort_unstable();
        assert!(!pending.is_empty(), "the drive stopped with commands left");
        let (at, token) = pending.remove(0);
        dev.wake(at, token, &mut io);
    }
    done.append(&mut io.completions);
    assert_eq!(dev.outstanding(), 0);
    done
}

/// A reads sectors 0-7 of cylinder 0 from time 0: media 0-0.8 ms, its bus from the first
/// sector's end, 0.1 ms, to 8.1 ms. B reads sectors 28-35 of cylinder 1. Without overlap B's
/// seek begins at A's completion; with it, at A's media end (0.8 ms): one cylinder's seek
/// lands before sector 28 passes at 2.8 ms, its first sector is in the buffer at 2.9 ms, and
/// its bus waits for A's: B completes at max(A's completion, B's first sector in) + 8 ms.
#[test]
fn the_next_read_positions_while_the_previous_data_crosses_the_bus() {
    let cmds = [(0, Op::Read), (400 + 28, Op::Read)];
    let on = run_queued(&slow_bus_spec(true), &cmds);
    let off = run_queued(&slow_bus_spec(false), &cmds);
    assert_eq!(on[0].done_ns, 8_100_000);
    assert_eq!(off[0].done_ns, 8_100_000);
    let b_first_in = 2_900_000u64;
    assert_eq!(on[1].done_ns, on[0].done_ns.max(b_first_in) + 8 * MS);
    // Off: B's seek starts at 8.1 ms, it lands after sector 28 passed at 2.8 ms, and waits
    // for it to come round at 12.8 ms; first sector in at 12.9, bus to 20.9 ms.
    assert_eq!(off[1].done_ns, 20_900_000);
    // B's mechanism started at A's media end, not at its completion.
    assert_eq!(on[1].phases.start_ns, 800_000);
}

/// When B's positioning outlasts A's bus tail, B's data goes as soon as it is in: the
/// completion is B's first sector in plus its transfer, the bus idle in between.
#[test]
fn a_long_positioning_leaves_the_bus_idle_and_bounds_the_completion() {
    // Sector 5 of cylinder 1 passes at 0.5 ms, before the seek lands: B waits until 10.5
    // ms for it, first sector in at 10.6 ms, after A's completion at 8.1 ms.
    let on = run_queued(&slow_bus_spec(true), &[(0, Op::Read), (400 + 5, Op::Read)]);
    assert_eq!(on[1].done_ns, 10_600_000 + 8 * MS);
}

/// Every command completes once, in the drive's order, and a run is the same every time;
/// overlap never makes a command complete later than without it on this FCFS stream.
#[test]
fn overlap_conserves_commands_and_is_deterministic() {
    let cmds: Vec<(u64, Op)> = (0..12u64)
        .map(|k| {
            let op = if k % 3 == 2 { Op::Write } else { Op::Read };
            ((k * 7_919 + k * k * 131) % (TOY_CYL * 900), op)
        })
        .collect();
    let a = run_queued(&slow_bus_spec(true), &cmds);
    let b = run_queued(&slow_bus_spec(true), &cmds);
    let off = run_queued(&slow_bus_spec(false), &cmds);
    assert_eq!(a.len(), cmds.len());
    let key = |c: &[Completion]| {
        c.iter()
            .map(|c| (c.command.lbn, c.done_ns))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b));
    let mut lbns: Vec<u64> = a.iter().map(|c| c.command.lbn).collect();
    lbns.sort_unstable();
    let mut want: Vec<u64> = cmds.iter().map(|c| c.0).collect();
    want.sort_unstable();
    assert_eq!(lbns, want);
    // Completions never go back in time, and no command's data shares the bus: each
    // completion is at least its own transfer after the one before.
    for w in a.windows(2) {
        assert!(w[1].done_ns >= w[0].done_ns + 8 * MS, "{w:?}");
    }
    let ends = |c: &[Completion]| {
        c.iter()
            .map(|c| (c.command.op, c.done_ns))
            .collect::<Vec<_>>()
    };
    assert!(
        a.last().unwrap().done_ns < off.last().unwrap().done_ns,
        "{:?}\n{:?}",
        ends(&a),
        ends(&off)
    );
}

fn run_toml(text: &str) -> headway::error::Result<RunResult> {
    let cfg = ExperimentConfig::from_toml_str(text, None)?;
    build_simulation(&cfg, None)?.simulation.run()
}

/// Ten closed-loop processes of random 4 KiB reads, every request at the drive (its own
/// SPTF orders them); `{extra}` goes into `[drive]`.
const SPTF_RUN: &str = "seed = 3\n[drive]\nname = \"atlas10k\"\nqueue_depth = 16\n\
    firmware_scheduler = \"sptf\"\n{extra}\n[host]\nscheduler = \"fcfs\"\nmax_outstanding = 16\n\
    [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 0.0\nrequests = 600\n\
    read_fraction = 1.0\nalign_sectors = 8\nsize = { kind = \"fixed\", sectors = 8 }\n";

fn sptf_mean_ms(extra: &str) -> f64 {
    let r = run_toml(&SPTF_RUN.replace("{extra}", extra)).unwrap();
    r.summary.response.mean_ms
}

/// On a catalog drive under a saturating random load, the validated bus (0.1 ms a sector)
/// costs each read 0.8 ms after its media: overlap hides it behind the next seek, and a
/// faster interface shortens it.
#[test]
fn overlap_and_a_faster_interface_shorten_responses_on_the_atlas10k() {
    let base = sptf_mean_ms("");
    let overlap = sptf_mean_ms("bus_overlap = true");
    let ultra160 = sptf_mean_ms("interface = \"ultra160\"");
    assert!(overlap < base, "overlap {overlap} ms, validated {base} ms");
    assert!(
        ultra160 < base,
        "ultra160 {ultra160} ms, validated {base} ms"
    );
    // Off is the default: saying so changes nothing.
    assert_eq!(sptf_mean_ms("bus_overlap = false"), base);
    assert_eq!(sptf_mean_ms("interface = \"validated\""), base);
}

#[test]
fn an_interface_and_an_explicit_bus_time_are_refused_together() {
    let text = SPTF_RUN.replace(
        "{extra}",
        "interface = \"ata100\"\nbus_sector_transfer_ms = 0.01",
    );
    let err = run_toml(&text).err().expect("both accepted").to_string();
    assert!(err.contains("drive.interface"), "{err}");
    assert!(err.contains("drive.bus_sector_transfer_ms"), "{err}");
}

#[test]
fn an_unknown_interface_names_its_line_and_the_known_ones() {
    let text = SPTF_RUN.replace("{extra}", "interface = \"scsi9\"");
    let err = ExperimentConfig::from_toml_str(&text, None)
        .err()
        .expect("unknown interface accepted")
        .to_string();
    assert!(err.contains("scsi9"), "{err}");
    assert!(err.contains("line 6"), "{err}");
    for name in [
        "validated",
        "ultra2",
        "ultra160",
        "ultra320",
        "ata100",
        "sata6g",
    ] {
        assert!(err.contains(name), "{name} missing: {err}");
    }
}

/// The host's oracle knows the option: the command queued behind a read starts at the
/// read's media end (its bus tail still to go), not at its completion, which is the same.
#[test]
fn the_oracle_starts_the_command_behind_at_the_media_end_under_overlap() {
    use headway::config::resolve_drive;
    use headway::device::hdd::Mechanics;
    use headway::predict::{Access, Moment, OraclePredictor, Predictor, QueueModel};
    use std::sync::Arc;

    let release = |overlap: bool| {
        let mut spec = resolve_drive("atlas10k", None).unwrap();
        spec.bus.overlap = overlap;
        let p = OraclePredictor::of_drive(&spec, Arc::new(Mechanics::new(&spec).unwrap()), 0);
        p.release(
            Moment::new(p.head(), 0),
            Access::new(1_000_000, 8, Op::Read),
        )
    };
    let (off, on) = (release(false), release(true));
    assert_eq!(on.done_ns, off.done_ns);
    let (on_next, off_next) = (on.queued_next_ns.unwrap(), off.queued_next_ns.unwrap());
    // Seven of the eight sectors cross the 0.099 ms/sector bus after the media is done.
    assert!(off_next - on_next > 600_000, "{on_next} vs {off_next}");
}
