//! A submitted request's completion, as the live simulation reports it.

use crate::request::{DeviceId, Op};
use crate::stats::RequestRecords;
use crate::time::SimTime;

/// One submitted request, completed. Times are simulated nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveCompletion {
    /// What [`super::Live::submit`] returned for it.
    pub id: u64,
    /// The caller's tag from the submission.
    pub tag: u64,
    /// The run's id for the request (the `id` column of the records).
    pub request_id: u64,
    /// The device that served it (the host may redirect, a flash-backed host to its
    /// flash); [`crate::stats::HOST_DEVICE`] when the host served it from memory.
    pub device: DeviceId,
    pub op: Op,
    pub lbn: u64,
    pub sectors: u32,
    pub arrival_ns: SimTime,
    /// When the host sent its command to the device.
    pub dispatch_ns: SimTime,
    pub completion_ns: SimTime,
}

impl LiveCompletion {
    /// Arrival to completion.
    pub fn response_ns(&self) -> SimTime {
        self.completion_ns - self.arrival_ns
    }

    /// Row `i` of `records`, for submission `id` with `tag`.
    pub(crate) fn from_record(records: &RequestRecords, i: usize, id: u64, tag: u64) -> Self {
        LiveCompletion {
            id,
            tag,
            request_id: records.id[i],
            device: records.device[i],
            op: if records.is_read[i] {
                Op::Read
            } else {
                Op::Write
            },
            lbn: records.lbn[i],
            sectors: records.sectors[i],
            arrival_ns: records.arrival_ns[i],
            dispatch_ns: records.dispatch_ns[i],
            completion_ns: records.done_ns[i],
        }
    }
}
