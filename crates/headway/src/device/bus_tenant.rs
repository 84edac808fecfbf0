//! A device's side of a bus it shares with other devices (`link/shared_bus.rs`): a read
//! sends its data back over the bus, so the bus must know when, and must be able to make
//! the read wait when another device holds the bus then.

use super::DeviceIo;
use crate::time::SimTime;

/// When the read a device has in service holds the bus for its data: from when it asks for
/// the bus (its reconnection) through its completion message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadData {
    pub asks_ns: SimTime,
    pub done_ns: SimTime,
}

/// A device whose reads return their data over a bus it must win (a disk drive).
pub trait BusTenant {
    /// The data phase of the read in service; `None` when no read is in service.
    fn read_data(&self) -> Option<ReadData>;
    /// The bus is not free for that read's data before `until_ns`: its data and completion
    /// move later to match (a new completion wake-up in `io`).
    fn defer_read_data(&mut self, until_ns: SimTime, io: &mut DeviceIo);
}
