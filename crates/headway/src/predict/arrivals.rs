//! What commands reaching the drive while a read miss is in service do to it, as the
//! drive's own rules have it (`HddDevice::arrival_on_bus`), for the oracle: with commands
//! queued at the drive, a read miss's completion depends on what the host sends meanwhile,
//! which the host knows (it sends them).
//!
//! [`BusWhileMiss::arrive`] picks the hold by the arriving command: a read holds the bus for
//! its read-miss overhead and disconnect, a fast write for its write-hit overhead and the
//! write disconnect, a write the drive does not take into its buffer for nothing (the
//! drive's `arrival_hold_ns`, resolved into [`ArrivalCosts`]). A rule the drive gains (an
//! arrival while a hit is in service) is one more function here and one more arm there,
//! with the figures it needs in [`ArrivalCosts`].

use crate::request::Op;
use crate::time::SimTime;

/// A command that reaches the drive (after the link) while another is in service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub at_ns: SimTime,
    pub op: Op,
}

impl Arrival {
    pub fn new(at_ns: SimTime, op: Op) -> Self {
        Arrival { at_ns, op }
    }
}

/// The figures the rules read, resolved once from the drive's overheads.
#[derive(Clone, Copy, Debug, Default)]
pub struct ArrivalCosts {
    /// How long an arriving read holds the bus: its read-miss overhead and disconnect after
    /// the read in service (the drive's `last_op` while a read miss is in service).
    pub read_hold_ns: SimTime,
    /// How long an arriving write holds the bus: on a fast-write drive its write-hit
    /// overhead and the write disconnect after the read in service; `None` where the drive
    /// does not hold the bus for it (no fast writes, or the extra write disconnect:
    /// `device::hdd::arrival_hold_ns`), and it enters the queue as it arrives.
    pub(crate) write_hold_ns: Option<SimTime>,
}

/// The bus while a read miss that disconnected is in service: when it asks for the bus back
/// (its blocks in, DiskSim's watermark), until when arrivals hold the bus, and when (if they
/// did) the read gets it back.
#[derive(Clone, Copy, Debug)]
pub struct BusWhileMiss {
    /// When the read asks for the bus back, in whole ns as the drive compares it
    /// (`Drive::bus_asked_at` truncates).
    pub asks_ns: SimTime,
    /// When it asks in fact, if an arrival's hold covered `asks_ns`: the read cannot ask
    /// while an arrival's overhead holds the bus, so it asks at that hold's end, after
    /// whatever arrived meanwhile (the drive's `InService::ask_at_ns`).
    ask_at_ns: Option<SimTime>,
    held_until_ns: SimTime,
    /// When the read gets the bus back, if an arrival held it past `asks_ns`.
    pub(crate) back_ns: Option<SimTime>,
}

impl BusWhileMiss {
    pub(crate) fn new(asks_ns: SimTime) -> Self {
        BusWhileMiss {
            asks_ns,
            ask_at_ns: None,
            held_until_ns: 0,
            back_ns: None,
        }
    }

    /// The bus is held until `at_ns` before any arrival's hold can begin: the read's own
    /// command phase, when it reached an idle bus.
    pub(crate) fn held_until(&mut self, at_ns: SimTime) {
        self.held_until_ns = self.held_until_ns.max(at_ns);
    }

    /// Apply one arrival (arrivals in the order they reach the drive); `done_ns` is the
    /// read's completion as the arrivals so far leave it. Returns when the arrival enters
    /// the drive's queue (its command overhead counts from then): the start of its hold,
    /// or the completion for one that asked for the bus after the read did and found no
    /// gap. `gap(t)`: the read's next release of the bus at or after `t` while it waits for
    /// the media, as (when the bus is free, when the rest of the read asks for it back);
    /// the caller works it out on the read's transfer (`bus::next_gap`, the drive's
    /// `Drive::bus_gap`) and moves the rest of the read to the blocks after it.
    #[inline]
    pub(crate) fn arrive(
        &mut self,
        a: Arrival,
        done_ns: SimTime,
        c: &ArrivalCosts,
        gap: impl FnOnce(SimTime) -> Option<(SimTime, SimTime)>,
    ) -> SimTime {
        match a.op {
            Op::Read => self.holds(a, done_ns, c.read_hold_ns, gap),
            Op::Write => match c.write_hold_ns {
                Some(hold_ns) => self.holds(a, done_ns, hold_ns, gap),
                None => a.at_ns,
            },
        }
    }

    /// An arriving command that holds the bus for `hold_ns` (`HddDevice::arrival_on_bus`, a
    /// read or a fast write alike): requests for the bus are served in the order made, so
    /// one made after the read asked for it back waits for the read's completion and changes
    /// nothing, unless the read lets go of the bus meanwhile to wait for the media (`gap`):
    /// then it holds the bus from that release, and the rest of the read asks again at the
    /// gap's end. One made before waits for any earlier arrival's hold, then holds the bus
    /// for its own overhead and disconnect, and the read reconnects only after the last hold
    /// that began before it asked. A command that waited for the bus through the last
    /// completion reaches the drive at the start of the read's service, before anything the
    /// read asks: the host's walk passes it so (`sched::timed_chain`).
    #[inline]
    fn holds(
        &mut self,
        a: Arrival,
        done_ns: SimTime,
        hold_ns: SimTime,
        gap: impl FnOnce(SimTime) -> Option<(SimTime, SimTime)>,
    ) -> SimTime {
        let mut from = a.at_ns;
        // Once the read in service has asked, it gets the bus at the next release ahead of
        // any command still waiting (the drive's slot priority, `HddDevice::arrival_on_bus`).
        let asks_from = self.ask_at_ns.unwrap_or(self.asks_ns);
        if a.at_ns >= asks_from || a.at_ns.max(self.held_until_ns) > asks_from {
            let Some((free_ns, asks_ns)) = gap(a.at_ns.max(self.held_until_ns)) else {
                return a.at_ns.max(done_ns);
            };
            self.asks_ns = asks_ns;
            self.ask_at_ns = None;
            from = free_ns;
        }
        let at = from.max(self.held_until_ns);
        let until = at + hold_ns;
        self.held_until_ns = until;
        // Asking at the hold's very start it asked first, and waits for the bus ahead of
        // the commands arriving during the hold (the drive's `arrival_on_bus`: DiskSim's
        // arbitration prefers the drive's slot to the host's).
        if self.ask_at_ns.is_none() && (at + 1..until).contains(&self.asks_ns) {
            self.ask_at_ns = Some(until);
        }
        if self.asks_ns < until {
            self.back_ns = Some(until);
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: ArrivalCosts = ArrivalCosts {
        read_hold_ns: 3_616_000,
        write_hold_ns: None,
    };
    /// A fast-write drive's costs (the Atlas 10K's write-hit overhead after a read).
    const FAST: ArrivalCosts = ArrivalCosts {
        read_hold_ns: 0,
        write_hold_ns: Some(186_000),
    };

    /// [`BusWhileMiss::arrive`] for a read that keeps the bus from its first reconnection
    /// to its last block.
    fn arrive(b: &mut BusWhileMiss, a: Arrival, done_ns: SimTime, c: &ArrivalCosts) -> SimTime {
        b.arrive(a, done_ns, c, |_| None)
    }

    fn read(at_ns: SimTime) -> Arrival {
        Arrival::new(at_ns, Op::Read)
    }

    #[test]
    fn a_read_before_the_ask_holds_the_bus_past_it() {
        let mut b = BusWhileMiss::new(13_460_000);
        assert_eq!(arrive(&mut b, read(10_000_000), 14_727_345, &C), 10_000_000);
        assert_eq!(b.back_ns, Some(13_616_000));
    }

    #[test]
    fn a_read_after_the_ask_waits_for_the_completion() {
        let mut b = BusWhileMiss::new(13_460_000);
        assert_eq!(arrive(&mut b, read(13_500_000), 14_727_345, &C), 14_727_345);
        assert_eq!(b.back_ns, None);
    }

    #[test]
    fn a_hold_that_ends_before_the_ask_changes_nothing_for_the_read() {
        let mut b = BusWhileMiss::new(13_460_000);
        assert_eq!(arrive(&mut b, read(1_000_000), 14_727_345, &C), 1_000_000);
        assert_eq!(b.back_ns, None);
    }

    #[test]
    fn a_second_read_during_a_hold_waits_and_holds_in_turn() {
        let mut b = BusWhileMiss::new(13_460_000);
        arrive(&mut b, read(11_000_000), 14_727_345, &C);
        assert_eq!(arrive(&mut b, read(12_000_000), 16_000_000, &C), 14_616_000);
        assert_eq!(b.back_ns, Some(18_232_000));
    }

    #[test]
    fn a_read_begun_on_an_idle_bus_holds_it_through_its_command_phase() {
        // An arrival's hold ends before the read asks when it begins at the arrival; begun
        // after the read's own overhead and disconnect, it runs past the ask.
        let mut b = BusWhileMiss::new(5_000_000);
        assert_eq!(arrive(&mut b, read(1_000_000), 14_727_345, &C), 1_000_000);
        assert_eq!(b.back_ns, None);
        let mut b = BusWhileMiss::new(5_000_000);
        b.held_until(3_616_000);
        assert_eq!(arrive(&mut b, read(1_000_000), 14_727_345, &C), 3_616_000);
        assert_eq!(b.back_ns, Some(7_232_000));
    }

    fn write(at_ns: SimTime) -> Arrival {
        Arrival::new(at_ns, Op::Write)
    }

    #[test]
    fn a_read_arriving_during_the_hold_that_covered_the_ask_holds_the_bus_too() {
        // The read asks at 13.46 ms, inside the hold of a read that arrived at 11 ms: it
        // asks at that hold's end (14.616 ms), so a read arriving at 13.8 ms asked first and
        // holds the bus after it (the drive's case of
        // `the_bus_goes_to_arrivals_and_the_read_in_service_in_disksims_order`).
        let mut b = BusWhileMiss::new(13_460_000);
        assert_eq!(arrive(&mut b, read(11_000_000), 14_727_345, &C), 11_000_000);
        assert_eq!(arrive(&mut b, read(13_800_000), 15_900_000, &C), 14_616_000);
        assert_eq!(b.back_ns, Some(18_232_000));
        // After that hold's end it waits for the completion.
        assert_eq!(arrive(&mut b, read(15_000_000), 19_500_000, &C), 19_500_000);
        assert_eq!(b.back_ns, Some(18_232_000));
    }

    #[test]
    fn a_read_asking_as_a_hold_begins_asks_before_the_arrivals_during_it() {
        // A hold ends at the ask (13.46 ms), the next begins there: the read asked as it
        // began, so a read arriving during it (14 ms) asked after the read and waits for
        // the completion; one whose ask falls a ns into the hold asks at its end.
        let mut b = BusWhileMiss::new(13_460_000);
        assert_eq!(arrive(&mut b, read(9_844_000), 20_000_000, &C), 9_844_000);
        assert_eq!(arrive(&mut b, read(10_000_000), 20_000_000, &C), 13_460_000);
        assert_eq!(b.back_ns, Some(17_076_000));
        assert_eq!(arrive(&mut b, read(14_000_000), 20_000_000, &C), 20_000_000);
        let mut b = BusWhileMiss::new(13_460_001);
        arrive(&mut b, read(9_844_000), 20_000_000, &C);
        arrive(&mut b, read(10_000_000), 20_000_000, &C);
        assert_eq!(arrive(&mut b, read(14_000_000), 20_000_000, &C), 17_076_000);
    }

    #[test]
    fn a_read_after_the_ask_holds_the_bus_in_the_read_s_gap() {
        // The read asked at 13.46 ms and lets go of the bus from 14 to 16 ms to wait for
        // the media: a read arriving at 13.5 ms holds it from 14 ms, past the rest's ask.
        let mut b = BusWhileMiss::new(13_460_000);
        let gap = |t: SimTime| {
            assert_eq!(t, 13_500_000);
            Some((14_000_000, 16_000_000))
        };
        assert_eq!(b.arrive(read(13_500_000), 17_000_000, &C, gap), 14_000_000);
        assert_eq!(b.back_ns, Some(17_616_000));
        // The rest asked during that hold: a read arriving before the hold's end comes
        // before it, and one after waits for the next gap or the completion.
        assert_eq!(arrive(&mut b, read(17_000_000), 18_800_000, &C), 17_616_000);
        assert_eq!(arrive(&mut b, read(21_300_000), 22_000_000, &C), 22_000_000);
    }

    #[test]
    fn a_write_without_fast_writes_holds_nothing() {
        let mut b = BusWhileMiss::new(13_460_000);
        assert_eq!(
            arrive(&mut b, write(13_400_000), 14_727_345, &C),
            13_400_000
        );
        assert_eq!(b.back_ns, None);
        // Nor does it wait for the completion when it comes after the ask.
        assert_eq!(
            arrive(&mut b, write(13_500_000), 14_727_345, &C),
            13_500_000
        );
    }

    #[test]
    fn a_fast_write_just_before_the_ask_holds_the_bus_past_it() {
        let mut b = BusWhileMiss::new(13_460_000);
        assert_eq!(
            arrive(&mut b, write(13_400_000), 14_727_345, &FAST),
            13_400_000
        );
        assert_eq!(b.back_ns, Some(13_586_000));
        // A fast write after the ask waits for the completion, as a read does.
        let mut b = BusWhileMiss::new(13_460_000);
        assert_eq!(
            arrive(&mut b, write(13_460_000), 14_727_345, &FAST),
            14_727_345
        );
        assert_eq!(b.back_ns, None);
    }
}
