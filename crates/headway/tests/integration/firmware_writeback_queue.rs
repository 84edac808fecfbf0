//! A scheduling firmware over fast writes, per request, on the toy drive (10 ms per
//! revolution, 100 sectors per track, 0.1 ms per sector): it chooses its next command when
//! the write-back under way ends, among every command queued by then, and a write that
//! waited in its queue had its command overhead done meanwhile (DiskSim 4.0's controller
//! does both; docs/fidelity.md, "SPTF over fast writes").

use crate::common;

use std::sync::Arc;

use common::*;
use headway::device::hdd::spec::{BusSpec, CacheSpec, HddSpec, OverheadSpec};
use headway::device::hdd::{Drive, HddDevice, Mechanics};
use headway::device::Device;
use headway::host::Host;
use headway::link::Link;
use headway::predict::OraclePredictor;
use headway::request::{Op, Request};
use headway::sched::Fcfs;
use headway::sim::{RunLimits, Simulation};
use headway::stats::{RequestRecords, StatsOptions};
use headway::workload::ListWorkload;

const MS: u64 = 1_000_000;

/// The toy drive with a write-back buffer: a 0.05 ms/block bus, a 0.2 ms write-hit
/// command overhead, a 0.05 ms write completion, no reselection or data preparation.
fn write_back_spec() -> HddSpec {
    let mut s = toy_spec(0.0, 0.0);
    s.overheads = OverheadSpec {
        read_miss_after_read_ms: 0.5,
        read_miss_after_write_ms: 0.5,
        write_hit_after_read_ms: 0.2,
        write_hit_after_write_ms: 0.2,
        read_completion_ms: 0.1,
        write_completion_ms: 0.05,
        time_scale: 1.0,
        ..Default::default()
    };
    s.bus = BusSpec {
        sector_transfer_ms: 0.05,
        ..Default::default()
    };
    s.cache = Some(CacheSpec {
        enabled: true,
        segments: 4,
        segment_sectors: 300,
        max_write_segments: 1,
        buffer_continuous_read: 0,
        fast_write_level: 2,
        allow_read_hits_on_write_data: true,
        ..Default::default()
    });
    s
}

/// `reqs` through a drive queue of 16 ordered by the firmware's SPTF; records by request id.
fn run(spec: &HddSpec, reqs: Vec<Request>) -> Vec<(u64, u64, u64)> {
    let mech = Arc::new(Mechanics::new(spec).unwrap());
    let device = HddDevice::with_mechanics(spec, mech.clone(), 16, Some("sptf")).unwrap();
    let ovh = *device.overheads();
    let host = Host::new(
        Box::new(Fcfs::new()),
        vec![Box::new(OraclePredictor::new(mech, ovh, 0))],
        vec![16],
    );
    let devices: Vec<Box<dyn Device>> = vec![Box::new(device)];
    let sim = Simulation::new(
        Box::new(ListWorkload::new(reqs).unwrap()),
        host,
        devices,
        Link::default(),
        StatsOptions {
            records: true,
            ..Default::default()
        },
        RunLimits::default(),
    );
    let rec: RequestRecords = sim.run().unwrap().records.unwrap();
    let mut by_id: Vec<(u64, u64, u64)> = (0..rec.len())
        .map(|i| (rec.id[i], rec.start_ns[i], rec.done_ns[i]))
        .collect();
    by_id.sort_unstable();
    by_id
}

#[test]
fn a_command_arriving_during_a_write_back_is_a_candidate_when_it_ends() {
    let spec = write_back_spec();
    // A: a write on cylinder 100, alone on the drive: reported after its overhead and bus
    // transfer, then written back. B: a write 800 cylinders away, queued while A is in
    // service. C: a read just after A on A's track, arriving after A was reported but
    // while A is still being written back.
    let a = Request::new(0, 40_000, 8, Op::Write);
    let b = Request::new(MS / 10, 360_000, 8, Op::Write);
    let c = Request::new(MS, 40_016, 8, Op::Read);
    // When A's write-back ends, from the drive alone.
    let mut d = Drive::new(&spec, Arc::new(Mechanics::new(&spec).unwrap()));
    let served_a = d.serve(0, a.lbn, a.sectors, a.op);
    assert_eq!(served_a.done, 650_000, "0.2 + 8 x 0.05 + 0.05 ms");
    let write_back_end = d.positioning_free_at(served_a.done);
    assert!(
        write_back_end > c.arrival_ns,
        "C must arrive during A's write-back ({write_back_end} ns)"
    );

    let rec = run(&spec, vec![a, b, c]);
    let (_, start_b, done_b) = rec[1];
    let (_, start_c, done_c) = rec[2];
    // At A's report only B is queued; a firmware that chose then would have to take B. It
    // chooses at the end of the write-back instead, with C there too, and C (0.8 ms of
    // rotation from where A's write-back leaves the head) beats B (a seek of 800 cylinders).
    assert_eq!(start_c, write_back_end);
    assert!(
        done_c <= start_b,
        "C done {done_c} ns, B started {start_b} ns"
    );
    // B waited in the queue: its command overhead was done meanwhile, so it is reported
    // after its data crosses the bus (8 x 0.05 ms) and the completion overhead.
    assert_eq!(done_b - start_b, 450_000);
}

#[test]
fn with_the_mechanism_free_the_next_command_starts_at_the_report() {
    // The same commands without the write-back to wait for (A is a read): the firmware
    // takes up its next command as soon as the current one is reported, as before.
    let spec = write_back_spec();
    let a = Request::new(0, 40_000, 8, Op::Read);
    let b = Request::new(MS / 10, 360_000, 8, Op::Write);
    let rec = run(&spec, vec![a, b]);
    assert_eq!(rec[1].1, rec[0].2, "B starts when A is reported");
}
