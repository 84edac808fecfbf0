use super::*;
use crate::device::zoned::{ZoneCondition, ZoneType};
use crate::request::{HeadPosition, Phases};
use crate::sched::testkit::predictor;
use std::cell::RefCell;
use std::rc::Rc;

/// Dispatches the request that arrived last first: the worst order for a zone. It records
/// the requests of each completion it hears of.
#[derive(Default)]
struct Lifo {
    queue: Vec<Request>,
    heard: Rc<RefCell<Vec<Vec<Request>>>>,
}

impl Scheduler for Lifo {
    fn name(&self) -> &str {
        "lifo"
    }
    fn on_arrival(&mut self, req: Request, _: &SchedCtx) {
        self.queue.push(req);
    }
    fn on_completion(&mut self, done: &Completion, _: &SchedCtx) {
        self.heard.borrow_mut().push(done.command.requests.to_vec());
    }
    fn propose(&mut self, _: &SchedCtx) -> Decision {
        self.queue
            .last()
            .map_or(Decision::Idle, |r| Decision::Dispatch(Command::single(*r)))
    }
    fn commit(&mut self, cmd: &Command, _: Placement, _: &SchedCtx) -> Result<()> {
        // Only its own proposal: a command of the host's requests would be an error.
        assert_eq!(cmd.requests.as_slice(), &[*self.queue.last().unwrap()]);
        self.queue.pop();
        Ok(())
    }
    fn pending(&self) -> usize {
        self.queue.len()
    }
}

/// A conventional zone 0 and sequential zones 1-3 of 100 sectors; zone 2 holds 30.
fn report() -> Vec<Zone> {
    (0..4)
        .map(|i| Zone {
            start_lbn: i * 100,
            size_sectors: 100,
            zone_type: if i == 0 {
                ZoneType::Conventional
            } else {
                ZoneType::SequentialWriteRequired
            },
            condition: ZoneCondition::Empty,
            write_pointer_lbn: i * 100 + if i == 2 { 30 } else { 0 },
        })
        .collect()
}

fn plug(append: ZoneAppend) -> ZonePlug {
    merging_plug(append, None).0
}

/// A plug over `Lifo` merging up to `merge_max_sectors`, and what `Lifo` hears completed.
fn merging_plug(
    append: ZoneAppend,
    merge_max_sectors: Option<u32>,
) -> (ZonePlug, Rc<RefCell<Vec<Vec<Request>>>>) {
    let r = report();
    let inner = Lifo::default();
    let heard = inner.heard.clone();
    let settings = PlugSettings {
        append,
        merge_max_sectors,
    };
    (ZonePlug::new(Box::new(inner), &[Some(&r)], settings), heard)
}

fn write(id: u64, lbn: u64, zone_op: Option<ZoneOp>) -> Request {
    sized_write(id, lbn, 10, zone_op)
}

fn sized_write(id: u64, lbn: u64, sectors: u32, zone_op: Option<ZoneOp>) -> Request {
    let mut r = Request::new(0, lbn, sectors, Op::Write);
    r.id = id;
    r.marks.set_zone_op(zone_op);
    r
}

fn done(cmd: Command) -> Completion {
    Completion {
        command: cmd,
        done_ns: 0,
        phases: Phases::default(),
        cache_hit: false,
        head: HeadPosition::default(),
        head_lbn: 0,
    }
}

/// Dispatch everything the scheduler gives now: (id, lbn) of each command.
fn drain(s: &mut ZonePlug, ctx: &SchedCtx) -> Vec<Command> {
    let mut out = Vec::new();
    while let Decision::Dispatch(c) = s.decide(ctx) {
        out.push(c);
    }
    out
}

#[test]
fn a_zone_s_writes_leave_one_at_a_time_in_arrival_order() {
    let preds = predictor(HeadPosition::default());
    let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
    let mut s = plug(ZoneAppend::Native);
    // Zone 1: three writes in order; zone 0 (conventional) and a read pass the plug.
    for (id, lbn) in [(0, 100), (1, 110), (2, 120), (3, 5), (4, 50)] {
        s.on_arrival(write(id, lbn, None), &ctx);
    }
    let mut read = Request::new(0, 100, 10, Op::Read);
    read.id = 5;
    s.on_arrival(read, &ctx);
    assert_eq!(s.pending(), 6);
    let ids = |cs: &[Command]| cs.iter().map(|c| c.requests[0].id).collect::<Vec<_>>();
    // Without the plug the last-first order would send 120 first (unaligned at 100).
    let first = drain(&mut s, &ctx);
    assert_eq!(ids(&first), [5, 4, 3, 0]);
    assert_eq!(s.pending(), 2, "110 and 120 wait in zone 1's plug");
    for c in first {
        s.on_completion(&done(c), &ctx);
    }
    assert_eq!(s.write_pointer_lbn(0, 100), Some(110));
    let second = drain(&mut s, &ctx);
    assert_eq!(ids(&second), [1]);
    s.on_completion(&done(second[0].clone()), &ctx);
    let third = drain(&mut s, &ctx);
    assert_eq!(ids(&third), [2]);
    s.on_completion(&done(third[0].clone()), &ctx);
    assert_eq!((s.pending(), s.write_pointer_lbn(0, 100)), (0, Some(130)));
    assert_eq!(s.write_pointer_lbn(0, 5), None, "conventional: no pointer");
}

#[test]
fn emulated_appends_get_consecutive_lbns_and_a_reset_rewinds_the_pointer() {
    let preds = predictor(HeadPosition::default());
    let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
    let mut s = plug(ZoneAppend::Emulated);
    // Zone 2 starts with 30 sectors written (its report): appends go at 230, 240, 250.
    for id in 0..3 {
        s.on_arrival(write(id, 200, Some(ZoneOp::Append)), &ctx);
    }
    s.on_arrival(write(3, 200, Some(ZoneOp::Reset)), &ctx);
    s.on_arrival(write(4, 200, Some(ZoneOp::Append)), &ctx);
    let mut placed = Vec::new();
    while let [c] = drain(&mut s, &ctx).as_slice() {
        let r = c.requests[0];
        placed.push((r.id, c.lbn, r.marks.zone_op(), r.marks.emulated_append()));
        s.on_completion(&done(c.clone()), &ctx);
    }
    let reset = Some(ZoneOp::Reset);
    assert_eq!(
        placed,
        [
            (0, 230, None, true),
            (1, 240, None, true),
            (2, 250, None, true),
            (3, 200, reset, false),
            (4, 200, None, true),
        ]
    );
    assert_eq!(s.write_pointer_lbn(0, 200), Some(210));
}

#[test]
fn a_refused_write_leaves_the_pointer_and_native_appends_pass_the_plug() {
    let preds = predictor(HeadPosition::default());
    let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
    let mut s = plug(ZoneAppend::Native);
    s.on_arrival(write(0, 300, None), &ctx);
    s.on_arrival(write(1, 300, Some(ZoneOp::Append)), &ctx);
    s.on_arrival(write(2, 300, Some(ZoneOp::Append)), &ctx);
    let sent = drain(&mut s, &ctx);
    assert_eq!(sent.len(), 3, "appends are not plugged");
    let mut refused = sent[2].clone();
    assert_eq!(refused.requests[0].id, 0);
    refused.requests[0]
        .marks
        .set_error(Some(crate::request_marks::ZoneError::UnalignedWrite));
    s.on_completion(&done(refused), &ctx);
    assert_eq!(s.write_pointer_lbn(0, 300), Some(300));
    // The drive placed an append at 300: its completed request says so.
    let mut placed = sent[0].clone();
    placed.requests[0].lbn = 300;
    s.on_completion(&done(placed), &ctx);
    assert_eq!(s.write_pointer_lbn(0, 300), Some(310));
}

/// (ids, lbn, sectors) of a command.
fn shape(c: &Command) -> (Vec<u64>, u64, u32) {
    (c.requests.iter().map(|r| r.id).collect(), c.lbn, c.sectors)
}

#[test]
fn three_writes_waiting_behind_a_plugged_one_leave_as_one_24_sector_command() {
    let preds = predictor(HeadPosition::default());
    let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
    let (mut s, heard) = merging_plug(ZoneAppend::Native, Some(2560));
    // Four contiguous 8-sector writes to zone 1 (100-199): the first leaves the plug at
    // once, the other three wait behind it.
    for (id, lbn) in [(0, 100), (1, 108), (2, 116), (3, 124)] {
        s.on_arrival(sized_write(id, lbn, 8, None), &ctx);
    }
    let first = drain(&mut s, &ctx);
    assert_eq!(
        first.iter().map(shape).collect::<Vec<_>>(),
        [(vec![0], 100, 8)]
    );
    assert_eq!(s.pending(), 3);
    s.on_completion(&done(first[0].clone()), &ctx);
    // The plug lets 108 go with 116 and 124 behind it: the inner scheduler holds one
    // request (8 + 8 + 8 sectors), the host still counts three.
    assert_eq!(s.pending(), 3);
    let merged = drain(&mut s, &ctx);
    assert_eq!(
        merged.iter().map(shape).collect::<Vec<_>>(),
        [(vec![1, 2, 3], 108, 24)]
    );
    assert_eq!(s.pending(), 0);
    s.on_completion(&done(merged[0].clone()), &ctx);
    assert_eq!(s.write_pointer_lbn(0, 100), Some(132));
    // The inner scheduler heard of its own one 24-sector request, not the host's three.
    let heard = heard.borrow();
    assert_eq!(heard.len(), 2);
    assert_eq!(
        (
            heard[1].len(),
            heard[1][0].id,
            heard[1][0].lbn,
            heard[1][0].sectors
        ),
        (1, 1, 108, 24)
    );
}

#[test]
fn a_merge_stops_at_a_gap_a_reset_the_limit_and_the_zone_end() {
    let preds = predictor(HeadPosition::default());
    let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
    let (mut s, _) = merging_plug(ZoneAppend::Native, Some(30));
    let reset = Some(ZoneOp::Reset);
    // Zone 1, 10-sector writes: 110-130 fill the 30-sector limit, 140 goes next; 160 leaves
    // a gap after 150 (the drive would refuse it; it goes alone); the reset travels alone,
    // and so does the write after it, which crosses the zone's end at 200.
    let arrivals = [
        sized_write(0, 100, 10, None),
        sized_write(1, 110, 10, None),
        sized_write(2, 120, 10, None),
        sized_write(3, 130, 10, None),
        sized_write(4, 140, 10, None),
        sized_write(5, 160, 10, None),
        sized_write(6, 100, 1, reset),
        sized_write(7, 100, 90, None),
        sized_write(8, 190, 20, None),
    ];
    for r in arrivals {
        s.on_arrival(r, &ctx);
    }
    let mut sent = Vec::new();
    while let [c] = drain(&mut s, &ctx).as_slice() {
        sent.push(shape(c));
        s.on_completion(&done(c.clone()), &ctx);
    }
    assert_eq!(
        sent,
        [
            (vec![0], 100, 10),
            (vec![1, 2, 3], 110, 30),
            (vec![4], 140, 10),
            (vec![5], 160, 10),
            (vec![6], 100, 1),
            (vec![7], 100, 90),
            (vec![8], 190, 20),
        ]
    );
    assert_eq!(s.pending(), 0);
}

#[test]
fn emulated_appends_merge_at_the_write_pointer() {
    let preds = predictor(HeadPosition::default());
    let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
    let (mut s, _) = merging_plug(ZoneAppend::Emulated, Some(2560));
    // Zone 2 holds 30 sectors: the first append goes to 230 alone, the next three wait and
    // leave as one write at 240-269, each placed where the one before it ends.
    for id in 0..4 {
        s.on_arrival(write(id, 200, Some(ZoneOp::Append)), &ctx);
    }
    let first = drain(&mut s, &ctx);
    assert_eq!(shape(&first[0]), (vec![0], 230, 10));
    s.on_completion(&done(first[0].clone()), &ctx);
    let merged = drain(&mut s, &ctx);
    assert_eq!(shape(&merged[0]), (vec![1, 2, 3], 240, 30));
    let placed: Vec<_> = merged[0]
        .requests
        .iter()
        .map(|r| (r.lbn, r.marks.zone_op(), r.marks.emulated_append()))
        .collect();
    assert_eq!(
        placed,
        [(240, None, true), (250, None, true), (260, None, true)]
    );
    s.on_completion(&done(merged[0].clone()), &ctx);
    assert_eq!(s.write_pointer_lbn(0, 200), Some(270));
}

#[test]
fn a_proposal_declined_and_then_committed_reaches_the_inner_scheduler_as_its_own() {
    let preds = predictor(HeadPosition::default());
    let ctx = SchedCtx::new(0, &preds, &[0], &[8]);
    let (mut s, _) = merging_plug(ZoneAppend::Native, Some(2560));
    for (id, lbn) in [(0, 300), (1, 310), (2, 320)] {
        s.on_arrival(write(id, lbn, None), &ctx);
    }
    let first = drain(&mut s, &ctx);
    s.on_completion(&done(first[0].clone()), &ctx);
    // A wrapper above asks, declines, asks again and takes it: the host's two requests go
    // out, and `Lifo::commit` checks it is given the one request it proposed.
    let Decision::Dispatch(c) = s.propose(&ctx) else {
        panic!("a merged write to propose")
    };
    assert_eq!(shape(&c), (vec![1, 2], 310, 20));
    s.declined(&c, &ctx);
    assert_eq!(s.propose(&ctx), Decision::Dispatch(c.clone()));
    assert_eq!(s.pending(), 2);
    s.commit(&c, Placement::Device, &ctx).unwrap();
    assert_eq!(s.pending(), 0);
    // Refused as a whole: the pointer stays, and the zone takes its next write.
    let mut refused = c;
    for r in refused.requests.iter_mut() {
        r.marks
            .set_error(Some(crate::request_marks::ZoneError::UnalignedWrite));
    }
    s.on_arrival(write(3, 310, None), &ctx);
    s.on_completion(&done(refused), &ctx);
    assert_eq!(s.write_pointer_lbn(0, 300), Some(310));
    assert_eq!(shape(&drain(&mut s, &ctx)[0]), (vec![3], 310, 10));
}
