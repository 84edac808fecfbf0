//! One client: the handshake, then a reader (requests in: checked, data moved, entered into
//! the model) and a writer (replies out, each when the model completes its request).

use std::io::{self, Read};
use std::sync::mpsc::channel;
use std::sync::Arc;

use super::log;
use super::model::Arrival;
use super::nbd::wire::discard;
use super::nbd::{negotiate, read_request, Command, NbdErrno, Negotiated, RequestHeader};
use super::reply_port::{Reply, ReplyPort};
use super::shared::{InFlight, Shared};
use super::stream::Stream;
use super::writer::write_replies;
use crate::request::Op;

const SECTOR_BYTES: u64 = 512;

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
    let (to, replies) = channel();
    let port = Arc::new(ReplyPort::new(writer_stream, to));
    let writer = {
        let shared = shared.clone();
        let link = port.link.clone();
        std::thread::spawn(move || write_replies(&shared, &link, replies))
    };
    if let Err(e) = read_requests(&shared, &mut stream, export, process, &port) {
        log(&format!("connection {process}: {e}; closing it"));
        stream.shutdown();
    }
    drop(port);
    let _ = writer.join();
}

fn read_requests(
    shared: &Shared,
    stream: &mut Stream,
    export: usize,
    process: u32,
    port: &Arc<ReplyPort>,
) -> io::Result<()> {
    let allowance = &port.link.allowance;
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
            port.queue(immediate(errno, false));
            continue;
        }
        let len = u64::from(h.length_bytes);
        match h.command {
            Command::Flush => {
                port.queue(immediate(NbdErrno::Ok, true));
            }
            Command::Trim => {
                shared.backing.trim(export, h.offset_bytes, len);
                port.queue(immediate(NbdErrno::Ok, h.fua()));
            }
            Command::Read | Command::Write if len == 0 => {
                port.queue(immediate(NbdErrno::Ok, false));
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
                enter(shared, &h, export, process, Op::Read, reply, port);
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
                enter(shared, &h, export, process, Op::Write, reply, port);
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
    port: &Arc<ReplyPort>,
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
        port: port.clone(),
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
