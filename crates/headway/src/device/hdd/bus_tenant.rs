//! The drive on a bus shared with other devices: the read in service tells the bus when it
//! takes it back for its data, and waits when another device holds it then.

use super::HddDevice;
use crate::device::{BusTenant, DeviceIo, ReadData};
use crate::request::Op;
use crate::time::SimTime;

impl BusTenant for HddDevice {
    fn read_data(&self) -> Option<ReadData> {
        // Under bus overlap, once the next command is chosen the drive's bus state is that
        // command's, whose own data already waits for this one's completion.
        if self.next.is_some() {
            return None;
        }
        let cur = self.current.as_ref().filter(|c| c.cmd.op == Op::Read)?;
        Some(ReadData {
            asks_ns: self.drive.read_data_asks(&cur.served),
            done_ns: cur.served.done,
        })
    }

    fn defer_read_data(&mut self, until_ns: SimTime, io: &mut DeviceIo) {
        let Some(data) = self.read_data() else {
            return;
        };
        if until_ns <= data.asks_ns {
            return;
        }
        // The drive's own account of a late bus where it keeps one (a read miss that
        // reconnects, a hit sent whole); otherwise the data and completion move as a block,
        // from where an earlier wait left them.
        let cur_token = self.current.as_ref().map_or(0, |c| c.token);
        let given = match self.read_data_given {
            (token, at) if token == cur_token => at.max(data.asks_ns),
            _ => data.asks_ns,
        };
        if until_ns <= given {
            return;
        }
        let done = self
            .bus_delayed_done(until_ns)
            .unwrap_or(data.done_ns + (until_ns - given));
        self.drive.bus_given(until_ns);
        let token = self.token();
        self.read_data_given = (token, until_ns);
        let cur = self.current.as_mut().expect("a read in service");
        let later = done.saturating_sub(cur.served.done);
        cur.served.done += later;
        cur.served.phases.overhead_ns += later;
        cur.token = token;
        io.wake_at(cur.served.done, token);
    }
}
