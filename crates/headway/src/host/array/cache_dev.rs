//! A cache device: a volume whose first member caches the second, sector for sector
//! (DiskSim's `disksim_cachedev`).
//!
//! - A read the cache device holds wholly is read from it; any other read is read from the
//!   disk, and (within the cached range) its data is then written onto the cache device.
//!   The read completes when the disk's read does: the population write runs after it.
//! - A write within the cached range is written onto the cache device, where it is dirty;
//!   it completes when that write does (with `write = "through"` the disk's write follows,
//!   unwaited). A write beyond the range goes to the disk.
//! - Destaging: once the disk has been idle `destage_idle_ms` since its last completion
//!   (or since the run began), and the cache device is idle too, the lowest run of dirty sectors is read from the
//!   cache device and written to the disk; as each step ends the next starts at once while
//!   both stay idle. A step that finds either busy waits for the disk's next idle period.

use super::cache_map::CacheMap;
use super::cache_settings::CacheWrite;
use super::plan::{MemberOp, MemberOps, Role, Wait};
use crate::host::slots::Slots;
use crate::request::{Op, Request};
use crate::stats::CacheDeviceSummary;
use crate::time::SimTime;

/// Member indices: the cache device, then the disk it caches.
pub(crate) const CACHE: usize = 0;
pub(crate) const DISK: usize = 1;

/// A cache device's state during a run.
pub(crate) struct CacheDev {
    map: CacheMap,
    write: CacheWrite,
    idle_ns: SimTime,
    /// When the disk's current idle period has lasted `idle_ns`: set by each disk
    /// completion that leaves it idle, spent when it comes.
    idle_until: Option<SimTime>,
    /// A destage step has just finished: the next may start at once.
    chained: bool,
    destaging: bool,
    counts: CacheDeviceSummary,
    /// The logical requests in progress, and those waiting for one to complete.
    slots: Slots,
}

impl CacheDev {
    pub(crate) fn new(
        size_sectors: u64,
        write: CacheWrite,
        idle_ns: SimTime,
        max_outstanding: Option<u32>,
    ) -> Self {
        CacheDev {
            map: CacheMap::new(size_sectors),
            write,
            idle_ns,
            // [TEAM CHOICE] the disk's first idle period begins with the run (DiskSim's
            // begins at the disk's first completion).
            idle_until: Some(idle_ns),
            chained: false,
            destaging: false,
            counts: CacheDeviceSummary::default(),
            slots: Slots::new(max_outstanding),
        }
    }

    /// A logical request arrived: it starts now (returned), or waits its turn.
    pub(crate) fn admit(&mut self, r: Request) -> Option<Request> {
        self.slots.admit(r)
    }

    /// A logical request completed.
    pub(crate) fn logical_done(&mut self) {
        self.slots.release();
    }

    /// The next waiting logical request, if one may start now.
    pub(crate) fn next_waiting(&mut self) -> Option<Request> {
        self.slots.next()
    }

    /// The member operations of a logical request.
    pub(crate) fn plan(&mut self, lbn: u64, sectors: u32, op: Op) -> MemberOps {
        let n = sectors as u64;
        let mut ops = MemberOps::new();
        let mut push = |member, op, role, wait| {
            ops.push(MemberOp {
                member,
                lbn,
                sectors,
                op,
                role,
                wait,
            })
        };
        match op {
            Op::Read if self.map.holds(lbn, n) => {
                self.counts.read_hits += 1;
                push(CACHE, Op::Read, Role::Data, Wait::Nothing);
            }
            Op::Read => {
                self.counts.read_misses += 1;
                push(DISK, Op::Read, Role::Data, Wait::Nothing);
                if self.map.covers(lbn, n) {
                    self.counts.population_writes += 1;
                    push(CACHE, Op::Write, Role::Populate, Wait::Op(0));
                }
            }
            Op::Write if self.map.covers(lbn, n) => {
                self.counts.write_hits += 1;
                push(CACHE, Op::Write, Role::Data, Wait::Nothing);
                if self.write == CacheWrite::Through {
                    push(DISK, Op::Write, Role::Flush, Wait::Op(0));
                }
            }
            Op::Write => {
                self.counts.write_misses += 1;
                push(DISK, Op::Write, Role::Data, Wait::Nothing);
            }
        }
        ops
    }

    /// Member operation `o` completed at `now`; `disk_idle`: the disk has nothing else
    /// queued or outstanding.
    pub(crate) fn op_done(&mut self, o: &MemberOp, now: SimTime, disk_idle: bool) {
        let n = o.sectors as u64;
        match (o.member, o.op, o.role) {
            (CACHE, Op::Write, Role::Populate) => self.map.fill(o.lbn, n),
            (CACHE, Op::Write, _) => self.map.write(o.lbn, n),
            (DISK, Op::Write, Role::Flush) => self.map.clean(o.lbn, n),
            (DISK, Op::Write, Role::Destage) => {
                self.map.clean(o.lbn, n);
                self.destaging = false;
                self.chained = true;
            }
            _ => {}
        }
        if o.member == DISK && disk_idle {
            self.idle_until = Some(now + self.idle_ns);
        }
    }

    /// The next destage step if one starts at `now` (its operations), else when to look
    /// again. `idle`: the cache device and the disk each have nothing queued or
    /// outstanding.
    pub(crate) fn destage(
        &mut self,
        now: SimTime,
        idle: [bool; 2],
    ) -> (Option<MemberOps>, Option<SimTime>) {
        if self.destaging {
            return (None, None);
        }
        let chained = std::mem::take(&mut self.chained);
        match self.idle_until {
            Some(t) if t > now && !chained => return (None, idle[DISK].then_some(t)),
            Some(t) if t <= now => self.idle_until = None,
            None if !chained => return (None, None),
            _ => {}
        }
        if !(idle[CACHE] && idle[DISK]) {
            return (None, None);
        }
        let Some((lbn, n)) = self.map.first_dirty(u32::MAX as u64) else {
            return (None, None);
        };
        self.destaging = true;
        self.counts.destage_reads += 1;
        self.counts.destage_writes += 1;
        self.counts.destage_sectors += n;
        let op = |member, op, wait| MemberOp {
            member,
            lbn,
            sectors: n as u32,
            op,
            role: Role::Destage,
            wait,
        };
        let ops = [
            op(CACHE, Op::Read, Wait::Nothing),
            op(DISK, Op::Write, Wait::Op(0)),
        ];
        (Some(ops.into_iter().collect()), None)
    }

    pub(crate) fn summary(&self) -> CacheDeviceSummary {
        CacheDeviceSummary {
            dirty_sectors_end: self.map.dirty_sectors(),
            ..self.counts.clone()
        }
    }
}
