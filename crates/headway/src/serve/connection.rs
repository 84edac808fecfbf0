//! One client: the handshake, then a reader (requests in: checked, data moved, entered into
//! the model) and a writer (replies out, each when the model completes its request).

use std::io::{self, Read};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use super::log;
use super::model::Arrival;
use super::nbd::request::MAX_REQUEST_BYTES;
use super::nbd::wire::discard;
use super::nbd::{
    negotiate, read_request, write_simple_reply, Command, NbdErrno, Negotiated, RequestHeader,
};
use super::shared::{InFlight, Reply, Shared};
use super::stream::Stream;
use crate::request::Op;

/// Request data one connection may hold at once (reads waiting for their reply); a client
/// sending faster waits. Two of the largest requests, so one always fits.
const MAX_IN_FLIGHT_BYTES: u64 = 2 * MAX_REQUEST_BYTES as u64;

const SECTOR_BYTES: u64 = 512;

/// The connection's allowance of in-flight bytes.
struct Allowance {
    used: Mutex<u64>,
    freed: Condvar,
}

impl Allowance {
    fn take(&self, bytes: u64) {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        while *used + bytes > MAX_IN_FLIGHT_BYTES {
            used = self.freed.wait(used).unwrap_or_else(|p| p.into_inner());
        }
        *used += bytes;
    }

    fn give_back(&self, bytes: u64) {
        if bytes > 0 {
            *self.used.lock().unwrap_or_else(|p| p.into_inner()) -= bytes;
            self.freed.notify_all();
        }
    }
}

/// Serves one connection to its end. `process` is the host process its requests come from.
pub(crate) fn serve(shared: Arc<Shared>, mut stream: Stream, process: u32) {
    let export = match negotiate(&mut stream, &shared.exports) {
        Ok(Negotiated::Export(i)) => i,
        Ok(Negotiated::Aborted) => return,
        Err(e) => {
            log(&format!(
                "connection {process}: handshake failed: {e}; closing it"
            ));
            return;
        }
    };
    let writer_stream = match stream.try_clone() {
        Ok(s) => s,
        Err(e) => {
            log(&format!("connection {process}: {e}; closing it"));
            return;
        }
    };
    let allowance = Arc::new(Allowance {
        used: Mutex::new(0),
        freed: Condvar::new(),
    });
    let (to, replies) = channel();
    let writer = {
        let shared = shared.clone();
        let allowance = allowance.clone();
        std::thread::spawn(move || write_replies(&shared, writer_stream, replies, &allowance))
    };
    if let Err(e) = read_requests(&shared, &mut stream, export, process, &to, &allowance) {
        log(&format!("connection {process}: {e}; closing it"));
        stream.shutdown();
    }
    drop(to);
    let _ = writer.join();
}

fn read_requests(
    shared: &Shared,
    stream: &mut Stream,
    export: usize,
    process: u32,
    to: &Sender<Reply>,
    allowance: &Allowance,
) -> io::Result<()> {
    let export_bytes = shared.exports[export].size_bytes;
    while let Some(h) = read_request(stream)? {
        if h.command == Command::Disconnect {
            return Ok(());
        }
        let immediate = |errno: NbdErrno, sync: bool| Reply {
            handle: h.handle,
            errno,
            data: Vec::new(),
            sync,
            due: None,
            charge_bytes: 0,
        };
        if let Err(errno) = h.check(export_bytes) {
            discard(stream, h.payload_bytes())?;
            let _ = to.send(immediate(errno, false));
            continue;
        }
        let len = u64::from(h.length_bytes);
        match h.command {
            Command::Flush => {
                let _ = to.send(immediate(NbdErrno::Ok, true));
            }
            Command::Trim => {
                shared.backing.trim(export, h.offset_bytes, len);
                let _ = to.send(immediate(NbdErrno::Ok, h.fua()));
            }
            Command::Read | Command::Write if len == 0 => {
                let _ = to.send(immediate(NbdErrno::Ok, false));
            }
            Command::Read => {
                allowance.take(len);
                let mut data = vec![0u8; len as usize];
                let errno = match shared.backing.read(export, h.offset_bytes, &mut data) {
                    Ok(()) => NbdErrno::Ok,
                    Err(_) => NbdErrno::Eio,
                };
                let reply = Reply {
                    handle: h.handle,
                    errno,
                    data,
                    sync: false,
                    due: None,
                    charge_bytes: len,
                };
                enter(shared, &h, export, process, Op::Read, reply, to);
            }
            Command::Write => {
                allowance.take(len);
                let mut data = vec![0u8; len as usize];
                stream.read_exact(&mut data)?;
                let errno = match shared.backing.write(export, h.offset_bytes, &data) {
                    Ok(()) => NbdErrno::Ok,
                    Err(_) => NbdErrno::Eio,
                };
                drop(data);
                allowance.give_back(len);
                let reply = Reply {
                    handle: h.handle,
                    errno,
                    data: Vec::new(),
                    sync: h.fua(),
                    due: None,
                    charge_bytes: 0,
                };
                enter(shared, &h, export, process, Op::Write, reply, to);
            }
            Command::Disconnect | Command::Other(_) => unreachable!("handled above"),
        }
    }
    Ok(())
}

/// Puts a read or write into the model; its reply goes out when the model completes it.
fn enter(
    shared: &Shared,
    h: &RequestHeader,
    export: usize,
    process: u32,
    op: Op,
    reply: Reply,
    to: &Sender<Reply>,
) {
    let first = h.offset_bytes / SECTOR_BYTES;
    let end = (h.offset_bytes + u64::from(h.length_bytes)).div_ceil(SECTOR_BYTES);
    let arrival = Arrival {
        device: export,
        op,
        lbn: first,
        sectors: (end - first) as u32,
        at_ns: 0,
        process,
    };
    let in_flight = InFlight {
        reply,
        to: to.clone(),
        at_ns: 0,
    };
    let mut core = shared.core();
    if let Err(e) = core.submit(&shared.clock, arrival, in_flight) {
        core.failure.get_or_insert(e);
        drop(core);
        shared.stop();
        return;
    }
    shared.wake.notify_one();
}

fn write_replies(
    shared: &Shared,
    mut stream: Stream,
    replies: Receiver<Reply>,
    allowance: &Allowance,
) {
    let mut broken = false;
    for r in replies {
        let mut errno = r.errno;
        if r.sync && errno == NbdErrno::Ok && shared.backing.sync().is_err() {
            errno = NbdErrno::Eio;
        }
        if !broken {
            broken = write_simple_reply(&mut stream, errno, r.handle, &r.data).is_err();
            if let (false, Some(due)) = (broken, r.due) {
                let sent = Instant::now();
                shared
                    .pacing_error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .record(sent, due);
            }
        }
        allowance.give_back(r.charge_bytes);
    }
}
