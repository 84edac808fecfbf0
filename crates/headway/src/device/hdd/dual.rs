//! A dual-actuator drive (Seagate's MACH.2 design): two arms on one spindle, each carrying
//! the heads of half the surfaces and serving half the LBN range, each with its own seek
//! state and firmware queue. The host sees one device whose two halves are independent
//! access ranges, as Linux's `independent_access_ranges` reports them.
//!
//! What the arms share:
//! * the spindle: both halves are built with the same zone table and skews and run on the
//!   same clock, so a given angle passes under both arms' heads at the same instant;
//! * the cache: its segments are divided evenly between the arms (a static partition of one
//!   buffer);
//! * the link: every command's data crosses it once, a sector at a time at the drive's bus
//!   rate, in the order the arms finish; a completion whose transfer would overlap the
//!   other arm's is held until the link has carried it.
//!
//! A command crossing the middle is split at it: each arm serves its part, and the host
//! hears of the command once, when the later part is done.
//!
//! The same drive can be two devices instead, one per arm (`dual_halves.rs`): each then
//! addresses its arm's LBNs from 0, and the two share everything above.

use std::collections::HashMap;

use super::spec::HddSpec;
use super::HddDevice;
use crate::device::{Device, DeviceInfo, DeviceIo};
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Completion};
use crate::time::SimTime;

/// One arm's half of a dual-actuator drive: half the surfaces (the same zones, so the same
/// cylinders and angles), half the exported LBNs and half the cache's segments.
pub fn half_spec(spec: &HddSpec) -> Result<HddSpec> {
    let bad = |key: &str, msg: String| {
        HeadwayError::params(
            None,
            None,
            Some(key.to_string()),
            format!("{}: {msg}", spec.name),
        )
    };
    if spec.actuators != 2 {
        return Err(bad(
            "actuators",
            format!(
                "a half needs a dual-actuator drive, this has {}",
                spec.actuators
            ),
        ));
    }
    if spec.surfaces % 2 != 0 {
        return Err(bad(
            "surfaces",
            format!(
                "two arms need an even number of surfaces, got {}",
                spec.surfaces
            ),
        ));
    }
    let mut half = spec.clone();
    half.actuators = 1;
    half.surfaces = spec.surfaces / 2;
    half.block_count = spec.block_count / 2;
    half.layout.exported_sectors = Some(half.block_count);
    if let Some(c) = half.cache.as_mut() {
        c.segments = (c.segments / 2).max(1);
        c.max_write_segments = c.max_write_segments.min(c.segments);
    }
    Ok(half)
}

/// A host command split at the middle, until both parts are done.
struct Split {
    whole: Command,
    /// (first LBN, sectors) of each part not yet done, in host LBNs.
    pending: Vec<(u64, u32)>,
    /// The part done first.
    first: Option<Completion>,
}

pub struct DualActuator {
    info: DeviceInfo,
    arms: [HddDevice; 2],
    /// LBNs below it are arm 0's.
    half_sectors: u64,
    /// Time the link takes per sector (ns).
    link_sector_ns: f64,
    /// When the link has carried everything so far.
    link_free_ns: SimTime,
    ios: [DeviceIo; 2],
    /// Wrapper token -> (arm, the arm's own token).
    tokens: HashMap<u64, (usize, u64)>,
    next_token: u64,
    /// Split commands under way.
    splits: Vec<Split>,
    /// Surfaces of arm 0: arm 1's heads are numbered after them.
    half_surfaces: u32,
    /// Completions waiting for the link, by wrapper token, with their arm.
    held: HashMap<u64, (usize, Completion)>,
    outstanding: usize,
    /// Two devices, one per arm: commands arrive and leave in the arm's own LBNs.
    per_arm: bool,
    /// Commands each arm holds (kept when `per_arm`).
    arm_outstanding: [usize; 2],
}

impl DualActuator {
    /// The drive `spec` describes (`actuators = 2`), each arm accepting `queue_depth`
    /// commands.
    pub fn new(spec: &HddSpec, queue_depth: usize) -> Result<Self> {
        let half = half_spec(spec)?;
        let arms = [
            HddDevice::new(&half, queue_depth)?,
            HddDevice::new(&half, queue_depth)?,
        ];
        Ok(DualActuator {
            info: DeviceInfo {
                name: spec.name.clone(),
                capacity_sectors: half.block_count * 2,
                queue_depth: 2 * queue_depth,
            },
            arms,
            half_sectors: half.block_count,
            link_sector_ns: spec.bus.sector_transfer_ms * 1e6,
            link_free_ns: 0,
            ios: [DeviceIo::default(), DeviceIo::default()],
            tokens: HashMap::new(),
            next_token: 1,
            splits: Vec::new(),
            half_surfaces: half.surfaces,
            held: HashMap::new(),
            outstanding: 0,
            per_arm: false,
            arm_outstanding: [0, 0],
        })
    }

    /// The drive as two devices: each arm's commands come and go in that arm's LBNs
    /// ([`submit_to_arm`](Self::submit_to_arm)).
    pub(crate) fn per_arm(spec: &HddSpec, queue_depth: usize) -> Result<Self> {
        let mut d = Self::new(spec, queue_depth)?;
        d.per_arm = true;
        d.info.capacity_sectors = d.half_sectors;
        d.info.queue_depth = queue_depth;
        Ok(d)
    }

    /// A command of arm `arm`'s own device (its LBNs from 0).
    pub(crate) fn submit_to_arm(
        &mut self,
        arm: usize,
        now: SimTime,
        cmd: Command,
        io: &mut DeviceIo,
    ) {
        self.outstanding += 1;
        self.arm_outstanding[arm] += 1;
        self.arms[arm].submit(now, cmd, &mut self.ios[arm]);
        self.collect(arm, now, io);
    }

    /// Commands arm `arm` holds (of its own device).
    pub(crate) fn arm_outstanding(&self, arm: usize) -> usize {
        self.arm_outstanding[arm]
    }

    /// One arm's share of the drive: its LBNs and queue.
    pub(crate) fn arm_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The LBN where arm 1's range starts.
    pub fn boundary_lbn(&self) -> u64 {
        self.half_sectors
    }

    fn to_arm(&mut self, arm: usize, now: SimTime, mut cmd: Command, io: &mut DeviceIo) {
        if arm == 1 {
            cmd.lbn -= self.half_sectors;
        }
        self.arms[arm].submit(now, cmd, &mut self.ios[arm]);
        self.collect(arm, now, io);
    }

    /// Take what arm `arm` reported: wake-ups under wrapper tokens, completions through the
    /// link.
    fn collect(&mut self, arm: usize, now: SimTime, io: &mut DeviceIo) {
        for (at, token) in std::mem::take(&mut self.ios[arm].wakeups) {
            let t = self.next_token;
            self.next_token += 1;
            self.tokens.insert(t, (arm, token));
            io.wake_at(at, t);
        }
        for mut c in std::mem::take(&mut self.ios[arm].completions) {
            if arm == 1 && !self.per_arm {
                c.command.lbn += self.half_sectors;
                c.head_lbn += self.half_sectors;
                c.head.surface += self.half_surfaces;
            }
            self.through_link(now, arm, c, io);
        }
    }

    /// Carry a completion's data over the shared link, holding it if the link is busy.
    fn through_link(&mut self, now: SimTime, arm: usize, c: Completion, io: &mut DeviceIo) {
        let xfer_ns = (c.command.sectors as f64 * self.link_sector_ns).round() as SimTime;
        let start = c.done_ns.saturating_sub(xfer_ns).max(self.link_free_ns);
        let done = start + xfer_ns;
        self.link_free_ns = done;
        if done <= c.done_ns.max(now) {
            self.finish(arm, c, io);
        } else {
            let t = self.next_token;
            self.next_token += 1;
            let mut c = c;
            c.done_ns = done;
            self.held.insert(t, (arm, c));
            io.wake_at(done, t);
        }
    }

    /// A part is done: the host hears of it, or of its command once both parts are.
    fn finish(&mut self, arm: usize, c: Completion, io: &mut DeviceIo) {
        let part = (c.command.lbn, c.command.sectors);
        let split = self
            .splits
            .iter()
            .position(|s| s.pending.contains(&part) && s.whole.requests == c.command.requests);
        let Some(i) = split else {
            self.outstanding -= 1;
            if self.per_arm {
                self.arm_outstanding[arm] -= 1;
            }
            io.complete(c);
            return;
        };
        let s = &mut self.splits[i];
        s.pending.retain(|p| *p != part);
        if !s.pending.is_empty() {
            s.first = Some(c);
            return;
        }
        let s = self.splits.swap_remove(i);
        let first = s.first.expect("the other part finished first");
        let mut last = if first.done_ns > c.done_ns { first } else { c };
        last.command = s.whole;
        self.outstanding -= 1;
        io.complete(last);
    }
}

impl Device for DualActuator {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        self.outstanding += 1;
        let end = cmd.lbn + cmd.sectors as u64;
        if end <= self.half_sectors {
            self.to_arm(0, now, cmd, io);
        } else if cmd.lbn >= self.half_sectors {
            self.to_arm(1, now, cmd, io);
        } else {
            let mut low = cmd.clone();
            low.sectors = (self.half_sectors - cmd.lbn) as u32;
            let mut high = cmd.clone();
            high.lbn = self.half_sectors;
            high.sectors = cmd.sectors - low.sectors;
            self.splits.push(Split {
                whole: cmd,
                pending: vec![(low.lbn, low.sectors), (high.lbn, high.sectors)],
                first: None,
            });
            self.to_arm(0, now, low, io);
            self.to_arm(1, now, high, io);
        }
    }

    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo) {
        if let Some((arm, c)) = self.held.remove(&token) {
            self.finish(arm, c, io);
            return;
        }
        let Some((arm, inner)) = self.tokens.remove(&token) else {
            return;
        };
        self.arms[arm].wake(now, inner, &mut self.ios[arm]);
        self.collect(arm, now, io);
    }

    fn outstanding(&self) -> usize {
        self.outstanding
    }
}
