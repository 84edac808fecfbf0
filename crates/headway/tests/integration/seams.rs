//! The scheduler interface carries what the research systems need: deliberate waiting
//! (anticipation), merged commands (freeblock, coalescing), two outstanding commands.

use headway::config::{build_simulation, ExperimentConfig};
use headway::error::Result;
use headway::request::{Command, Request};
use headway::sched::{Decision, Placement, SchedCtx, Scheduler};
use headway::time::SimTime;
use std::collections::VecDeque;

fn config(extra: &str) -> ExperimentConfig {
    ExperimentConfig::from_toml_str(
        &format!("seed = 4\n[drive]\nname = \"elite3\"\n{extra}\n[workload]\nrequests = 500\ninterarrival_ms = 30.0\n[output]\nrecords = true\n"),
        None,
    )
    .unwrap()
}

/// Holds every request for a fixed time after it arrives, then dispatches FCFS.
struct Delayer {
    q: VecDeque<Request>,
    hold_ns: SimTime,
}

impl Scheduler for Delayer {
    fn name(&self) -> &str {
        "delayer"
    }
    fn on_arrival(&mut self, req: Request, _ctx: &SchedCtx) {
        self.q.push_back(req);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let Some(r) = self.q.front() else {
            return Decision::Idle;
        };
        if !ctx.has_slot(0) {
            return Decision::Idle;
        }
        let ready = r.arrival_ns + self.hold_ns;
        if ctx.now < ready {
            return Decision::WaitUntil(ready);
        }
        Decision::Dispatch(Command::single(*r))
    }
    fn commit(&mut self, _: &Command, _: Placement, _: &SchedCtx) -> Result<()> {
        self.q.pop_front();
        Ok(())
    }
    fn pending(&self) -> usize {
        self.q.len()
    }
}

#[test]
fn a_scheduler_can_wait_on_purpose() {
    let hold = 2_500_000;
    let sim = build_simulation(
        &config(""),
        Some(Box::new(Delayer {
            q: VecDeque::new(),
            hold_ns: hold,
        })),
    )
    .unwrap()
    .simulation;
    let r = sim.run().unwrap();
    let rec = r.records.unwrap();
    assert_eq!(rec.len(), 500);
    for i in 0..rec.len() {
        assert!(
            rec.dispatch_ns[i] >= rec.arrival_ns[i] + hold,
            "request {i} dispatched before its hold expired"
        );
    }
    // Some request found the disk idle and was dispatched exactly when its timer fired.
    assert!((0..rec.len()).any(|i| rec.dispatch_ns[i] == rec.arrival_ns[i] + hold));
}

/// Dispatches pairs of arrivals as one merged command covering both (it makes them adjacent
/// by rewriting the second's address, which is fine for a test of the plumbing).
struct Pairer {
    q: Vec<Request>,
}

impl Scheduler for Pairer {
    fn name(&self) -> &str {
        "pairer"
    }
    fn on_arrival(&mut self, mut req: Request, _ctx: &SchedCtx) {
        if self.q.len() % 2 == 1 {
            let prev = self.q[self.q.len() - 1];
            req.lbn = prev.end_lbn();
            req.op = prev.op;
        }
        self.q.push(req);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        if !ctx.has_slot(0) || self.q.is_empty() {
            return Decision::Idle;
        }
        // A lone request waits a while for a partner (the run's last one goes alone).
        if self.q.len() == 1 && ctx.now < self.q[0].arrival_ns + 200_000_000 {
            return Decision::WaitUntil(self.q[0].arrival_ns + 200_000_000);
        }
        let take = self.q.len().min(2);
        Decision::Dispatch(Command::merged(&self.q[..take]).expect("adjacent"))
    }
    fn commit(&mut self, cmd: &Command, _: Placement, _: &SchedCtx) -> Result<()> {
        self.q.drain(..cmd.requests.len());
        Ok(())
    }
    fn pending(&self) -> usize {
        self.q.len()
    }
}

#[test]
fn merged_commands_complete_every_request_once() {
    let sim = build_simulation(&config(""), Some(Box::new(Pairer { q: vec![] })))
        .unwrap()
        .simulation;
    let r = sim.run().unwrap();
    let rec = r.records.unwrap();
    let mut ids = rec.id.clone();
    ids.sort_unstable();
    assert_eq!(ids, (0..500).collect::<Vec<_>>());
    // Requests of one command share dispatch and completion.
    let shared = (0..rec.len())
        .filter(|&i| {
            (0..rec.len()).any(|j| {
                j != i
                    && rec.done_ns[j] == rec.done_ns[i]
                    && rec.dispatch_ns[j] == rec.dispatch_ns[i]
            })
        })
        .count();
    assert!(shared > 450, "only {shared} requests shared a command");
}

#[test]
fn two_outstanding_commands_keep_the_disk_busy_back_to_back() {
    let cfg = config("queue_depth = 2\n[host]\nscheduler = \"sptf\"\nmax_outstanding = 2");
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let rec = r.records.unwrap();
    assert_eq!(rec.len(), 500);
    // With a queued second command the drive starts it the instant the first completes.
    let mut spans: Vec<(u64, u64, u64)> = (0..rec.len())
        .map(|i| (rec.start_ns[i], rec.done_ns[i], rec.dispatch_ns[i]))
        .collect();
    spans.sort_unstable();
    let back_to_back = spans
        .windows(2)
        .filter(|w| w[1].0 == w[0].1 && w[1].2 < w[0].1)
        .count();
    assert!(back_to_back > 0);
    assert!(
        spans.windows(2).all(|w| w[0].1 <= w[1].0),
        "the drive served two commands at once"
    );
}

/// Reads every request with 16 extra sectors after it (a read-ahead into host memory), and
/// serves a read again from memory when it lies inside what the previous command read.
struct Widener {
    q: VecDeque<Request>,
    /// The extent the last command read.
    held: Option<(u64, u64)>,
}

impl Scheduler for Widener {
    fn name(&self) -> &str {
        "widener"
    }
    fn on_arrival(&mut self, req: Request, _ctx: &SchedCtx) {
        self.q.push_back(req);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        let Some(r) = self.q.front() else {
            return Decision::Idle;
        };
        if let Some((lo, hi)) = self.held {
            if r.op.is_read() && r.lbn >= lo && r.end_lbn() <= hi {
                return Decision::Serve(smallvec::smallvec![*r]);
            }
        }
        if !ctx.has_slot(0) {
            return Decision::Idle;
        }
        let cap = ctx.predictor(0).capacity_sectors();
        let end = (r.end_lbn() + 16).min(cap);
        let cmd = Command::spanning(0, r.lbn, (end - r.lbn) as u32, r.op, &[*r])
            .expect("covers its request");
        Decision::Dispatch(cmd)
    }
    fn commit(&mut self, cmd: &Command, _: Placement, _: &SchedCtx) -> Result<()> {
        self.q.pop_front();
        if cmd.sectors > 0 && cmd.op.is_read() {
            self.held = Some((cmd.lbn, cmd.end_lbn()));
        }
        Ok(())
    }
    fn pending(&self) -> usize {
        self.q.len()
    }
}

#[test]
fn commands_wider_than_their_requests_and_reads_served_from_memory_conserve_requests() {
    let cfg = ExperimentConfig::from_toml_str(
        "seed = 2\n[drive]\nname = \"elite3\"\n[workload]\nrequests = 400\ninterarrival_ms = 25.0\n\
         read_fraction = 1.0\nsize_sectors = 4\nalign_sectors = 4\n\
         locality = { kind = \"sequential\", run_length = 4 }\n[output]\nrecords = true\n",
        None,
    )
    .unwrap();
    let sim = build_simulation(
        &cfg,
        Some(Box::new(Widener {
            q: VecDeque::new(),
            held: None,
        })),
    )
    .unwrap()
    .simulation;
    let r = sim.run().unwrap();
    let s = &r.summary;
    assert_eq!(s.requests, 400);
    let rec = r.records.unwrap();
    let mut ids = rec.id.clone();
    ids.sort_unstable();
    assert_eq!(
        ids,
        (0..400).collect::<Vec<_>>(),
        "every request exactly once"
    );
    let served = (0..rec.len())
        .filter(|&i| rec.device[i] == headway::stats::HOST_DEVICE)
        .count();
    assert_eq!(served as u64, s.host_served_requests);
    assert!(
        served > 0,
        "some reads fall inside the previous command's extent"
    );
    for i in 0..rec.len() {
        if rec.device[i] == headway::stats::HOST_DEVICE {
            assert_eq!(rec.done_ns[i], rec.dispatch_ns[i], "served when decided");
        }
    }
}

/// Dispatches a command that does not hold its request: the host refuses it.
struct Liar {
    q: Vec<Request>,
}

impl Scheduler for Liar {
    fn name(&self) -> &str {
        "liar"
    }
    fn on_arrival(&mut self, req: Request, _ctx: &SchedCtx) {
        self.q.push(req);
    }
    fn propose(&mut self, ctx: &SchedCtx) -> Decision {
        match self.q.first() {
            Some(r) if ctx.has_slot(0) => {
                let mut c = Command::single(*r);
                c.lbn += 1;
                Decision::Dispatch(c)
            }
            _ => Decision::Idle,
        }
    }
    fn commit(&mut self, _: &Command, _: Placement, _: &SchedCtx) -> Result<()> {
        self.q.remove(0);
        Ok(())
    }
    fn pending(&self) -> usize {
        self.q.len()
    }
}

#[test]
fn a_command_that_does_not_hold_its_requests_is_refused() {
    let sim = build_simulation(&config(""), Some(Box::new(Liar { q: vec![] })))
        .unwrap()
        .simulation;
    let e = sim.run().unwrap_err().to_string();
    assert!(e.contains("liar") && e.contains("do not hold"), "{e}");
}
