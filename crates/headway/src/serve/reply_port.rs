//! A connection's way out: the engine thread sends a timed reply itself, at the instant the
//! model completes it, when the socket takes the whole frame at once; otherwise (the socket
//! full, the writer busy, a sync asked for) the reply goes to the connection's writer
//! thread. Handing each reply to another thread cost a wake-up, which on a busy machine
//! waits for a core: the pacing error's tail.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex, TryLockError};
use std::time::Instant;

use super::nbd::request::MAX_REQUEST_BYTES;
use super::nbd::wire::simple_reply_head;
use super::nbd::NbdErrno;
use super::pacing::PacingError;
use super::stream::Stream;

/// Request data one connection may hold at once (reads waiting for their reply); a client
/// sending faster waits. Two of the largest requests, so one always fits.
const MAX_IN_FLIGHT_BYTES: u64 = 2 * MAX_REQUEST_BYTES as u64;

/// A reply on its way to a connection.
pub(crate) struct Reply {
    pub handle: u64,
    pub errno: NbdErrno,
    /// A read's data.
    pub data: Vec<u8>,
    /// Sync the backing store before replying (flush, or a write with FUA).
    pub sync: bool,
    /// When the model completed the request, on the wall clock; `None` for replies the
    /// model does not time (errors, flush, trim).
    pub due: Option<Instant>,
    /// Bytes of the connection's in-flight allowance this request holds until it is sent.
    pub charge_bytes: u64,
}

/// What the writer thread is handed.
pub(crate) enum ToWriter {
    Reply(Reply),
    /// The engine sent the start of a frame; the writer sends the rest (held in `Out`).
    FinishFrame,
}

/// The connection's allowance of in-flight bytes.
pub(crate) struct Allowance {
    used: Mutex<u64>,
    freed: Condvar,
}

impl Allowance {
    pub(crate) fn take(&self, bytes: u64) {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        while *used + bytes > MAX_IN_FLIGHT_BYTES {
            used = self.freed.wait(used).unwrap_or_else(|p| p.into_inner());
        }
        *used += bytes;
    }

    pub(crate) fn give_back(&self, bytes: u64) {
        if bytes > 0 {
            *self.used.lock().unwrap_or_else(|p| p.into_inner()) -= bytes;
            self.freed.notify_all();
        }
    }
}

/// The sending half of the socket, shared by the engine and the writer; whoever holds the
/// lock writes whole frames, so frames never interleave.
pub(super) struct Out {
    pub(super) stream: Stream,
    /// The unsent end of a frame the engine began, and when its reply was due.
    pub(super) rest: Vec<u8>,
    pub(super) rest_due: Option<Instant>,
    /// A write failed: the client is gone, and later replies are dropped.
    pub(super) broken: bool,
}

/// What the engine and the writer share (the writer holds this, not the sender, so that
/// its channel closes once the reader and every request in flight are gone).
pub(crate) struct Link {
    pub(super) out: Mutex<Out>,
    pub allowance: Allowance,
}

/// Held by the reader and by every request in flight.
pub(crate) struct ReplyPort {
    pub link: Arc<Link>,
    to: Sender<ToWriter>,
}

impl ReplyPort {
    pub(crate) fn new(stream: Stream, to: Sender<ToWriter>) -> ReplyPort {
        ReplyPort {
            link: Arc::new(Link {
                out: Mutex::new(Out {
                    stream,
                    rest: Vec::new(),
                    rest_due: None,
                    broken: false,
                }),
                allowance: Allowance {
                    used: Mutex::new(0),
                    freed: Condvar::new(),
                },
            }),
            to,
        }
    }

    /// A reply for the writer thread (errors, flush, trim: the untimed ones).
    pub(crate) fn queue(&self, reply: Reply) {
        // A connection already gone drops its replies.
        let _ = self.to.send(ToWriter::Reply(reply));
    }

    /// Sends a timed reply now from the calling (engine) thread if the socket takes it
    /// without waiting, noting its pacing error in `late`; otherwise queues it.
    pub(crate) fn deliver(&self, reply: Reply, late: &mut PacingError) {
        if reply.sync {
            return self.queue(reply);
        }
        let mut out = match self.link.out.try_lock() {
            Ok(out) => out,
            Err(TryLockError::WouldBlock | TryLockError::Poisoned(_)) => {
                return self.queue(reply);
            }
        };
        if !out.rest.is_empty() || out.broken {
            drop(out);
            return self.queue(reply);
        }
        let head = simple_reply_head(reply.errno, reply.handle);
        let data: &[u8] = if reply.errno == NbdErrno::Ok {
            &reply.data
        } else {
            &[]
        };
        let frame_bytes = head.len() + data.len();
        match send_without_waiting(out.stream.as_raw_fd(), &head, data) {
            Ok(0) => {
                drop(out);
                return self.queue(reply);
            }
            Ok(sent) if sent == frame_bytes => {
                if let Some(due) = reply.due {
                    late.record(Instant::now(), due);
                }
            }
            Ok(sent) => {
                let mut rest = Vec::with_capacity(frame_bytes - sent);
                if sent < head.len() {
                    rest.extend_from_slice(&head[sent..]);
                    rest.extend_from_slice(data);
                } else {
                    rest.extend_from_slice(&data[sent - head.len()..]);
                }
                out.rest = rest;
                out.rest_due = reply.due;
                drop(out);
                let _ = self.to.send(ToWriter::FinishFrame);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                drop(out);
                return self.queue(reply);
            }
            Err(_) => out.broken = true,
        }
        self.link.allowance.give_back(reply.charge_bytes);
    }
}

/// One `sendmsg` of the frame's two parts that never blocks (and never raises SIGPIPE):
/// the bytes the socket took, 0 or an error when it had no room.
fn send_without_waiting(fd: RawFd, head: &[u8], data: &[u8]) -> io::Result<usize> {
    let mut parts = [
        libc::iovec {
            iov_base: head.as_ptr() as *mut libc::c_void,
            iov_len: head.len(),
        },
        libc::iovec {
            iov_base: data.as_ptr() as *mut libc::c_void,
            iov_len: data.len(),
        },
    ];
    // SAFETY: an all-zero msghdr is valid (no address, no control data); it points at
    // `parts`, which outlives the call, and each iovec at a live slice of its length.
    let sent = unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = parts.as_mut_ptr();
        msg.msg_iovlen = if data.is_empty() { 1 } else { 2 };
        libc::sendmsg(fd, &msg, libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL)
    };
    if sent < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(sent as usize)
    }
}
