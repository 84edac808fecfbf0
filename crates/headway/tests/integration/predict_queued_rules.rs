//! The host's exact predictor against the drive, per request, on the bus rules the drive
//! follows with commands queued at it (docs/fidelity.md, "The host's predictor follows the
//! remaining queued rules"). Each case is one of `firmware_arrival_bus.rs` (where the
//! drive's completions are DiskSim 4.0's) or built like them: HP C2490A, FCFS over a drive
//! queue of 64, a read of 8 blocks at block 100,000 at 0 unless said. The predictor is asked
//! what the host would ask it ([`QueueModel::release_among`] for the command in service with
//! the commands sent meanwhile; [`plan_behind_queue`] for a command planned behind others)
//! and must give the drive's completion to the ns; each case also shows what the predictor
//! said without the rule.

use crate::common::{self, fnv};

use std::sync::Arc;

use headway::config::resolve_drive;
use headway::device::hdd::Mechanics;
use headway::predict::{Access, Among, Arrival, Moment, OraclePredictor, Predictor, QueueModel};
use headway::request::Op;
use headway::sched::{plan_behind_queue, SentCommand};
use headway::stats::RequestRecords;

const DRIVE: &str = "hp_c2490a";

fn oracle() -> OraclePredictor {
    oracle_of(DRIVE)
}

fn oracle_of(name: &str) -> OraclePredictor {
    let spec = resolve_drive(name, None).unwrap();
    OraclePredictor::of_drive(&spec, Arc::new(Mechanics::new(&spec).unwrap()), 0)
}

/// The drive's records for `reads` ((arrival ms, block, blocks), in arrival order), in the
/// order they arrived.
fn drive(reads: &[(f64, u64, u32)]) -> RequestRecords {
    let text: String = reads
        .iter()
        .map(|(at, lbn, n)| format!("{at} 0 {lbn} {n} 1\n"))
        .collect();
    records_on(DRIVE, &text)
}

/// The records of drive `name` (FCFS, a drive queue of 64) for the trace `text`, in the
/// order its commands arrived.
fn records_on(name: &str, text: &str) -> RequestRecords {
    let dir = common::scratch("pqr");
    let trace = dir.join(format!("{:016x}.trace", fnv(text)));
    std::fs::write(&trace, text).unwrap();
    let rec = common::replay_records(name, 64, "fcfs", &trace);
    std::fs::remove_file(&trace).ok();
    let mut order: Vec<usize> = (0..rec.len()).collect();
    order.sort_by_key(|&i| rec.id[i]);
    assert!(
        order.iter().enumerate().all(|(k, &i)| i == k),
        "records in id order"
    );
    rec
}

/// The first read's completion as the predictor has it, begun at its arrival on an idle
/// drive, with the later commands of `rec` reaching the drive during it; and alone.
fn first_read_done(p: &OraclePredictor, rec: &RequestRecords) -> (u64, u64) {
    let op = |i: usize| if rec.is_read[i] { Op::Read } else { Op::Write };
    let arrivals: Vec<Arrival> = (1..rec.len())
        .map(|i| Arrival::new(rec.dispatch_ns[i], op(i)))
        .collect();
    let t = rec.dispatch_ns[0];
    let mut enters = vec![0; arrivals.len()];
    let (lbn, n) = (rec.lbn[0], rec.sectors[0]);
    let among = p.release_among(
        Moment::new(p.head(), t),
        Access::new(lbn, n, Op::Read),
        Among {
            arrivals: &arrivals,
            began_idle: true,
            enters_ns: &mut enters,
        },
    );
    let alone = p.release(Moment::new(p.head(), t), Access::new(lbn, n, Op::Read));
    (among.done_ns.unwrap(), alone.done_ns.unwrap())
}

/// A read larger than its segment (400 blocks against the HP C2490A's 256) asks for the bus
/// back as any read miss, so a read arriving before then holds the bus past the ask and
/// moves its completion (the drive's rule (b) of busrest, DiskSim's 74.061 and 76.361 ms).
/// The predictor gave such a read no ask time: arrivals left it at 73.974 ms. One arriving
/// after the ask (15 ms) changes nothing, in both.
#[test]
fn a_read_larger_than_its_segment_is_held_by_an_arrival_before_its_ask() {
    let p = oracle();
    for (at_ms, moved) in [(11.0, true), (13.3, true), (15.0, false)] {
        let rec = drive(&[(0.0, 100_000, 400), (at_ms, 500_000, 8)]);
        let (done, alone) = first_read_done(&p, &rec);
        assert_eq!(done, rec.done_ns[0], "a read at {at_ms} ms");
        assert_eq!(done != alone, moved, "a read at {at_ms} ms: alone {alone}");
    }
}

/// The read in service cannot ask for the bus while an arrival's overhead holds it: asking
/// during the hold of a read that arrived at 11 ms, it asks at that hold's end (14.616 ms),
/// so a read arriving at 13.8 ms, after the first read's own ask (13.46 ms) but before
/// 14.616, holds the bus first (the drive's `InService::ask_at_ns`; DiskSim's 19.500 ms).
/// The predictor let the read at 13.8 ms wait for the completion: 15.884 ms.
#[test]
fn the_read_in_service_asks_for_the_bus_at_the_end_of_the_hold_it_fell_in() {
    let p = oracle();
    let rec = drive(&[(0.0, 100_000, 8), (11.0, 500_000, 8), (13.8, 300_000, 8)]);
    let (done, _) = first_read_done(&p, &rec);
    assert_eq!(rec.done_ns[0], 19_500_280);
    assert_eq!(done, rec.done_ns[0]);
    // Without the rule: the read at 13.8 ms asked after the ask and changes nothing.
    let only_first = Arrival::new(rec.dispatch_ns[1], Op::Read);
    let mut e = [0];
    let r = p.release_among(
        Moment::new(p.head(), 0),
        Access::new(100_000, 8, Op::Read),
        Among {
            arrivals: &[only_first],
            began_idle: true,
            enters_ns: &mut e,
        },
    );
    assert_eq!(r.done_ns, Some(15_884_280));
}

/// A read whose bus catches up with the media lets go of the bus until more blocks are in,
/// and a command arriving after the read asked for the bus takes it then, before the read
/// reconnects (`bus::next_gap`, the drive's `Drive::bus_gap`): the cases of
/// `firmware_arrival_bus.rs`'s `a_command_takes_the_bus_while_the_read_in_service_waits_for_the_media`,
/// where the drive's completions are DiskSim's. Barracuda, a read of 8 at block 3,162,792
/// (free 15.292-16.614 ms): a write arriving at 15.9 or 16.0 ms, or a read at 16.1, holds
/// the bus past the read's second ask (17.446, 17.546, 17.249 ms); the predictor let each
/// wait for the completion (17.150 ms). Cheetah 9LP, a read of 8 at block 100,072 (free
/// 4.041-5.997 ms): a write at 5.5 ms or a read at 5.8 (6.668, 6.504 ms; the predictor
/// 6.417). The other arrivals move nothing, in both.
#[test]
fn a_command_after_the_ask_takes_the_bus_while_the_read_waits_for_the_media() {
    // (drive, the first read's block, the arrival's time in ms and op (1 read), whether it
    // moves the read's completion)
    let cases: [(&str, u64, &str, u8, bool); 9] = [
        ("barracuda", 3_162_792, "15.0", 0, false),
        ("barracuda", 3_162_792, "15.5", 0, false),
        ("barracuda", 3_162_792, "15.9", 0, true),
        ("barracuda", 3_162_792, "16.0", 0, true),
        ("barracuda", 3_162_792, "16.7", 0, false),
        ("barracuda", 3_162_792, "16.1", 1, true),
        ("cheetah9lp", 100_072, "3.8", 0, false),
        ("cheetah9lp", 100_072, "5.5", 0, true),
        ("cheetah9lp", 100_072, "5.8", 1, true),
    ];
    for (name, lbn, at, read, moved) in cases {
        let rec = records_on(name, &format!("0 0 {lbn} 8 1\n{at} 0 500000 8 {read}\n"));
        let (done, alone) = first_read_done(&oracle_of(name), &rec);
        let what = format!("{name}: a command (read {read}) at {at} ms, alone {alone}");
        assert_eq!(done, rec.done_ns[0], "{what}");
        assert_eq!(done != alone, moved, "{what}");
    }
}

/// Each read of `reads` (sent as they arrive at the drive, with those before it still
/// there), as the host plans it once all are sent, against the drive: (the predicted
/// completion, the drive's). The host plans the chain again at each send (the walk over the
/// commands at the drive); a read's completion is when the walk has the drive take up the
/// one behind it (the last one's, with nothing sent after it).
fn planned_vs_drive(p: &OraclePredictor, rec: &RequestRecords) -> Vec<(u64, u64)> {
    let mut chain: Vec<SentCommand> = Vec::new();
    let sent = |i: usize| {
        let t = rec.dispatch_ns[i];
        SentCommand {
            from: p.head(),
            start_ns: t,
            taken_ns: t,
            arrives_ns: t,
            enters_ns: t,
            id: i as u64,
            lbn: rec.lbn[i],
            sectors: rec.sectors[i],
            op: Op::Read,
        }
    };
    let replan = |chain: &mut Vec<SentCommand>, next: Arrival| {
        let links = chain.clone();
        plan_behind_queue(p, &links, next, |k, at| chain[k] = chain[k].planned(at))
    };
    for i in 0..rec.len() {
        let s = match chain.is_empty() {
            true => sent(i),
            false => sent(i).planned(replan(
                &mut chain,
                Arrival::new(rec.dispatch_ns[i], Op::Read),
            )),
        };
        chain.push(s);
    }
    // A read sent long after: it changes nothing, and the walk plans the whole chain.
    let never = Arrival::new(10 * rec.done_ns.iter().max().unwrap(), Op::Read);
    replan(&mut chain, never);
    let last = chain.last().unwrap();
    let alone = p.release(
        Moment::new(last.from, last.start_ns),
        Access::new(last.lbn, last.sectors, last.op),
    );
    (0..rec.len())
        .map(|i| {
            let done = chain
                .get(i + 1)
                .map_or(alone.done_ns.unwrap(), |s| s.taken_ns);
            (done, rec.done_ns[i])
        })
        .collect()
}

/// A burst of reads sent while the first read, begun on an idle bus, still holds it for its
/// command phase: each waits for the holds ahead of it, so the last enters the drive's
/// queue (and begins its command overhead) 3.616 ms per read ahead of it after the first
/// read's own disconnect, not at its arrival. Here seven reads at 0.1-0.7 ms, the last
/// ones within a few blocks of the reads ahead of them so that their positioning is short:
/// a read planned to begin its overhead at its arrival reaches its sectors just after they
/// pass, a revolution or more early in the plan.
#[test]
fn a_queued_read_begins_its_overhead_when_its_own_hold_begins() {
    let reads: Vec<(f64, u64, u32)> = std::iter::once((0.0, 100_000, 8))
        .chain((1..8).map(|k| (0.1 * k as f64, 100_000 + 600 * k as u64, 8)))
        .collect();
    let got = planned_vs_drive(&oracle(), &drive(&reads));
    for (k, (planned, drive)) in got.iter().enumerate() {
        assert_eq!(planned, drive, "read {k}: {got:?}");
    }
}

/// Two reads reaching the drive after the read in service asked for the bus back (at 14.0
/// and 14.1 ms; the first read asks at 13.46 and completes at 14.727 ms) wait for the bus
/// through its completion (the drive's `on_bus`). Then the first of them is taken up with
/// its whole command overhead to do, holding the bus through it, and the second reaches the
/// drive as it is taken up, before it asks for the bus: it holds the bus after that command
/// phase (3.616 ms and 3.616 ms more), which moves the first's completion when its sectors
/// come soon. The walk passed neither: the second had reached the drive before the first
/// was taken up, so it was no arrival during it. Over 40 places of the first of them on the
/// track after the read in service, the hold moves the drive's completion for some, and
/// the walk follows the drive at every one.
#[test]
fn reads_that_waited_for_the_bus_through_a_completion_hold_it_in_the_next_service() {
    let p = oracle();
    let mut moved = 0;
    for k in 0..40u64 {
        let lbn = 100_008 + 8 * k;
        let with = drive(&[(0.0, 100_000, 8), (14.0, lbn, 8), (14.1, 500_000, 8)]);
        // The same first two, the third sent long after.
        let without = drive(&[(0.0, 100_000, 8), (14.0, lbn, 8), (200.0, 500_000, 8)]);
        assert!(with.done_ns[0] < 14_800_000, "{with:?}");
        moved += u32::from(with.done_ns[1] != without.done_ns[1]);
        for (i, (planned, drive)) in planned_vs_drive(&p, &with).into_iter().enumerate() {
            assert_eq!(planned, drive, "block {lbn}, read {i}");
        }
    }
    assert!(moved > 0, "the hold never moved the completion");
}

/// The drive defers the ask of the read in service to the end of an arrival's hold only
/// when it falls *inside* that hold, not at its first ns (`(at + 1..until)` in the drive's
/// `arrival_on_bus`): a command that asks as a hold begins waits for the bus ahead of the
/// commands arriving during the hold (DiskSim's arbitration prefers the drive; its case is
/// the command chosen at a completion while a command that waited through it gets the bus,
/// `firmware_arrival_bus.rs`'s
/// `the_command_chosen_at_a_completion_gets_the_bus_before_later_arrivals`). A read miss
/// chosen at a completion asks only once its first blocks are in, after the hold that
/// begins there, so for the reads the predictor predicts the rule shows only when a hold
/// begins at the very ns the read asks: here a read arriving 3.616 ms (one hold) before
/// the read in service asks (13.46 ms) holds the bus until that ask, a read at 10 ms holds
/// it from the ask on, and a read at 14 ms, inside that second hold, asked after the read
/// in service and waits for its completion. The predictor let it hold the bus too.
#[test]
fn the_read_asking_as_a_hold_begins_gets_the_bus_before_later_arrivals() {
    let p = oracle();
    let asks = p
        .release(Moment::new(p.head(), 0), Access::new(100_000, 8, Op::Read))
        .bus_asked_ns
        .unwrap();
    let hold_ns = 3_616_000;
    let first_ms = (asks - hold_ns) as f64 / 1e6;
    let at = |later_ms: f64| {
        drive(&[
            (0.0, 100_000, 8),
            (first_ms, 500_000, 8),
            (10.0, 300_000, 8),
            (later_ms, 700_000, 8),
        ])
    };
    let rec = at(14.0);
    assert_eq!(
        rec.dispatch_ns[1] + hold_ns,
        asks,
        "the first hold ends at the ask"
    );
    // In the drive the read at 14 ms changes nothing for the read in service.
    assert_eq!(rec.done_ns[0], at(200.0).done_ns[0]);
    let (done, alone) = first_read_done(&p, &rec);
    assert_eq!(done, rec.done_ns[0], "alone {alone}");
}

/// The next step (docs/fidelity.md, "writes"): a read queued behind a write-through write
/// (the HP C2490A has no fast writes) is planned from the write's media end plus tail
/// (`Release::next_start_ns`), as a command sent to an idle drive, where the drive takes it
/// up at the write's completion with its command overhead done while it waited. The
/// predictor has no completion for a write (`Release::done_ns` is `None`) and no
/// `queued_next_ns`, so the walk cannot do better; here, a write of 8 at block 100,000 at 0
/// and a read of 8 at 100,200 at 1 ms.
#[test]
fn a_read_queued_behind_a_write_through_write_is_planned_to_the_ns() {
    let c = write_through_case(DRIVE);
    assert_eq!(
        c.read_planned_ns, c.read_done_ns,
        "the write done at {} (its service as predicted {}), the read planned from {}",
        c.write_done_ns, c.write_service_ns, c.read_from_ns
    );
}

/// The write-through case: a write of 8 at block 100,000 at 0 and a read of 8 at 100,200 at
/// 1 ms on drive `name`, the drive's completions and the predictor's plan of the read.
struct WriteThroughCase {
    write_done_ns: u64,
    write_predicted_ns: Option<u64>,
    write_service_ns: u64,
    read_done_ns: u64,
    read_planned_ns: u64,
    read_from_ns: u64,
}

fn write_through_case(name: &str) -> WriteThroughCase {
    let p = oracle_of(name);
    let rec = records_on(name, "0 0 100000 8 0\n1 0 100200 8 1\n");
    let write = SentCommand {
        from: p.head(),
        start_ns: 0,
        taken_ns: 0,
        arrives_ns: 0,
        enters_ns: 0,
        id: 0,
        lbn: 100_000,
        sectors: 8,
        op: Op::Write,
    };
    let next = Arrival::new(rec.dispatch_ns[1], Op::Read);
    let planned = plan_behind_queue(&p, &[write], next, |_, _| {});
    let r = p.release(
        Moment::new(planned.from, planned.start_ns),
        Access::new(100_200, 8, Op::Read),
    );
    let w = p.release(Moment::new(p.head(), 0), Access::new(100_000, 8, Op::Write));
    WriteThroughCase {
        write_done_ns: rec.done_ns[0],
        write_predicted_ns: w.done_ns,
        write_service_ns: w.estimate.service_ns(),
        read_done_ns: rec.done_ns[1],
        read_planned_ns: r.done_ns.unwrap(),
        read_from_ns: planned.start_ns,
    }
}

/// The IBM 18ES reads any free blocks without "Immediate buffer read": a read or read-ahead
/// starts mid-track only where its first block is not its track's first (docs/fidelity.md,
/// "read any free blocks, not at a track's start"), so a read-ahead that moves to the next
/// track waits for that track's first block. The predictor takes the rule from the drive's
/// own `ZeroLatency::of_reads` (it had zero latency everywhere for this setting, which gave
/// these same completions: the reads here are bus-bound, and the stop moved no queued read a
/// revolution). Reads of 8 blocks ending at a track's end, each with a read queued behind it
/// at 40 places on the next tracks; the walk must give the drive's completions to the ns.
#[test]
fn a_read_ahead_onto_the_next_track_waits_for_its_first_block_on_a_drive_reading_any_free_blocks() {
    let name = "ibm18es";
    let p = oracle_of(name);
    let spec = resolve_drive(name, None).unwrap();
    let mech = Mechanics::new(&spec).unwrap();
    for cylinder in [1_000, 9_000] {
        let start = mech.layout.first_lbn_on_track(cylinder, 1).unwrap();
        for k in 0..40u64 {
            let text = format!("0 0 {} 8 1\n0.1 0 {} 8 1\n", start - 8, start + 300 + 7 * k);
            let got = planned_vs_drive(&p, &records_on(name, &text));
            for (i, (planned, drive)) in got.iter().enumerate() {
                assert_eq!(
                    planned, drive,
                    "cylinder {cylinder}, place {k}, read {i}: {got:?}"
                );
            }
        }
    }
}

/// The write-through case on every drive without fast writes: the predictor plans the read
/// queued behind the write to the drive's nanosecond, and the write itself too
/// (docs/fidelity.md, the host's predictor per op).
#[test]
fn a_read_queued_behind_a_write_through_write_is_planned_to_the_ns_on_every_such_drive() {
    for name in [
        "hp_c2490a",
        "dec_rz26",
        "st41601n",
        "hp_c3323a",
        "hp_c2247a",
    ] {
        let c = write_through_case(name);
        assert_eq!(c.read_planned_ns, c.read_done_ns, "{name}: the read");
        assert_eq!(
            c.write_predicted_ns,
            Some(c.write_done_ns),
            "{name}: the write"
        );
    }
}
