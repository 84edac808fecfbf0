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

pub struct HybridDevice {
    info: DeviceInfo,
    platter: Box<dyn Device>,
    flash: FlashDevice,
    pinned: PinnedSet,
    /// LBAs whose current data the flash holds.
    valid: PinnedSet,
    queue: VecDeque<Command>,
    /// The command in service, as the host sent it, and where it went.
    current: Option<(Command, Route)>,
    pub from_flash: u64,
    pub to_platter: u64,
}

impl HybridDevice {
    /// `drive`: a catalog drive or drive file for the platter; `flash`: the NVCache.
    pub fn new(drive: &str, flash: FlashSpec) -> Result<Self> {
        if drive == "flash" {
            return Err(HeadwayError::config(
                "hybrid.drive",
                "a hybrid drive needs a platter drive (a catalog drive or drive file), not `flash`",
            ));
        }
        let spec = crate::config::resolve_drive(drive, None)?;
        let platter = HddDevice::new(&spec, 1)?;
        let flash = FlashDevice::new(flash, 1, false).map_err(|e| e.under("hybrid"))?;
        Ok(HybridDevice {
            info: DeviceInfo {
                name: format!("{}+nvcache", spec.name),
                capacity_sectors: platter.info().capacity_sectors,
                queue_depth: 1,
            },
            platter: Box::new(platter),
            flash,
            pinned: PinnedSet::default(),
            valid: PinnedSet::default(),
            queue: VecDeque::new(),
            current: None,
            from_flash: 0,
            to_platter: 0,
        })
    }

    /// ATA-8 NVCache pin of `lbn..end`. With `populate` the flash is filled from the platter
    /// (reads are then served by flash); without, the next host write lands in flash.
    pub fn pin(&mut self, lbn: u64, end: u64, populate: bool) -> Result<()> {
        let cap = self.flash.info().capacity_sectors;
        if self.pinned.sectors() + (end - lbn) > cap {
            return Err(HeadwayError::config(
                "hybrid.pin",
                format!(
                    "pinning {lbn}..{end} would exceed the NVCache ({cap} sectors, {} pinned)",
                    self.pinned.sectors()
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

    fn inside(set: &PinnedSet, lbn: u64, end: u64) -> bool {
        set.ranges().iter().any(|&(a, b)| a <= lbn && end <= b)
    }

    fn route(&mut self, cmd: &Command) -> Route {
        let end = cmd.end_lbn();
        match cmd.op {
            Op::Read if cmd.sectors > 0 && Self::inside(&self.valid, cmd.lbn, end) => Route::Flash,
            Op::Write if cmd.sectors > 0 && Self::inside(&self.pinned, cmd.lbn, end) => {
                self.valid.pin(cmd.lbn, end);
                Route::Flash
            }
            Op::Write => {
                // The flash copy of any overlap is now stale.
                let pinned = self.pinned.ranges();
                for (a, b) in pinned {
                    let (lo, hi) = (a.max(cmd.lbn), b.min(end));
                    if lo < hi {
                        self.valid.unpin(lo, hi);
                    }
                }
                Route::Platter
            }
            Op::Read => Route::Platter,
        }
    }

    fn start_next(&mut self, now: SimTime, io: &mut DeviceIo) {
        if self.current.is_some() {
            return;
        }
        let Some(cmd) = self.queue.pop_front() else {
            return;
        };
        let route = self.route(&cmd);
        let mut inner_io = DeviceIo::default();
        match route {
            Route::Flash => {
                self.from_flash += 1;
                let mut c = cmd.clone();
                // The NVCache maps pinned LBAs itself; its timing ignores the address.
                c.lbn %= self.flash.info().capacity_sectors.max(1);
                c.lbn = c
                    .lbn
                    .min(self.flash.info().capacity_sectors - c.sectors as u64);
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
        self.current = Some((cmd, route));
        self.finish(now, inner_io, io);
    }

    /// Hand on a completion from an inner device as the host's command.
    fn finish(&mut self, now: SimTime, mut inner_io: DeviceIo, io: &mut DeviceIo) {
        if let Some(mut c) = inner_io.completions.pop() {
            let (cmd, _) = self.current.take().expect("a command in service");
            c.command = cmd;
            io.complete(c);
            self.start_next(now, io);
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
        if token & FLASH_TOKEN != 0 {
            self.flash.wake(now, token & !FLASH_TOKEN, &mut inner_io);
            for (t, tok) in inner_io.wakeups.drain(..) {
                io.wake_at(t, tok | FLASH_TOKEN);
            }
        } else {
            self.platter.wake(now, token, &mut inner_io);
            for (t, tok) in inner_io.wakeups.drain(..) {
                io.wake_at(t, tok);
            }
        }
        self.finish(now, inner_io, io);
    }

    fn outstanding(&self) -> usize {
        self.queue.len() + self.current.is_some() as usize
    }
}
