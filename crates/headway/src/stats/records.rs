use crate::request::{Completion, Request};

/// The `device` of a request the host served from its own memory.
pub const HOST_DEVICE: u16 = u16::MAX;

/// One row per completed request, stored column-wise so it crosses into Python/Arrow as a
/// handful of flat arrays. Times in nanoseconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RequestRecords {
    pub id: Vec<u64>,
    pub arrival_ns: Vec<u64>,
    pub dispatch_ns: Vec<u64>,
    pub start_ns: Vec<u64>,
    pub overhead_ns: Vec<u64>,
    pub seek_ns: Vec<u64>,
    pub rotate_ns: Vec<u64>,
    pub transfer_ns: Vec<u64>,
    pub bus_ns: Vec<u64>,
    pub done_ns: Vec<u64>,
    pub lbn: Vec<u64>,
    pub sectors: Vec<u32>,
    pub is_read: Vec<bool>,
    pub device: Vec<u16>,
    pub process: Vec<u32>,
    pub class: Vec<u16>,
    /// Who made the request (workload index, or `HOST_ORIGIN_BASE` + host component).
    pub origin: Vec<u16>,
    /// Absolute deadline, or `u64::MAX` for none.
    pub deadline_ns: Vec<u64>,
    pub cache_hit: Vec<bool>,
    /// The host predictor's estimate from dispatch to the end of the transfer, or
    /// `u64::MAX` when none was made (the device was busy at dispatch).
    pub predicted_ns: Vec<u64>,
    /// With `[[arrays]]`: the logical request each member operation served (`u64::MAX`
    /// for any other request); empty without arrays.
    pub logical_id: Vec<u64>,
    /// The zone command each request carried (`reset`, `open`, `close`, `finish`,
    /// `append`), or `""` for a plain read or write.
    pub zone_op: Vec<&'static str>,
    /// The ZBC error a zoned drive refused each request with (`unaligned-write`, ...), or
    /// `""` for a request served.
    pub error: Vec<&'static str>,
}

impl RequestRecords {
    pub fn len(&self) -> usize {
        self.id.len()
    }
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
    /// A request the host served from memory at `now`: no device (`device` is
    /// [`HOST_DEVICE`]), no phases.
    /// Fill `logical_id` from `(member request id, logical request id)` links.
    pub(crate) fn link_logical(&mut self, links: &[(u64, u64)]) {
        let map: std::collections::HashMap<u64, u64> = links.iter().copied().collect();
        self.logical_id = self
            .id
            .iter()
            .map(|id| map.get(id).copied().unwrap_or(u64::MAX))
            .collect();
    }

    pub(crate) fn push_served(&mut self, r: &Request, now: u64) {
        self.id.push(r.id);
        self.arrival_ns.push(r.arrival_ns);
        for v in [&mut self.dispatch_ns, &mut self.start_ns, &mut self.done_ns] {
            v.push(now);
        }
        for v in [
            &mut self.overhead_ns,
            &mut self.seek_ns,
            &mut self.rotate_ns,
            &mut self.transfer_ns,
            &mut self.bus_ns,
        ] {
            v.push(0);
        }
        self.lbn.push(r.lbn);
        self.sectors.push(r.sectors);
        self.is_read.push(r.op.is_read());
        self.device.push(HOST_DEVICE);
        self.process.push(r.process);
        self.class.push(r.class);
        self.origin.push(r.origin);
        self.deadline_ns.push(r.deadline_ns);
        self.cache_hit.push(false);
        self.predicted_ns.push(crate::time::NEVER);
        self.push_marks(r);
    }

    fn push_marks(&mut self, r: &Request) {
        self.zone_op
            .push(r.marks.issued_zone_op().map_or("", |z| z.name()));
        self.error.push(r.marks.error().map_or("", |e| e.name()));
    }

    pub(crate) fn push(&mut self, r: &Request, c: &Completion) {
        let p = &c.phases;
        self.id.push(r.id);
        self.arrival_ns.push(r.arrival_ns);
        self.dispatch_ns.push(c.command.dispatch_ns);
        self.start_ns.push(p.start_ns);
        self.overhead_ns.push(p.overhead_ns);
        self.seek_ns.push(p.seek_ns);
        self.rotate_ns.push(p.rotate_ns);
        self.transfer_ns.push(p.transfer_ns);
        self.bus_ns.push(p.bus_ns);
        self.done_ns.push(c.done_ns);
        self.lbn.push(r.lbn);
        self.sectors.push(r.sectors);
        self.is_read.push(r.op.is_read());
        self.device.push(c.command.device);
        self.process.push(r.process);
        self.class.push(r.class);
        self.origin.push(r.origin);
        self.deadline_ns.push(r.deadline_ns);
        self.cache_hit.push(c.cache_hit);
        self.predicted_ns
            .push(c.command.predicted_ns.unwrap_or(crate::time::NEVER));
        self.push_marks(r);
    }
}
