//! `mq-deadline`: Linux's deadline I/O scheduler in its blk-mq form, the baseline the
//! kernel kept after removing the anticipatory scheduler. Reads and writes each have a
//! FIFO with an expiry (`read_expire_ms` 500, `write_expire_ms` 5000) and an LBN-sorted
//! order; requests go out in batches of up to `fifo_batch` (16) in one direction, sweeping
//! upwards in LBN from the last one dispatched; a new batch prefers reads, unless writes
//! have been passed over `writes_starved` (2) times; a batch starts from the FIFO head when
//! that has expired, or when the sweep has nothing left above the head.
//!
//! Zoned write locking (`zone_size_sectors` > 0, for a zoned drive, `docs/smr.md`): as the
//! kernel does for a zoned device, at most one write per sequential zone is in flight (the
//! zone is locked from dispatch to completion, and writes to a locked zone are passed
//! over), and a write batch started from the FIFO head starts from the lowest-LBN write of
//! the head's zone, so that writes reach each zone in order. Zones below
//! `conventional_zones` are not locked. [TEAM CHOICE] The scheduler is told the zone size
//! by these options (a scheduler does not see the device). Zone appends are not locked (as
//! in the kernel, which locks only regular writes): the drive places each at the write
//! pointer, so any number may be in flight to one zone and in any order. An append sorts
//! at the LBN it carries (its zone's start) and does not move the sweep position.
//!
//! Differences from the kernel: no request merging (headway's host merges nothing here),
//! no I/O priorities, and the sweep position is the end of the last dispatched request
//! (the kernel's `next_rq` pointer).

use std::collections::BTreeSet;

use crate::error::{HeadwayError, Result};
use crate::request::{Command, Completion, Request};
use crate::request_marks::ZoneOp;
use crate::sched::{Decision, Hints, OptionReader, Placement, SchedCtx, Scheduler};
use crate::time::{ms_to_ns, SimTime};

const READ: usize = 0;
const WRITE: usize = 1;

pub struct MqDeadline {
    /// Per direction, in arrival order (the FIFO); the sorted order is found by scanning.
    fifo: [Vec<Request>; 2],
    expire_ns: [SimTime; 2],
    fifo_batch: u32,
    writes_starved: u32,
    /// Direction and size of the batch under way, the sweep position, and how many batches
    /// were started with reads while writes waited.
    batch_dir: usize,
    batching: u32,
    next_lbn: u64,
    starved: u32,
    /// Zoned write locking: zone size (0: off), the conventional zones below it, and the
    /// zones with a write in flight.
    zone_size_sectors: u64,
    conventional_zones: u64,
    locked: BTreeSet<u64>,
}

/// What the next dispatch does to the batch state (applied at commit).
struct Choice {
    dir: usize,
    index: usize,
    new_batch: bool,
}

impl MqDeadline {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        let fifo_batch = o.u64("fifo_batch", 16, 1, 1 << 20)? as u32;
        Ok(MqDeadline {
            fifo: [Vec::new(), Vec::new()],
            expire_ns: [
                ms_to_ns(o.f64("read_expire_ms", 500.0, 0.0, 1e9)?),
                ms_to_ns(o.f64("write_expire_ms", 5000.0, 0.0, 1e9)?),
            ],
            fifo_batch,
            writes_starved: o.u64("writes_starved", 2, 0, 1 << 20)? as u32,
            batch_dir: READ,
            // No batch under way: the first dispatch starts one.
            batching: fifo_batch,
            next_lbn: 0,
            starved: 0,
            zone_size_sectors: o.u64("zone_size_sectors", 0, 0, u64::MAX)?,
            conventional_zones: o.u64("conventional_zones", 0, 0, u64::MAX)?,
            locked: BTreeSet::new(),
        })
    }

    /// The sequential zone a write locks, or `None` (a read, a zone append, no locking, a
    /// conventional zone).
    fn lock_zone(&self, r: &Request) -> Option<u64> {
        if r.op.is_read() || self.zone_size_sectors == 0 {
            return None;
        }
        if r.marks.zone_op() == Some(ZoneOp::Append) {
            return None;
        }
        let zone = r.lbn / self.zone_size_sectors;
        (zone >= self.conventional_zones).then_some(zone)
    }

    /// Whether `r` may go out now (not a write to a locked zone).
    fn dispatchable(&self, r: &Request) -> bool {
        self.lock_zone(r).is_none_or(|z| !self.locked.contains(&z))
    }

    /// Where a batch in `dir` starts from the FIFO: its head, or with zone locking the
    /// first dispatchable write in FIFO order, moved back to the lowest-LBN write of its zone.
    fn fifo_start(&self, dir: usize) -> Option<usize> {
        let head = self.fifo[dir].iter().position(|r| self.dispatchable(r))?;
        let Some(zone) = self.lock_zone(&self.fifo[dir][head]) else {
            return Some(head);
        };
        self.fifo[dir]
            .iter()
            .enumerate()
            .filter(|(_, r)| self.lock_zone(r) == Some(zone))
            .min_by_key(|(i, r)| (r.lbn, *i))
            .map(|(i, _)| i)
    }

    /// The request at or above the sweep position with the lowest LBN (ties: earliest).
    fn next_in_sort(&self, dir: usize) -> Option<usize> {
        self.fifo[dir]
            .iter()
            .enumerate()
            .filter(|(_, r)| r.lbn >= self.next_lbn && self.dispatchable(r))
            .min_by_key(|(i, r)| (r.lbn, *i))
            .map(|(i, _)| i)
    }

    fn choose(&self, now: SimTime) -> Option<Choice> {
        if self.batching < self.fifo_batch && !self.fifo[self.batch_dir].is_empty() {
            if let Some(index) = self.next_in_sort(self.batch_dir) {
                return Some(Choice {
                    dir: self.batch_dir,
                    index,
                    new_batch: false,
                });
            }
        }
        let ready = |dir: usize| self.fifo[dir].iter().any(|r| self.dispatchable(r));
        let (reads, writes) = (ready(READ), ready(WRITE));
        let dir = match (reads, writes) {
            (false, false) => return None,
            (true, true) if self.starved >= self.writes_starved => WRITE,
            (true, _) => READ,
            (false, true) => WRITE,
        };
        let start = self.fifo_start(dir)?;
        let head = &self.fifo[dir][start];
        let expired = now >= head.arrival_ns.saturating_add(self.expire_ns[dir]);
        let index = match self.next_in_sort(dir) {
            Some(i) if !expired => i,
            _ => start,
        };
        Some(Choice {
            dir,
            index,
            new_batch: true,
        })
    }
}

impl Scheduler for MqDeadline {
    fn name(&self) -> &str {
        "mq-deadline"
    }
    fn on_arrival(&mut self, req: Request, _ctx: &SchedCtx) {
        let dir = if req.op.is_read() { READ } else { WRITE };
        self.fifo[dir].push(req);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let Some(dev) = self.fifo.iter().find_map(|f| f.first()).map(|r| r.device) else {
            return Decision::Idle;
        };
        if !ctx.has_slot(dev) {
            return Decision::Idle;
        }
        match self.choose(ctx.now) {
            Some(c) => Decision::Dispatch(Command::single(self.fifo[c.dir][c.index])),
            None => Decision::Idle,
        }
    }
    fn commit(&mut self, cmd: &Command, _placement: Placement, ctx: &SchedCtx) -> Result<()> {
        let c = self.choose(ctx.now).filter(|c| {
            cmd.requests.len() == 1 && self.fifo[c.dir][c.index].id == cmd.requests[0].id
        });
        let Some(c) = c else {
            return Err(HeadwayError::Invariant(
                "mq-deadline: committed a command it did not propose".into(),
            ));
        };
        if c.new_batch {
            if c.dir == READ && !self.fifo[WRITE].is_empty() {
                self.starved += 1;
            } else if c.dir == WRITE {
                self.starved = 0;
            }
            self.batch_dir = c.dir;
            self.batching = 0;
        }
        let r = self.fifo[c.dir].remove(c.index);
        if let Some(zone) = self.lock_zone(&r) {
            self.locked.insert(zone);
        }
        self.batching += 1;
        // An append's LBN names its zone, not where it lands: the sweep stays put, so that it
        // does not pass over the zone's plain writes below it.
        if r.marks.zone_op() != Some(ZoneOp::Append) {
            self.next_lbn = r.end_lbn();
        }
        Ok(())
    }
    fn on_completion(&mut self, done: &Completion, _ctx: &SchedCtx) {
        if self.locked.is_empty() {
            return;
        }
        for r in &done.command.requests {
            if let Some(zone) = self.lock_zone(r) {
                self.locked.remove(&zone);
            }
        }
    }
    fn hints(&self) -> Hints {
        Hints::SLOT_DRIVEN
    }
    fn pending(&self) -> usize {
        self.fifo[READ].len() + self.fifo[WRITE].len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::HeadPosition;
    use crate::request::Op;
    use crate::sched::testkit::{options, predictor};

    fn req(id: u64, arrival: SimTime, lbn: u64, op: Op) -> Request {
        let mut r = Request::new(arrival, lbn, 8, op);
        r.id = id;
        r
    }

    #[test]
    fn sweeps_reads_in_lbn_order_and_serves_an_expired_read_first() {
        let preds = predictor(HeadPosition::default());
        let o = options("read_expire_ms = 10");
        let mut s = MqDeadline::from_options(&OptionReader::new("mq-deadline", &o)).unwrap();
        let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
        for (id, lbn) in [(0, 5000), (1, 1000), (2, 3000)] {
            s.on_arrival(req(id, 0, lbn, Op::Read), &ctx);
        }
        let order: Vec<u64> = (0..3)
            .map(|_| match s.decide(&ctx) {
                Decision::Dispatch(c) => c.requests[0].lbn,
                d => panic!("{d:?}"),
            })
            .collect();
        assert_eq!(order, [1000, 3000, 5000]);
        // A new batch after the oldest read expired starts from the FIFO head, not the
        // sweep: the read at LBN 10 waited 20 ms > 10 ms.
        let mut s = MqDeadline::from_options(&OptionReader::new(
            "mq-deadline",
            &options("read_expire_ms = 10\nfifo_batch = 1"),
        ))
        .unwrap();
        s.on_arrival(req(0, 0, 9000, Op::Read), &ctx);
        s.on_arrival(req(1, 0, 10, Op::Read), &ctx);
        s.on_arrival(req(2, 0, 9100, Op::Read), &ctx);
        let late = SchedCtx::new(20_000_000, &preds, &[0], &[1]);
        let first = |s: &mut MqDeadline| match s.decide(&late) {
            Decision::Dispatch(c) => c.requests[0].lbn,
            d => panic!("{d:?}"),
        };
        assert_eq!(first(&mut s), 9000, "the FIFO head has expired");
        assert_eq!(first(&mut s), 10, "still the FIFO head: expired");
    }

    #[test]
    fn writes_get_a_batch_after_being_starved_twice() {
        let preds = predictor(HeadPosition::default());
        let o = options("fifo_batch = 1");
        let mut s = MqDeadline::from_options(&OptionReader::new("mq-deadline", &o)).unwrap();
        let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
        s.on_arrival(req(0, 0, 100, Op::Write), &ctx);
        for id in 1..5 {
            s.on_arrival(req(id, 0, 1000 * id, Op::Read), &ctx);
        }
        let ops: Vec<bool> = (0..4)
            .map(|_| match s.decide(&ctx) {
                Decision::Dispatch(c) => c.op.is_read(),
                d => panic!("{d:?}"),
            })
            .collect();
        assert_eq!(ops, [true, true, false, true]);
    }

    #[test]
    fn zoned_write_locking_keeps_one_write_per_zone_in_flight_and_each_zone_in_order() {
        let preds = predictor(HeadPosition::default());
        let o = options("zone_size_sectors = 1000\nconventional_zones = 1");
        let mut s = MqDeadline::from_options(&OptionReader::new("mq-deadline", &o)).unwrap();
        let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
        // Zone 2's writes arrive out of order; zone 0 is conventional.
        for (id, lbn) in [(0, 2016), (1, 2000), (2, 2008), (3, 3000), (4, 10), (5, 20)] {
            s.on_arrival(req(id, 0, lbn, Op::Write), &ctx);
        }
        let next = |s: &mut MqDeadline| match s.decide(&ctx) {
            Decision::Dispatch(c) => Some(c),
            Decision::Idle => None,
            d => panic!("{d:?}"),
        };
        let lbns = |v: &[Command]| v.iter().map(|c| c.lbn).collect::<Vec<_>>();
        let mut sent = Vec::new();
        while let Some(c) = next(&mut s) {
            sent.push(c);
        }
        // The batch sweeps up in LBN order, taking one write of zone 2 (its lowest), then
        // zone 3's; the conventional zone is not locked.
        assert_eq!(lbns(&sent), [10, 20, 2000, 3000]);
        let done = |c: &Command| Completion {
            command: c.clone(),
            done_ns: 1,
            phases: Default::default(),
            cache_hit: false,
            head: HeadPosition::default(),
            head_lbn: 0,
        };
        s.on_completion(&done(&sent[2]), &ctx);
        // Nothing is left above the sweep: a new batch from the FIFO head's zone (2016's),
        // starting at that zone's lowest write.
        let c = next(&mut s).unwrap();
        assert_eq!(c.lbn, 2008);
        assert!(next(&mut s).is_none(), "2016 waits for 2008");
        s.on_completion(&done(&c), &ctx);
        assert_eq!(next(&mut s).unwrap().lbn, 2016);
    }

    #[test]
    fn zone_appends_are_not_locked_so_several_go_to_one_zone_at_once() {
        let preds = predictor(HeadPosition::default());
        let o = options("zone_size_sectors = 1000\nconventional_zones = 1");
        let mut s = MqDeadline::from_options(&OptionReader::new("mq-deadline", &o)).unwrap();
        let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
        let append = |id| {
            let mut r = req(id, 0, 2000, Op::Write);
            r.marks.set_zone_op(Some(ZoneOp::Append));
            r
        };
        for id in 0..3 {
            s.on_arrival(append(id), &ctx);
        }
        s.on_arrival(req(3, 0, 2000, Op::Write), &ctx);
        s.on_arrival(req(4, 0, 2008, Op::Write), &ctx);
        let mut sent = Vec::new();
        while let Decision::Dispatch(c) = s.decide(&ctx) {
            sent.push((c.requests[0].id, c.zone_op()));
        }
        // All three appends and the first plain write go out with nothing completed; the
        // second plain write waits for the first (the zone is locked by plain writes only).
        let a = Some(ZoneOp::Append);
        assert_eq!(sent, [(0, a), (1, a), (2, a), (3, None)]);
    }
}
