//! A capability a few schedulers have: reading blocks the host chooses in the foreground's
//! rotational gaps (the freeblock scheduler's background pool). The array layer hands a
//! rebuild's or a scrub's member reads to it and learns of each read as it completes (the
//! reads carry the host origin [`FREE_READ_ORIGIN`]).

use crate::error::Result;

/// The host origin name of the reads a free-read scheduler makes.
pub const FREE_READ_ORIGIN: &str = "freeblock";

/// Background reads on one device, chosen by someone above the scheduler.
pub trait FreeReads {
    /// Read nothing in the background until asked: the device's background work is owned
    /// by the caller from now on (a configured scan or region is dropped).
    fn clear_wanted(&mut self);
    /// Read sectors `lbn..lbn + sectors` once each, in whatever order the gaps allow; a
    /// range outside the device is an error.
    fn want(&mut self, lbn: u64, sectors: u64) -> Result<()>;
}
