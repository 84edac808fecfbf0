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
