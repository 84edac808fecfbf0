//! Reading a trace ahead on a second thread: decompression and parsing overlap the
//! simulation, which then takes records from a bounded channel. The records, their line
//! numbers, the errors and where reading stops are exactly the reader's own, so a replay
//! through [`Prefetch`] is the same replay, only sooner where there is a second core.
//!
//! Memory is bounded by the channel: at most [`BATCHES_AHEAD`] batches of
//! [`BATCH_RECORDS`] records wait, whatever the trace's length.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::{TraceReader, TraceRecord};
use crate::error::{HeadwayError, Result};

/// Records sent at a time. Every hand-over of a batch costs the two threads a wake-up and a
/// sleep (the reader, far faster than the simulation, waits on a full channel): about 3,500
/// context switches per million records at 1,024 records a batch, 280 at 8,192, and 2-3%
/// of the whole replay's CPU time with them.
pub(crate) const BATCH_RECORDS: usize = 8192;
/// Batches the reader may run ahead of the simulation.
pub(crate) const BATCHES_AHEAD: usize = 4;

/// A record with what the consumer must be able to ask after it.
#[derive(Clone, Copy)]
struct Slot {
    rec: TraceRecord,
    line: usize,
    skipped: u64,
}

/// What the reader said, in order: records, then the error that ended the batch early, if
/// one did. Records are plain data read in place, so a used batch goes back to the reader
/// whole, its allocation kept.
struct Batch {
    slots: Vec<Slot>,
    // Boxed: errors are rare and large.
    error: Option<Box<ReadError>>,
}

struct ReadError {
    err: HeadwayError,
    line: usize,
    skipped: u64,
    can_continue: bool,
}

/// A [`TraceReader`] whose reading happens on its own thread.
pub struct Prefetch {
    rx: Option<Receiver<Batch>>,
    batch: Batch,
    /// The next slot of `batch` to hand out.
    next: usize,
    // Used batches go back to the reader so steady state allocates nothing.
    spare: SyncSender<Batch>,
    line: usize,
    skipped: u64,
    can_continue: bool,
    worker: Option<JoinHandle<()>>,
}

impl Prefetch {
    /// Start reading `reader` on a new thread.
    pub fn spawn<R: TraceReader + Send + 'static>(reader: R) -> Result<Self> {
        let (tx, rx) = sync_channel(BATCHES_AHEAD);
        let (spare_tx, spare_rx) = sync_channel(BATCHES_AHEAD + 2);
        let worker = std::thread::Builder::new()
            .name("headway-trace".into())
            .spawn(move || produce(reader, tx, spare_rx))
            .map_err(|e| {
                HeadwayError::trace(
                    None,
                    None,
                    format!("cannot start the trace reader thread: {e}"),
                )
            })?;
        Ok(Prefetch {
            rx: Some(rx),
            batch: Batch {
                slots: Vec::new(),
                error: None,
            },
            next: 0,
            spare: spare_tx,
            line: 0,
            skipped: 0,
            can_continue: true,
            worker: Some(worker),
        })
    }

    /// The slot of the record last handed out, while its batch is current.
    fn last(&self) -> Option<&Slot> {
        self.batch.slots.get(self.next.wrapping_sub(1))
    }

    /// The batch's error if it has one, else the next batch: `Ok(true)` when there is more
    /// to read, `Ok(false)` once the reader has finished (its panic, if it panicked, is
    /// raised here as it would have been had it run on this thread).
    #[cold]
    fn refill(&mut self) -> Result<bool> {
        // The batch is used up: what `line` and `skipped` answer moves out of it.
        if let Some(last) = self.next.checked_sub(1).map(|i| self.batch.slots[i]) {
            self.line = last.line;
            self.skipped = last.skipped;
        }
        self.batch.slots.clear();
        self.next = 0;
        if let Some(e) = self.batch.error.take() {
            self.line = e.line;
            self.skipped = e.skipped;
            self.can_continue = e.can_continue;
            return Err(e.err);
        }
        let Some(rx) = &self.rx else { return Ok(false) };
        match rx.recv() {
            Ok(batch) => {
                let used = std::mem::replace(&mut self.batch, batch);
                let _ = self.spare.try_send(used);
                Ok(true)
            }
            Err(_) => {
                self.rx = None;
                if let Some(worker) = self.worker.take() {
                    if let Err(panic) = worker.join() {
                        std::panic::resume_unwind(panic);
                    }
                }
                Ok(false)
            }
        }
    }
}

fn produce<R: TraceReader>(mut reader: R, tx: SyncSender<Batch>, spare: Receiver<Batch>) {
    loop {
        let mut batch = spare.try_recv().unwrap_or_else(|_| Batch {
            slots: Vec::with_capacity(BATCH_RECORDS),
            error: None,
        });
        let mut finished = false;
        while batch.slots.len() < BATCH_RECORDS {
            let room = BATCH_RECORDS - batch.slots.len();
            let skipped = reader.skipped();
            let slots = &mut batch.slots;
            // `move`: `skipped` a copy in the closure, not read through a reference a record.
            let took = reader.next_run(room, &mut move |rec, line| {
                slots.push(Slot { rec, line, skipped })
            });
            if took == room {
                break;
            }
            match reader.next_record() {
                Ok(Some(rec)) => batch.slots.push(Slot {
                    rec,
                    line: reader.line(),
                    skipped: reader.skipped(),
                }),
                Ok(None) => {
                    finished = true;
                    break;
                }
                Err(err) => {
                    let can_continue = reader.can_continue();
                    batch.error = Some(Box::new(ReadError {
                        err,
                        line: reader.line(),
                        skipped: reader.skipped(),
                        can_continue,
                    }));
                    finished = !can_continue;
                    break;
                }
            }
        }
        let empty = batch.slots.is_empty() && batch.error.is_none();
        // A closed channel means the replay stopped early (a limit, an error): stop too.
        if (!empty && tx.send(batch).is_err()) || finished {
            return;
        }
    }
}

impl TraceReader for Prefetch {
    #[inline]
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        loop {
            if let Some(slot) = self.batch.slots.get(self.next) {
                self.next += 1;
                return Ok(Some(slot.rec));
            }
            if !self.refill()? {
                return Ok(None);
            }
        }
    }

    // Asked after a record only on the cold paths (an error, a report), so read from its
    // slot rather than copied out at every record.
    fn line(&self) -> usize {
        self.last().map_or(self.line, |s| s.line)
    }

    fn can_continue(&self) -> bool {
        self.can_continue
    }

    fn skipped(&self) -> u64 {
        self.last().map_or(self.skipped, |s| s.skipped)
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        // Closing the channel stops the reader at its next batch; wait for it so no thread
        // outlives the replay holding the file open.
        self.rx = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::{open_reader, TraceFormat};
    use std::io::Write;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("headway-prefetch-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("t.trace")
    }

    fn all(
        mut r: impl TraceReader,
    ) -> Vec<(std::result::Result<TraceRecord, String>, usize, bool)> {
        let mut out = Vec::new();
        loop {
            match r.next_record() {
                Ok(Some(rec)) => out.push((Ok(rec), r.line(), true)),
                Ok(None) => return out,
                Err(e) => {
                    out.push((Err(e.to_string()), r.line(), r.can_continue()));
                    if !r.can_continue() {
                        assert!(r.next_record().unwrap().is_none());
                        return out;
                    }
                }
            }
        }
    }

    #[test]
    fn same_records_lines_and_errors_as_the_reader_itself() {
        let path = scratch("same");
        let mut f = std::fs::File::create(&path).unwrap();
        // Several batches, with malformed lines in the middle of one and at a batch boundary.
        for i in 0..(3 * BATCH_RECORDS + 17) {
            if i == 700 || i == BATCH_RECORDS {
                writeln!(f, "not a record").unwrap();
            }
            writeln!(f, "{}.5 0 {} 8 {}", i * 3, i * 64, i % 2).unwrap();
        }
        drop(f);
        let direct = all(open_reader(&path, TraceFormat::DisksimAscii).unwrap());
        let ahead =
            all(Prefetch::spawn(open_reader(&path, TraceFormat::DisksimAscii).unwrap()).unwrap());
        assert_eq!(direct.len(), 3 * BATCH_RECORDS + 19);
        assert_eq!(direct.iter().filter(|r| r.0.is_err()).count(), 2);
        assert_eq!(ahead, direct);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn dropping_early_stops_the_reader() {
        let path = scratch("drop");
        let mut f = std::fs::File::create(&path).unwrap();
        for i in 0..(BATCHES_AHEAD + 4) * BATCH_RECORDS {
            writeln!(f, "{i} 0 {} 8 1", i * 8).unwrap();
        }
        drop(f);
        let mut r =
            Prefetch::spawn(open_reader(&path, TraceFormat::DisksimAscii).unwrap()).unwrap();
        assert_eq!(r.next_record().unwrap().unwrap().lbn, 0);
        drop(r); // joins the reader thread: would hang if it kept waiting to send
        let _ = std::fs::remove_file(&path);
    }
}
