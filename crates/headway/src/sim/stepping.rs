//! The run loop driven from outside (the live face's needs): stepping to a time, the next
//! event's time, and the arrival lane's request replaced by one fed in.

use super::{Simulation, NO_LANE};
use crate::device::DeviceIo;
use crate::engine::order_key;
use crate::error::{HeadwayError, Result};
use crate::request::Request;
use crate::stats::{RequestRecords, Summary};
use crate::time::SimTime;

impl Simulation {
    /// Process every event at or before `until_ns` and move the clock there (the live
    /// face's step; the run's own time limit does not apply).
    pub(crate) fn step_until(&mut self, until_ns: SimTime, io: &mut DeviceIo) -> Result<()> {
        let limit = self.limits.max_time_ns;
        self.limits.max_time_ns = until_ns;
        let stepped = self.process(io, &mut |_, _| Ok(()));
        self.limits.max_time_ns = limit;
        stepped?;
        self.now = self.now.max(until_ns);
        Ok(())
    }

    /// The time of the earliest pending event, if any.
    pub(crate) fn next_event_ns(&self) -> Option<SimTime> {
        let first = self.lane_key.min(self.wake_key).min(self.events.peek_key());
        (first != NO_LANE).then_some((first >> 64) as SimTime)
    }

    /// The clock.
    pub(crate) fn now_ns(&self) -> SimTime {
        self.now
    }

    /// Whether `req` may be scheduled now: not in the past, to a device that exists,
    /// inside it.
    pub(crate) fn check_request(&self, req: &Request) -> Result<()> {
        Self::check_arrival(
            req,
            self.now,
            &self.capacity_sectors,
            self.devices.len(),
            &*self.workload,
        )
    }

    /// The arrival waiting in the lane, if one does.
    pub(crate) fn lane_arrival(&self) -> Option<&Request> {
        (self.lane_key != NO_LANE).then(|| &self.lane[0])
    }

    /// Put `req` in the lane in place of the arrival waiting there, which it returns:
    /// `req` takes that arrival's request id and its place among the events of its time,
    /// so an arrival fed from outside is ordered as the one it replaces would have been.
    pub(crate) fn replace_lane_arrival(&mut self, mut req: Request) -> Result<Request> {
        self.check_request(&req)?;
        let Some(&old) = self.lane_arrival() else {
            return Err(HeadwayError::Invariant(
                "no arrival is waiting in the lane to be replaced".into(),
            ));
        };
        req.id = old.id;
        // The low half of the key is the sequence number.
        let seq = self.lane_key as u64;
        self.lane[0] = req;
        self.lane_key = order_key(req.arrival_ns, seq);
        Ok(old)
    }

    /// The per-request records so far (when the run keeps them).
    pub(crate) fn records(&self) -> Option<&RequestRecords> {
        self.stats.records()
    }

    /// The summary of the run so far, the run going on (energy, which its meters report
    /// only at the end, is left out). The per-request records are not copied.
    pub(crate) fn summary_so_far(&self) -> Summary {
        let names = self.names();
        let (mut summary, _, _) = self.stats.tallies().finish(self.now, &names);
        Self::add_firmware_free(&self.devices, &mut summary, &names);
        summary
    }
}
