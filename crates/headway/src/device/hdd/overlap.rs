//! Bus overlap: the drive chooses its next queued command, and moves its arm for it, as
//! soon as the mechanism is done with the command in service, while that one still sends
//! its data from the buffer; the next command's own data waits for the bus.
//!
//! A SCSI drive disconnects from the bus while its mechanism works and reconnects to send
//! data from its segmented buffer, so the bus and the mechanism are separate resources: the
//! drive may seek for one command while it transfers another's data (Ruemmler and Wilkes,
//! "An introduction to disk drive modeling", IEEE Computer 27(3), 1994, on
//! disconnect/reconnect and the buffer decoupling the bus from the media; the SCSI-2
//! standard, X3.131-1994, on disconnect privilege and reselection). DiskSim 4.0's disk
//! controller does not overlap them: it takes up the next command only at the previous
//! one's completion, which is what the validated drives reproduce, so the option is off by
//! default (docs/interfaces.md).
//!
//! What is modelled: the choice is made when the command in service no longer needs the
//! mechanism (its media transfer is done: the end of its data's stay on the bus and its
//! completion message are left), ranked from where the head is then; the command chosen is
//! served from that moment with its bus start held until the previous completion
//! (`Drive::bus_free_ns`: a reselection after the bus is free), and goes into service at
//! that completion. Reads and writes alike: a write chosen early positions while the
//! previous data drains, and its own data crosses once the bus is free. A write in service
//! leaves nothing to overlap after its media work (its data crossed before), and a fast
//! write's write-back keeps the mechanism until it ends, so the next command is chosen at
//! the completion as before.
//!
//! Simplifications: once the next command is chosen, commands arriving meanwhile enter the
//! queue without holding the bus for their command phase (DiskSim's arrival hold,
//! `arrival_on_bus`, is followed until then); the firmware's own free reads
//! (`firmware_freeblock`) are planned only for commands taken up at a completion.

use super::{HddDevice, InService, Served, SptfAngle, EARLY_TOKEN};
use crate::device::DeviceIo;
use crate::request::Command;
use crate::time::SimTime;

impl HddDevice {
    /// The command just put into service: note when its mechanism is free for the next
    /// command (its completion less its bus tail and completion message) and choose then.
    pub(super) fn await_mechanism(&mut self, now: SimTime, io: &mut DeviceIo) {
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
            self.choose_early(now);
        } else {
            io.wake_at(free, EARLY_TOKEN);
        }
    }

    /// The wake-up at the mechanism's free moment (or at an arrival's, while it is free).
    pub(super) fn mechanism_free(&mut self, now: SimTime) {
        if self.mech_idle_from.is_some_and(|m| m <= now) {
            self.choose_early(now);
        }
    }

    /// A command reaching the drive while one is in service, under bus overlap.
    pub(super) fn arrive_overlapped(
        &mut self,
        now: SimTime,
        asked: SimTime,
        cmd: Command,
        io: &mut DeviceIo,
    ) {
        if self.next.is_some() {
            // The drive's bus state is the next command's now: this one queues as it comes.
            self.queue.push(now, cmd);
            return;
        }
        match self.arrival_on_bus(now, asked, &cmd, io) {
            Some(at) => {
                self.queue.push(at, cmd);
                if self.mech_idle_from.is_some_and(|m| m <= now) {
                    if at <= now {
                        self.choose_early(now);
                    } else {
                        io.wake_at(at, EARLY_TOKEN);
                    }
                }
            }
            None => self.on_bus.push((asked, cmd)),
        }
    }

    /// Choose the next command while the one in service still holds the bus, and serve it
    /// with its data held until that one's completion.
    fn choose_early(&mut self, now: SimTime) {
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
        let (at, head) = if self.queue.in_arrival_order() {
            (now, self.drive.head())
        } else {
            match self.sptf_angle {
                SptfAngle::Decision => (now, self.drive.head_at(now)),
                SptfAngle::LastMediaEvent => self.drive.last_media_event(now),
            }
        };
        let Some((cmd, arrived)) = self.queue.pop(at, head, self.drive.last_op()) else {
            return;
        };
        let mut served = Served::default();
        self.drive.bus_free_ns = bus_free as f64;
        self.drive
            .serve_queued(now, arrived, cmd.lbn, cmd.sectors, cmd.op, &mut served);
        self.drive.bus_free_ns = f64::NEG_INFINITY;
        // A command with no data (a seek) completes no earlier than the bus is free.
        if served.done < bus_free {
            served.phases.overhead_ns += bus_free - served.done;
            served.done = bus_free;
        }
        self.next = Some(InService {
            cmd,
            served,
            token: 0,
            ask_at_ns: None,
        });
        self.mech_idle_from = None;
    }

    /// The command in service completed with the next already chosen: it goes into service.
    pub(super) fn promote_next(&mut self, now: SimTime, io: &mut DeviceIo) {
        let Some(mut next) = self.next.take() else {
            return;
        };
        next.token = self.token();
        io.wake_at(next.served.done, next.token);
        self.current = Some(next);
        self.await_mechanism(now, io);
    }
}
