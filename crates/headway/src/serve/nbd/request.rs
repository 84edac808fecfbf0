//! The transmission phase's requests: the 28-byte header, and the checks made before a
//! request touches the data or the model.

use std::io::{self, Read};

use super::wire::{malformed, NbdErrno, CMD_FLAG_FUA, REQUEST_MAGIC};

/// The largest read or write accepted (bytes); a larger one is refused with `EINVAL`, so a
/// connection never holds more than this for one request. Also the maximum block size the
/// handshake advertises.
pub(crate) const MAX_REQUEST_BYTES: u32 = 32 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    Read,
    Write,
    Disconnect,
    Flush,
    Trim,
    /// Any other type: refused with `EINVAL`, the connection kept.
    Other(u16),
}

impl Command {
    fn from_wire(t: u16) -> Command {
        match t {
            0 => Command::Read,
            1 => Command::Write,
            2 => Command::Disconnect,
            3 => Command::Flush,
            4 => Command::Trim,
            t => Command::Other(t),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RequestHeader {
    pub flags: u16,
    pub command: Command,
    /// The client's opaque cookie, echoed in the reply.
    pub handle: u64,
    pub offset_bytes: u64,
    pub length_bytes: u32,
}

impl RequestHeader {
    pub(crate) fn parse(b: &[u8; 28]) -> io::Result<RequestHeader> {
        let magic = u32::from_be_bytes(b[0..4].try_into().unwrap());
        if magic != REQUEST_MAGIC {
            return Err(malformed(format!(
                "request magic {magic:#010x}, expected {REQUEST_MAGIC:#010x}"
            )));
        }
        Ok(RequestHeader {
            flags: u16::from_be_bytes(b[4..6].try_into().unwrap()),
            command: Command::from_wire(u16::from_be_bytes(b[6..8].try_into().unwrap())),
            handle: u64::from_be_bytes(b[8..16].try_into().unwrap()),
            offset_bytes: u64::from_be_bytes(b[16..24].try_into().unwrap()),
            length_bytes: u32::from_be_bytes(b[24..28].try_into().unwrap()),
        })
    }

    pub(crate) fn fua(&self) -> bool {
        self.flags & CMD_FLAG_FUA != 0
    }

    /// Bytes of payload that follow this header on the wire (a write's data).
    pub(crate) fn payload_bytes(&self) -> u64 {
        if self.command == Command::Write {
            u64::from(self.length_bytes)
        } else {
            0
        }
    }

    /// Whether the request may be served on an export of `export_bytes`: `EINVAL` for an
    /// unknown command, a range past the end, or a read or write over the size limit.
    pub(crate) fn check(&self, export_bytes: u64) -> Result<(), NbdErrno> {
        match self.command {
            Command::Other(_) => return Err(NbdErrno::Einval),
            Command::Read | Command::Write if self.length_bytes > MAX_REQUEST_BYTES => {
                return Err(NbdErrno::Einval)
            }
            Command::Disconnect | Command::Flush => return Ok(()),
            _ => {}
        }
        match self.offset_bytes.checked_add(u64::from(self.length_bytes)) {
            Some(end) if end <= export_bytes => Ok(()),
            _ => Err(NbdErrno::Einval),
        }
    }
}

/// The next request's header, or `None` when the client hung up between requests.
pub(crate) fn read_request(r: &mut impl Read) -> io::Result<Option<RequestHeader>> {
    let mut b = [0u8; 28];
    let mut got = 0;
    while got < b.len() {
        match r.read(&mut b[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the stream ended {got} bytes into a request header"),
                ))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    RequestHeader::parse(&b).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(command: u16, offset: u64, len: u32) -> [u8; 28] {
        let mut b = [0u8; 28];
        b[0..4].copy_from_slice(&REQUEST_MAGIC.to_be_bytes());
        b[6..8].copy_from_slice(&command.to_be_bytes());
        b[8..16].copy_from_slice(&0xfeed_u64.to_be_bytes());
        b[16..24].copy_from_slice(&offset.to_be_bytes());
        b[24..28].copy_from_slice(&len.to_be_bytes());
        b
    }

    #[test]
    fn a_read_inside_the_export_passes_and_one_past_its_end_is_einval() {
        let h = RequestHeader::parse(&header(0, 4096, 4096)).unwrap();
        assert_eq!(h.command, Command::Read);
        assert_eq!(h.handle, 0xfeed);
        assert_eq!(h.check(8192), Ok(()));
        assert_eq!(h.check(8191), Err(NbdErrno::Einval));
        let wraps = RequestHeader::parse(&header(1, u64::MAX, 1)).unwrap();
        assert_eq!(wraps.check(u64::MAX), Err(NbdErrno::Einval));
    }

    #[test]
    fn oversized_and_unknown_requests_are_refused_but_flush_is_not_ranged() {
        let big = RequestHeader::parse(&header(0, 0, MAX_REQUEST_BYTES + 1)).unwrap();
        assert_eq!(big.check(u64::MAX), Err(NbdErrno::Einval));
        let odd = RequestHeader::parse(&header(9, 0, 0)).unwrap();
        assert_eq!(odd.command, Command::Other(9));
        assert_eq!(odd.check(1 << 30), Err(NbdErrno::Einval));
        let flush = RequestHeader::parse(&header(3, u64::MAX, 0)).unwrap();
        assert_eq!(flush.check(512), Ok(()));
    }

    #[test]
    fn a_bad_magic_is_malformed_and_a_short_header_is_an_eof() {
        let mut b = header(0, 0, 512);
        b[0] ^= 1;
        assert_eq!(
            RequestHeader::parse(&b).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        assert!(read_request(&mut &[][..]).unwrap().is_none());
        let e = read_request(&mut &header(0, 0, 512)[..10]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }
}
