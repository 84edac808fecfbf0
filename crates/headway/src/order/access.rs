//! What every predictor call is about: which blocks (`Access`) and from where and when
//! (`Moment`). Both are small `Copy` values so that the calls that take them stay as cheap
//! as the argument lists they replace.

use crate::request::{Command, HeadPosition, Op, Request};
use crate::time::SimTime;

/// The blocks a command touches and what it does with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
}

impl Access {
    #[inline]
    pub fn new(lbn: u64, sectors: u32, op: Op) -> Self {
        Access { lbn, sectors, op }
    }
}

impl From<&Request> for Access {
    #[inline]
    fn from(r: &Request) -> Self {
        Access::new(r.lbn, r.sectors, r.op)
    }
}

impl From<&Command> for Access {
    #[inline]
    fn from(c: &Command) -> Self {
        Access::new(c.lbn, c.sectors, c.op)
    }
}

/// Where the head is and when a command is dispatched: the origin of an estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moment {
    pub from: HeadPosition,
    pub start_ns: SimTime,
}

impl Moment {
    #[inline]
    pub fn new(from: HeadPosition, start_ns: SimTime) -> Self {
        Moment { from, start_ns }
    }

    /// The same head, `ns` later.
    #[inline]
    pub(crate) fn later(self, ns: SimTime) -> Self {
        Moment {
            start_ns: self.start_ns + ns,
            ..self
        }
    }
}
