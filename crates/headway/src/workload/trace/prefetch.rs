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

/// Records sent at a time: large enough that the channel's cost per record is negligible.
pub const BATCH_RECORDS: usize = 1024;
/// Batches the reader may run ahead of the simulation.
pub const BATCHES_AHEAD: usize = 4;

/// What the reader said, with what the consumer must be able to ask afterwards.
enum Item {
    Record {
        rec: TraceRecord,
        line: usize,
        skipped: u64,
    },
    // Boxed: errors are rare and large; records should stay small in the channel.
    Error(Box<ReadError>),
}

struct ReadError {
    err: HeadwayError,
    line: usize,
    skipped: u64,
    can_continue: bool,
}

/// A [`TraceReader`] whose reading happens on its own thread.
pub struct Prefetch {
    rx: Option<Receiver<Vec<Item>>>,
    batch: std::vec::IntoIter<Item>,
    // Recycled batch buffers go back to the reader so steady state allocates nothing.
    spare: SyncSender<Vec<Item>>,
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
            batch: Vec::new().into_iter(),
            spare: spare_tx,
            line: 0,
            skipped: 0,
            can_continue: true,
            worker: Some(worker),
        })
    }

    /// The next batch, or `None` once the reader has finished (its panic, if it panicked,
    /// is raised here as it would have been had it run on this thread).
    #[cold]
    fn refill(&mut self) -> bool {
        let Some(rx) = &self.rx else { return false };
        match rx.recv() {
            Ok(batch) => {
                let old = std::mem::replace(&mut self.batch, batch.into_iter());
                let mut buf: Vec<Item> = old.collect();
                buf.clear();
                let _ = self.spare.try_send(buf);
                true
            }
            Err(_) => {
                self.rx = None;
                if let Some(worker) = self.worker.take() {
                    if let Err(panic) = worker.join() {
                        std::panic::resume_unwind(panic);
                    }
                }
                false
            }
        }
    }
}

fn produce<R: TraceReader>(mut reader: R, tx: SyncSender<Vec<Item>>, spare: Receiver<Vec<Item>>) {
    loop {
        let mut batch = spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BATCH_RECORDS));
        let mut finished = false;
        while batch.len() < BATCH_RECORDS {
            match reader.next_record() {
                Ok(Some(rec)) => batch.push(Item::Record {
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
                    batch.push(Item::Error(Box::new(ReadError {
                        err,
                        line: reader.line(),
                        skipped: reader.skipped(),
                        can_continue,
                    })));
                    if !can_continue {
                        finished = true;
                        break;
                    }
                }
            }
        }
        // A closed channel means the replay stopped early (a limit, an error): stop too.
        if (!batch.is_empty() && tx.send(batch).is_err()) || finished {
            return;
        }
    }
}

impl TraceReader for Prefetch {
    #[inline]
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        loop {
            match self.batch.next() {
                Some(Item::Record { rec, line, skipped }) => {
                    self.line = line;
                    self.skipped = skipped;
                    return Ok(Some(rec));
                }
                Some(Item::Error(e)) => {
                    self.line = e.line;
                    self.skipped = e.skipped;
                    self.can_continue = e.can_continue;
                    return Err(e.err);
                }
                None => {
                    if !self.refill() {
                        return Ok(None);
                    }
                }
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
