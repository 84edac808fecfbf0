//! What flows through the system: requests from workloads, commands from the host to a
//! device, and completions back.

use crate::request_marks::RequestMarks;
use crate::time::{SimTime, NEVER};
use smallvec::SmallVec;

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
}

impl Op {
    pub fn is_read(self) -> bool {
        self == Op::Read
    }
}

/// Index of a device in the simulated system (a hybrid host has two: disk and flash).
pub type DeviceId = u16;

/// One block request as issued by a workload.
///
/// Small and `Copy` on purpose: requests are moved between queues by value, so the hot path
/// never allocates for them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// Unique within a run, assigned by the engine in arrival-scheduling order.
    pub id: u64,
    pub arrival_ns: SimTime,
    /// First sector (512-byte logical block) of the request.
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
    /// Device the workload addressed (trace `devno`); the host may redirect.
    pub device: DeviceId,
    /// Issuing process or stream (closed loops, anticipation, per-process stats).
    pub process: u32,
    /// QoS class (Cello); 0 by default.
    pub class: u16,
    /// Absolute deadline, or [`NEVER`].
    pub deadline_ns: SimTime,
    /// Who made the request: a workload (ids below [`HOST_ORIGIN_BASE`], in configuration
    /// order) or a named host component such as `freeblock` or `flush` (from it on; the host
    /// interns the names). Host-made work is never reported to a workload and is counted
    /// apart from the workload's requests.
    pub origin: u16,
    /// One byte of marks: a later chunk of one large read that the workload split up
    /// (anticipation counts the whole read as one thinktime sample, paper §3.3), the zone
    /// command the request carries, and the ZBC error a zoned drive refused it with.
    pub marks: RequestMarks,
}

/// Origins from here on belong to host components, below it to workloads.
pub const HOST_ORIGIN_BASE: u16 = 0x8000;

impl Request {
    /// A plain foreground request with default class, priority and no deadline.
    pub fn new(arrival_ns: SimTime, lbn: u64, sectors: u32, op: Op) -> Self {
        Request {
            id: 0,
            arrival_ns,
            lbn,
            sectors,
            op,
            device: 0,
            process: 0,
            class: 0,
            deadline_ns: NEVER,
            origin: 0,
            marks: RequestMarks::default(),
        }
    }

    /// Made by the host itself (freeblock reads, flushes, write-backs), not by a workload.
    #[inline]
    pub fn is_host_work(&self) -> bool {
        self.origin >= HOST_ORIGIN_BASE
    }

    /// One past the last sector.
    #[inline]
    pub fn end_lbn(&self) -> u64 {
        self.lbn + self.sectors as u64
    }
}

/// A command sent by the host to one device: one contiguous extent, carrying one request or
/// several merged adjacent requests of the same direction.
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    pub device: DeviceId,
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
    /// When the host sent it towards the device (set by the host: the decision instant plus
    /// any modelled decision CPU time).
    pub dispatch_ns: SimTime,
    /// The host predictor's estimate, made at dispatch, of the time from `dispatch_ns` until
    /// the media transfer ends (set by the host when the device was idle, so that the
    /// predictor's head position was the true starting point).
    pub predicted_ns: Option<SimTime>,
    pub requests: SmallVec<[Request; 1]>,
}

impl Command {
    /// A command for nothing (a placeholder where one is moved out).
    #[inline]
    pub(crate) fn empty() -> Self {
        Command {
            device: 0,
            lbn: 0,
            sectors: 0,
            op: Op::Read,
            dispatch_ns: 0,
            predicted_ns: None,
            requests: SmallVec::new(),
        }
    }

    /// A command for exactly one request, to the device the request names.
    pub fn single(req: Request) -> Self {
        Command {
            device: req.device,
            lbn: req.lbn,
            sectors: req.sectors,
            op: req.op,
            dispatch_ns: 0,
            predicted_ns: None,
            // Built whole: `smallvec!` pushes, checking the capacity.
            requests: SmallVec::from_buf([req]),
        }
    }

    /// A command covering several requests of the same direction whose extents together form
    /// one contiguous range (they may overlap). Returns `None` if they do not.
    pub fn merged(reqs: &[Request]) -> Option<Self> {
        let first = reqs.first()?;
        let op = first.op;
        let device = first.device;
        let lo = reqs.iter().map(|r| r.lbn).min()?;
        let hi = reqs.iter().map(|r| r.end_lbn()).max()?;
        if reqs.iter().any(|r| r.op != op || r.device != device) {
            return None;
        }
        // A zone command is never merged with anything: it travels alone.
        if reqs.len() > 1 && reqs.iter().any(|r| r.marks.zone_op().is_some()) {
            return None;
        }
        // Contiguity: the union of the extents must have no hole.
        let mut ext: SmallVec<[(u64, u64); 8]> =
            reqs.iter().map(|r| (r.lbn, r.end_lbn())).collect();
        ext.sort_unstable();
        let mut reach = ext[0].1;
        for &(s, e) in &ext[1..] {
            if s > reach {
                return None;
            }
            reach = reach.max(e);
        }
        let span = hi - lo;
        if span > u32::MAX as u64 {
            return None;
        }
        Some(Command {
            device,
            lbn: lo,
            sectors: span as u32,
            op,
            dispatch_ns: 0,
            predicted_ns: None,
            requests: reqs.iter().copied().collect(),
        })
    }

    #[inline]
    pub fn end_lbn(&self) -> u64 {
        self.lbn + self.sectors as u64
    }

    /// A command for the extent `lbn..lbn + sectors`, which must contain every request's
    /// extent: a command may move more sectors than its requests ask for (free blocks
    /// prepended to a foreground read, read-ahead into host memory). Requests must share the
    /// command's op and device. Returns `None` otherwise.
    pub fn spanning(
        device: DeviceId,
        lbn: u64,
        sectors: u32,
        op: Op,
        reqs: &[Request],
    ) -> Option<Self> {
        let end = lbn.checked_add(sectors as u64)?;
        if reqs
            .iter()
            .any(|r| r.op != op || r.device != device || r.lbn < lbn || r.end_lbn() > end)
            || reqs.iter().any(|r| r.marks.zone_op().is_some()) && reqs.len() > 1
        {
            return None;
        }
        Some(Command {
            device,
            lbn,
            sectors,
            op,
            dispatch_ns: 0,
            predicted_ns: None,
            requests: reqs.iter().copied().collect(),
        })
    }

    /// The zone command this command carries (a zone command travels alone).
    #[inline]
    pub fn zone_op(&self) -> Option<crate::request_marks::ZoneOp> {
        self.requests.first().and_then(|r| r.marks.zone_op())
    }

    /// Whether this command carries request `id`.
    #[inline]
    pub(crate) fn carries(&self, id: u64) -> bool {
        self.requests.iter().any(|r| r.id == id)
    }
}

/// Where a disk head is: the mechanical state a predictor needs. The angular position is a
/// function of time alone (the spindle never stops), so it is not stored here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeadPosition {
    pub cylinder: u32,
    pub surface: u32,
}

/// How a command's service time broke down, as the device measured it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Phases {
    /// When the device began working on the command (after queueing inside the device).
    pub start_ns: SimTime,
    /// Controller/command overheads before mechanical action.
    pub overhead_ns: SimTime,
    pub seek_ns: SimTime,
    pub rotate_ns: SimTime,
    /// Media transfer, including head/cylinder switches inside the transfer.
    pub transfer_ns: SimTime,
    /// Bus transfer not overlapped with media transfer.
    pub bus_ns: SimTime,
}

/// A finished command, reported by a device.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub command: Command,
    pub done_ns: SimTime,
    pub phases: Phases,
    /// Served from the on-board cache without mechanical action.
    pub cache_hit: bool,
    /// Where the head was left; predictors refresh their reference point from this.
    pub head: HeadPosition,
    /// LBN just past the last sector the head accessed (the calibrated predictor's LBA_0).
    pub head_lbn: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_stays_within_six_words() {
        // Requests are copied by value through every queue; a seventh word costs every run.
        assert!(std::mem::size_of::<Request>() <= 48);
    }
}
