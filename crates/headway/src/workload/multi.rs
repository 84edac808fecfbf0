//! Several workloads in one run (`[[workloads]]`): each member keeps its own numbering of
//! processes and addresses from 0 on its own region; the composite stamps its requests with
//! the member's origin, class, device, process range, region offset and deadline on the way
//! out, and takes the stamps off again before handing a request back to the member, so no
//! workload needs to know it is not alone.

use super::{Arrivals, TraceReport, Workload};
use crate::error::Result;
use crate::request::{DeviceId, Request};
use crate::time::SimTime;

/// One workload and where its requests go.
pub struct Member {
    pub workload: Box<dyn Workload>,
    pub class: u16,
    pub device: DeviceId,
    /// Its process 0 is the run's process `process_base`.
    pub process_base: u32,
    /// Its sector 0 is the device's sector `region_start`.
    pub region_start: u64,
    /// Relative deadline of each request.
    pub deadline_ns: Option<SimTime>,
}

pub struct MultiWorkload {
    name: String,
    members: Vec<Member>,
    scratch: Arrivals,
}

impl MultiWorkload {
    pub fn new(members: Vec<Member>) -> Self {
        let name = members
            .iter()
            .map(|m| m.workload.name().to_string())
            .collect::<Vec<_>>()
            .join("+");
        MultiWorkload {
            name,
            members,
            scratch: Arrivals::default(),
        }
    }

    /// Stamp member `i`'s new arrivals and pass them on.
    fn forward(&mut self, i: usize, out: &mut Arrivals) {
        let m = &self.members[i];
        for mut r in self.scratch.drain() {
            r.origin = i as u16;
            r.class = m.class;
            r.device = m.device;
            r.process += m.process_base;
            r.lbn += m.region_start;
            if let Some(d) = m.deadline_ns {
                r.deadline_ns = r.arrival_ns.saturating_add(d);
            }
            out.push(r);
        }
    }

    /// The request as member `req.origin` issued it.
    fn local(&self, req: &Request) -> (usize, Request) {
        let i = req.origin as usize;
        let m = &self.members[i];
        let mut r = *req;
        r.process -= m.process_base;
        r.lbn -= m.region_start;
        (i, r)
    }
}

impl Workload for MultiWorkload {
    fn name(&self) -> &str {
        &self.name
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        for i in 0..self.members.len() {
            self.members[i].workload.start(&mut self.scratch)?;
            self.forward(i, out);
        }
        Ok(())
    }
    fn on_arrival(&mut self, req: &Request, out: &mut Arrivals) -> Result<()> {
        let (i, r) = self.local(req);
        self.members[i].workload.on_arrival(&r, &mut self.scratch)?;
        self.forward(i, out);
        Ok(())
    }
    fn on_completion(&mut self, req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()> {
        let (i, r) = self.local(req);
        self.members[i]
            .workload
            .on_completion(&r, now, &mut self.scratch)?;
        self.forward(i, out);
        Ok(())
    }
    fn trace_report(&self) -> Option<TraceReport> {
        self.members.iter().find_map(|m| m.workload.trace_report())
    }
}
