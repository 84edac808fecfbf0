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
/// of the whole replay's CPU time with them (docs/performance.md, fourth sitting).
pub const BATCH_RECORDS: usize = 8192;
/// Batches the reader may run ahead of the simulation.
pub const BATCHES_AHEAD: usize = 4;

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
#[derive(Default)]
pub struct Batch {
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

/// Records handed out of batches, with the line, skip count and continuation of the last
/// one, as the reader itself would answer; the batches come from `S`.
pub struct Batched<S> {
    batch: Batch,
    /// The next slot of `batch` to hand out.
    next: usize,
    line: usize,
    skipped: u64,
    can_continue: bool,
    source: S,
}

/// A [`TraceReader`] whose reading happens on its own thread.
pub type Prefetch = Batched<Remote>;

/// A [`TraceReader`] read a batch at a time on the calling thread: the reader's fast
/// [`TraceReader::next_run`] for whoever reads record by record (the feed, run ahead on the
/// reader's thread), and the same lines and skip counts as [`Prefetch`] gives.
pub type Local<R> = Batched<LocalSource<R>>;

/// Where a [`Batched`] reader's batches come from.
pub trait Source {
    /// The next batch (`used`, emptied, may be refilled in place), or `None` at the end.
    fn next_batch(&mut self, used: Batch) -> Option<Batch>;
}

/// Batches from the reader's thread.
pub struct Remote {
    rx: Option<Receiver<Batch>>,
    // Used batches go back to the reader so steady state allocates nothing.
    spare: SyncSender<Batch>,
    worker: Option<JoinHandle<()>>,
}

/// Batches filled on this thread.
pub struct LocalSource<R> {
    reader: R,
    finished: bool,
}

impl<S> Batched<S> {
    fn with_source(source: S) -> Self {
        Batched {
            batch: Batch::default(),
            next: 0,
            line: 0,
            skipped: 0,
            can_continue: true,
            source,
        }
    }
}

impl Prefetch {
    /// Start reading `reader` on a new thread.
    pub fn spawn<R: TraceReader + Send + 'static>(reader: R) -> Result<Self> {
        let (tx, rx) = sync_channel(BATCHES_AHEAD);
        let (spare_tx, spare_rx) = sync_channel(BATCHES_AHEAD + 2);
        let worker = spawn_reader(move || produce(reader, tx, spare_rx))?;
        Ok(Batched::with_source(Remote {
            rx: Some(rx),
            spare: spare_tx,
            worker: Some(worker),
        }))
    }
}

impl<R: TraceReader> Local<R> {
    pub fn new(reader: R) -> Self {
        Batched::with_source(LocalSource {
            reader,
            finished: false,
        })
    }
}

/// Start `work` on the trace reader's thread.
pub(crate) fn spawn_reader(work: impl FnOnce() + Send + 'static) -> Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("headway-trace".into())
        .spawn(work)
        .map_err(|e| {
            HeadwayError::trace(
                None,
                None,
                format!("cannot start the trace reader thread: {e}"),
            )
        })
}

/// Wait for the reader's thread, raising its panic, if it panicked, as it would have been
/// had it run on this thread.
pub(crate) fn join_reader(worker: &mut Option<JoinHandle<()>>) {
    if let Some(worker) = worker.take() {
        if let Err(panic) = worker.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

impl Source for Remote {
    fn next_batch(&mut self, mut used: Batch) -> Option<Batch> {
        let rx = self.rx.as_ref()?;
        match rx.recv() {
            Ok(batch) => {
                used.slots.clear();
                let _ = self.spare.try_send(used);
                Some(batch)
            }
            Err(_) => {
                self.rx = None;
                join_reader(&mut self.worker);
                None
            }
        }
    }
}

impl<R: TraceReader> Source for LocalSource<R> {
    fn next_batch(&mut self, mut used: Batch) -> Option<Batch> {
        if self.finished {
            return None;
        }
        used.slots.clear();
        used.slots.reserve(BATCH_RECORDS);
        self.finished = fill(&mut self.reader, &mut used);
        (!used.slots.is_empty() || used.error.is_some()).then_some(used)
    }
}

impl<S: Source> Batched<S> {
    /// The batch's error if it has one, else the next batch: `Ok(true)` when there is more
    /// to read, `Ok(false)` once the reader has finished.
    #[cold]
    fn refill(&mut self) -> Result<bool> {
        if let Some(e) = self.batch.error.take() {
            self.line = e.line;
            self.skipped = e.skipped;
            self.can_continue = e.can_continue;
            return Err(e.err);
        }
        let used = std::mem::take(&mut self.batch);
        self.next = 0;
        match self.source.next_batch(used) {
            Some(batch) => {
                self.batch = batch;
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

/// Read into `batch` until it is full, an error, or the end: `true` when reading is over
/// (the end, or an error after which it cannot go on).
fn fill<R: TraceReader>(reader: &mut R, batch: &mut Batch) -> bool {
    while batch.slots.len() < BATCH_RECORDS {
        let room = BATCH_RECORDS - batch.slots.len();
        let skipped = reader.skipped();
        let slots = &mut batch.slots;
        let took = reader.next_run(room, &mut |rec, line| {
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
            Ok(None) => return true,
            Err(err) => {
                let can_continue = reader.can_continue();
                batch.error = Some(Box::new(ReadError {
                    err,
                    line: reader.line(),
                    skipped: reader.skipped(),
                    can_continue,
                }));
                return !can_continue;
            }
        }
    }
    false
}

fn produce<R: TraceReader>(mut reader: R, tx: SyncSender<Batch>, spare: Receiver<Batch>) {
    loop {
        let mut batch = spare.try_recv().unwrap_or_else(|_| Batch {
            slots: Vec::with_capacity(BATCH_RECORDS),
            error: None,
        });
        let finished = fill(&mut reader, &mut batch);
        let empty = batch.slots.is_empty() && batch.error.is_none();
        // A closed channel means the replay stopped early (a limit, an error): stop too.
        if (!empty && tx.send(batch).is_err()) || finished {
            return;
        }
    }
}

impl<S: Source> TraceReader for Batched<S> {
    #[inline]
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        loop {
            if let Some(slot) = self.batch.slots.get(self.next) {
                self.next += 1;
                self.line = slot.line;
                self.skipped = slot.skipped;
                return Ok(Some(slot.rec));
            }
            if !self.refill()? {
                return Ok(None);
            }
        }
    }

    fn line(&self) -> usize {
        self.line
    }

    fn can_continue(&self) -> bool {
        self.can_continue
    }

    fn skipped(&self) -> u64 {
        self.skipped
    }
}

impl Drop for Remote {
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
    fn read_here_same_as_read_ahead() {
        let path = scratch("here");
        let mut f = std::fs::File::create(&path).unwrap();
        for i in 0..(BATCH_RECORDS + 5) {
            if i == 3 || i == BATCH_RECORDS - 1 {
                writeln!(f, "bad").unwrap();
            }
            writeln!(f, "{i} 0 {} 8 1", i * 8).unwrap();
        }
        drop(f);
        let here = all(Local::new(
            open_reader(&path, TraceFormat::DisksimAscii).unwrap(),
        ));
        let ahead =
            all(Prefetch::spawn(open_reader(&path, TraceFormat::DisksimAscii).unwrap()).unwrap());
        assert_eq!(here.len(), BATCH_RECORDS + 7);
        assert_eq!(here, ahead);
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
