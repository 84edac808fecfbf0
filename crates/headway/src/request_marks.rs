//! The one byte of a request beyond its extent and direction: whether it is a later chunk
//! of a split large read, the zone command it carries (if any, or an append the host
//! emulated), the ZBC error a zoned drive answered it with (if it refused it), and whether
//! its issuer waits on it (high priority). Packed into one byte so that a request stays
//! within six words.

use serde::Serialize;

/// A zone command a workload can issue to a zoned drive, beside plain reads and writes.
/// The request's `lbn` names the zone (any sector in it); its `op` is `Write` (they take
/// the write path through the host's schedulers, as Linux's zoned block layer does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneOp {
    /// RESET WRITE POINTER: the zone is empty again.
    Reset,
    /// OPEN ZONE (explicit).
    Open,
    /// CLOSE ZONE.
    Close,
    /// FINISH ZONE: the write pointer moves to the zone's end.
    Finish,
    /// ZONE APPEND: the drive writes the request's sectors at the zone's write pointer and
    /// the completed request's `lbn` is where they went.
    Append,
}

impl ZoneOp {
    const ALL: [ZoneOp; 5] = [
        ZoneOp::Reset,
        ZoneOp::Open,
        ZoneOp::Close,
        ZoneOp::Finish,
        ZoneOp::Append,
    ];

    /// The name traces and records use.
    pub fn name(self) -> &'static str {
        match self {
            ZoneOp::Reset => "reset",
            ZoneOp::Open => "open",
            ZoneOp::Close => "close",
            ZoneOp::Finish => "finish",
            ZoneOp::Append => "append",
        }
    }

    /// The zone command named `name` (`reset`, `open`, `close`, `finish`, `append`).
    pub fn from_name(name: &str) -> Option<ZoneOp> {
        Self::ALL.into_iter().find(|z| z.name() == name)
    }

    /// Whether the command moves data (only an append does).
    pub fn moves_data(self) -> bool {
        self == ZoneOp::Append
    }
}

/// Why a zoned drive refused a command (ZBC's ILLEGAL REQUEST sense codes, by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneError {
    /// A write to a sequential-write-required zone not at its write pointer.
    UnalignedWrite,
    /// A command crossing from one sequential zone into another.
    CrossesZoneBoundary,
    /// A write to a full sequential-write-required zone.
    ZoneFull,
    /// A read past the write pointer of a sequential-write-required zone.
    ReadBeyondWritePointer,
    /// An explicit open with `max_open_zones` zones explicitly open.
    TooManyOpenZones,
}

impl ZoneError {
    const ALL: [ZoneError; 5] = [
        ZoneError::UnalignedWrite,
        ZoneError::CrossesZoneBoundary,
        ZoneError::ZoneFull,
        ZoneError::ReadBeyondWritePointer,
        ZoneError::TooManyOpenZones,
    ];

    /// The name records and reports use.
    pub fn name(self) -> &'static str {
        match self {
            ZoneError::UnalignedWrite => "unaligned-write",
            ZoneError::CrossesZoneBoundary => "crosses-zone-boundary",
            ZoneError::ZoneFull => "zone-full",
            ZoneError::ReadBeyondWritePointer => "read-beyond-write-pointer",
            ZoneError::TooManyOpenZones => "too-many-open-zones",
        }
    }
}

const CHUNK_BIT: u8 = 1;
const ZONE_SHIFT: u8 = 1;
const ERROR_SHIFT: u8 = 4;
const THREE_BITS: u8 = 0b111;
const HIGH_PRIORITY_BIT: u8 = 1 << 7;
/// The zone field's code for an append the host emulated: past the five commands, so the
/// drive sees no zone command and the records still name the append.
const EMULATED_APPEND_CODE: u8 = THREE_BITS;

/// The packed byte: bit 0 the large-read chunk flag, bits 1-3 the zone command (0: none,
/// 1-5 a command, 7 an append the host emulated), bits 4-6 the refusal (0: none), bit 7 the
/// high-priority flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RequestMarks(u8);

impl RequestMarks {
    /// A later chunk of one large read that the workload split up.
    #[inline]
    pub fn large_read_chunk(self) -> bool {
        self.0 & CHUNK_BIT != 0
    }

    pub fn set_large_read_chunk(&mut self, on: bool) {
        self.0 = (self.0 & !CHUNK_BIT) | on as u8;
    }

    /// The zone command the request carries, if any.
    #[inline]
    pub fn zone_op(self) -> Option<ZoneOp> {
        let code = (self.0 >> ZONE_SHIFT) & THREE_BITS;
        ZoneOp::ALL.get((code as usize).wrapping_sub(1)).copied()
    }

    pub fn set_zone_op(&mut self, op: Option<ZoneOp>) {
        let code = op.map_or(0, |z| ZoneOp::ALL.iter().position(|&a| a == z).unwrap() + 1);
        self.0 = (self.0 & !(THREE_BITS << ZONE_SHIFT)) | ((code as u8) << ZONE_SHIFT);
    }

    /// A ZONE APPEND the host turned into a plain write at its tracked write pointer
    /// (`[host] zone_append = "emulated"`): the request carries no zone command to the
    /// drive, and its `lbn` is the place the host chose.
    #[inline]
    pub fn emulated_append(self) -> bool {
        (self.0 >> ZONE_SHIFT) & THREE_BITS == EMULATED_APPEND_CODE
    }

    /// Marks the request as an emulated append (replacing any zone command it carried), or
    /// clears that mark.
    pub fn set_emulated_append(&mut self, on: bool) {
        if on {
            self.0 |= EMULATED_APPEND_CODE << ZONE_SHIFT;
        } else if self.emulated_append() {
            self.0 &= !(THREE_BITS << ZONE_SHIFT);
        }
    }

    /// The zone command as the workload issued it: the one the request carries, or
    /// `Append` for an append the host emulated (what the records' `zone_op` names).
    pub fn issued_zone_op(self) -> Option<ZoneOp> {
        self.zone_op()
            .or(self.emulated_append().then_some(ZoneOp::Append))
    }

    /// The error the device answered the request with, if it refused it.
    #[inline]
    pub fn error(self) -> Option<ZoneError> {
        let code = (self.0 >> ERROR_SHIFT) & THREE_BITS;
        (code != 0).then(|| ZoneError::ALL[code as usize - 1])
    }

    pub fn set_error(&mut self, e: Option<ZoneError>) {
        let code = e.map_or(0, |z| {
            ZoneError::ALL.iter().position(|&a| a == z).unwrap() + 1
        });
        self.0 = (self.0 & !(THREE_BITS << ERROR_SHIFT)) | ((code as u8) << ERROR_SHIFT);
    }

    /// Whether the issuer waits on the request, now or by a limit: DiskSim's time-critical
    /// and time-limited requests, which a `priority` scheduler serves first.
    #[inline]
    pub fn high_priority(self) -> bool {
        self.0 & HIGH_PRIORITY_BIT != 0
    }

    pub fn set_high_priority(&mut self, on: bool) {
        self.0 = (self.0 & !HIGH_PRIORITY_BIT) | if on { HIGH_PRIORITY_BIT } else { 0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mark_round_trips_without_disturbing_the_others() {
        for (chunk, high) in [(false, false), (true, false), (false, true), (true, true)] {
            for z in std::iter::once(None).chain(ZoneOp::ALL.map(Some)) {
                for e in std::iter::once(None).chain(ZoneError::ALL.map(Some)) {
                    let mut m = RequestMarks::default();
                    m.set_high_priority(high);
                    m.set_error(e);
                    m.set_zone_op(z);
                    m.set_large_read_chunk(chunk);
                    let got = (
                        m.large_read_chunk(),
                        m.zone_op(),
                        m.error(),
                        m.high_priority(),
                    );
                    assert_eq!(got, (chunk, z, e, high));
                    assert!(!m.emulated_append());
                    if z.is_none() {
                        m.set_emulated_append(true);
                        assert!(m.emulated_append());
                        assert_eq!(m.zone_op(), None);
                        assert_eq!(m.issued_zone_op(), Some(ZoneOp::Append));
                        assert_eq!(
                            (m.large_read_chunk(), m.error(), m.high_priority()),
                            (chunk, e, high)
                        );
                        m.set_emulated_append(false);
                        assert_eq!(m.issued_zone_op(), None);
                    }
                }
            }
        }
        for z in ZoneOp::ALL {
            assert_eq!(ZoneOp::from_name(z.name()), Some(z));
        }
        assert_eq!(ZoneOp::from_name("trim"), None);
    }
}
