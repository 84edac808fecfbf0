//! Buses shared by several devices (`shared_bus = "name"` on `[[devices]]`): one device's
//! command phase at a time, as on DiskSim's buses (one owner at a time). A command reaches
//! its device once the bus is free, and holds it from then through the drive's command
//! phase as DiskSim's disk holds it: the command overhead (miss overheads, by the previous
//! op), then for a read the disconnect overhead, for a write the data's transfer over the
//! bus and the write disconnect. Later commands to any device on the bus wait their turn,
//! in the order the host dispatched them. The read data's own transfer back to the host is
//! not held here (the drive carries it in its service time).

use crate::device::hdd::overheads::Overheads;
use crate::request::{Command, Op};
use crate::time::{ms_to_ns, SimTime};

/// What a device on a shared bus holds the bus for, read from its drive's parameters.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BusHold {
    /// Command overhead of a read miss, by previous op (0 read, 1 write).
    read_command_ns: [SimTime; 2],
    /// Command overhead of a write miss, by previous op.
    write_command_ns: [SimTime; 2],
    /// A read's disconnect after its command overhead, by previous op.
    read_disconnect_ns: [SimTime; 2],
    write_disconnect_ns: SimTime,
    /// A write's data over the bus, per sector (fractional ns kept as f64 until summed).
    write_sector_ns: f64,
}

impl BusHold {
    /// The hold of a drive with `overheads` whose bus moves a written sector in
    /// `write_sector_ms`.
    pub(crate) fn new(overheads: &Overheads, write_sector_ms: f64) -> Self {
        BusHold {
            read_command_ns: overheads.read_miss_ns,
            write_command_ns: overheads.write_miss_ns,
            read_disconnect_ns: overheads.read_disconnect_ns,
            write_disconnect_ns: overheads.write_disconnect_ns,
            write_sector_ns: write_sector_ms.max(0.0) * 1e6,
        }
    }

    /// How long a command `op` of `sectors` holds the bus after a command `previous`.
    fn hold_ns(&self, op: Op, sectors: u32, previous: Op) -> SimTime {
        let p = usize::from(previous == Op::Write);
        match op {
            Op::Read => self.read_command_ns[p] + self.read_disconnect_ns[p],
            Op::Write => {
                self.write_command_ns[p]
                    + ms_to_ns(self.write_sector_ns * f64::from(sectors) / 1e6)
                    + self.write_disconnect_ns
            }
        }
    }
}

/// One device's place on a shared bus.
#[derive(Clone, Copy, Debug)]
struct Seat {
    bus: usize,
    hold: BusHold,
    /// The op of the last command this device received (DiskSim's "after read/write").
    previous: Op,
}

/// Every shared bus of a run, and which device sits on which (`None`: a bus of its own).
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedBuses {
    seats: Vec<Option<Seat>>,
    /// When each bus is next free.
    free_ns: Vec<SimTime>,
    /// The device whose command phase ends at `free_ns` (none yet: `u16::MAX`).
    holder: Vec<u16>,
}

impl SharedBuses {
    /// Buses for devices `0..holds.len()`: `holds[d]` is `Some((bus, hold))` for a device on
    /// shared bus number `bus`.
    pub(crate) fn new(holds: &[Option<(usize, BusHold)>]) -> Self {
        let buses = holds
            .iter()
            .flatten()
            .map(|(b, _)| b + 1)
            .max()
            .unwrap_or(0);
        SharedBuses {
            seats: holds
                .iter()
                .map(|h| {
                    h.map(|(bus, hold)| Seat {
                        bus,
                        hold,
                        previous: Op::Read,
                    })
                })
                .collect(),
            free_ns: vec![0; buses],
            holder: vec![u16::MAX; buses],
        }
    }

    /// Whether any device shares a bus (without, every command passes straight through).
    #[inline]
    pub(crate) fn any(&self) -> bool {
        !self.free_ns.is_empty()
    }

    /// When `cmd`, ready to cross the link at `ready_ns`, reaches its device: at once when
    /// its device has a bus of its own or the bus is free, else when the bus frees; the
    /// bus is then held through the command phase. A device never waits for its own last
    /// phase: in DiskSim a disk's command phase ends before the command completes (a write
    /// completed from the buffer included), so whatever the host sends it next finds the
    /// bus released by it.
    pub(crate) fn admit(&mut self, cmd: &Command, ready_ns: SimTime) -> SimTime {
        let Some(Some(seat)) = self.seats.get_mut(cmd.device as usize) else {
            return ready_ns;
        };
        let start = if self.holder[seat.bus] == cmd.device {
            ready_ns
        } else {
            ready_ns.max(self.free_ns[seat.bus])
        };
        self.holder[seat.bus] = cmd.device;
        self.free_ns[seat.bus] = start + seat.hold.hold_ns(cmd.op, cmd.sectors, seat.previous);
        seat.previous = cmd.op;
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Command;

    fn hold() -> BusHold {
        BusHold {
            read_command_ns: [2_502_000, 2_502_000],
            write_command_ns: [2_000_000, 2_000_000],
            read_disconnect_ns: [0, 0],
            write_disconnect_ns: 100_000,
            write_sector_ns: 10_000.0,
        }
    }

    fn cmd(device: u16, op: Op, sectors: u32) -> Command {
        let mut r = crate::request::Request::new(0, 0, sectors, op);
        r.device = device;
        Command::single(r)
    }

    #[test]
    fn reads_sent_at_once_on_one_bus_take_turns() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold())), Some((0, hold()))]);
        let at = 10_000_000;
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), at), 10_000_000);
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), at), 12_502_000);
        assert_eq!(b.admit(&cmd(2, Op::Read, 8), at), 15_004_000);
    }

    #[test]
    fn separate_buses_overlap() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((1, hold())), None]);
        let at = 10_000_000;
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), at), at);
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), at), at);
        assert_eq!(b.admit(&cmd(2, Op::Read, 8), at), at);
    }

    #[test]
    fn a_write_holds_the_bus_through_its_data() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))]);
        // 2 ms overhead + 16 sectors at 10 us + 0.1 ms disconnect.
        assert_eq!(b.admit(&cmd(0, Op::Write, 16), 0), 0);
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), 0), 2_260_000);
        // A bus free again by the time a command is ready lets it through at once.
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), 9_000_000), 9_000_000);
    }

    #[test]
    fn a_device_never_waits_for_its_own_last_phase() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))]);
        assert_eq!(b.admit(&cmd(0, Op::Write, 16), 0), 0);
        // Device 0 again (its write completed from the buffer at 1 ms): no wait.
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), 1_000_000), 1_000_000);
        // Device 1 waits for device 0's read phase.
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), 1_000_000), 3_502_000);
    }
}
