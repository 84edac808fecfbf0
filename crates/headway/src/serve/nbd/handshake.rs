//! The fixed-newstyle handshake: the server's greeting, then the client's options until one
//! of them (`NBD_OPT_GO` or `NBD_OPT_EXPORT_NAME`) picks an export, or the client aborts.

use std::io::{self, Read, Write};

use super::request::MAX_REQUEST_BYTES;
use super::wire::*;

/// An export name may be up to 4096 bytes (the protocol's own limit on strings); no option
/// headway understands carries more than a name and a short list of information requests.
const MAX_OPTION_BYTES: u32 = 4096 + 64;

/// Every transmission flag headway's exports carry: flush, FUA and trim are honoured, the
/// device is a spinning disk, and a flush on any connection covers writes acknowledged on all
/// of them (one backing store behind every connection), so clients may open several.
const TRANSMISSION_FLAGS: u16 = TFLAG_HAS_FLAGS
    | TFLAG_SEND_FLUSH
    | TFLAG_SEND_FUA
    | TFLAG_ROTATIONAL
    | TFLAG_SEND_TRIM
    | TFLAG_CAN_MULTI_CONN;
const TFLAG_CAN_MULTI_CONN: u16 = 1 << 8;

/// One export the server offers.
#[derive(Clone, Debug)]
pub(crate) struct Export {
    pub name: String,
    pub size_bytes: u64,
}

/// How a handshake ended without an error.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Negotiated {
    /// Transmission begins on `exports[index]`.
    Export(usize),
    /// The client sent `NBD_OPT_ABORT` (or hung up between options).
    Aborted,
}

/// Runs the handshake over `stream`. An error is either the stream failing or the client
/// breaking the protocol (`InvalidData`, with the reason); either way the connection ends.
pub(crate) fn negotiate<S: Read + Write>(
    stream: &mut S,
    exports: &[Export],
) -> io::Result<Negotiated> {
    let mut hello = [0u8; 18];
    hello[0..8].copy_from_slice(&NBD_MAGIC.to_be_bytes());
    hello[8..16].copy_from_slice(&IHAVEOPT.to_be_bytes());
    hello[16..18].copy_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    stream.write_all(&hello)?;
    stream.flush()?;

    let client_flags = read_u32(stream)?;
    if client_flags & CLIENT_FIXED_NEWSTYLE == 0 {
        return Err(malformed(
            "the client does not speak the fixed-newstyle handshake",
        ));
    }
    if client_flags & !(CLIENT_FIXED_NEWSTYLE | CLIENT_NO_ZEROES) != 0 {
        return Err(malformed(format!("unknown client flags {client_flags:#x}")));
    }
    let no_zeroes = client_flags & CLIENT_NO_ZEROES != 0;

    loop {
        let magic = match read_u64(stream) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(Negotiated::Aborted),
            Err(e) => return Err(e),
        };
        if magic != IHAVEOPT {
            return Err(malformed(format!(
                "option magic {magic:#018x}, expected IHAVEOPT"
            )));
        }
        let option = read_u32(stream)?;
        let len = read_u32(stream)?;
        if len > MAX_OPTION_BYTES {
            if option == OPT_EXPORT_NAME {
                return Err(malformed(format!("an export name of {len} bytes")));
            }
            discard(stream, u64::from(len))?;
            option_reply(stream, option, REP_ERR_TOO_BIG, b"option data too long")?;
            continue;
        }
        let mut data = vec![0u8; len as usize];
        stream.read_exact(&mut data)?;
        match option {
            OPT_EXPORT_NAME => {
                let Some(index) = find(exports, &data) else {
                    return Err(malformed(format!(
                        "no export named `{}`",
                        String::from_utf8_lossy(&data)
                    )));
                };
                let mut reply = Vec::with_capacity(10 + 124);
                reply.extend_from_slice(&exports[index].size_bytes.to_be_bytes());
                reply.extend_from_slice(&TRANSMISSION_FLAGS.to_be_bytes());
                if !no_zeroes {
                    reply.resize(reply.len() + 124, 0);
                }
                stream.write_all(&reply)?;
                stream.flush()?;
                return Ok(Negotiated::Export(index));
            }
            OPT_ABORT => {
                option_reply(stream, option, REP_ACK, &[])?;
                return Ok(Negotiated::Aborted);
            }
            OPT_LIST if data.is_empty() => {
                for e in exports {
                    let mut d = Vec::with_capacity(4 + e.name.len());
                    d.extend_from_slice(&(e.name.len() as u32).to_be_bytes());
                    d.extend_from_slice(e.name.as_bytes());
                    option_reply(stream, option, REP_SERVER, &d)?;
                }
                option_reply(stream, option, REP_ACK, &[])?;
            }
            OPT_LIST => option_reply(stream, option, REP_ERR_INVALID, b"LIST takes no data")?,
            OPT_INFO | OPT_GO => {
                let Some((name, infos)) = parse_info_request(&data) else {
                    option_reply(
                        stream,
                        option,
                        REP_ERR_INVALID,
                        b"malformed INFO/GO request",
                    )?;
                    continue;
                };
                let Some(index) = find(exports, name) else {
                    let msg = format!("no export named `{}`", String::from_utf8_lossy(name));
                    option_reply(stream, option, REP_ERR_UNKNOWN, msg.as_bytes())?;
                    continue;
                };
                let mut d = Vec::with_capacity(12);
                d.extend_from_slice(&INFO_EXPORT.to_be_bytes());
                d.extend_from_slice(&exports[index].size_bytes.to_be_bytes());
                d.extend_from_slice(&TRANSMISSION_FLAGS.to_be_bytes());
                option_reply(stream, option, REP_INFO, &d)?;
                if infos.contains(&INFO_BLOCK_SIZE) {
                    // Any byte offset and length is served; 4 KiB suits the model best.
                    let mut d = Vec::with_capacity(14);
                    d.extend_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
                    d.extend_from_slice(&1u32.to_be_bytes());
                    d.extend_from_slice(&4096u32.to_be_bytes());
                    d.extend_from_slice(&MAX_REQUEST_BYTES.to_be_bytes());
                    option_reply(stream, option, REP_INFO, &d)?;
                }
                option_reply(stream, option, REP_ACK, &[])?;
                if option == OPT_GO {
                    return Ok(Negotiated::Export(index));
                }
            }
            _ => option_reply(stream, option, REP_ERR_UNSUP, b"option not supported")?,
        }
    }
}

/// The export a name picks: by name, the empty name for the first (the default export), or
/// a decimal index.
fn find(exports: &[Export], name: &[u8]) -> Option<usize> {
    if name.is_empty() {
        return (!exports.is_empty()).then_some(0);
    }
    let name = std::str::from_utf8(name).ok()?;
    exports
        .iter()
        .position(|e| e.name == name)
        .or_else(|| name.parse::<usize>().ok().filter(|&i| i < exports.len()))
}

/// `u32 name length, name, u16 count, count x u16 information types`, exactly.
fn parse_info_request(data: &[u8]) -> Option<(&[u8], Vec<u16>)> {
    let name_len = u32::from_be_bytes(data.get(0..4)?.try_into().ok()?) as usize;
    let name = data.get(4..4usize.checked_add(name_len)?)?;
    let rest = &data[4 + name_len..];
    let count = u16::from_be_bytes(rest.get(0..2)?.try_into().ok()?) as usize;
    let list = &rest[2..];
    if list.len() != count * 2 {
        return None;
    }
    Some((
        name,
        list.chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect(),
    ))
}

fn option_reply(w: &mut impl Write, option: u32, reply: u32, data: &[u8]) -> io::Result<()> {
    let mut b = Vec::with_capacity(20 + data.len());
    b.extend_from_slice(&OPTION_REPLY_MAGIC.to_be_bytes());
    b.extend_from_slice(&option.to_be_bytes());
    b.extend_from_slice(&reply.to_be_bytes());
    b.extend_from_slice(&(data.len() as u32).to_be_bytes());
    b.extend_from_slice(data);
    w.write_all(&b)?;
    w.flush()
}
