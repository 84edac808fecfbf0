//! A connection's writer thread: the replies the engine could not send itself.

use std::io::Write;
use std::sync::mpsc::Receiver;
use std::time::Instant;

use super::nbd::{write_simple_reply, NbdErrno};
use super::reply_port::{Link, ToWriter};
use super::shared::Shared;

/// The writer thread: finishes frames the engine began, and sends the replies queued to it
/// (syncing the backing store first when asked), each when it is handed over.
pub(crate) fn write_replies(shared: &Shared, link: &Link, replies: Receiver<ToWriter>) {
    for msg in replies {
        let mut out = link.out.lock().unwrap_or_else(|p| p.into_inner());
        if !out.rest.is_empty() {
            let rest = std::mem::take(&mut out.rest);
            let due = out.rest_due.take();
            if !out.broken {
                let ok = out
                    .stream
                    .write_all(&rest)
                    .and_then(|()| out.stream.flush());
                out.broken = ok.is_err();
                if let (true, Some(due)) = (ok.is_ok(), due) {
                    note_late(shared, due);
                }
            }
        }
        let ToWriter::Reply(r) = msg else {
            continue;
        };
        let mut errno = r.errno;
        if r.sync && errno == NbdErrno::Ok && shared.backing.sync().is_err() {
            errno = NbdErrno::Eio;
        }
        if !out.broken {
            out.broken = write_simple_reply(&mut out.stream, errno, r.handle, &r.data).is_err();
            if let (false, Some(due)) = (out.broken, r.due) {
                note_late(shared, due);
            }
        }
        drop(out);
        link.allowance.give_back(r.charge_bytes);
    }
}

fn note_late(shared: &Shared, due: Instant) {
    let sent = Instant::now();
    shared
        .pacing_error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .record(sent, due);
}
