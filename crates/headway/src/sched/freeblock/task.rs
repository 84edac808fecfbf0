//! Background tasks: what the freeblock scheduler reads for. Every task comes down to a set
//! of wanted sectors in the [`WantedBlocks`] bitmap; the task keeps its progress (sectors
//! delivered, when it finished).

use super::wanted::WantedBlocks;
use crate::error::{HeadwayError, Result};
use crate::time::SimTime;

/// A background task as configured.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskKind {
    /// Read every sector of the device once, in any order (the paper's full-disk scan).
    FullScan,
    /// Read these ranges `(lbn, sectors)` once (a scrub of part of the disk, a backup of
    /// some files, a list of wanted blocks).
    Ranges(Vec<(u64, u64)>),
}

/// A background task and its progress.
#[derive(Clone, Debug)]
pub struct BackgroundTask {
    pub kind: TaskKind,
    /// Sectors of the task read so far (each wanted sector once).
    pub delivered_sectors: u64,
    /// When the last wanted sector was delivered.
    pub completed_ns: Option<SimTime>,
}

impl BackgroundTask {
    pub fn new(kind: TaskKind) -> Self {
        BackgroundTask {
            kind,
            delivered_sectors: 0,
            completed_ns: None,
        }
    }

    /// The task's sectors marked in a bitmap for a device of `capacity` sectors; a range
    /// beyond the device is an error keyed `host.options.sectors`.
    pub(crate) fn wanted(&self, capacity: u64) -> Result<WantedBlocks> {
        let mut w = WantedBlocks::new(capacity);
        match &self.kind {
            TaskKind::FullScan => {
                w.want(0, capacity);
            }
            TaskKind::Ranges(ranges) => {
                for &(lbn, n) in ranges {
                    if n == 0 || lbn.checked_add(n).is_none_or(|e| e > capacity) {
                        return Err(HeadwayError::config(
                            "host.options.sectors",
                            format!(
                                "freeblock background task range {lbn}..{} is not inside the \
                                 device ({capacity} sectors)",
                                lbn.saturating_add(n)
                            ),
                        ));
                    }
                    w.want(lbn, n);
                }
            }
        }
        Ok(w)
    }
}

/// What a block consumer asks of the task after a delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WantChange {
    /// Read these sectors `(lbn, sectors)` too.
    Want(u64, u64),
    /// No longer read these (already read ones are unaffected).
    Drop(u64, u64),
}

/// Receives the task's blocks as free (or idle-time) reads of them complete, and may
/// change what is wanted (a Python object through the binding, or a Rust consumer).
pub trait BlockSink {
    /// `sectors` sectors from `lbn` were read; the reply's changes apply at once.
    fn delivered(&mut self, lbn: u64, sectors: u32, now_ns: SimTime) -> Result<Vec<WantChange>>;
}

/// Apply a consumer's changes to the bitmap; a range outside the device is an error naming
/// the consumer's reply.
pub(crate) fn apply_changes(w: &mut WantedBlocks, changes: &[WantChange]) -> Result<()> {
    for &c in changes {
        let (lbn, n) = match c {
            WantChange::Want(l, n) | WantChange::Drop(l, n) => (l, n),
        };
        if n == 0 || lbn.checked_add(n).is_none_or(|e| e > w.capacity()) {
            return Err(HeadwayError::config(
                "background_task.delivered",
                format!(
                    "block range {lbn}..{} is not inside the device ({} sectors)",
                    lbn.saturating_add(n),
                    w.capacity()
                ),
            ));
        }
        match c {
            WantChange::Want(..) => {
                w.want(lbn, n);
            }
            WantChange::Drop(..) => {
                w.take(lbn, n);
            }
        }
    }
    Ok(())
}
