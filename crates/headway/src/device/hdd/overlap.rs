//! Bus overlap: the drive chooses its next queued command, and moves its arm for it, as
//! soon as the mechanism is done with the command in service, while that one still sends
//! its data from the buffer; the next command's own data waits for the bus.
//!
//! A SCSI drive disconnects from the bus while its mechanism works and reconnects to send
//! data from its segmented buffer, so the bus and the mechanism are separate resources: the
//! drive may seek for one command while it transfers another's data (Ruemmler and Wilkes,
//! "An introduction to disk drive modeling", IEEE Computer 27(3), 1994, on
//! disconnect/reconnect and the buffer decoupling the bus from the media; SCSI-2, ANSI
//! X3.131-1994, on disconnection and reselection; Lumb, Schindler and Ganger, "Freeblock
//! Scheduling Outside of Disk Firmware", FAST 2002, on two requests outstanding: the bus
//! transfer of one overlaps the positioning of the next). DiskSim 4.0's disk controller
//! does not overlap them: it takes up the next command only at the previous one's
//! completion, which is what the validated drives reproduce, so the option is off by
//! default (docs/interfaces.md).
//!
//! What is modelled: the choice is made when the command in service no longer needs the
//! mechanism (its completion less its bus tail and completion message: its media transfer
//! is done), ranked from where the head is then; the command chosen is put into service as
//! at a completion (`pick_next`, `start`), with its bus start held until the previous
//! completion (`Drive::bus_free_ns`: a reselection once the bus is free), and goes into
//! service at that completion. Reads and writes alike: a write chosen early positions while
//! the previous data drains, and its own data crosses once the bus is free. A write in
//! service leaves nothing to overlap after its media work (its data crossed before), and a
//! fast write's write-back keeps the mechanism until it ends, so the next command is chosen
//! at the completion as before.
//!
//! Simplification: once the next command is chosen, commands arriving meanwhile enter the
//! queue without holding the bus for their command phase (DiskSim's arrival hold,
//! `arrival_on_bus`, is followed until then).

use super::{HddDevice, EARLY_TOKEN};
use crate::device::DeviceIo;
use crate::time::SimTime;

impl HddDevice {
    /// The command just put into service: note when its mechanism is free for the next
    /// command (its completion less its bus tail and completion message) and choose then.
    pub(super) fn await_mechanism(&mut self, now: SimTime, io: &mut DeviceIo) {
        // The command just chosen early waits for the one in service to complete first.
        if self.drive.bus_free_ns > f64::NEG_INFINITY {
            return;
        }
        let Some(cur) = &self.current else {
            return;
        };
        let tail = self.drive.ovh.completion_ns[cur.cmd.op as usize] + cur.served.phases.bus_ns;
        let free = cur.served.done.saturating_sub(tail).max(now);
        if free >= cur.served.done {
            self.mech_idle_from = None;
            return;
        }
        self.mech_idle_from = Some(free);
        if free <= now {
            self.choose_early(now, io);
        } else {
            io.wake_at(free, EARLY_TOKEN);
        }
    }

    /// The wake-up at the mechanism's free moment (or at an arrival's, while it is free).
    pub(super) fn mechanism_free(&mut self, now: SimTime, io: &mut DeviceIo) {
        if self.mech_idle_from.is_some_and(|m| m <= now) {
            self.choose_early(now, io);
        }
    }

    /// A command reached the drive's queue at `at` (its arrival at `now`, or later when
    /// the bus was held): if the mechanism is free meanwhile, it may be chosen then.
    pub(super) fn queued_while_free(&mut self, now: SimTime, at: SimTime, io: &mut DeviceIo) {
        if self.current.is_none() || self.mech_idle_from.is_none_or(|m| m > now) {
            return;
        }
        if at <= now {
            self.choose_early(now, io);
        } else {
            io.wake_at(at, EARLY_TOKEN);
        }
    }

    /// Choose the next command while the one in service still holds the bus, and serve it
    /// with its data held until that one's completion.
    fn choose_early(&mut self, now: SimTime, io: &mut DeviceIo) {
        if self.next.is_some() || self.queue.is_empty() {
            return;
        }
        let Some(cur) = &self.current else {
            return;
        };
        let bus_free = cur.served.done;
        // At the completion the ordinary choice is made; a write-back under way holds the
        // choice until it ends, as at a completion.
        if now >= bus_free || self.drive.positioning_free_at(now) > now {
            return;
        }
        // Chosen and started as at a completion (`pick_next`, `start`: one place each, so
        // that every command keeps their inlining), with the command in service set aside.
        self.mech_idle_from = None;
        let in_service = self.current.take();
        self.drive.bus_free_ns = bus_free as f64;
        self.pick_next(now, io);
        self.drive.bus_free_ns = f64::NEG_INFINITY;
        self.next = std::mem::replace(&mut self.current, in_service);
    }

    /// The command in service completed with the next already chosen: it goes into service
    /// (its completion's wake-up was set when it was chosen).
    pub(super) fn promote_next(&mut self, now: SimTime, io: &mut DeviceIo) {
        self.current = self.next.take();
        self.await_mechanism(now, io);
    }
}
