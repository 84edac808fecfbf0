//! The drive's firmware: buffer hits, read-ahead, write-back, zero-latency access, and the
//! firmware command queue, each checked against times worked out by hand on the toy drive
//! (10 ms per revolution, 100 sectors per track, 0.1 ms per sector).

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
use headway::sched::{Fcfs, Sptf};
use headway::sim::{RunLimits, Simulation};
use headway::stats::StatsOptions;
use headway::workload::ListWorkload;

const MS: u64 = 1_000_000;

/// The toy drive with a buffer: 4 segments of 300 blocks, read-ahead of up to 100 blocks,
/// a 0.05 ms/block bus, and round overheads.
fn cached_spec(fast_write: u32) -> HddSpec {
    let mut s = toy_spec(0.0, 0.0);
    s.overheads = OverheadSpec {
        read_hit_after_read_ms: 0.3,
        read_hit_after_write_ms: 0.3,
        read_miss_after_read_ms: 0.5,
        read_miss_after_write_ms: 0.5,
        write_hit_after_read_ms: 0.2,
        write_hit_after_write_ms: 0.2,
        write_miss_after_read_ms: 0.6,
        write_miss_after_write_ms: 0.6,
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
        buffer_continuous_read: 3,
        max_read_ahead_sectors: 100,
        read_ahead_over_requested: 1,
        fast_write_level: fast_write,
        allow_read_hits_on_write_data: true,
        ..Default::default()
    });
    s
}

fn drive(spec: &HddSpec) -> Drive {
    Drive::new(spec, Arc::new(Mechanics::new(spec).unwrap()))
}

#[test]
fn a_read_hit_costs_the_hit_overhead_and_the_bus_only() {
    let spec = cached_spec(0);
    let mut d = drive(&spec);
    let first = d.serve(0, 5_000, 8, Op::Read);
    assert!(!first.cache_hit);
    // Long after, the same blocks: hit overhead 0.3 + 8 blocks * 0.05 + completion 0.1.
    let t = first.done + 100 * MS;
    let again = d.serve(t, 5_000, 8, Op::Read);
    assert!(again.cache_hit);
    assert_eq!(again.done - t, 800_000);
    assert_eq!(again.phases.seek_ns + again.phases.rotate_ns, 0);
}

#[test]
fn a_sequential_stream_hits_in_the_read_ahead_until_it_runs_out() {
    let spec = cached_spec(0);
    let mut d = drive(&spec);
    let mut t = 0;
    let s = d.serve(t, 2_000, 8, Op::Read);
    assert!(!s.cache_hit);
    t = s.done + 50 * MS;
    // Read-ahead brought in 100 blocks after the request; each 8-block step is a hit.
    for k in 1..=12u64 {
        let s = d.serve(t, 2_000 + 8 * k, 8, Op::Read);
        assert!(s.cache_hit, "step {k}");
        assert_eq!(s.done - t, 800_000, "step {k}");
        t = s.done + MS;
    }
    // Each hit extends the read-ahead (DiskSim's maximum grows with every request), so the
    // stream stays ahead; a read far beyond it misses.
    let far = d.serve(t + 50 * MS, 2_000 + 1_000, 8, Op::Read);
    assert!(!far.cache_hit);
}

#[test]
fn without_read_ahead_the_next_blocks_miss() {
    let mut spec = cached_spec(0);
    spec.cache.as_mut().unwrap().buffer_continuous_read = 0;
    let mut d = drive(&spec);
    let s = d.serve(0, 2_000, 8, Op::Read);
    let next = d.serve(s.done + 50 * MS, 2_008, 8, Op::Read);
    assert!(!next.cache_hit);
}

#[test]
fn a_fast_write_completes_from_the_buffer_and_writes_back_later() {
    let spec = cached_spec(2);
    let mut d = drive(&spec);
    // Write hit overhead 0.2 + 8 blocks * 0.05 + completion 0.05, no mechanical phase.
    let w = d.serve(0, 40_000, 8, Op::Write);
    assert!(w.cache_hit);
    assert_eq!(w.done, 650_000);
    assert_eq!(
        w.phases.seek_ns + w.phases.rotate_ns + w.phases.transfer_ns,
        0
    );
    // The write-back is still under way when the command completes...
    let write_back_end = d.idle_at();
    assert!(write_back_end > w.done as f64 + MS as f64);
    // ...so a read miss issued now waits for it before its own positioning starts.
    let r = d.serve(w.done, 80_000, 8, Op::Read);
    assert!(!r.cache_hit);
    assert!(
        r.phases.overhead_ns as f64 >= write_back_end - w.done as f64,
        "read waited {} ns, write-back had {} ns to go",
        r.phases.overhead_ns,
        write_back_end - w.done as f64
    );
    // The written blocks are readable from the buffer afterwards.
    let hit = d.serve(r.done + 50 * MS, 40_000, 8, Op::Read);
    assert!(hit.cache_hit);
}

/// "Combine seq writes": a fast write continuing the segment being written back joins the
/// write-back, which carries on into its blocks without losing a revolution.
#[test]
fn a_sequential_fast_write_joins_the_write_back_under_way() {
    let run = |combine: bool| {
        let mut spec = cached_spec(2);
        spec.cache.as_mut().unwrap().combine_sequential_writes = combine;
        let mut d = drive(&spec);
        let first = d.serve(0, 40_000, 8, Op::Write);
        let first_back_end = d.idle_at();
        // Issued while the first write-back is still under way.
        assert!(first_back_end > first.done as f64 + MS as f64);
        let second = d.serve(first.done, 40_008, 8, Op::Write);
        (first, first_back_end, second, d.idle_at(), d.stats)
    };
    let (first, first_end, second, back_end, stats) = run(true);
    assert!(second.cache_hit);
    // Taken at once: write hit overhead 0.2 + 8 blocks * 0.05 + completion 0.05.
    assert_eq!(second.done - first.done, 650_000);
    // The write-back continues into the next 8 sectors (0.1 ms each) on the same track; the
    // data (in by 1.25 ms) is there before the head.
    assert!(
        (back_end - (first_end + 0.8e6)).abs() < 1.0,
        "{back_end} vs {first_end}"
    );
    assert_eq!((stats.fast_writes, stats.combined_writes), (2, 1));

    // Without combining, the second write waits for the write-back to end, and its own
    // write-back then misses the sector that follows and waits most of a revolution.
    let (first, first_end, second, back_end, stats) = run(false);
    assert!(second.done as f64 >= first_end);
    assert!(second.done - first.done > 650_000);
    assert!(back_end > first_end + 5.0e6, "{back_end} vs {first_end}");
    assert_eq!((stats.fast_writes, stats.combined_writes), (2, 0));
}

/// A host streaming sequential 4 KiB writes to a write-back drive (the Atlas 10K, every
/// parameter from DiskSim's file) is bound by the bus and the command overheads, not by the
/// rotation: nearly every write costs the same few hundred microseconds. Without combining,
/// each write waited for the previous write-back and most of a revolution.
#[test]
fn a_sequential_write_stream_on_a_write_back_drive_never_waits_for_the_platter() {
    let stream = |combine: bool| {
        let mut spec = headway::device::catalog::lookup("atlas10k").unwrap();
        spec.cache.as_mut().unwrap().combine_sequential_writes = combine;
        let mut d = drive(&spec);
        let mut t = 0;
        let mut times = vec![];
        for k in 0..2_000u64 {
            let w = d.serve(t, 100_000 + 8 * k, 8, Op::Write);
            assert!(w.cache_hit);
            times.push(w.done - t);
            t = w.done;
        }
        times.sort_unstable();
        times
    };
    let times = stream(true);
    let fastest = times[0];
    let slow = times.iter().filter(|&&x| x > fastest + 10_000).count();
    assert!(
        slow <= 10,
        "{slow} of 2000 writes waited; slowest {} ns",
        times[1999]
    );
    assert!(fastest < MS, "{fastest} ns");
    let without = stream(false);
    let median = without[1000];
    assert!(median > 3 * MS, "median {median} ns without combining");
}

/// A write that does not continue the segment being written back, or would overfill it,
/// is not combined.
#[test]
fn only_a_write_that_continues_the_dirty_segment_is_combined() {
    let mut spec = cached_spec(2);
    spec.cache.as_mut().unwrap().combine_sequential_writes = true;
    for (lbn, n) in [(40_009u64, 8u32), (40_000, 8), (40_008, 293)] {
        let mut d = drive(&spec);
        let first = d.serve(0, 40_000, 8, Op::Write);
        let _ = d.serve(first.done, lbn, n, Op::Write);
        assert_eq!(d.stats.combined_writes, 0, "write at {lbn}+{n}");
    }
}

#[test]
fn a_write_through_drive_completes_after_the_media() {
    let spec = cached_spec(0);
    let mut d = drive(&spec);
    let w = d.serve(0, 40_000, 8, Op::Write);
    assert!(!w.cache_hit);
    // Miss overhead 0.6 then the mechanism: seek from cylinder 0 to 100 (2 ms) plus settle.
    assert!(w.phases.seek_ns >= 2_000_000);
    assert!(w.done as f64 >= d.idle_at() - 1.0);
}

#[test]
fn zero_latency_reads_never_cost_more_than_a_revolution_after_landing() {
    let mut plain = toy_spec(0.0, 0.0);
    plain.cache = Some(CacheSpec {
        enabled: true,
        segments: 2,
        segment_sectors: 200,
        max_write_segments: 1,
        ..Default::default()
    });
    let mut zl = plain.clone();
    zl.cache.as_mut().unwrap().immediate_buffer_read = true;
    // A whole track read starting anywhere: in order it waits for sector 0, zero-latency
    // starts at once. Head on track 0; the request is the whole of track 0.
    for t0 in [1_234_567u64, 5_000_000, 9_990_000] {
        let a = drive(&plain).serve(t0, 0, 100, Op::Read);
        let b = drive(&zl).serve(t0, 0, 100, Op::Read);
        let media_a = a.phases.rotate_ns + a.phases.transfer_ns;
        let media_b = b.phases.rotate_ns + b.phases.transfer_ns;
        assert!(media_b <= TOY_PERIOD_NS + TOY_SECTOR_NS, "{t0}: {media_b}");
        assert!(media_b <= media_a, "{t0}");
    }
}

#[test]
fn a_write_passes_over_sectors_whose_data_has_not_arrived() {
    // A bus slower than the media: 0.25 ms per block against 0.1 ms per sector. The head is
    // already on the track; the write of 20 blocks from sector 9 starts at 0.9 ms (overhead
    // 0.6 ms, then sector 9 comes round), when block 0 is in (0.85 ms) but block 1 is not
    // (1.1 ms): the media overtakes the bus and must come round again.
    let mut spec = cached_spec(0);
    spec.bus.sector_transfer_ms = 0.25;
    let w = drive(&spec).serve(0, 9, 20, Op::Write);
    let media = w.phases.rotate_ns + w.phases.transfer_ns;
    assert!(media >= TOY_PERIOD_NS, "{:?}", w.phases);
    // With a fast bus the same write takes two sectors' wait and twenty sectors.
    let mut fast = cached_spec(0);
    fast.bus.sector_transfer_ms = 0.01;
    let w2 = drive(&fast).serve(0, 9, 20, Op::Write);
    assert_eq!(
        w2.phases.rotate_ns + w2.phases.transfer_ns,
        2_300_000,
        "{:?}",
        w2.phases
    );
}

fn requests() -> Vec<Request> {
    // Forty scattered reads and writes, all there at time 0.
    (0..40u64)
        .map(|i| {
            let lbn = (i * 7_919 * 37) % (400_000 - 16);
            let op = if i % 3 == 0 { Op::Write } else { Op::Read };
            Request::new(0, lbn, 8, op)
        })
        .collect()
}

/// `requests()` on `spec`: the host's scheduler over a drive queue of `depth` ordered by the
/// `firmware` scheduler; the per-request records.
fn run_queue(
    spec: &HddSpec,
    depth: usize,
    host_sptf: bool,
    firmware: &str,
) -> headway::stats::RequestRecords {
    let mech = Arc::new(Mechanics::new(spec).unwrap());
    let device = HddDevice::with_mechanics(spec, mech.clone(), depth, Some(firmware)).unwrap();
    let ovh = *device.overheads();
    let predictor = OraclePredictor::new(mech, ovh, 0);
    let sched: Box<dyn headway::sched::Scheduler> = if host_sptf {
        Box::new(Sptf::new())
    } else {
        Box::new(Fcfs::new())
    };
    let host = Host::new(sched, vec![Box::new(predictor)], vec![depth]);
    let devices: Vec<Box<dyn Device>> = vec![Box::new(device)];
    let sim = Simulation::new(
        Box::new(ListWorkload::new(requests()).unwrap()),
        host,
        devices,
        Link::default(),
        StatsOptions {
            records: true,
            ..Default::default()
        },
        RunLimits::default(),
    );
    sim.run().unwrap().records.unwrap()
}

fn completion_order(spec: &HddSpec, host_sptf: bool) -> Vec<u64> {
    let rec = if host_sptf {
        run_queue(spec, 1, true, "fcfs")
    } else {
        run_queue(spec, 64, false, "sptf")
    };
    let mut order: Vec<(u64, u64)> = (0..rec.len())
        .map(|i| (rec.done_ns[i], rec.id[i]))
        .collect();
    order.sort();
    order.into_iter().map(|x| x.1).collect()
}

#[test]
fn the_firmware_sptf_orders_a_queue_exactly_as_the_host_sptf_would() {
    // No buffer, so the host's oracle sees exactly what the firmware sees. No read-miss
    // overhead either: a read queued in the drive has it done while it waits (DiskSim's
    // overhead_done), which a host queue cannot do (the next test).
    let mut spec = toy_spec(3.0, 7.0);
    spec.overheads.write_miss_after_read_ms = 0.4;
    let host = completion_order(&spec, true);
    let firmware = completion_order(&spec, false);
    assert_eq!(host.len(), 40);
    assert_eq!(host, firmware);
    // And it is not simply arrival order.
    assert_ne!(host, (0..40).collect::<Vec<_>>());
}

fn last_done_ns(spec: &HddSpec, depth: usize) -> u64 {
    *run_queue(spec, depth, false, "fcfs")
        .done_ns
        .iter()
        .max()
        .unwrap()
}

/// From the first completion to the last (ns): the commands served after the first.
fn span_after_first_ns(spec: &HddSpec, depth: usize) -> u64 {
    let rec = run_queue(spec, depth, false, "fcfs");
    let first = rec.done_ns.iter().min().unwrap();
    rec.done_ns.iter().max().unwrap() - first
}

#[test]
fn a_read_queued_in_the_drive_has_its_overhead_done_while_it_waits() {
    // Same commands, same order (FCFS): with every command queued in the drive, each
    // read's overhead overlaps the command before it; one at a time it cannot. (9 ms of a
    // 10 ms revolution: a smaller one is mostly absorbed by the rotational wait.)
    let mut spec = toy_spec(3.0, 7.0);
    spec.overheads.time_scale = 1.0;
    let base_host = last_done_ns(&spec, 1);
    let base_drive = last_done_ns(&spec, 64);
    assert_eq!(base_host, base_drive);
    spec.overheads.read_miss_after_read_ms = 9.0;
    spec.overheads.read_miss_after_write_ms = 9.0;
    let host = last_done_ns(&spec, 1);
    assert!(host > base_host, "{host} {base_host}");
    // The forty commands arrive at once: in the drive the reads' command phases take the
    // bus one after another while the first command is in service (DiskSim's controller
    // rule, `firmware_arrival_bus.rs`), so the first completion comes late; after
    // it every queued read has its overhead done, and the rest go faster than one at a
    // time.
    let host = span_after_first_ns(&spec, 1);
    let drive = span_after_first_ns(&spec, 64);
    assert!(
        drive < host,
        "queued in the drive {drive} vs one at a time {host}"
    );
    // A drive that never disconnects holds the bus: nothing reaches it early.
    spec.cache = Some(headway::device::hdd::spec::CacheSpec {
        enabled: false,
        never_disconnect: true,
        ..Default::default()
    });
    assert_eq!(last_done_ns(&spec, 64), last_done_ns(&spec, 1));
}

#[test]
fn disksim_policy_numbers_map_to_firmware_schedulers_or_fail_clearly() {
    use headway::device::hdd::policy_name;
    assert_eq!(policy_name(1).unwrap(), "fcfs");
    assert_eq!(policy_name(8).unwrap(), "sptf");
    assert_eq!(policy_name(5).unwrap(), "look");
    let e = policy_name(3).unwrap_err().to_string();
    assert!(
        e.contains("CYCLE_LBN") && e.contains("Scheduling policy"),
        "{e}"
    );
    let mut spec = toy_spec(0.0, 0.0);
    spec.queue.policy = 10;
    let e = HddDevice::new(&spec, 4).err().unwrap().to_string();
    assert!(e.contains("SATF"), "{e}");
}

#[test]
fn experiment_files_choose_the_firmware_scheduler_by_name() {
    use headway::config::{build_simulation, ExperimentConfig};
    let toml = |sched: &str| {
        format!(
            "[drive]\nname=\"cheetah9lp\"\nqueue_depth=16\nfirmware_scheduler=\"{sched}\"\n\
             [host]\nscheduler=\"fcfs\"\n[workload]\nrequests=2000\ninterarrival_ms=2.0\n"
        )
    };
    let run = |sched: &str| {
        let cfg = ExperimentConfig::from_toml_str(&toml(sched), None).unwrap();
        build_simulation(&cfg, None)
            .unwrap()
            .simulation
            .run()
            .unwrap()
    };
    // An overloaded drive: reordering inside it must beat serving in arrival order.
    let fcfs = run("fcfs").summary.response.mean_ms;
    let sptf = run("sptf").summary.response.mean_ms;
    assert!(sptf < 0.8 * fcfs, "sptf {sptf} ms vs fcfs {fcfs} ms");
    let cfg = ExperimentConfig::from_toml_str(&toml("scan"), None).unwrap();
    let e = build_simulation(&cfg, None).err().unwrap().to_string();
    assert!(
        e.contains("firmware scheduler") && e.contains("sptf"),
        "{e}"
    );
}

#[test]
fn the_firmware_sptf_ranks_its_queue_from_the_end_of_a_write_back() {
    // A write-back drive serves each write's media access right after taking the write, as
    // a write-through drive does, and only reports it sooner. Ranking the rest of the queue
    // as if the arm were free at the report puts every rotational estimate off by the rest
    // of the write-back and the choices degrade to near-random: the write-back drive then
    // takes much longer over the same commands than the write-through one. Without
    // read-ahead: with it, reads chosen just as the read-ahead stops lose a revolution now
    // and then (8 of these 40 commands write-through, 13 write-back, since the firmware
    // chooses at the write-back's end: docs/fidelity.md, "SPTF over fast writes"), which
    // swamps the comparison. The forty commands reach the drive together, and each write
    // arriving at the write-back drive holds the bus for its write-hit overhead (as in
    // DiskSim, `ArrivalHoldsBus`; a write-through write does not, DiskSim never having it
    // disconnect): without that overhead here, so that only the ranking differs.
    let mut spec_through = cached_spec(0);
    let mut spec_back = cached_spec(1);
    for s in [&mut spec_through, &mut spec_back] {
        s.cache.as_mut().unwrap().buffer_continuous_read = 0;
        s.overheads.write_hit_after_read_ms = 0.0;
        s.overheads.write_hit_after_write_ms = 0.0;
    }
    let through = *run_queue(&spec_through, 64, false, "sptf")
        .done_ns
        .iter()
        .max()
        .unwrap();
    let back = *run_queue(&spec_back, 64, false, "sptf")
        .done_ns
        .iter()
        .max()
        .unwrap();
    assert!(
        back as f64 <= through as f64 * 1.05,
        "write-back {:.2} ms, write-through {:.2} ms",
        back as f64 / 1e6,
        through as f64 / 1e6
    );
}

#[test]
fn a_bad_firmware_sptf_angle_is_refused_naming_the_key_and_the_values() {
    use headway::config::ExperimentConfig;
    let toml = "[drive]\nname = \"atlas10k\"\nqueue_depth = 8\nfirmware_scheduler = \"sptf\"\n\
                firmware_sptf_angle = \"stale\"\n";
    let e = ExperimentConfig::from_toml_str(toml, None)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("line 5")
            && e.contains("drive.firmware_sptf_angle")
            && e.contains("`stale`")
            && e.contains("`decision` or `last-media-event`"),
        "{e}"
    );
}
