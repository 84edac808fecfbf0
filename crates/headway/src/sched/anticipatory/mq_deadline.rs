//! `mq-deadline`: Linux's deadline I/O scheduler in its blk-mq form, the baseline the
//! kernel kept after removing the anticipatory scheduler. Reads and writes each have a
//! FIFO with an expiry (`read_expire_ms` 500, `write_expire_ms` 5000) and an LBN-sorted
//! order; requests go out in batches of up to `fifo_batch` (16) in one direction, sweeping
//! upwards in LBN from the last one dispatched; a new batch prefers reads, unless writes
//! have been passed over `writes_starved` (2) times; a batch starts from the FIFO head when
//! that has expired, or when the sweep has nothing left above the head.
//!
//! Differences from the kernel: no request merging (headway's host merges nothing here),
//! no zoned-device write locking, no I/O priorities, and the sweep position is the end of
//! the last dispatched request (the kernel's `next_rq` pointer).

use crate::error::{HeadwayError, Result};
use crate::request::{Command, Request};
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
        })
    }

    /// The request at or above the sweep position with the lowest LBN (ties: earliest).
    fn next_in_sort(&self, dir: usize) -> Option<usize> {
        self.fifo[dir]
            .iter()
            .enumerate()
            .filter(|(_, r)| r.lbn >= self.next_lbn)
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
        let (reads, writes) = (!self.fifo[READ].is_empty(), !self.fifo[WRITE].is_empty());
        let dir = match (reads, writes) {
            (false, false) => return None,
            (true, true) if self.starved >= self.writes_starved => WRITE,
            (true, _) => READ,
            (false, true) => WRITE,
        };
        let head = &self.fifo[dir][0];
        let expired = now >= head.arrival_ns.saturating_add(self.expire_ns[dir]);
        let index = match self.next_in_sort(dir) {
            Some(i) if !expired => i,
            _ => 0,
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
        self.batching += 1;
        self.next_lbn = r.end_lbn();
        Ok(())
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
}
