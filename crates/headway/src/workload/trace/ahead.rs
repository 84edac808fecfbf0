//! The feed run ahead on the reader's thread: everything a replay does to a record that
//! depends only on the records before it (parsing, lenient skipping, the filters, `limit`,
//! fitting to the drive, the time scale, making the request) happens there, and the
//! simulation's thread takes ready items from batches. Items, errors (with their file and
//! line), the end, and the report as it stood after each item are exactly the stream's own,
//! so a replay through [`Ahead`] is the same replay with less work on the simulation's
//! thread.
//!
//! The report: the reader's thread records the report's counts after every item (a copy of
//! eight numbers) and sends the bad records' examples as they are kept; the report of
//! [`Ahead::report`] is the one the stream had when it gave the last item taken, whatever
//! the reader's thread has read since (a run stopped early by a time limit reports as many
//! records as it took).

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::feed::Feed;
use super::prefetch::{join_reader, spawn_reader, BATCHES_AHEAD, BATCH_RECORDS};
use super::report::{TraceCounts, TraceReport};
use super::{TraceReader, TraceRecord};
use crate::error::{HeadwayError, Result};

/// What a replay takes records or requests from, with the report of what was done to
/// them so far.
pub trait Stream {
    type Item: Copy;
    /// The next item, `None` at the end; errors name the file and line.
    fn next_item(&mut self) -> Result<Option<Self::Item>>;
    fn report(&self) -> TraceReport;
    /// The report's counts (cheap: no strings).
    fn counts(&self) -> TraceCounts;
    /// The bad records' examples kept so far.
    fn bad_examples(&self) -> &[String];
}

impl<R: TraceReader> Stream for Feed<R> {
    type Item = TraceRecord;
    #[inline(always)]
    fn next_item(&mut self) -> Result<Option<TraceRecord>> {
        self.next_record()
    }
    fn report(&self) -> TraceReport {
        Feed::report(self)
    }
    #[inline]
    fn counts(&self) -> TraceCounts {
        Feed::counts(self)
    }
    fn bad_examples(&self) -> &[String] {
        Feed::bad_examples(self)
    }
}

/// Items in order, then how the stream ended if it did in this batch.
struct Ready<T> {
    items: Vec<T>,
    /// The report's counts after each item.
    counts: Vec<TraceCounts>,
    /// Bad records' examples kept while this batch was made.
    bad_examples: Vec<String>,
    // Boxed: once a replay.
    end: Option<Box<End>>,
}

impl<T> Ready<T> {
    fn empty(capacity: usize) -> Self {
        Ready {
            items: Vec::with_capacity(capacity),
            counts: Vec::with_capacity(capacity),
            bad_examples: Vec::new(),
            end: None,
        }
    }
}

enum End {
    Finished(TraceCounts),
    Failed(HeadwayError, TraceCounts),
}

/// A [`Stream`] run on the reader's thread.
pub struct Ahead<T> {
    batch: Ready<T>,
    /// The next item of `batch` to hand out.
    next: usize,
    /// The counts as of the last item taken before `batch` (or at the end).
    counts: TraceCounts,
    /// The report's fixed part, with every bad record's example received so far.
    base: TraceReport,
    rx: Option<Receiver<Ready<T>>>,
    // Used batches go back to the reader so steady state allocates nothing.
    spare: SyncSender<Ready<T>>,
    worker: Option<JoinHandle<()>>,
}

impl<T: Copy + Send + 'static> Ahead<T> {
    /// Start running `stream` on a new thread.
    pub fn spawn<S: Stream<Item = T> + Send + 'static>(stream: S) -> Result<Self> {
        let base = stream.report();
        let counts = stream.counts();
        let (tx, rx) = sync_channel(BATCHES_AHEAD);
        let (spare_tx, spare_rx) = sync_channel(BATCHES_AHEAD + 2);
        let worker = spawn_reader(move || produce(stream, tx, spare_rx))?;
        Ok(Ahead {
            batch: Ready::empty(0),
            next: 0,
            counts,
            base,
            rx: Some(rx),
            spare: spare_tx,
            worker: Some(worker),
        })
    }
}

impl<T: Copy> Ahead<T> {
    /// Past the batch's last item: its end if it has one, else the next batch's first item.
    #[cold]
    fn refill(&mut self) -> Result<Option<T>> {
        loop {
            if self.next > 0 {
                self.counts = self.batch.counts[self.next - 1];
                self.next = 0;
            }
            self.batch.items.clear();
            self.batch.counts.clear();
            if let Some(end) = self.batch.end.take() {
                // The reader's thread has stopped; nothing more will come.
                self.rx = None;
                return match *end {
                    End::Finished(c) => {
                        self.counts = c;
                        Ok(None)
                    }
                    End::Failed(e, c) => {
                        self.counts = c;
                        Err(e)
                    }
                };
            }
            let Some(rx) = &self.rx else { return Ok(None) };
            match rx.recv() {
                Ok(mut batch) => {
                    self.base.bad_examples.append(&mut batch.bad_examples);
                    let used = std::mem::replace(&mut self.batch, batch);
                    let _ = self.spare.try_send(used);
                    if let Some(&item) = self.batch.items.first() {
                        self.next = 1;
                        return Ok(Some(item));
                    }
                }
                Err(_) => {
                    self.rx = None;
                    join_reader(&mut self.worker);
                    return Ok(None);
                }
            }
        }
    }
}

impl<T: Copy> Stream for Ahead<T> {
    type Item = T;
    #[inline]
    fn next_item(&mut self) -> Result<Option<T>> {
        if let Some(&item) = self.batch.items.get(self.next) {
            self.next += 1;
            return Ok(Some(item));
        }
        self.refill()
    }
    fn report(&self) -> TraceReport {
        self.base.at(self.counts())
    }
    fn counts(&self) -> TraceCounts {
        match self.next {
            0 => self.counts,
            n => self.batch.counts[n - 1],
        }
    }
    fn bad_examples(&self) -> &[String] {
        let n = self.counts().bad_records as usize;
        &self.base.bad_examples[..n.min(self.base.bad_examples.len())]
    }
}

fn produce<S: Stream>(
    mut stream: S,
    tx: SyncSender<Ready<S::Item>>,
    spare: Receiver<Ready<S::Item>>,
) {
    let mut examples_sent = 0;
    loop {
        let mut batch = spare
            .try_recv()
            .unwrap_or_else(|_| Ready::empty(BATCH_RECORDS));
        // The consumer's first, empty batch comes back without room.
        batch.items.reserve(BATCH_RECORDS);
        batch.counts.reserve(BATCH_RECORDS);
        while batch.items.len() < BATCH_RECORDS {
            match stream.next_item() {
                Ok(Some(item)) => {
                    batch.items.push(item);
                    batch.counts.push(stream.counts());
                }
                Ok(None) => {
                    batch.end = Some(Box::new(End::Finished(stream.counts())));
                    break;
                }
                Err(e) => {
                    batch.end = Some(Box::new(End::Failed(e, stream.counts())));
                    break;
                }
            }
        }
        let examples = stream.bad_examples();
        batch
            .bad_examples
            .extend_from_slice(&examples[examples_sent..]);
        examples_sent = examples.len();
        let finished = batch.end.is_some();
        // A closed channel means the replay stopped early (a time limit, an error): stop too.
        if tx.send(batch).is_err() || finished {
            return;
        }
    }
}

impl<T> Drop for Ahead<T> {
    fn drop(&mut self) {
        // Closing the channel stops the reader at its next batch; wait for it so no thread
        // outlives the replay holding the file open.
        self.rx = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}
