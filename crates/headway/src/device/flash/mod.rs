//! Flash: geometry and size-dependent access times (`spec`), a page-mapped translation layer
//! with greedy garbage collection and erase counts (`ftl`), the paper's endurance estimate
//! (`endurance`), and a single-channel flash `Device`.

pub mod endurance;
pub mod ftl;
pub mod spec;

use std::collections::VecDeque;

pub use ftl::{Ftl, FtlCounters};
pub use spec::FlashSpec;

use super::{Device, DeviceInfo, DeviceIo};
use crate::error::Result;
use crate::request::{Command, Completion, Op, Phases};
use crate::time::{ms_to_ns, SimTime};

/// A flash device with one channel: commands are served one at a time in arrival order.
/// Reads and writes cost `FlashSpec::access_ns`; writes also pass through the FTL, whose
/// copies and erases are added to the time when `gc_time_counted`.
pub struct FlashDevice {
    info: DeviceInfo,
    spec: FlashSpec,
    ftl: Ftl,
    queue: VecDeque<Command>,
    /// The command in service and when it ends.
    current: Option<(Command, SimTime, SimTime)>,
    busy_ns: SimTime,
}

impl FlashDevice {
    pub fn new(spec: FlashSpec, queue_depth: usize, wear_aware: bool) -> Result<Self> {
        spec.validate()?;
        let ftl = Ftl::new(&spec, wear_aware);
        Ok(FlashDevice {
            info: DeviceInfo {
                name: spec.name.clone(),
                capacity_sectors: spec.capacity_sectors(),
                queue_depth: queue_depth.max(1),
            },
            spec,
            ftl,
            queue: VecDeque::new(),
            current: None,
            busy_ns: 0,
        })
    }

    /// Sectors -> logical pages touched.
    fn pages(&self, lbn: u64, sectors: u32) -> (u64, u64) {
        let per = self.spec.page_bytes / spec::SECTOR_BYTES;
        let first = lbn / per;
        let last = (lbn + sectors.max(1) as u64 - 1) / per;
        (first, last - first + 1)
    }

    fn service_ns(&mut self, cmd: &Command) -> SimTime {
        let mut ns = self.spec.access_ns(cmd.sectors, cmd.op);
        if cmd.op == Op::Write {
            let (first, count) = self.pages(cmd.lbn, cmd.sectors);
            let cost = self.ftl.write(first, count);
            if self.spec.gc_time_counted {
                let page = self.spec.page_bytes as u32 / spec::SECTOR_BYTES as u32;
                ns += cost.copied_pages
                    * (self.spec.access_ns(page, Op::Read) + self.spec.access_ns(page, Op::Write));
                ns += cost.erases * ms_to_ns(self.spec.erase_ms);
            }
        }
        ns
    }

    fn start_next(&mut self, now: SimTime, io: &mut DeviceIo) {
        if self.current.is_some() {
            return;
        }
        if let Some(cmd) = self.queue.pop_front() {
            let end = now + self.service_ns(&cmd);
            io.wake_at(end, 0);
            self.current = Some((cmd, now, end));
        }
    }
}

impl Device for FlashDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        self.queue.push_back(cmd);
        self.start_next(now, io);
    }

    fn wake(&mut self, now: SimTime, _token: u64, io: &mut DeviceIo) {
        let Some((cmd, start, end)) = self.current.take() else {
            return;
        };
        debug_assert_eq!(end, now);
        self.busy_ns += end - start;
        let transfer_ns = end - start;
        let end_lbn = cmd.end_lbn();
        io.complete(Completion {
            command: cmd,
            done_ns: now,
            phases: Phases {
                start_ns: start,
                transfer_ns,
                ..Phases::default()
            },
            cache_hit: false,
            head: Default::default(),
            head_lbn: end_lbn,
        });
        self.start_next(now, io);
    }

    fn outstanding(&self) -> usize {
        self.queue.len() + self.current.is_some() as usize
    }
}
