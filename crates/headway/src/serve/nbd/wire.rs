//! The protocol's magic numbers, codes and flags, and the few framing helpers both phases use.

use std::io::{self, Read, Write};

pub(crate) const NBD_MAGIC: u64 = 0x4e42_444d_4147_4943; // "NBDMAGIC"
pub(crate) const IHAVEOPT: u64 = 0x4948_4156_454f_5054; // "IHAVEOPT"
pub(crate) const OPTION_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
pub(crate) const REQUEST_MAGIC: u32 = 0x2560_9513;
pub(crate) const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

// Handshake flags (server) and client flags.
pub(crate) const FLAG_FIXED_NEWSTYLE: u16 = 1 << 0;
pub(crate) const FLAG_NO_ZEROES: u16 = 1 << 1;
pub(crate) const CLIENT_FIXED_NEWSTYLE: u32 = 1 << 0;
pub(crate) const CLIENT_NO_ZEROES: u32 = 1 << 1;

// Options.
pub(crate) const OPT_EXPORT_NAME: u32 = 1;
pub(crate) const OPT_ABORT: u32 = 2;
pub(crate) const OPT_LIST: u32 = 3;
pub(crate) const OPT_INFO: u32 = 6;
pub(crate) const OPT_GO: u32 = 7;

// Option replies.
pub(crate) const REP_ACK: u32 = 1;
pub(crate) const REP_SERVER: u32 = 2;
pub(crate) const REP_INFO: u32 = 3;
const REP_ERR: u32 = 1 << 31;
pub(crate) const REP_ERR_UNSUP: u32 = REP_ERR | 1;
pub(crate) const REP_ERR_INVALID: u32 = REP_ERR | 3;
pub(crate) const REP_ERR_UNKNOWN: u32 = REP_ERR | 6;
pub(crate) const REP_ERR_TOO_BIG: u32 = REP_ERR | 9;

// Information types in NBD_REP_INFO.
pub(crate) const INFO_EXPORT: u16 = 0;
pub(crate) const INFO_BLOCK_SIZE: u16 = 3;

// Transmission flags.
pub(crate) const TFLAG_HAS_FLAGS: u16 = 1 << 0;
pub(crate) const TFLAG_SEND_FLUSH: u16 = 1 << 2;
pub(crate) const TFLAG_SEND_FUA: u16 = 1 << 3;
pub(crate) const TFLAG_ROTATIONAL: u16 = 1 << 4;
pub(crate) const TFLAG_SEND_TRIM: u16 = 1 << 5;

// Command flags.
pub(crate) const CMD_FLAG_FUA: u16 = 1 << 0;

/// The errno values a simple reply carries (the protocol's own numbering, which is Linux's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum NbdErrno {
    Ok = 0,
    Eio = 5,
    Einval = 22,
}

pub(crate) fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}

pub(crate) fn read_u64(r: &mut impl Read) -> io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_be_bytes(b))
}

/// The 16 bytes that open a simple reply.
pub(crate) fn simple_reply_head(errno: NbdErrno, handle: u64) -> [u8; 16] {
    let mut head = [0u8; 16];
    head[0..4].copy_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
    head[4..8].copy_from_slice(&(errno as u32).to_be_bytes());
    head[8..16].copy_from_slice(&handle.to_be_bytes());
    head
}

/// A simple reply's 16-byte header followed by `data` (a read's payload; empty otherwise).
pub(crate) fn write_simple_reply(
    w: &mut impl Write,
    errno: NbdErrno,
    handle: u64,
    data: &[u8],
) -> io::Result<()> {
    w.write_all(&simple_reply_head(errno, handle))?;
    if errno == NbdErrno::Ok && !data.is_empty() {
        w.write_all(data)?;
    }
    w.flush()
}

/// Reads and drops `len` bytes in small pieces, so a payload too large to accept costs no
/// memory and the stream stays in step.
pub(crate) fn discard(r: &mut impl Read, len: u64) -> io::Result<()> {
    let copied = io::copy(&mut r.take(len), &mut io::sink())?;
    if copied < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the stream ended inside a write's payload",
        ));
    }
    Ok(())
}

/// A frame that breaks the protocol: the connection is closed with this as its reason.
pub(crate) fn malformed(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}
