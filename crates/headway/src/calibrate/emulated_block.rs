//! An emulated block device: answers [`BlockIo`]'s reads and writes from a simulated drive,
//! on the simulated drive's clock. Run through [`BlockTarget`](super::block_target::BlockTarget),
//! it exercises everything `headway extract --device` does except the syscalls, against a
//! drive whose truth is known.

use std::io;

use super::block_target::{BlockIo, SECTOR_BYTES};
use super::simulated_target::SimulatedTarget;
use super::target::ProbeTarget;
use crate::device::Device;
use crate::link::Link;
use crate::request::Op;

pub struct EmulatedBlock {
    drive: SimulatedTarget,
}

impl EmulatedBlock {
    /// `device` behind `link`, as a file of its capacity.
    pub fn new(device: Box<dyn Device>, link: Link) -> Self {
        EmulatedBlock {
            drive: SimulatedTarget::new(device, link),
        }
    }

    fn command(&mut self, op: Op, bytes: usize, offset: u64) -> io::Result<()> {
        // Direct I/O refuses what is not whole sectors at a sector boundary; so does this.
        if bytes == 0 || bytes as u64 % SECTOR_BYTES != 0 || offset % SECTOR_BYTES != 0 {
            return Err(io::Error::from_raw_os_error(22));
        }
        let lbn = offset / SECTOR_BYTES;
        let sectors = (bytes as u64 / SECTOR_BYTES) as u32;
        if lbn + sectors as u64 > self.drive.capacity_sectors() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "past the end of the emulated device",
            ));
        }
        self.drive
            .access(op, lbn, sectors)
            .map(|_| ())
            .map_err(|e| io::Error::other(e.to_string()))
    }
}

impl BlockIo for EmulatedBlock {
    fn len_bytes(&mut self) -> io::Result<u64> {
        Ok(self.drive.capacity_sectors() * SECTOR_BYTES)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.command(Op::Read, buf.len(), offset)
    }

    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.command(Op::Write, buf.len(), offset)
    }

    fn now_ns(&self) -> u64 {
        self.drive.now()
    }

    fn wait_until_ns(&mut self, t: u64) {
        self.drive.wait_until(t)
    }
}
