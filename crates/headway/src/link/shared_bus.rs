//! Buses shared by several devices (`shared_bus = "name"` on `[[devices]]`, settings in
//! `[[buses]]`): one owner at a time, as on DiskSim's exclusive buses.
//!
//! A command reaches its device once the bus is free, and holds it from then through the
//! drive's command phase as DiskSim's disk holds it: the command overhead (miss overheads,
//! by the previous op), then for a read the disconnect overhead, for a write the data's
//! transfer over the bus and the write disconnect. Later commands to any device on the bus
//! wait their turn, in the order the host dispatched them.
//!
//! A read's data comes back over the bus too (`hold_read_data`, on by default): from when
//! the drive asks for the bus to send it (its reconnection once its watermark's blocks are
//! in the buffer) through its completion message, as DiskSim's disk keeps the bus from its
//! reconnection to its completion. A command whose turn comes while a read's data holds the
//! bus waits for that read's completion; a read asking for the bus while another device's
//! command phase or data holds it sends its data (and completes) that much later; a read
//! and a command asking at the same instant: the read goes first (DiskSim's arbitration
//! prefers a drive's slot to the controller's). Commands already given the bus keep their
//! place: a read asking later waits behind every command phase given out before it.
//!
//! Every grant of the bus costs its arbitration time (`arbitration_ms`): a command phase's
//! start and a read's return for its data begin that much after the bus is free.

use crate::device::hdd::overheads::Overheads;
use crate::device::ReadData;
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

/// How a shared bus is arbitrated and what holds it (`[[buses]]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BusSettings {
    /// What each grant of the bus costs before its new owner may use it.
    pub arbitration_ns: SimTime,
    /// A read's data and completion hold the bus (DiskSim's disks always send them over it).
    pub hold_read_data: bool,
}

impl Default for BusSettings {
    fn default() -> Self {
        BusSettings {
            arbitration_ns: 0,
            hold_read_data: true,
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
    /// The data phase of the read this device has in service, once the bus knows of it:
    /// from when its data has the bus (its request, or its grant when it had to wait).
    data: Option<ReadData>,
}

/// One shared bus's state.
#[derive(Clone, Copy, Debug)]
struct Bus {
    settings: BusSettings,
    /// When the last command phase given the bus ends.
    free_ns: SimTime,
    /// The device of that command phase (none yet: `u16::MAX`).
    holder: u16,
}

/// A read told to wait for the bus: its data has the bus from `from_ns` (the bus taken
/// for it, arbitration included from there) and starts moving at `until_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Deferral {
    pub device: u16,
    pub from_ns: SimTime,
    pub until_ns: SimTime,
}

/// Every shared bus of a run, and which device sits on which (`None`: a bus of its own).
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedBuses {
    seats: Vec<Option<Seat>>,
    buses: Vec<Bus>,
    /// Reads made to wait by the last call, for the run loop to move (`take_deferred`).
    deferred: Vec<Deferral>,
}

impl SharedBuses {
    /// Buses for devices `0..holds.len()`: `holds[d]` is `Some((bus, hold))` for a device on
    /// shared bus number `bus`, whose settings are `settings[bus]` (the default for a bus
    /// past its end).
    pub(crate) fn new(holds: &[Option<(usize, BusHold)>], settings: &[BusSettings]) -> Self {
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
                        data: None,
                    })
                })
                .collect(),
            buses: (0..buses)
                .map(|b| Bus {
                    settings: settings.get(b).copied().unwrap_or_default(),
                    free_ns: 0,
                    holder: u16::MAX,
                })
                .collect(),
            deferred: Vec::new(),
        }
    }

    /// Whether any device shares a bus (without, every command passes straight through).
    #[inline]
    pub(crate) fn any(&self) -> bool {
        !self.buses.is_empty()
    }

    /// When `cmd`, ready to cross the link at `ready_ns`, reaches its device: at once when
    /// its device has a bus of its own, else once the bus is free (after the last command
    /// phase given it, and after any read's data that asked for it no later) and granted;
    /// the bus is then held through the command phase. A read of another device asking
    /// for the bus during that phase is told to wait (`take_deferred`). A device never
    /// waits for its own last command phase: in DiskSim a disk's command phase ends before
    /// the command completes (a write completed from the buffer included), so whatever the
    /// host sends it next finds the bus released by it.
    pub(crate) fn admit(&mut self, cmd: &Command, ready_ns: SimTime) -> SimTime {
        let dev = cmd.device;
        let Some(Some(seat)) = self.seats.get(dev as usize) else {
            return ready_ns;
        };
        let (b, hold, previous) = (seat.bus, seat.hold, seat.previous);
        let bus = self.buses[b];
        let mut start = if bus.holder == dev {
            ready_ns
        } else {
            ready_ns.max(bus.free_ns)
        };
        // Reads' data asking for the bus by then goes first, each through its completion.
        while let Some(done) = self
            .others(b, dev)
            .filter(|d| d.asks_ns <= start && d.done_ns > start)
            .map(|d| d.done_ns)
            .max()
        {
            start = done;
        }
        let at = start + bus.settings.arbitration_ns;
        let end = at + hold.hold_ns(cmd.op, cmd.sectors, previous);
        self.defer_asking(b, dev, start, end);
        let seat = self.seats[dev as usize].as_mut().expect("seated above");
        seat.previous = cmd.op;
        let bus = &mut self.buses[b];
        bus.holder = dev;
        bus.free_ns = end;
        at
    }

    /// Whether device `dev`'s reads hold a shared bus for their data (the run loop then
    /// tells the bus of each read it starts, `note`).
    #[inline]
    pub(crate) fn holds_read_data(&self, dev: u16) -> bool {
        match self.seats.get(dev as usize) {
            Some(Some(seat)) => self.buses[seat.bus].settings.hold_read_data,
            _ => false,
        }
    }

    /// Device `dev` now has `data` in service (`None`: no read): the read's data waits for
    /// any command phase given the bus before it and any read that asked no later, and is
    /// told to (`take_deferred`); reads of other devices that asked later during its data
    /// phase wait for it in turn.
    pub(crate) fn note(&mut self, dev: u16, data: Option<ReadData>) {
        let Some(Some(seat)) = self.seats.get_mut(dev as usize) else {
            return;
        };
        let data = data.filter(|_| self.buses[seat.bus].settings.hold_read_data);
        let Some(d) = data else {
            seat.data = None;
            return;
        };
        // The same read again, already given the bus later than it asked.
        if seat
            .data
            .is_some_and(|s| s.done_ns == d.done_ns && s.asks_ns >= d.asks_ns)
        {
            return;
        }
        let b = seat.bus;
        let bus = self.buses[b];
        let mut from = d.asks_ns;
        if bus.holder != dev {
            from = from.max(bus.free_ns);
        }
        while let Some(done) = self
            .others(b, dev)
            .filter(|o| o.asks_ns <= d.asks_ns && o.done_ns > from)
            .map(|o| o.done_ns)
            .max()
        {
            from = from.max(done);
        }
        let until = from + bus.settings.arbitration_ns;
        if until > d.asks_ns {
            self.seats[dev as usize].as_mut().expect("seated").data = None;
            self.deferred.push(Deferral {
                device: dev,
                from_ns: from,
                until_ns: until,
            });
            return;
        }
        self.granted(dev, d);
    }

    /// Device `dev`'s read, told to wait, now has the bus for its data as `data` says (from
    /// the deferral's `from_ns`): reads of other devices that asked later during it wait.
    pub(crate) fn granted(&mut self, dev: u16, data: ReadData) {
        let Some(Some(seat)) = self.seats.get_mut(dev as usize) else {
            return;
        };
        seat.data = Some(data);
        let b = seat.bus;
        self.defer_asking(b, dev, data.asks_ns, data.done_ns);
    }

    /// The next read the bus made wait, if any.
    #[inline]
    pub(crate) fn take_deferred(&mut self) -> Option<Deferral> {
        self.deferred.pop()
    }

    /// The read data phases noted on bus `b` of devices other than `dev`.
    fn others(&self, b: usize, dev: u16) -> impl Iterator<Item = ReadData> + '_ {
        self.seats
            .iter()
            .enumerate()
            .filter_map(move |(i, s)| match s {
                Some(s) if s.bus == b && i != dev as usize => s.data,
                _ => None,
            })
    }

    /// Reads of devices other than `dev` on bus `b` asking after `from_ns` and before
    /// `end_ns` wait until `end_ns` (then their arbitration).
    fn defer_asking(&mut self, b: usize, dev: u16, from_ns: SimTime, end_ns: SimTime) {
        let arbitration = self.buses[b].settings.arbitration_ns;
        for (i, s) in self.seats.iter_mut().enumerate() {
            let Some(s) = s.as_mut().filter(|s| s.bus == b && i != dev as usize) else {
                continue;
            };
            if s.data
                .is_some_and(|d| d.asks_ns > from_ns && d.asks_ns < end_ns)
            {
                s.data = None;
                self.deferred.push(Deferral {
                    device: i as u16,
                    from_ns: end_ns,
                    until_ns: end_ns + arbitration,
                });
            }
        }
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
        let mut b = SharedBuses::new(
            &[Some((0, hold())), Some((0, hold())), Some((0, hold()))],
            &[],
        );
        let at = 10_000_000;
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), at), 10_000_000);
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), at), 12_502_000);
        assert_eq!(b.admit(&cmd(2, Op::Read, 8), at), 15_004_000);
    }

    #[test]
    fn separate_buses_overlap() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((1, hold())), None], &[]);
        let at = 10_000_000;
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), at), at);
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), at), at);
        assert_eq!(b.admit(&cmd(2, Op::Read, 8), at), at);
    }

    #[test]
    fn a_write_holds_the_bus_through_its_data() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))], &[]);
        // 2 ms overhead + 16 sectors at 10 us + 0.1 ms disconnect.
        assert_eq!(b.admit(&cmd(0, Op::Write, 16), 0), 0);
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), 0), 2_260_000);
        // A bus free again by the time a command is ready lets it through at once.
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), 9_000_000), 9_000_000);
    }

    #[test]
    fn a_device_never_waits_for_its_own_last_phase() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))], &[]);
        assert_eq!(b.admit(&cmd(0, Op::Write, 16), 0), 0);
        // Device 0 again (its write completed from the buffer at 1 ms): no wait.
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), 1_000_000), 1_000_000);
        // Device 1 waits for device 0's read phase.
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), 1_000_000), 3_502_000);
    }

    fn data(asks_ns: SimTime, done_ns: SimTime) -> Option<ReadData> {
        Some(ReadData { asks_ns, done_ns })
    }

    #[test]
    fn a_command_waits_for_a_read_already_sending_its_data() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))], &[]);
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), 0), 0);
        b.note(0, data(10_000_000, 11_000_000));
        assert_eq!(b.take_deferred(), None);
        // Sent as the read asks for the bus: the read goes first, through its completion.
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), 10_000_000), 11_000_000);
        assert_eq!(b.take_deferred(), None);
    }

    #[test]
    fn a_read_asking_during_a_command_phase_waits_for_its_end() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))], &[]);
        b.admit(&cmd(0, Op::Read, 8), 0);
        b.note(0, data(10_000_000, 11_000_000));
        // Device 1's phase runs 9.0 to 11.502 ms: the read asking at 10 ms waits to its end.
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), 9_000_000), 9_000_000);
        let d = b.take_deferred().expect("the read waits");
        assert_eq!(
            (d.device, d.from_ns, d.until_ns),
            (0, 11_502_000, 11_502_000)
        );
        // A read that starts later and asks during that phase waits for it too.
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))], &[]);
        b.admit(&cmd(1, Op::Read, 8), 9_000_000);
        b.note(0, data(10_000_000, 11_000_000));
        let d = b.take_deferred().expect("the read waits");
        assert_eq!((d.device, d.until_ns), (0, 11_502_000));
        // Moved, it holds the bus from then; asked again for the same read, nothing more.
        b.granted(
            0,
            ReadData {
                asks_ns: 11_502_000,
                done_ns: 12_502_000,
            },
        );
        b.note(0, data(10_000_000, 12_502_000));
        assert_eq!(b.take_deferred(), None);
    }

    #[test]
    fn reads_of_two_drives_send_their_data_one_after_the_other() {
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))], &[]);
        b.note(0, data(10_000_000, 11_000_000));
        // Asking later, during the first read's data: after it.
        b.note(1, data(10_500_000, 11_200_000));
        let d = b.take_deferred().expect("the second read waits");
        assert_eq!((d.device, d.until_ns), (1, 11_000_000));
        // Asking earlier than a read already noted: that one waits for it instead.
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))], &[]);
        b.note(0, data(10_500_000, 11_200_000));
        b.note(1, data(10_000_000, 11_000_000));
        let d = b.take_deferred().expect("the later asker waits");
        assert_eq!((d.device, d.until_ns), (0, 11_000_000));
    }

    #[test]
    fn each_grant_costs_the_arbitration_time() {
        let arb = BusSettings {
            arbitration_ns: 50_000,
            hold_read_data: true,
        };
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))], &[arb]);
        assert_eq!(b.admit(&cmd(0, Op::Read, 8), 0), 50_000);
        // The next command: after the first's phase (to 2.552 ms), then its own grant.
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), 0), 2_602_000);
        // A read's data asking on a free bus still waits for its grant.
        let mut b = SharedBuses::new(&[Some((0, hold()))], &[arb]);
        b.note(0, data(10_000_000, 11_000_000));
        let d = b.take_deferred().expect("granted after arbitration");
        assert_eq!((d.from_ns, d.until_ns), (10_000_000, 10_050_000));
    }

    #[test]
    fn without_read_data_on_the_bus_only_command_phases_hold_it() {
        let off = BusSettings {
            arbitration_ns: 0,
            hold_read_data: false,
        };
        let mut b = SharedBuses::new(&[Some((0, hold())), Some((0, hold()))], &[off]);
        assert!(!b.holds_read_data(0));
        b.note(0, data(10_000_000, 11_000_000));
        assert_eq!(b.admit(&cmd(1, Op::Read, 8), 10_000_000), 10_000_000);
        assert_eq!(b.take_deferred(), None);
    }
}
