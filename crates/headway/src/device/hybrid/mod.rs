//! A hybrid drive: a platter drive and a flash NVCache in one enclosure, one command at a
//! time through one channel (the serialised assumption of the flash-backed paper; the
//! spec's suggested default). The ATA-8 NVCache commands are methods: `pin` (with or
//! without Populate Immediate) and `unpin`. Routing:
//!
//! - a read wholly inside LBAs whose current data the flash holds (pinned and populated, or
//!   pinned and since written) is served by the flash;
//! - a write wholly inside pinned LBAs goes to the flash (Populate Immediate not set: "the
//!   next host write goes to flash"), and the flash then holds those LBAs' data;
//! - everything else goes to the platter; a platter write overlapping pinned LBAs makes the
//!   flash copy of the overlap stale ([TEAM CHOICE] the drive drops it from the valid set,
//!   the pin stays).
//!
//! [TEAM CHOICE] Populate Immediate copies from the platter at no cost (the drive does it in
//! its own idle time); pin and unpin take no channel time here (the host charges its 10 µs).

use std::collections::VecDeque;

use super::flash::{FlashDevice, FlashSpec};
use super::hdd::HddDevice;
use super::{Device, DeviceInfo, DeviceIo};
use crate::error::{HeadwayError, Result};
use crate::host::flash_backed::nvcache::PinnedSet;
use crate::request::{Command, Op};
use crate::time::SimTime;

/// Flash wake-up tokens carry this bit; the platter's pass through unchanged.
const FLASH_TOKEN: u64 = 1 << 62;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    Platter,
    Flash,
}

impl Route {
    fn slot(self) -> usize {
        match self {
            Route::Platter => 0,
            Route::Flash => 1,
        }
    }
}

pub struct HybridDevice {
    info: DeviceInfo,
    platter: Box<dyn Device>,
    flash: FlashDevice,
    pinned: PinnedSet,
    /// LBAs whose current data the flash holds.
    valid: PinnedSet,
    queue: VecDeque<Command>,
    /// The command in service on the platter (slot 0) and on the flash (slot 1), as the
    /// host sent it.
    busy: [Option<Command>; 2],
    /// [TEAM CHOICE] `concurrent`: the platter and the flash each serve one command at a
    /// time, in arrival order (a command waits only for its own medium, and for the commands
    /// queued ahead of it); off (the default, the spec's serialised assumption): one command
    /// in the enclosure at a time.
    concurrent: bool,
    pub from_flash: u64,
    pub to_platter: u64,
}

impl HybridDevice {
    /// `drive`: a catalog drive or drive file for the platter; `flash`: the NVCache.
    pub fn new(drive: &str, flash: FlashSpec) -> Result<Self> {
        if crate::device::DeviceKind::of(drive) != crate::device::DeviceKind::Rotating {
            return Err(HeadwayError::config(
                "hybrid.drive",
                format!(
                    "a hybrid drive needs a platter drive (a catalog drive or drive file), not `{drive}`"
                ),
            ));
        }
        let spec = crate::config::resolve_drive(drive, None)?;
        let platter = HddDevice::new(&spec, 1)?;
        Self::with_platter(Box::new(platter), &spec.name, flash, false, "hybrid")
    }

    /// A hybrid around an already-built platter device (possibly with imperfections and
    /// power states); errors in the flash table are keyed under `table`.
    pub fn with_platter(
        platter: Box<dyn Device>,
        platter_name: &str,
        flash: FlashSpec,
        concurrent: bool,
        table: &str,
    ) -> Result<Self> {
        let flash = FlashDevice::new(flash, 1, false).map_err(|e| e.under(table))?;
        Ok(HybridDevice {
            info: DeviceInfo {
                name: format!("{platter_name}+nvcache"),
                capacity_sectors: platter.info().capacity_sectors,
                queue_depth: 1,
            },
            platter,
            flash,
            pinned: PinnedSet::default(),
            valid: PinnedSet::default(),
            queue: VecDeque::new(),
            busy: [None, None],
            concurrent,
            from_flash: 0,
            to_platter: 0,
        })
    }

    /// The commands the host may send at once (they wait in the enclosure's FIFO).
    pub fn with_queue_depth(mut self, depth: usize) -> Self {
        self.info.queue_depth = depth.max(1);
        self
    }

    /// ATA-8 NVCache pin of `lbn..end`. With `populate` the flash is filled from the platter
    /// (reads are then served by flash); without, the next host write lands in flash.
    pub fn pin(&mut self, lbn: u64, end: u64, populate: bool) -> Result<()> {
        let cap = self.flash.info().capacity_sectors;
        if self.pinned.sectors() + end.saturating_sub(lbn) > cap {
            return Err(HeadwayError::config(
                "hybrid.pin",
                format!(
                    "pinning {lbn}..{end} would exceed the NVCache ({cap} sectors, {} pinned)",
                    self.pinned.sectors()
                ),
            ));
        }
        if end <= lbn || end > self.info.capacity_sectors {
            return Err(HeadwayError::config(
                "hybrid.pin",
                format!(
                    "the range {lbn}..{end} is empty or beyond the drive ({} sectors)",
                    self.info.capacity_sectors
                ),
            ));
        }
        self.pinned.pin(lbn, end);
        if populate {
            self.valid.pin(lbn, end);
        }
        Ok(())
    }

    /// ATA-8 NVCache unpin: the LBAs return to the drive's management.
    pub fn unpin(&mut self, lbn: u64, end: u64) {
        self.pinned.unpin(lbn, end);
        self.valid.unpin(lbn, end);
    }

    pub fn pinned_sectors(&self) -> u64 {
        self.pinned.sectors()
    }

    /// Whether the NVCache serves a read of `lbn..end` (it holds their current data).
    pub fn flash_holds(&self, lbn: u64, end: u64) -> bool {
        Self::inside(&self.valid, lbn, end)
    }

    fn inside(set: &PinnedSet, lbn: u64, end: u64) -> bool {
        set.ranges().iter().any(|&(a, b)| a <= lbn && end <= b)
    }

    fn route_of(&self, cmd: &Command) -> Route {
        let end = cmd.end_lbn();
        match cmd.op {
            Op::Read if cmd.sectors > 0 && Self::inside(&self.valid, cmd.lbn, end) => Route::Flash,
            Op::Write if cmd.sectors > 0 && Self::inside(&self.pinned, cmd.lbn, end) => {
                Route::Flash
            }
            _ => Route::Platter,
        }
    }

    /// What sending `cmd` along `route` does to the NVCache's notion of current data.
    fn record(&mut self, cmd: &Command, route: Route) {
        if cmd.op != Op::Write {
            return;
        }
        let end = cmd.end_lbn();
        match route {
            Route::Flash => self.valid.pin(cmd.lbn, end),
            Route::Platter => {
                // The flash copy of any overlap is now stale.
                for (a, b) in self.pinned.ranges() {
                    let (lo, hi) = (a.max(cmd.lbn), b.min(end));
                    if lo < hi {
                        self.valid.unpin(lo, hi);
                    }
                }
            }
        }
    }

    fn start_next(&mut self, now: SimTime, io: &mut DeviceIo) {
        loop {
            let Some(head) = self.queue.front() else {
                return;
            };
            let route = self.route_of(head);
            let free = if self.concurrent {
                self.busy[route.slot()].is_none()
            } else {
                self.busy.iter().all(Option::is_none)
            };
            if !free {
                return;
            }
            let cmd = self.queue.pop_front().expect("a head");
            self.record(&cmd, route);
            let mut inner_io = DeviceIo::default();
            match route {
                Route::Flash => {
                    self.from_flash += 1;
                    let mut c = cmd.clone();
                    // The NVCache maps pinned LBAs itself; its timing ignores the address.
                    let cap = self.flash.info().capacity_sectors.max(1);
                    c.lbn = (c.lbn % cap).min(cap.saturating_sub(c.sectors as u64));
                    self.flash.submit(now, c, &mut inner_io);
                    for (t, tok) in inner_io.wakeups.drain(..) {
                        io.wake_at(t, tok | FLASH_TOKEN);
                    }
                }
                Route::Platter => {
                    self.to_platter += 1;
                    self.platter.submit(now, cmd.clone(), &mut inner_io);
                    for (t, tok) in inner_io.wakeups.drain(..) {
                        io.wake_at(t, tok);
                    }
                }
            }
            self.busy[route.slot()] = Some(cmd);
            self.finish(route, inner_io, io);
        }
    }

    /// Hand on a completion from an inner device as the host's command.
    fn finish(&mut self, route: Route, mut inner_io: DeviceIo, io: &mut DeviceIo) {
        if let Some(mut c) = inner_io.completions.pop() {
            c.command = self.busy[route.slot()]
                .take()
                .expect("a command in service");
            io.complete(c);
        }
    }
}

impl Device for HybridDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        self.queue.push_back(cmd);
        self.start_next(now, io);
    }

    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo) {
        let mut inner_io = DeviceIo::default();
        let route = if token & FLASH_TOKEN != 0 {
            self.flash.wake(now, token & !FLASH_TOKEN, &mut inner_io);
            for (t, tok) in inner_io.wakeups.drain(..) {
                io.wake_at(t, tok | FLASH_TOKEN);
            }
            Route::Flash
        } else {
            self.platter.wake(now, token, &mut inner_io);
            for (t, tok) in inner_io.wakeups.drain(..) {
                io.wake_at(t, tok);
            }
            Route::Platter
        };
        self.finish(route, inner_io, io);
        self.start_next(now, io);
    }

    fn outstanding(&self) -> usize {
        self.queue.len() + self.busy.iter().filter(|b| b.is_some()).count()
    }

    /// The platter's power states (the NVCache's draw is not modelled): commands the flash
    /// serves leave a spun-down platter asleep.
    fn energy(&mut self, now: SimTime) -> Option<crate::device::power::EnergyReport> {
        self.platter.energy(now)
    }
}
