//! The bytes of a trace file, decompressed on the fly: gzip, zstd and xz are recognised by
//! their magic bytes (not the file name, which may lie or be missing), anything else is read
//! as it is.
//!
//! Memory is bounded whatever the file says: the read buffers below, plus the decoder's
//! window: 32 KiB for gzip, at most 128 MiB for zstd (the library's default window limit: a
//! frame asking for more is refused), at most [`XZ_MEMLIMIT_BYTES`] for xz (liblzma's
//! default is no limit, and an xz header may ask for a 1.5 GiB dictionary). How much the
//! decompressed stream may grow is the readers' business: a line is capped
//! ([`super::lines::MAX_LINE_BYTES`]), so a small file that inflates to terabytes of one line
//! stops at the cap, and one that inflates to terabytes of records streams in bounded memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::error::{HeadwayError, Result};

/// Large enough that reading is a small share of parsing time.
const BUFFER_BYTES: usize = 256 * 1024;

/// Compressed bytes buffered ahead of the decoder.
const RAW_BUFFER_BYTES: usize = 64 * 1024;

/// `xz -9` needs 65 MiB to decode; refusing more keeps a hostile header from asking for
/// gigabytes.
pub const XZ_MEMLIMIT_BYTES: u64 = 256 << 20;

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
const XZ_MAGIC: &[u8] = &[0xfd, b'7', b'z', b'X', b'Z', 0x00];

/// How a trace file is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Xz,
}

impl Compression {
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
        }
    }

    fn of_magic(head: &[u8]) -> Self {
        if head.starts_with(GZIP_MAGIC) {
            Compression::Gzip
        } else if head.starts_with(ZSTD_MAGIC) {
            Compression::Zstd
        } else if head.starts_with(XZ_MAGIC) {
            Compression::Xz
        } else {
            Compression::None
        }
    }
}

/// A buffered trace file, plain or compressed. An enum rather than a boxed reader so that the
/// per-line calls of a reader generic over `BufRead` compile to a branch, not a dyn call.
pub enum TraceInput {
    Plain(BufReader<File>),
    // MultiGzDecoder, not GzDecoder: files made by concatenating gzip members (e.g. `cat
    // a.gz b.gz`, pigz, appended log segments) are valid gzip and must be read to the end.
    Gzip(BufReader<MultiGzDecoder<BufReader<File>>>),
    Zstd(BufReader<zstd::stream::read::Decoder<'static, BufReader<File>>>),
    // The multi-stream decoder for the same reason as gzip: `xz` itself reads concatenated
    // streams as one file.
    Xz(BufReader<liblzma::read::XzDecoder<BufReader<File>>>),
}

impl TraceInput {
    /// Open `path`; a missing or unreadable file is an [`HeadwayError::Io`] naming it.
    pub fn open(path: &Path) -> Result<Self> {
        let io_err = |e| HeadwayError::io(path, e);
        let mut file = File::open(path).map_err(io_err)?;
        let mut magic = [0u8; 6];
        let mut got = 0;
        while got < magic.len() {
            match file.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_err(e)),
            }
        }
        file.seek(SeekFrom::Start(0)).map_err(io_err)?;
        let cap = BUFFER_BYTES;
        Ok(match Compression::of_magic(&magic[..got]) {
            Compression::None => TraceInput::Plain(BufReader::with_capacity(cap, file)),
            Compression::Gzip => TraceInput::Gzip(BufReader::with_capacity(
                cap,
                MultiGzDecoder::new(BufReader::with_capacity(RAW_BUFFER_BYTES, file)),
            )),
            Compression::Zstd => {
                let dec = zstd::stream::read::Decoder::with_buffer(BufReader::with_capacity(
                    RAW_BUFFER_BYTES,
                    file,
                ))
                .map_err(io_err)?;
                TraceInput::Zstd(BufReader::with_capacity(cap, dec))
            }
            Compression::Xz => {
                let stream = liblzma::stream::Stream::new_stream_decoder(
                    XZ_MEMLIMIT_BYTES,
                    liblzma::stream::CONCATENATED,
                )
                .map_err(|e| io_err(e.into()))?;
                TraceInput::Xz(BufReader::with_capacity(
                    cap,
                    liblzma::read::XzDecoder::new_stream(
                        BufReader::with_capacity(RAW_BUFFER_BYTES, file),
                        stream,
                    ),
                ))
            }
        })
    }

    pub(crate) fn compression(&self) -> Compression {
        match self {
            TraceInput::Plain(_) => Compression::None,
            TraceInput::Gzip(_) => Compression::Gzip,
            TraceInput::Zstd(_) => Compression::Zstd,
            TraceInput::Xz(_) => Compression::Xz,
        }
    }
}

/// Up to `limit` bytes from the start of the (decompressed) trace at `path`, for format
/// detection. Reads its own handle, so the trace itself is then opened afresh.
pub(crate) fn head(path: &Path, limit: usize) -> Result<Vec<u8>> {
    let input = TraceInput::open(path)?;
    let mut out = Vec::with_capacity(limit.min(1 << 20));
    input
        .take(limit as u64)
        .read_to_end(&mut out)
        .map_err(|e| HeadwayError::io(path, e))?;
    Ok(out)
}

/// liblzma says only "memory limit reached"; say whose limit and why.
#[cold]
fn xz_error(e: io::Error) -> io::Error {
    let over = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<liblzma::stream::Error>())
        .is_some_and(|x| matches!(x, liblzma::stream::Error::MemLimit));
    if over {
        io::Error::other(format!(
            "the xz stream needs more than {} MiB to decode (headway's bound; `xz -9` needs 65)",
            XZ_MEMLIMIT_BYTES >> 20
        ))
    } else {
        e
    }
}

impl Read for TraceInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            TraceInput::Plain(r) => r.read(buf),
            TraceInput::Gzip(r) => r.read(buf),
            TraceInput::Zstd(r) => r.read(buf),
            TraceInput::Xz(r) => r.read(buf).map_err(xz_error),
        }
    }
}

impl BufRead for TraceInput {
    #[inline]
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            TraceInput::Plain(r) => r.fill_buf(),
            TraceInput::Gzip(r) => r.fill_buf(),
            TraceInput::Zstd(r) => r.fill_buf(),
            TraceInput::Xz(r) => r.fill_buf().map_err(xz_error),
        }
    }
    #[inline]
    fn consume(&mut self, amt: usize) {
        match self {
            TraceInput::Plain(r) => r.consume(amt),
            TraceInput::Gzip(r) => r.consume(amt),
            TraceInput::Zstd(r) => r.consume(amt),
            TraceInput::Xz(r) => r.consume(amt),
        }
    }
}
