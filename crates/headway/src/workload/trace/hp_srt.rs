//! HP Labs SRT binary traces (the 1992 HP-UX disk traces of Ruemmler and Wilkes).
//!
//! A text header starting `$$TR_IOREC` and ending with a form feed (0x0C) describes the
//! machine and its disks; its `sectorsize = N` entries give the unit of the records' sector
//! numbers (256 bytes on the HP 335H). Then come big-endian 32-bit records:
//!
//! | word | field |
//! |---|---|
//! | 0 | record size in bytes (this word included) |
//! | 1 | version (high 16 bits, 1 to 4) and record type (low 16: 1 = I/O, 4 = suspect I/O) |
//! | 2, 3 | enqueue time: seconds, microseconds |
//! | 4, 5 | start and stop of service, microseconds after enqueue |
//! | 6 | size in bytes |
//! | 7 | first sector, in the header's sector size |
//! | 8 | device (the disk is bits 8..16) |
//! | 9..12 | driver type, cylinder, buffer flags (bit 0 = read), origin |
//! | 13 | queue length (version 4 only) |
//! | then | error flags (suspect records only) |
//!
//! Suspect records are skipped (as DiskSim does) and counted; the stop time is kept as the
//! record's response time. Byte ranges are widened to whole 512-byte sectors. Record numbers
//! (from 1) stand in for line numbers in messages.

use std::io::{BufRead, Read};
use std::path::PathBuf;

use super::fields::byte_extent;
use super::{TraceReader, TraceRecord};
use crate::error::{HeadwayError, Result};
use crate::request::Op;

pub(crate) const MAGIC: &[u8] = b"$$TR_IOREC";
const MAX_HEADER_BYTES: usize = 1 << 20;
const SHORT_IO: u32 = 1;
const SUSPECT_IO: u32 = 4;
const READ_FLAG: u32 = 0x1;
const BASE_WORDS: usize = 13;
const MAX_RECORD_BYTES: usize = 4 * (BASE_WORDS + 2);

pub struct HpSrtReader<R> {
    input: R,
    origin: Option<PathBuf>,
    sector_bytes: u64,
    /// Records read so far, suspect ones included.
    record: usize,
    offset: u64,
    broken: bool,
    /// A truncated last record was reported: nothing follows it.
    ended: bool,
    suspect: u64,
}

impl<R: BufRead> HpSrtReader<R> {
    /// Reads and checks the header.
    pub fn new(mut input: R, origin: Option<PathBuf>) -> Result<Self> {
        let err = |msg: String| HeadwayError::trace(origin.clone(), None, msg);
        let mut header = Vec::new();
        (&mut input)
            .take(MAX_HEADER_BYTES as u64)
            .read_until(0x0C, &mut header)
            .map_err(|e| err(format!("cannot read the HP SRT header: {e}")))?;
        if !header.starts_with(MAGIC) {
            return Err(err(
                "not an HP SRT trace: it does not start with `$$TR_IOREC`".into(),
            ));
        }
        if header.last() != Some(&0x0C) {
            return Err(err(format!(
                "HP SRT header does not end with a form feed within {MAX_HEADER_BYTES} bytes"
            )));
        }
        let sector_bytes = header_sector_bytes(&header).map_err(err)?;
        Ok(HpSrtReader {
            input,
            offset: header.len() as u64,
            origin,
            sector_bytes,
            record: 0,
            broken: false,
            ended: false,
            suspect: 0,
        })
    }

    fn error(&self, msg: String) -> HeadwayError {
        HeadwayError::trace(
            self.origin.clone(),
            Some(self.record),
            format!(
                "record {} (byte offset {}): {msg}",
                self.record, self.offset
            ),
        )
    }

    /// Fill `buf` or say how much there was; `Ok(0)` only at a clean end.
    fn read_full(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.input.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(got)
    }

    fn fatal(&mut self, msg: String) -> HeadwayError {
        self.broken = true;
        self.error(msg)
    }
}

/// The one `sectorsize = N` every disk in the header agrees on (wherever it stands: the
/// header is free-form text).
fn header_sector_bytes(header: &[u8]) -> std::result::Result<u64, String> {
    let text = String::from_utf8_lossy(header);
    let mut sizes: Vec<u64> = Vec::new();
    for (at, _) in text.match_indices("sectorsize") {
        let rest = text[at + "sectorsize".len()..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let n: u64 = digits
            .parse()
            .ok()
            .filter(|n| *n > 0 && *n <= 1 << 20)
            .ok_or_else(|| {
                let shown: String = rest.chars().take(20).collect();
                format!("HP SRT header: sectorsize `{shown}` is not a sector size")
            })?;
        if !sizes.contains(&n) {
            sizes.push(n);
        }
    }
    match sizes.as_slice() {
        [n] => Ok(*n),
        [] => Err("HP SRT header gives no `sectorsize`, so sector numbers cannot be placed".into()),
        many => Err(format!(
            "HP SRT header gives disks of different sector sizes ({many:?}), which is not supported"
        )),
    }
}

impl<R: BufRead> TraceReader for HpSrtReader<R> {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        loop {
            if self.broken || self.ended {
                return Ok(None);
            }
            let mut size_word = [0u8; 4];
            let got = self
                .read_full(&mut size_word)
                .map_err(|e| self.fatal(format!("cannot read: {e}")))?;
            if got == 0 {
                return Ok(None);
            }
            self.record += 1;
            if got < 4 {
                // The end of the file: lenient mode may count it and finish.
                self.ended = true;
                return Err(self.error(format!(
                    "truncated record: the file ends {got} bytes into its size word"
                )));
            }
            let size = u32::from_be_bytes(size_word) as usize;
            if !(4 * BASE_WORDS..=MAX_RECORD_BYTES).contains(&size) || !size.is_multiple_of(4) {
                // Without a believable size the next record cannot be found.
                return Err(self.fatal(format!(
                    "record size {size} bytes is not that of an I/O record ({}, {} or {} bytes)",
                    4 * BASE_WORDS,
                    4 * BASE_WORDS + 4,
                    4 * BASE_WORDS + 8
                )));
            }
            let mut body = [0u8; MAX_RECORD_BYTES];
            let want = size - 4;
            let got = self
                .read_full(&mut body[..want])
                .map_err(|e| self.fatal(format!("cannot read: {e}")))?;
            if got < want {
                self.ended = true;
                return Err(self.error(format!(
                    "truncated record: {} of its {size} bytes before the end of the file",
                    got + 4
                )));
            }
            let rec = self.decode(size, &body[..want]);
            self.offset += size as u64;
            match rec {
                Ok(Some(r)) => return Ok(Some(r)),
                Ok(None) => self.suspect += 1,
                Err(msg) => {
                    self.offset -= size as u64;
                    let e = self.error(msg);
                    self.offset += size as u64;
                    return Err(e);
                }
            }
        }
    }

    fn line(&self) -> usize {
        self.record
    }

    fn can_continue(&self) -> bool {
        !self.broken
    }

    fn skipped(&self) -> u64 {
        self.suspect
    }
}

impl<R: BufRead> HpSrtReader<R> {
    /// One record's words after the size; `Ok(None)` for a suspect record.
    fn decode(&self, size: usize, body: &[u8]) -> std::result::Result<Option<TraceRecord>, String> {
        let w = |i: usize| u32::from_be_bytes(body[4 * (i - 1)..4 * i].try_into().unwrap());
        let id = w(1);
        let (version, kind) = (id >> 16, id & 0xFFFF);
        if !(1..=4).contains(&version) {
            return Err(format!(
                "record version {version} (id {id:#x}) is not 1 to 4"
            ));
        }
        if kind != SHORT_IO && kind != SUSPECT_IO {
            return Err(format!(
                "record type {kind} is not an I/O record (1) or a suspect one (4)"
            ));
        }
        let expected = 4 * (BASE_WORDS + (version == 4) as usize + (kind == SUSPECT_IO) as usize);
        if size != expected {
            return Err(format!(
                "a version {version} type {kind} record has {expected} bytes, this one {size}"
            ));
        }
        if kind == SUSPECT_IO {
            return Ok(None);
        }
        let (sec, usec) = (w(2) as u64, w(3) as u64);
        if usec >= 1_000_000 {
            return Err(format!("microseconds field {usec} is not below one second"));
        }
        let time_ns = sec * 1_000_000_000 + usec * 1_000;
        let stop_us = w(5) as u64;
        let bytes = w(6) as u64;
        let offset = w(7) as u64 * self.sector_bytes;
        let device = ((w(8) >> 8) & 0xFF) as u16;
        let op = if w(11) & READ_FLAG != 0 {
            Op::Read
        } else {
            Op::Write
        };
        let (lbn, sectors) = byte_extent(offset, bytes).ok_or("sector + size overflows")?;
        if sectors == 0 {
            return Err("size: zero-length request".into());
        }
        Ok(Some(TraceRecord {
            time_ns,
            device,
            lbn,
            sectors: sectors as u32,
            op,
            process: 0,
            response_ns: Some(stop_us * 1_000),
            zone_op: None,
            high_priority: false,
        }))
    }
}
