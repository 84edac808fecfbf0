//! The run loop: wires workload → host → link → device and back, with stats observing.

use std::sync::{Arc, Mutex};

use crate::device::{Device, DeviceIo, ReadData};
use crate::engine::{order_key, EventQueue};
use crate::error::{HeadwayError, Result};
use crate::host::array::ArrayReport;
use crate::host::Host;
use crate::link::{Link, SharedBuses};
use crate::request::{Command, Completion, Request};
use crate::sched::Decision;
use crate::stats::{Names, RequestRecords, SeriesRow, Stats, StatsOptions, Summary};
use crate::time::{SimTime, NEVER};
use crate::workload::{Arrivals, TraceReport, Workload};

mod stepping;

enum Event {
    /// A request arriving: its slot in `Simulation::arriving` (the request itself stays
    /// out of the heap, whose elements are moved at every push and pop).
    Arrival(u32),
    DeviceWake {
        dev: u16,
        token: u64,
    },
    /// A command reaching its device after the link's command latency.
    /// (Boxed: rare, and large; keeping every event small keeps the heap's moves cheap.)
    Deliver(Box<Command>),
    /// A completion reaching the host after the link's completion latency.
    Notify(Box<Completion>),
    HostTimer {
        generation: u64,
    },
}

/// Limits that end a run early (for open-ended synthetic workloads).
#[derive(Clone, Copy, Debug)]
pub struct RunLimits {
    /// Stop the clock here: events after it are not processed.
    pub(crate) max_time_ns: SimTime,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits { max_time_ns: NEVER }
    }
}

/// Called every few thousand completions with (completed, now); returning an error aborts
/// the run (how a Ctrl-C in Python stops a long simulation).
pub type Progress<'a> = dyn FnMut(u64, SimTime) -> Result<()> + 'a;

/// The outcome of a run.
#[derive(Debug)]
pub struct RunResult {
    pub summary: Summary,
    pub records: Option<RequestRecords>,
    /// Simulated time at the end.
    pub end_ns: SimTime,
    /// Events processed (for speed reporting).
    pub events: u64,
    /// For trace replays: records skipped, filtered or fitted.
    pub trace_report: Option<TraceReport>,
    /// Things the user should know about the run (bad records skipped in lenient mode,
    /// requests moved to fit the drive), one line each; empty for a clean run.
    pub warnings: Vec<String>,
    /// Busy time and bytes per class per interval (`[output] series_ms`), else empty.
    pub series: Vec<SeriesRow>,
    /// Names of the host components that made work, by origin − `HOST_ORIGIN_BASE`.
    pub host_origins: Vec<String>,
    /// Each `[[arrays]]` volume: by volume and by member (empty without arrays).
    pub arrays: Vec<crate::stats::ArraySummary>,
    /// What each drive-managed SMR drive's media cache and cleaning did (empty otherwise).
    pub smr: Vec<crate::device::smr::SmrReport>,
    /// What each zoned drive refused and did (empty otherwise).
    pub zoned: Vec<crate::device::zoned::ZonedReport>,
}

/// One assembled simulation, ready to run once.
pub struct Simulation {
    events: EventQueue<Event>,
    /// Requests scheduled to arrive, by the slot their `Event::Arrival` names.
    arriving: Vec<Request>,
    /// Slots of `arriving` free for reuse.
    free_slots: Vec<u32>,
    /// The arrival lane: one scheduled arrival kept beside the heap, its place in the order
    /// `lane_key` (`NO_LANE`: none). A trace replay schedules one arrival at a time, so
    /// nearly every arrival takes the lane and costs no heap push or pop; the loop takes
    /// whichever of the lane and the heap's top comes first, the same order as one heap.
    /// It holds the request while the key is set. A `Vec` swapped with the workload's
    /// `Arrivals` list, so that a request is never copied between the two: a copy read
    /// back at once, in wider pieces than the workload wrote it, cannot be forwarded from
    /// the stores and waits for them (as would an `Option`'s, whose flag shares a word).
    lane: Vec<Request>,
    lane_key: u128,
    /// The wake lane: one device wake-up kept beside the heap as the arrival lane keeps an
    /// arrival, its place in the order `wake_key` (`NO_LANE`: none), the device and token
    /// `wake`. A drive asks for one wake-up at a time, so nearly every wake-up takes it and
    /// costs no heap push or pop; the loop takes the first of the two lanes and the heap's
    /// top, the same order as one heap (the keys are distinct).
    wake_key: u128,
    wake: (u16, u64),
    /// Each device's capacity, checked against every arriving request.
    capacity_sectors: Vec<u64>,
    now: SimTime,
    workload: Box<dyn Workload>,
    /// `workload.ignores_completions()`, asked once.
    workload_ignores_completions: bool,
    host: Host,
    devices: Vec<Box<dyn Device>>,
    link: Link,
    /// Buses several devices share (none unless configured).
    buses: SharedBuses,
    stats: Stats,
    arrivals: Arrivals,
    limits: RunLimits,
    processed: u64,
    /// Known before the run (a drive setting headway reads but does not model, ...).
    warnings: Vec<String>,
    /// What the `[[arrays]]` volumes report at the end, if there are any.
    arrays: Option<Arc<Mutex<ArrayReport>>>,
}

const PROGRESS_EVERY: u64 = 1 << 15;

/// The arrival lane's key when it is empty (after every real key).
const NO_LANE: u128 = u128::MAX;

impl Simulation {
    pub fn new(
        workload: Box<dyn Workload>,
        host: Host,
        devices: Vec<Box<dyn Device>>,
        link: Link,
        stats: StatsOptions,
        limits: RunLimits,
    ) -> Self {
        let n = devices.len();
        let capacity_sectors = devices.iter().map(|d| d.info().capacity_sectors).collect();
        let mut stats = Stats::new(stats, n);
        stats.set_workloads(host.info.workloads.len());
        Simulation {
            events: EventQueue::new(),
            arriving: Vec::new(),
            free_slots: Vec::new(),
            lane: Vec::with_capacity(1),
            lane_key: NO_LANE,
            wake_key: NO_LANE,
            wake: (0, 0),
            capacity_sectors,
            now: 0,
            workload_ignores_completions: workload.ignores_completions(),
            workload,
            host,
            devices,
            link,
            buses: SharedBuses::default(),
            stats,
            arrivals: Arrivals::default(),
            limits,
            processed: 0,
            warnings: Vec::new(),
            arrays: None,
        }
    }

    /// The drive's true rotation period, against which prediction errors are judged (a
    /// misprediction is an error of more than half of it).
    pub(crate) fn with_rotation_ns(mut self, rotation_ns: f64) -> Self {
        self.stats.set_rotation_ns(rotation_ns);
        self
    }

    /// What the run is made of (devices, classes, workloads, processes).
    pub fn info(&self) -> &crate::sched::RunInfo {
        &self.host.info
    }

    /// Each device's capacity, indexed like [`RunInfo::devices`](crate::stats::RunInfo).
    pub fn capacity_sectors(&self) -> &[u64] {
        &self.capacity_sectors
    }

    /// Run `workload` instead of the configured one (an experiment that assembles its
    /// workloads in code: Cello's reproduction, whose video clips are drawn per clip; the
    /// configured `[[workloads]]` still say what the run is made of, so the replacement must
    /// stamp the same classes).
    pub(crate) fn with_workload(mut self, workload: Box<dyn Workload>) -> Self {
        self.workload_ignores_completions = workload.ignores_completions();
        self.workload = workload;
        self
    }

    /// Devices that share buses (`shared_bus` on `[[devices]]`).
    pub(crate) fn with_shared_buses(mut self, buses: SharedBuses) -> Self {
        self.buses = buses;
        self
    }

    /// Warnings to report with the result, ahead of the run's own.
    pub(crate) fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }

    /// The `[[arrays]]` volumes: their report, and their capacities (volume ids follow the
    /// devices', so a workload request to a volume is checked against its size).
    pub(crate) fn with_arrays(
        mut self,
        arrays: Option<(Arc<Mutex<ArrayReport>>, Vec<u64>)>,
    ) -> Self {
        if let Some((report, capacities)) = arrays {
            self.capacity_sectors.extend(capacities);
            self.arrays = Some(report);
        }
        self
    }

    /// Run to the end of the workload (or the time limit).
    pub fn run(self) -> Result<RunResult> {
        self.run_with_progress(&mut |_, _| Ok(()))
    }

    pub fn run_with_progress(mut self, progress: &mut Progress) -> Result<RunResult> {
        // What the devices ask for during each call: a local passed down, not a field, so
        // that the completions are handled where they lie while the simulation is borrowed
        // whole (a field had to be taken out and put back around them).
        let io = &mut DeviceIo::default();
        self.start()?;
        self.process(io, progress)?;
        progress(self.stats.completed(), self.now)?;
        self.into_result()
    }

    /// Ask the workload for its first arrivals (once, before any event).
    pub(crate) fn start(&mut self) -> Result<()> {
        self.workload.start(&mut self.arrivals)?;
        self.schedule_arrivals()
    }

    /// Process events in order until none is left or the next one lies beyond the time
    /// limit (the clock then stands at the limit).
    #[inline(always)]
    fn process(&mut self, io: &mut DeviceIo, progress: &mut Progress) -> Result<()> {
        let mut next_report = PROGRESS_EVERY;
        loop {
            // The first of the two lanes and the heap's top, each handled in its own branch
            // (not made into an `Event` and matched again).
            let heap_key = self.events.peek_key();
            if self.lane_key < heap_key && self.lane_key < self.wake_key {
                if !self.advance((self.lane_key >> 64) as SimTime) {
                    break;
                }
                self.lane_key = NO_LANE;
                self.arrive(None)?;
            } else if self.wake_key < heap_key {
                if !self.advance((self.wake_key >> 64) as SimTime) {
                    break;
                }
                self.wake_key = NO_LANE;
                let (dev, token) = self.wake;
                self.devices[dev as usize].wake(self.now, token, io);
                self.drain_io(dev, false, io)?;
                if self.buses.any() {
                    self.bus_noted(dev, io)?;
                }
            } else if heap_key != NO_LANE {
                // The limit is checked before the event leaves the heap, so that a run
                // stopped at it can go on later (the live face steps this way).
                if !self.advance((heap_key >> 64) as SimTime) {
                    break;
                }
                let Some(ev) = self.events.pop() else { break };
                match ev.event {
                    Event::Arrival(slot) => self.arrive(Some(slot))?,
                    Event::DeviceWake { dev, token } => {
                        self.devices[dev as usize].wake(self.now, token, io);
                        self.drain_io(dev, false, io)?;
                        if self.buses.any() {
                            self.bus_noted(dev, io)?;
                        }
                    }
                    Event::Deliver(cmd) => self.submit(*cmd, io)?,
                    Event::Notify(c) => self.complete(&c)?,
                    Event::HostTimer { generation } => {
                        let fired = self.host.timer(self.now, generation)?;
                        self.count_host_work();
                        if !fired {
                            continue;
                        }
                    }
                }
            } else {
                break;
            }
            self.pump(io)?;
            if self.stats.completed() >= next_report {
                next_report = self.stats.completed() + PROGRESS_EVERY;
                progress(self.stats.completed(), self.now)?;
            }
        }
        Ok(())
    }

    fn names(&self) -> Names {
        Names {
            info: self.host.info.clone(),
            host_origins: self.host.work.origin_names(),
        }
    }

    fn add_firmware_free(devices: &[Box<dyn Device>], summary: &mut Summary, names: &Names) {
        for (i, d) in devices.iter().enumerate() {
            if let Some(mut f) = d.firmware_free() {
                f.device = names.info.devices.get(i).cloned().unwrap_or_default();
                summary.firmware_free.push(f);
            }
        }
    }

    /// The result of the run as it stands: an error if requests are left in the system
    /// although no time limit cut the run short.
    pub(crate) fn into_result(mut self) -> Result<RunResult> {
        let truncated = self.limits.max_time_ns != NEVER && self.now >= self.limits.max_time_ns;
        if !truncated && (self.host.pending() > 0 || self.stats.in_flight() > 0) {
            return Err(HeadwayError::Invariant(format!(
                "run ended with {} requests still queued at the host and {} in the system: a scheduler stopped dispatching",
                self.host.pending(),
                self.stats.in_flight()
            )));
        }
        let names = self.names();
        let (mut summary, mut records, series) = self.stats.finish(self.now, &names);
        Self::add_firmware_free(&self.devices, &mut summary, &names);
        let mut arrays = Vec::new();
        if let Some(report) = &self.arrays {
            let report = report
                .lock()
                .map_err(|_| HeadwayError::Invariant("the array report was poisoned".into()))?;
            arrays = report.volumes.clone();
            if let Some(r) = records.as_mut() {
                r.link_logical(&report.links);
            }
        }
        let mut smr = Vec::new();
        let mut zoned = Vec::new();
        for (i, d) in self.devices.iter_mut().enumerate() {
            if let Some(mut r) = d.smr() {
                r.device = names.info.devices.get(i).cloned().unwrap_or_default();
                smr.push(r);
            }
            if let Some(mut r) = d.zoned() {
                r.device = names.info.devices.get(i).cloned().unwrap_or_default();
                zoned.push(r);
            }
            if let Some(e) = d.energy(self.now) {
                let name = names.info.devices.get(i).cloned().unwrap_or_default();
                summary
                    .energy
                    .push(crate::device::power::EnergySummary::new(name, &e));
            }
        }
        let trace_report = self.workload.trace_report();
        let mut warnings = self.warnings;
        warnings.extend(
            trace_report
                .as_ref()
                .map(TraceReport::warnings)
                .unwrap_or_default(),
        );
        Ok(RunResult {
            summary,
            records,
            end_ns: self.now,
            events: self.processed,
            trace_report,
            warnings,
            series,
            host_origins: names.host_origins,
            arrays,
            smr,
            zoned,
        })
    }

    /// Move the clock to the next event's time `at`; false (the clock at the limit) if the
    /// run's time limit comes first.
    #[inline(always)]
    fn advance(&mut self, at: SimTime) -> bool {
        if at > self.limits.max_time_ns {
            self.now = self.limits.max_time_ns;
            return false;
        }
        self.now = at;
        self.processed += 1;
        true
    }

    /// The arrival of the request in `arriving[slot]`, or (`None`) in the lane.
    #[inline(always)]
    fn arrive(&mut self, slot: Option<u32>) -> Result<()> {
        // The request is read where it waits, never copied out: the copy (two, through a
        // temporary) cost about a dozen instructions an arrival, and nothing below changes
        // its slot or the lane before the lane is freed.
        let req = match slot {
            Some(slot) => {
                // Reused only by a later scheduling, after this arrival's.
                self.free_slots.push(slot);
                &self.arriving[slot as usize]
            }
            // The lane's key was set with it, and the lane is refilled only after it is
            // taken.
            None => &self.lane[0],
        };
        self.stats.arrival(self.now, req);
        self.host.arrival(self.now, req)?;
        Self::count_work(&self.host, &mut self.stats, self.now);
        self.workload.on_arrival(req, &mut self.arrivals)?;
        if slot.is_none() {
            self.lane.clear();
        }
        self.schedule_arrivals()
    }

    /// Count the requests the host made during its last call (they arrive now).
    #[inline]
    fn count_host_work(&mut self) {
        Self::count_work(&self.host, &mut self.stats, self.now);
    }

    /// [`Simulation::count_host_work`] over the two fields it uses, for a caller that holds
    /// a borrow of another (the arrival reads its request in place).
    #[inline(always)]
    fn count_work(host: &Host, stats: &mut Stats, now: SimTime) {
        if host.work.created_any() {
            host.work.drain_created(|r| stats.host_request(now, r));
        }
    }

    /// Schedule what the workload asked for during its last call (most calls ask nothing).
    #[inline(always)]
    fn schedule_arrivals(&mut self) -> Result<()> {
        if self.arrivals.is_empty() {
            return Ok(());
        }
        // A trace replay asks for one arrival at a time and finds the lane free: the list
        // becomes the lane, checked in place. Inline (the call's saving and restoring of
        // registers was a quarter of its cost); the rest is out of line.
        if self.arrivals.len() == 1 && self.lane_key == NO_LANE {
            std::mem::swap(&mut self.arrivals.pending, &mut self.lane);
            let req = &mut self.lane[0];
            if let Err(e) = Self::check_arrival(
                req,
                self.now,
                &self.capacity_sectors,
                self.devices.len(),
                &*self.workload,
            ) {
                self.lane.clear();
                return Err(e);
            }
            req.id = self.host.next_request_id();
            self.lane_key = order_key(req.arrival_ns, self.events.take_seq());
            return Ok(());
        }
        self.schedule_pending_arrivals()
    }

    fn schedule_pending_arrivals(&mut self) -> Result<()> {
        let mut pending = std::mem::take(&mut self.arrivals.pending);
        let scheduled = pending
            .drain(..)
            .try_for_each(|req| self.schedule_arrival(req));
        // Keep the list's allocation.
        pending.clear();
        self.arrivals.pending = pending;
        scheduled
    }

    /// Check `req` and give it its id.
    #[inline(always)]
    fn admit(&mut self, mut req: Request) -> Result<Request> {
        Self::check_arrival(
            &req,
            self.now,
            &self.capacity_sectors,
            self.devices.len(),
            &*self.workload,
        )?;
        req.id = self.host.next_request_id();
        Ok(req)
    }

    /// Whether `req` may arrive: not before `now`, to a device that exists, inside it.
    #[inline(always)]
    fn check_arrival(
        req: &Request,
        now: SimTime,
        capacity_sectors: &[u64],
        devices: usize,
        workload: &dyn Workload,
    ) -> Result<()> {
        let fits = req.arrival_ns >= now
            && capacity_sectors
                .get(req.device as usize)
                .is_some_and(|&cap| req.sectors != 0 && req.end_lbn() <= cap);
        if fits {
            return Ok(());
        }
        Err(Self::arrival_error(
            req,
            now,
            capacity_sectors,
            devices,
            workload,
        ))
    }

    /// Why [`Simulation::check_arrival`] refused `req` (out of line: the checks inline
    /// into the arrival's scheduling, the messages do not).
    #[cold]
    #[inline(never)]
    fn arrival_error(
        req: &Request,
        now: SimTime,
        capacity_sectors: &[u64],
        devices: usize,
        workload: &dyn Workload,
    ) -> HeadwayError {
        if req.arrival_ns < now {
            return HeadwayError::Invariant(format!(
                "workload `{}` scheduled an arrival at {} ns, before now ({now} ns)",
                workload.name(),
                req.arrival_ns,
            ));
        }
        let dev = req.device as usize;
        let Some(&cap) = capacity_sectors.get(dev) else {
            return HeadwayError::config(
                "device",
                format!("request for device {dev}, but the system has {devices} device(s)"),
            );
        };
        HeadwayError::config(
            "workload",
            format!(
                "request at sector {} of {} sectors does not fit device {dev} ({} sectors)",
                req.lbn, req.sectors, cap
            ),
        )
    }

    /// Schedule one arrival: into the lane if it is free, else the heap.
    fn schedule_arrival(&mut self, req: Request) -> Result<()> {
        let req = self.admit(req)?;
        if self.lane_key == NO_LANE {
            self.lane_key = order_key(req.arrival_ns, self.events.take_seq());
            self.lane.push(req);
            return Ok(());
        }
        let slot = match self.free_slots.pop() {
            Some(slot) => {
                self.arriving[slot as usize] = req;
                slot
            }
            None => {
                self.arriving.push(req);
                (self.arriving.len() - 1) as u32
            }
        };
        self.events.push(req.arrival_ns, Event::Arrival(slot));
        Ok(())
    }

    /// Let the host dispatch until its scheduler says wait or idle.
    fn pump(&mut self, io: &mut DeviceIo) -> Result<()> {
        loop {
            if self.host.holds_command() {
                // The pass-through's command, what `decide` would dispatch: taken from the
                // host straight into the device's call (each move through the `Decision`,
                // the match and `submit`'s argument copied its hundred bytes again).
                let cmd = self.host.held();
                self.stats.dispatch(self.now, cmd);
                let mut at = cmd.dispatch_ns + self.link.command_ns;
                if self.buses.any() {
                    at = self.buses.admit(cmd, at);
                }
                let dev = cmd.device;
                if at == self.now {
                    self.devices[dev as usize].submit(self.now, self.host.take_held(), io);
                    self.submitted(dev, io)?;
                    if self.buses.any() {
                        self.bus_noted(dev, io)?;
                    }
                } else {
                    let cmd = Box::new(self.host.take_held());
                    self.events.push(at, Event::Deliver(cmd));
                }
                if self.buses.any() {
                    self.settle_buses(io)?;
                }
                continue;
            }
            // Two questions in three per request find the scheduler empty (after the
            // dispatch, and after the completion): answered here without the call.
            if self.host.nothing_to_decide() {
                break;
            }
            let decision = self.host.decide(self.now);
            self.count_host_work();
            match decision {
                Decision::Idle => {
                    if let Some(e) = self.host.take_error() {
                        return Err(e);
                    }
                    break;
                }
                Decision::Serve(reqs) => {
                    self.stats.served(self.now, &reqs);
                    for r in reqs.iter().filter(|r| !r.is_host_work()) {
                        self.workload
                            .on_completion(r, self.now, &mut self.arrivals)?;
                    }
                    self.schedule_arrivals()?;
                }
                Decision::Dispatch(cmd) => {
                    self.stats.dispatch(self.now, &cmd);
                    // The command leaves the host once its decision's CPU time is spent
                    // (`dispatch_ns`), then crosses the link.
                    let mut at = cmd.dispatch_ns + self.link.command_ns;
                    if self.buses.any() {
                        at = self.buses.admit(&cmd, at);
                    }
                    if at == self.now {
                        self.submit(cmd, io)?;
                    } else {
                        self.events.push(at, Event::Deliver(Box::new(cmd)));
                    }
                    if self.buses.any() {
                        self.settle_buses(io)?;
                    }
                }
                Decision::WaitUntil(at) => {
                    let generation = self.host.timer_generation();
                    self.events.push(at, Event::HostTimer { generation });
                    break;
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn submit(&mut self, cmd: Command, io: &mut DeviceIo) -> Result<()> {
        let dev = cmd.device;
        self.devices[dev as usize].submit(self.now, cmd, io);
        self.submitted(dev, io)?;
        if self.buses.any() {
            self.bus_noted(dev, io)?;
        }
        Ok(())
    }

    /// After device `dev` handled a call: the read it now has in service, told to the
    /// shared bus, and whatever reads the bus then makes wait.
    fn bus_noted(&mut self, dev: u16, io: &mut DeviceIo) -> Result<()> {
        if !self.buses.holds_read_data(dev) {
            return Ok(());
        }
        let data = self.devices[dev as usize]
            .bus_tenant()
            .and_then(|t| t.read_data());
        self.buses.note(dev, data);
        self.settle_buses(io)
    }

    /// Move the reads the shared buses made wait: each completes later, and its data's
    /// later hold may make others wait in turn.
    fn settle_buses(&mut self, io: &mut DeviceIo) -> Result<()> {
        while let Some(d) = self.buses.take_deferred() {
            let Some(t) = self.devices[d.device as usize].bus_tenant() else {
                continue;
            };
            t.defer_read_data(d.until_ns, io);
            let data = t.read_data();
            self.drain_io(d.device, false, io)?;
            if let Some(data) = data {
                let data = ReadData {
                    asks_ns: d.from_ns,
                    ..data
                };
                self.buses.granted(d.device, data);
            }
        }
        Ok(())
    }

    /// After device `dev` took a command: what it asked for.
    #[inline(always)]
    fn submitted(&mut self, dev: u16, io: &mut DeviceIo) -> Result<()> {
        // The usual case: the device holds the command and asked for nothing (a wake-up or
        // completion of its own), so it is busy, and `drain_io` has nothing to take.
        if io.wakeups.is_empty() && io.completions.is_empty() {
            self.stats.device_level(self.now, dev as usize, 1);
            return Ok(());
        }
        self.drain_io(dev, true, io)
    }

    /// Take what device `dev` asked for during its last call: wake-ups, completions, and its
    /// busy level for utilisation. After a `submit` that completed nothing, the device holds
    /// the command it accepted, so it is busy without asking it (`outstanding` is a call
    /// through the trait object, twice per request).
    fn drain_io(&mut self, dev: u16, submitted: bool, io: &mut DeviceIo) -> Result<()> {
        for &(at, token) in &io.wakeups {
            if self.wake_key == NO_LANE {
                self.wake_key = order_key(at, self.events.take_seq());
                self.wake = (dev, token);
            } else {
                self.events.push(at, Event::DeviceWake { dev, token });
            }
        }
        io.wakeups.clear();
        let outstanding = if submitted && io.completions.is_empty() {
            1
        } else {
            self.devices[dev as usize].outstanding()
        };
        self.stats.device_level(self.now, dev as usize, outstanding);
        if io.completions.is_empty() {
            return Ok(());
        }
        // Completions are handled in place, not moved out (each is a few hundred bytes), and
        // the buffer is cleared, keeping its capacity (no allocation per completion).
        if self.link.completion_ns == 0 {
            for c in &io.completions {
                if let Err(e) = self.complete(c) {
                    io.completions.clear();
                    return Err(e);
                }
            }
            io.completions.clear();
        } else {
            for c in io.completions.drain(..) {
                self.events.push(
                    self.now + self.link.completion_ns,
                    Event::Notify(Box::new(c)),
                );
            }
        }
        Ok(())
    }

    fn complete(&mut self, c: &Completion) -> Result<()> {
        self.stats.completion(c);
        if let Some(predicted) = c.command.predicted_ns {
            self.stats
                .prediction(predicted, self.now.saturating_sub(c.command.dispatch_ns));
        }
        self.host.completion(self.now, c)?;
        self.count_host_work();
        // Work the host made itself is never reported to a workload.
        if !self.workload_ignores_completions {
            for r in c.command.requests.iter().filter(|r| !r.is_host_work()) {
                self.workload
                    .on_completion(r, self.now, &mut self.arrivals)?;
            }
        }
        self.schedule_arrivals()
    }
}
