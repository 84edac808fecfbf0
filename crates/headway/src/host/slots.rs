//! A controller's request slots: how many host requests it serves at once (DiskSim's I/O
//! driver keeps `Maximum queue length + 1` at a controller). The rest wait at the host and
//! are taken in C-LOOK order by first LBN, from the last one taken upward, then from the
//! lowest, as DiskSim's driver orders its queue (`CYCLE_LBN`). Both controller caches use
//! them: the memory cache (a hit leaves its slot at once, a miss holds it until its fills
//! and write-backs are done) and the cache device (a logical request holds its slot until
//! it completes).

use std::collections::BTreeMap;

use crate::request::Request;

pub(crate) struct Slots {
    limit: u32,
    busy: u32,
    /// Waiting requests by `(first LBN, id)`.
    waiting: BTreeMap<(u64, u64), Request>,
    last_lbn: u64,
}

impl Slots {
    /// `limit` requests at once; `None`: no limit.
    pub(crate) fn new(limit: Option<u32>) -> Self {
        Slots {
            limit: limit.unwrap_or(u32::MAX),
            busy: 0,
            waiting: BTreeMap::new(),
            last_lbn: 0,
        }
    }

    /// Take a slot for `req`, or keep it waiting: `Some(req)` when it may start now.
    pub(crate) fn admit(&mut self, req: Request) -> Option<Request> {
        if self.busy < self.limit && self.waiting.is_empty() {
            self.busy += 1;
            self.last_lbn = req.lbn;
            return Some(req);
        }
        self.waiting.insert((req.lbn, req.id), req);
        None
    }

    /// A request left its slot.
    pub(crate) fn release(&mut self) {
        self.busy = self.busy.saturating_sub(1);
    }

    /// The next waiting request, if a slot is free.
    pub(crate) fn next(&mut self) -> Option<Request> {
        if self.busy >= self.limit {
            return None;
        }
        let key = *self
            .waiting
            .range((self.last_lbn, 0)..)
            .next()
            .or_else(|| self.waiting.iter().next())?
            .0;
        let req = self.waiting.remove(&key)?;
        self.busy += 1;
        self.last_lbn = req.lbn;
        Some(req)
    }

    pub(crate) fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;

    fn req(id: u64, lbn: u64) -> Request {
        Request {
            id,
            ..Request::new(0, lbn, 8, Op::Read)
        }
    }

    #[test]
    fn waiting_requests_are_taken_in_c_look_order() {
        let mut s = Slots::new(Some(1));
        assert!(s.admit(req(1, 500)).is_some());
        for (id, lbn) in [(2, 100), (3, 900), (4, 600), (5, 500)] {
            assert!(s.admit(req(id, lbn)).is_none());
        }
        assert_eq!(s.next(), None, "the one slot is taken");
        let mut order = Vec::new();
        for _ in 0..4 {
            s.release();
            order.push(s.next().unwrap().id);
        }
        assert_eq!(order, vec![5, 4, 3, 2]);
        assert_eq!(s.waiting(), 0);
    }
}
