//! DiskSim's synthetic generator (`disksim_synthio` with its `disksim_synthgen` list), as
//! DiskSim's manual describes it, so that a DiskSim experiment runs with its own workload.
//!
//! Each generator is a process. Before each request it computes for an inter-arrival time
//! (the general, sequential or local one, by the kind of request), then issues it. A
//! time-critical request blocks the process until it completes; a time-limited one lets it
//! go on computing for a drawn time limit, then blocks it until the request completes (if
//! it has not by then); any other lets it go on computing at once.
//!
//! Computing takes one of the system's processors (DiskSim's `disksim_pf` "Number of
//! processors"), handed out as DiskSim 4.0's dispatcher hands them out: at the start each
//! processor takes a process; a process holds its processor until it blocks, and then the
//! processor takes the longest-waiting ready process, or, with none ready, stays idle. A
//! process made ready by a completion waits for a processor to be handed on that way, except
//! that an idle first processor takes it at once: every I/O interrupt is taken on the first
//! processor, which looks for a ready process after each. The other processors, once idle,
//! stay idle (DiskSim wakes no idle processor when a process becomes ready), so how many of
//! them keep working depends on the run. A process that reaches a time limit with its
//! request still outstanding blocks there the same way. headway notices the limit at the
//! first arrival or completion at or after it (a workload has no timers of its own): a
//! process handed the processor then starts computing at the limit, and its request is
//! issued no earlier than that event. Requests are whole blocks of `blocking_sectors`: a random request starts at
//! a uniformly random block of its device; a sequential one follows the previous request
//! (same size and direction); a local one lies a drawn distance (in sectors, rounded to
//! blocks) from it. The run stops when the generators together have made `total_requests`
//! requests or the clock passes `end_ms`.

mod dist;

pub use dist::SynthDist;

use rand::Rng;
use rand_pcg::Pcg64Mcg;

use super::{Arrivals, Workload};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::{DeviceId, Op, Request};
use crate::time::{ms_to_ns, SimTime};

/// One `disksim_synthgen`.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthGenerator {
    /// The headway devices it addresses, one drawn uniformly per random request.
    pub devices: Vec<DeviceId>,
    /// Sectors it addresses on each device ("Storage capacity per device").
    pub capacity_sectors: u64,
    /// Request sizes and addresses are whole multiples of this ("Blocking factor").
    pub blocking_sectors: u32,
    pub prob_sequential: f64,
    pub prob_local: f64,
    pub prob_read: f64,
    pub prob_time_critical: f64,
    pub prob_time_limited: f64,
    /// How long a process goes on computing after issuing a time-limited request before it
    /// waits for it, ms ("Time-limited think times").
    pub time_limited_think_ms: SynthDist,
    /// Inter-arrival (compute) times, ms.
    pub general_interarrival_ms: SynthDist,
    pub sequential_interarrival_ms: SynthDist,
    pub local_interarrival_ms: SynthDist,
    /// Distance of a local request from the previous one, sectors.
    pub local_distance_sectors: SynthDist,
    pub size_sectors: SynthDist,
}

/// A `disksim_synthio`: its generators and when it stops.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthgenConfig {
    pub generators: Vec<SynthGenerator>,
    /// Requests made by all generators together ("Number of I/O requests to generate").
    pub total_requests: u64,
    /// No request is made after this ("Maximum time of trace generated", in ms here).
    pub end_ms: f64,
    /// Processors the generators compute on (at least 1).
    pub processors: u32,
}

/// A draw that keeps coming out unusable (a size that never fits the device) ends here.
const MAX_REDRAWS: u32 = 100_000;

#[derive(Clone, Copy, Debug)]
struct Pending {
    lbn_blocks: u64,
    size_blocks: u64,
    device: DeviceId,
    op: Op,
    critical: bool,
    limited: bool,
    /// Compute time before it is issued.
    compute_ns: SimTime,
}

impl Pending {
    /// With its class drawn (the draw comes last, as in DiskSim's generator).
    fn classed(self, g: &SynthGenerator, rng: &mut Pcg64Mcg) -> Self {
        let (critical, limited) = draw_class(g, rng);
        Pending {
            critical,
            limited,
            ..self
        }
    }
}

struct Process {
    gen: SynthGenerator,
    blocks: u64,
    next: Pending,
    /// The processor it holds, if any.
    cpu: Option<usize>,
    /// The time-critical request it waits for.
    blocked_on: Option<u64>,
    /// Its time-limited requests not yet complete: (when it will wait for it, request id).
    limited: Vec<(SimTime, u64)>,
    /// Waiting for a time-limited request: (its id, the wait's start, compute left after).
    wait: Option<(u64, SimTime, SimTime)>,
    /// Compute left when it next gets a processor (after a wait at a time limit).
    resume_ns: Option<SimTime>,
}

pub struct SynthgenWorkload {
    procs: Vec<Process>,
    /// Per processor: the process that holds it.
    cpus: Vec<Option<usize>>,
    /// Processes ready to compute, waiting for a processor, in the order they became ready.
    ready: std::collections::VecDeque<usize>,
    made: u64,
    /// The time of the event being handled: no request is issued before it.
    floor_ns: SimTime,
    total: u64,
    end_ns: SimTime,
    rng: Pcg64Mcg,
}

impl SynthgenWorkload {
    pub fn new(cfg: &SynthgenConfig, rng: &RngStreams) -> Result<Self> {
        cfg.validate()?;
        let mut rng = rng.stream("workload.synthgen");
        let mut procs = Vec::with_capacity(cfg.generators.len());
        for (i, g) in cfg.generators.iter().enumerate() {
            let blocks = g.capacity_sectors / u64::from(g.blocking_sectors);
            let first = random_request(g, blocks, &mut rng)
                .ok_or_else(|| unusable(i, "sizes never fit the device"))?;
            procs.push(Process {
                gen: g.clone(),
                blocks,
                next: first,
                cpu: None,
                blocked_on: None,
                limited: Vec::new(),
                wait: None,
                resume_ns: None,
            });
        }
        Ok(SynthgenWorkload {
            procs,
            cpus: vec![None; cfg.processors.max(1) as usize],
            ready: Default::default(),
            made: 0,
            floor_ns: 0,
            total: cfg.total_requests,
            end_ns: ms_to_ns(cfg.end_ms.max(0.0)),
            rng,
        })
    }

    /// Process `p` computes from `now` for its pending request's compute time and issues it,
    /// if it holds a processor; otherwise it waits for one.
    fn compute(&mut self, p: usize, now: SimTime, out: &mut Arrivals) {
        let compute_ns = match self.procs[p].cpu {
            Some(_) => self.procs[p].resume_ns.take(),
            None => None,
        }
        .unwrap_or(self.procs[p].next.compute_ns);
        self.compute_for(p, now, compute_ns, out);
    }

    /// As [`Self::compute`] with `compute_ns` still to go. A time-limited request still
    /// outstanding when its limit falls inside the computation makes the process wait for
    /// it there, and finish computing after it completes.
    fn compute_for(&mut self, p: usize, now: SimTime, compute_ns: SimTime, out: &mut Arrivals) {
        if self.procs[p].cpu.is_none() {
            self.ready.push_back(p);
            return;
        }
        if self.made >= self.total || now >= self.end_ns {
            return;
        }
        let issue_ns = now.saturating_add(compute_ns).max(self.floor_ns);
        let due = self.procs[p]
            .limited
            .iter()
            .filter(|l| l.0 < issue_ns)
            .min()
            .copied();
        if let Some((limit_ns, id)) = due {
            self.procs[p].wait = Some((id, limit_ns, issue_ns - limit_ns));
            return;
        }
        self.made += 1;
        let n = self.procs[p].next;
        let bs = u64::from(self.procs[p].gen.blocking_sectors);
        let mut req = Request::new(
            issue_ns,
            n.lbn_blocks * bs,
            (n.size_blocks * bs) as u32,
            n.op,
        );
        req.device = n.device;
        req.process = p as u32;
        req.marks.set_high_priority(n.critical || n.limited);
        out.push(req);
    }

    /// The processor process `p` holds goes to the longest-waiting ready process, if any.
    fn release(&mut self, p: usize, now: SimTime, out: &mut Arrivals) {
        if let Some(c) = self.procs[p].cpu.take() {
            self.cpus[c] = None;
            self.dispatch(c, now, out);
        }
    }

    /// Every process whose time limit has passed by `now` with its request outstanding
    /// blocks at the limit and gives up its processor there, in the order of the limits.
    fn settle(&mut self, now: SimTime, out: &mut Arrivals) {
        self.floor_ns = now;
        loop {
            let due = (0..self.procs.len())
                .filter_map(|p| {
                    let (_, limit_ns, _) = self.procs[p].wait?;
                    (self.procs[p].cpu.is_some() && limit_ns <= now).then_some((limit_ns, p))
                })
                .min();
            let Some((limit_ns, p)) = due else { break };
            self.release(p, limit_ns, out);
        }
    }

    /// Idle processor `c` takes the longest-waiting ready process, if any.
    fn dispatch(&mut self, c: usize, now: SimTime, out: &mut Arrivals) {
        if self.cpus[c].is_some() {
            return;
        }
        if let Some(q) = self.ready.pop_front() {
            self.cpus[c] = Some(q);
            self.procs[q].cpu = Some(c);
            self.compute(q, now, out);
        }
    }
}

impl Workload for SynthgenWorkload {
    fn name(&self) -> &str {
        "disksim-synthgen"
    }

    /// Every process is ready at time 0; with fewer processors than generators the last
    /// generators take them first (DiskSim 4.0 starts its processes in reverse list order:
    /// on its synthopen experiment, three generators on one processor, only the last
    /// generator's device ever sees a request).
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        for (k, p) in (0..self.procs.len()).rev().enumerate() {
            if let Some(c) = self.cpus.get_mut(k) {
                *c = Some(p);
                self.procs[p].cpu = Some(k);
            }
            self.compute(p, 0, out);
        }
        Ok(())
    }

    fn on_arrival(&mut self, req: &Request, out: &mut Arrivals) -> Result<()> {
        self.settle(req.arrival_ns, out);
        let p = req.process as usize;
        let issued = self.procs[p].next;
        if issued.limited {
            let limit_ns = draw_time(&self.procs[p].gen.time_limited_think_ms, &mut self.rng);
            self.procs[p]
                .limited
                .push((req.arrival_ns.saturating_add(limit_ns), req.id));
        }
        self.procs[p].next = next_request(&self.procs[p], &issued, &mut self.rng);
        if issued.critical {
            self.procs[p].blocked_on = Some(req.id);
            self.release(p, req.arrival_ns, out);
        } else {
            self.compute(p, req.arrival_ns, out);
        }
        self.settle(req.arrival_ns, out);
        Ok(())
    }

    fn on_completion(&mut self, req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()> {
        self.settle(now, out);
        let p = req.process as usize;
        // A time-critical request blocked its process; it now wants a processor again.
        if self.procs[p].blocked_on == Some(req.id) {
            self.procs[p].blocked_on = None;
            self.compute(p, now, out);
            // The completion's interrupt is taken on the first processor, which then runs
            // a ready process if it has none.
            self.dispatch(0, now, out);
            return Ok(());
        }
        self.procs[p].limited.retain(|l| l.1 != req.id);
        if let Some((id, limit_ns, left_ns)) = self.procs[p].wait {
            if id == req.id {
                self.procs[p].wait = None;
                if self.procs[p].cpu.is_some() {
                    // Complete before the limit: it never stopped computing.
                    self.compute_for(p, now.max(limit_ns), left_ns, out);
                } else {
                    // It blocked at the limit; now ready, it finishes computing on the
                    // processor it is handed.
                    self.procs[p].resume_ns = Some(left_ns);
                    self.ready.push_back(p);
                    self.dispatch(0, now, out);
                }
            }
        }
        self.settle(now, out);
        Ok(())
    }
}

fn unusable(i: usize, why: &str) -> HeadwayError {
    HeadwayError::config(format!("synthgen.generators[{i}]"), why.to_string())
}

/// A non-negative time drawn from `d` (DiskSim draws again while negative), in ns.
fn draw_time(d: &SynthDist, rng: &mut Pcg64Mcg) -> SimTime {
    for _ in 0..MAX_REDRAWS {
        let ms = d.sample(rng);
        if ms >= 0.0 {
            return ms_to_ns(ms);
        }
    }
    0
}

/// A size in blocks: the drawn sectors rounded up to whole blocks.
fn draw_blocks(g: &SynthGenerator, rng: &mut Pcg64Mcg) -> i64 {
    let sectors = g.size_sectors.sample(rng) as i64;
    let bs = i64::from(g.blocking_sectors);
    (sectors + bs - 1).div_euclid(bs)
}

fn draw_op(g: &SynthGenerator, rng: &mut Pcg64Mcg) -> Op {
    if rng.random::<f64>() < g.prob_read {
        Op::Read
    } else {
        Op::Write
    }
}

/// Whether the request is time-critical (blocks its process) or time-limited (blocks it
/// after a while): (critical, limited).
fn draw_class(g: &SynthGenerator, rng: &mut Pcg64Mcg) -> (bool, bool) {
    let u = rng.random::<f64>();
    let critical = u < g.prob_time_critical;
    (
        critical,
        !critical && u - g.prob_time_critical < g.prob_time_limited,
    )
}

/// A request at a uniformly random block of a random device; `None` when no drawn size fits.
fn random_request(g: &SynthGenerator, blocks: u64, rng: &mut Pcg64Mcg) -> Option<Pending> {
    let compute_ns = draw_time(&g.general_interarrival_ms, rng);
    let device = g.devices[rng.random_range(0..g.devices.len())];
    for _ in 0..MAX_REDRAWS {
        let lbn = (rng.random::<f64>() * blocks as f64) as u64;
        let size = draw_blocks(g, rng);
        if size > 0 && lbn + (size as u64) < blocks {
            let op = draw_op(g, rng);
            return Some(
                Pending {
                    lbn_blocks: lbn,
                    size_blocks: size as u64,
                    device,
                    op,
                    critical: false,
                    limited: false,
                    compute_ns,
                }
                .classed(g, rng),
            );
        }
    }
    None
}

/// The request after `prev`: sequential, local or random by the generator's probabilities.
fn next_request(p: &Process, prev: &Pending, rng: &mut Pcg64Mcg) -> Pending {
    let g = &p.gen;
    let kind = rng.random::<f64>();
    if kind < g.prob_sequential && prev.lbn_blocks + 2 * prev.size_blocks < p.blocks {
        let compute_ns = draw_time(&g.sequential_interarrival_ms, rng);
        return Pending {
            lbn_blocks: prev.lbn_blocks + prev.size_blocks,
            compute_ns,
            ..*prev
        }
        .classed(g, rng);
    }
    if kind < g.prob_sequential + g.prob_local && kind >= g.prob_sequential {
        let compute_ns = draw_time(&g.local_interarrival_ms, rng);
        let bs = i64::from(g.blocking_sectors);
        for _ in 0..MAX_REDRAWS {
            let lbn = prev.lbn_blocks as i64 + g.local_distance_sectors.sample(rng) as i64 / bs;
            let size = draw_blocks(g, rng);
            if lbn >= 0 && size > 0 && ((lbn + size) as u64) < p.blocks {
                let op = draw_op(g, rng);
                return Pending {
                    lbn_blocks: lbn as u64,
                    size_blocks: size as u64,
                    device: prev.device,
                    op,
                    critical: false,
                    limited: false,
                    compute_ns,
                }
                .classed(g, rng);
            }
        }
    }
    random_request(g, p.blocks, rng).unwrap_or(*prev)
}

impl SynthgenConfig {
    /// Values no run can use, each named by generator and key.
    pub fn validate(&self) -> Result<()> {
        if self.generators.is_empty() {
            return Err(HeadwayError::config(
                "synthgen.generators",
                "no generator: a DiskSim experiment without `disksim_synthio` runs a trace \
                 (`headway replay TRACE --parv FILE`)",
            ));
        }
        for (i, g) in self.generators.iter().enumerate() {
            let key = |k: &str| format!("synthgen.generators[{i}].{k}");
            if g.devices.is_empty() {
                return Err(HeadwayError::config(key("devices"), "names no device"));
            }
            if g.blocking_sectors == 0 {
                return Err(HeadwayError::config(
                    key("blocking_sectors"),
                    "must be at least 1",
                ));
            }
            if g.capacity_sectors / u64::from(g.blocking_sectors) < 2 {
                return Err(HeadwayError::config(
                    key("capacity_sectors"),
                    "must hold at least two blocks",
                ));
            }
            for (k, v) in [
                ("prob_sequential", g.prob_sequential),
                ("prob_local", g.prob_local),
                ("prob_read", g.prob_read),
                ("prob_time_critical", g.prob_time_critical),
                ("prob_time_limited", g.prob_time_limited),
            ] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(HeadwayError::config(
                        key(k),
                        format!("must be a probability in [0, 1], got {v}"),
                    ));
                }
            }
            if g.size_sectors.never_positive() {
                return Err(HeadwayError::config(
                    key("size_sectors"),
                    "never draws a positive size",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
