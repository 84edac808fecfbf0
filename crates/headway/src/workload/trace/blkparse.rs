//! The default text output of Linux `blkparse` (blktrace):
//!
//! ```text
//!   8,0    3        1     0.000000000   697  Q  WS 223490 + 8 [kjournald]
//! ```
//!
//! `major,minor cpu sequence seconds.nanoseconds pid action rwbs sector + sectors [process]`.
//! One action is replayed, chosen by the user: `Q` (queued: what the application asked
//! for, before merging; the default) or `D` (issued to the driver: after merging and
//! scheduling). Other actions, events without an R or W in their RWBS (flushes, discards,
//! plugs), and blkparse's closing summary are not requests and are skipped; an event of
//! the chosen action with an R or W that lacks `sector + sectors` is an error. The pid and
//! process name are kept; the device is `major * 256 + minor`.
//!
//! Zone commands: an RWBS starting with `Z` is the Linux kernel's spelling of a zone
//! operation (`blk_fill_rwbs` in `kernel/trace/blktrace.c`: `ZA` zone append, `ZR` reset,
//! `ZRA` reset of every zone, `ZO` open, `ZC` close, `ZF` finish, then the flag letters).
//! Such an event is the zone command on the zone holding its sector (`docs/smr.md`). A zone
//! append needs `sector + sectors`; the other commands move no data, so their count may be
//! 0 or missing, and they carry one sector. `ZRA` is refused (headway resets one zone at a
//! time).

use serde::Deserialize;

use super::fields::{decimal_scaled, lossy, sectors_u32, uint, FieldResult};
use super::fiu::device_of;
use super::lines::split;
use super::names::ProcessNames;
use super::text::{LineParser, TextReader};
use super::TraceRecord;
use crate::request::Op;
use crate::request_marks::ZoneOp;

/// Which blkparse event stands for a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum BlkparseEvent {
    /// `Q`: the request as queued by the application.
    #[default]
    #[serde(rename = "Q", alias = "queue")]
    Queue,
    /// `D`: the request as dispatched to the device driver.
    #[serde(rename = "D", alias = "dispatch")]
    Dispatch,
}

impl BlkparseEvent {
    pub(crate) fn letter(self) -> &'static [u8] {
        match self {
            BlkparseEvent::Queue => b"Q",
            BlkparseEvent::Dispatch => b"D",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "Q" | "q" | "queue" => Some(BlkparseEvent::Queue),
            "D" | "d" | "dispatch" => Some(BlkparseEvent::Dispatch),
            _ => None,
        }
    }
}

pub type BlkparseReader<R> = TextReader<R, BlkparseParser>;

pub struct BlkparseParser {
    event: BlkparseEvent,
    names: ProcessNames,
}

impl<R: std::io::BufRead> BlkparseReader<R> {
    pub fn new(input: R, origin: Option<std::path::PathBuf>, event: BlkparseEvent) -> Self {
        TextReader::with_parser(
            input,
            origin,
            BlkparseParser {
                event,
                names: ProcessNames::default(),
            },
        )
    }
}

/// `major,minor`, if `f` has that shape.
pub(crate) fn dev_pair(f: &[u8]) -> Option<(u64, u64)> {
    let comma = memchr::memchr(b',', f)?;
    Some((
        super::fields::digits(&f[..comma])?,
        super::fields::digits(&f[comma + 1..])?,
    ))
}

const MAX_FIELDS: usize = 16;

impl LineParser for BlkparseParser {
    const WHAT: &'static str = "blkparse";

    fn parse(&mut self, line: &[u8]) -> FieldResult<Option<TraceRecord>> {
        let mut f: [&[u8]; MAX_FIELDS] = [&[]; MAX_FIELDS];
        let n = split(line, None, &mut f);
        // Event lines start with `major,minor`; anything else (the summary blkparse prints at
        // the end, blank lines) carries no request.
        let Some((major, minor)) = (n >= 7).then(|| dev_pair(f[0])).flatten() else {
            return Ok(None);
        };
        if f[5] != self.event.letter() {
            return Ok(None);
        }
        let rwbs = f[6];
        if rwbs.first() == Some(&b'Z') {
            return self.zone_command(line, &f[..n]).map(Some);
        }
        let op = if rwbs.contains(&b'R') {
            Op::Read
        } else if rwbs.contains(&b'W') {
            Op::Write
        } else {
            return Ok(None);
        };
        // A flush (F) or discard (D) carries no data to place on the platter.
        if rwbs.contains(&b'F') || rwbs.contains(&b'D') {
            return Ok(None);
        }
        if n < 10 || f[8] != b"+" {
            // What follows RWBS, as written; nothing when the line stops at RWBS (then f[7]
            // is not a slice of `line` at all: found by fuzzing).
            let rest = if n > 7 {
                &line[f[7].as_ptr() as usize - line.as_ptr() as usize..]
            } else {
                &[][..]
            };
            return Err(format!(
                "a {} event with RWBS `{}` should read `sector + sectors`, got `{}`",
                lossy(f[5]),
                lossy(rwbs),
                lossy(rest)
            ));
        }
        let device = device_of(major, minor)?;
        let time_ns = decimal_scaled(f[3], 9)
            .ok_or_else(|| format!("time: expected seconds.nanoseconds, got `{}`", lossy(f[3])))?;
        let pid = uint(f[4], "pid")?;
        let pid = u32::try_from(pid).map_err(|_| format!("pid: {pid} is out of range"))?;
        let lbn = uint(f[7], "sector")?;
        let sectors = sectors_u32(uint(f[9], "sectors")?, "sectors")?;
        if let (Some(open), Some(close)) = (memchr::memchr(b'[', line), memchr::memrchr(b']', line))
        {
            if open < close {
                self.names.note(pid, &line[open + 1..close]);
            }
        }
        Ok(Some(TraceRecord {
            time_ns,
            device,
            lbn,
            sectors,
            op,
            process: pid,
            response_ns: None,
            zone_op: None,
            high_priority: false,
        }))
    }

    fn process_name(&self, pid: u32) -> Option<&str> {
        self.names.get(pid)
    }
}

/// The zone command a `Z` RWBS names (its second letter), with `ZRA` refused.
fn zone_op_of(rwbs: &[u8]) -> FieldResult<ZoneOp> {
    let op = match rwbs.get(1) {
        Some(b'A') => ZoneOp::Append,
        Some(b'R') if rwbs.get(2) == Some(&b'A') => {
            return Err(
                "RWBS `ZRA` (reset every zone) is not modelled: reset each zone (`ZR`)".into(),
            )
        }
        Some(b'R') => ZoneOp::Reset,
        Some(b'O') => ZoneOp::Open,
        Some(b'C') => ZoneOp::Close,
        Some(b'F') => ZoneOp::Finish,
        _ => {
            return Err(format!(
                "RWBS `{}`: a zone command is ZA, ZR, ZO, ZC or ZF",
                lossy(rwbs)
            ))
        }
    };
    Ok(op)
}

impl BlkparseParser {
    /// An event whose RWBS starts with `Z` (fields `f`, at least 7): a zone command.
    fn zone_command(&mut self, line: &[u8], f: &[&[u8]]) -> FieldResult<TraceRecord> {
        let zone_op = zone_op_of(f[6])?;
        let (major, minor) = dev_pair(f[0]).expect("checked by the caller");
        let device = device_of(major, minor)?;
        let time_ns = decimal_scaled(f[3], 9)
            .ok_or_else(|| format!("time: expected seconds.nanoseconds, got `{}`", lossy(f[3])))?;
        let pid = uint(f[4], "pid")?;
        let pid = u32::try_from(pid).map_err(|_| format!("pid: {pid} is out of range"))?;
        let lbn = uint(f.get(7).copied().unwrap_or(b""), "sector")?;
        let count = match (f.get(8), f.get(9)) {
            (Some(&b"+"), Some(n)) => uint(n, "sectors")?,
            _ => 0,
        };
        let sectors = if zone_op.moves_data() {
            sectors_u32(count, "sectors")?
        } else {
            1
        };
        if let (Some(open), Some(close)) = (memchr::memchr(b'[', line), memchr::memrchr(b']', line))
        {
            if open < close {
                self.names.note(pid, &line[open + 1..close]);
            }
        }
        Ok(TraceRecord {
            time_ns,
            device,
            lbn,
            sectors,
            op: Op::Write,
            process: pid,
            response_ns: None,
            zone_op: Some(zone_op),
            high_priority: false,
        })
    }
}
