//! The bytes of a trace file, decompressed on the fly when the name ends in `.gz`.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::error::{HeadwayError, Result};

/// Large enough that reading is a small share of parsing time.
const BUFFER_BYTES: usize = 256 * 1024;

/// A buffered trace file, plain or gzip. An enum rather than a boxed reader so that the
/// per-line calls of a reader generic over `BufRead` compile to a branch, not a dyn call.
pub enum TraceInput {
    Plain(BufReader<File>),
    // MultiGzDecoder, not GzDecoder: files made by concatenating gzip members (e.g. `cat
    // a.gz b.gz`, pigz, appended log segments) are valid gzip and must be read to the end.
    Gzip(BufReader<MultiGzDecoder<File>>),
}

impl TraceInput {
    /// Open `path`; a missing or unreadable file is an [`HeadwayError::Io`] naming it.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| HeadwayError::io(path, e))?;
        let gz = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
        Ok(if gz {
            TraceInput::Gzip(BufReader::with_capacity(
                BUFFER_BYTES,
                MultiGzDecoder::new(file),
            ))
        } else {
            TraceInput::Plain(BufReader::with_capacity(BUFFER_BYTES, file))
        })
    }
}

impl Read for TraceInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            TraceInput::Plain(r) => r.read(buf),
            TraceInput::Gzip(r) => r.read(buf),
        }
    }
}

impl BufRead for TraceInput {
    #[inline]
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            TraceInput::Plain(r) => r.fill_buf(),
            TraceInput::Gzip(r) => r.fill_buf(),
        }
    }
    #[inline]
    fn consume(&mut self, amt: usize) {
        match self {
            TraceInput::Plain(r) => r.consume(amt),
            TraceInput::Gzip(r) => r.consume(amt),
        }
    }
}
