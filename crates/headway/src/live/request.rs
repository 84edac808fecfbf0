//! A request as a co-simulator submits it.

use crate::request::{DeviceId, Op, Request};
use crate::time::SimTime;

/// One block request for [`super::Live::submit`]: what, where, when, and for whom.
///
/// ```
/// use headway::live::LiveRequest;
/// use headway::Op;
/// let r = LiveRequest::new(Op::Read, 4096, 8, 1_000_000).device(0).process(3).tag(42);
/// assert_eq!((r.lbn, r.sectors, r.at_ns, r.process, r.tag), (4096, 8, 1_000_000, 3, 42));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveRequest {
    pub op: Op,
    /// First sector (512 bytes each).
    pub lbn: u64,
    pub sectors: u32,
    /// Arrival at the host, not before the live clock.
    pub at_ns: SimTime,
    /// Index of the device in the configuration's `[[devices]]` order (0 for `[drive]`).
    pub device: DeviceId,
    /// The process or stream the host's schedulers see (anticipation, per-process shares).
    pub process: u32,
    /// QoS class index (the configuration's classes, in first-use order); 0 by default.
    pub class: u16,
    /// The caller's own value, handed back with the completion.
    pub tag: u64,
}

impl LiveRequest {
    pub fn new(op: Op, lbn: u64, sectors: u32, at_ns: SimTime) -> Self {
        LiveRequest {
            op,
            lbn,
            sectors,
            at_ns,
            device: 0,
            process: 0,
            class: 0,
            tag: 0,
        }
    }
    pub fn device(mut self, device: DeviceId) -> Self {
        self.device = device;
        self
    }
    pub fn process(mut self, process: u32) -> Self {
        self.process = process;
        self
    }
    pub fn class(mut self, class: u16) -> Self {
        self.class = class;
        self
    }
    pub fn tag(mut self, tag: u64) -> Self {
        self.tag = tag;
        self
    }

    /// The engine's request (its id is given when it is scheduled).
    pub(crate) fn to_request(self) -> Request {
        let mut r = Request::new(self.at_ns, self.lbn, self.sectors, self.op);
        r.device = self.device;
        r.process = self.process;
        r.class = self.class;
        r
    }
}
