//! The DRAM FQueue: redirected writes held in host memory with their data, as a map of
//! non-overlapping sector runs each tagged with the write (version) that holds its newest
//! data and the FQueue entry it came from (FIFO order = entry order).
//!
//! Data are modelled by versions: a write's version is its request id, and a run's version
//! is whose data it holds. A newer redirected write overlapping older entries replaces
//! their sectors in memory (an absorbed overwrite); an entry left with no sectors is gone
//! without ever reaching the platter.

use std::collections::{BTreeMap, BTreeSet};

/// A run of sectors with one version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub lbn: u64,
    pub end: u64,
    pub version: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    end: u64,
    version: u64,
    entry: u64,
}

/// A platter write made from FQueue data: the extent `lbn..end` and the pieces of FQueue
/// data in it (a coalescing write's own data fill the rest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteBack {
    pub lbn: u64,
    pub end: u64,
    pub pieces: Vec<Piece>,
}

impl WriteBack {
    pub fn sectors(&self) -> u64 {
        self.end - self.lbn
    }
}

/// Counters over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FQueueCounters {
    pub entries_added: u64,
    /// Entries whose every sector was replaced by newer redirected data.
    pub entries_overwritten: u64,
    pub sectors_added: u64,
    pub sectors_overwritten: u64,
}

#[derive(Clone, Debug)]
pub struct FQueue {
    capacity_sectors: u64,
    runs: BTreeMap<u64, Run>,
    /// Live entries (FIFO by id) and the start of each of their runs.
    entries: BTreeMap<u64, BTreeSet<u64>>,
    occupied: u64,
    next_entry: u64,
    counters: FQueueCounters,
}

impl FQueue {
    pub fn new(capacity_sectors: u64) -> Self {
        FQueue {
            capacity_sectors,
            runs: BTreeMap::new(),
            entries: BTreeMap::new(),
            occupied: 0,
            next_entry: 0,
            counters: FQueueCounters::default(),
        }
    }

    pub fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }
    pub fn occupied_sectors(&self) -> u64 {
        self.occupied
    }
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
    pub fn counters(&self) -> FQueueCounters {
        self.counters
    }

    /// Every run, in LBN order.
    pub fn pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        self.runs.iter().map(|(&lbn, r)| Piece {
            lbn,
            end: r.end,
            version: r.version,
        })
    }

    /// Sectors of `lbn..end` the FQueue holds.
    pub fn overlap_sectors(&self, lbn: u64, end: u64) -> u64 {
        self.overlapping(lbn, end)
            .map(|p| p.end.min(end) - p.lbn.max(lbn))
            .sum()
    }

    fn overlapping(&self, lbn: u64, end: u64) -> impl Iterator<Item = Piece> + '_ {
        let before = self
            .runs
            .range(..lbn)
            .next_back()
            .filter(|(_, r)| r.end > lbn)
            .map(|(&s, r)| (s, *r));
        let inside = self.runs.range(lbn..end).map(|(&s, r)| (s, *r));
        before.into_iter().chain(inside).map(|(s, r)| Piece {
            lbn: s,
            end: r.end,
            version: r.version,
        })
    }

    /// Whether a redirected write of `lbn..end` fits (its overlap with held data is absorbed).
    pub fn fits(&self, lbn: u64, end: u64) -> bool {
        self.occupied - self.overlap_sectors(lbn, end) + (end - lbn) <= self.capacity_sectors
    }

    /// Hold a redirected write (caller checked `fits`).
    pub fn insert(&mut self, lbn: u64, end: u64, version: u64) {
        let removed = self.carve(lbn, end);
        self.counters.sectors_overwritten += removed.iter().map(|p| p.end - p.lbn).sum::<u64>();
        let entry = self.next_entry;
        self.next_entry += 1;
        self.runs.insert(
            lbn,
            Run {
                end,
                version,
                entry,
            },
        );
        self.entries.insert(entry, BTreeSet::from([lbn]));
        self.occupied += end - lbn;
        self.counters.entries_added += 1;
        self.counters.sectors_added += end - lbn;
    }

    /// Remove `lbn..end` from the map, splitting runs at its edges; returns what was removed.
    /// Entries left empty are gone; when `overwrite`, they count as absorbed overwrites.
    fn carve_counting(&mut self, lbn: u64, end: u64, overwrite: bool) -> Vec<Piece> {
        let hit: Vec<(u64, Run)> = {
            let before = self
                .runs
                .range(..lbn)
                .next_back()
                .filter(|(_, r)| r.end > lbn)
                .map(|(&s, r)| (s, *r));
            let inside: Vec<_> = self.runs.range(lbn..end).map(|(&s, r)| (s, *r)).collect();
            before.into_iter().chain(inside).collect()
        };
        let mut removed = Vec::with_capacity(hit.len());
        for (start, run) in hit {
            self.runs.remove(&start);
            let starts = self.entries.get_mut(&run.entry).expect("live entry");
            starts.remove(&start);
            if start < lbn {
                self.runs.insert(start, Run { end: lbn, ..run });
                starts.insert(start);
            }
            if run.end > end {
                self.runs.insert(end, run);
                starts.insert(end);
            }
            let (a, b) = (start.max(lbn), run.end.min(end));
            self.occupied -= b - a;
            removed.push(Piece {
                lbn: a,
                end: b,
                version: run.version,
            });
            if starts.is_empty() {
                self.entries.remove(&run.entry);
                if overwrite {
                    self.counters.entries_overwritten += 1;
                }
            }
        }
        removed
    }

    fn carve(&mut self, lbn: u64, end: u64) -> Vec<Piece> {
        self.carve_counting(lbn, end, true)
    }

    /// The largest extent around `lbn..end` that FQueue runs overlapping or adjacent to it
    /// make contiguous (transitively).
    fn chain(&self, lbn: u64, end: u64) -> Option<(u64, u64)> {
        let (mut lo, mut hi) = (lbn, end);
        let mut found = false;
        loop {
            let mut grew = false;
            // A run starting at or before `lo` that reaches it (overlap or adjacency).
            if let Some((&s, r)) = self.runs.range(..=lo).next_back() {
                if r.end >= lo {
                    found = true;
                    if s < lo {
                        lo = s;
                        grew = true;
                    }
                    if r.end > hi {
                        hi = r.end;
                        grew = true;
                    }
                }
            }
            // Runs starting inside `lo..=hi`; runs never overlap, so the last reaches farthest.
            if let Some((_, r)) = self.runs.range(lo..=hi).next_back() {
                found = true;
                if r.end > hi {
                    hi = r.end;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        found.then_some((lo, hi))
    }

    /// COALESCE_WITH_FQUEUE for a platter write of `lbn..end` (spec 3.3): every FQueue run
    /// overlapping or adjacent to it (transitively) leaves the FQueue and joins the write.
    /// The returned pieces exclude the write's own range (its data are newer).
    pub fn coalesce(&mut self, lbn: u64, end: u64) -> Option<WriteBack> {
        let (lo, hi) = self.chain(lbn, end)?;
        let mut pieces = self.carve_counting(lo, hi, false);
        // The write's own sectors win: drop what it covers.
        pieces = pieces
            .into_iter()
            .flat_map(|p| {
                let mut out = Vec::new();
                if p.lbn < lbn {
                    out.push(Piece {
                        end: p.end.min(lbn),
                        ..p
                    });
                }
                if p.end > end {
                    out.push(Piece {
                        lbn: p.lbn.max(end),
                        ..p
                    });
                }
                out
            })
            .collect();
        Some(WriteBack {
            lbn: lo,
            end: hi,
            pieces,
        })
    }

    /// The extent `coalesce` would write, without taking anything out.
    pub(crate) fn peek_coalesce(&self, lbn: u64, end: u64) -> Option<(u64, u64)> {
        self.chain(lbn, end)
    }

    /// The extent `pop_writeback` would write, without taking anything out.
    pub(crate) fn peek_writeback(&self) -> Option<(u64, u64)> {
        let (_, starts) = self.entries.iter().next()?;
        let start = *starts.iter().next()?;
        self.chain(start, self.runs[&start].end)
    }

    /// The next write-back in FIFO order (spec 3.4): the oldest entry's first run, merged with
    /// every run adjacent or overlapping (transitively), taken out of the FQueue.
    pub fn pop_writeback(&mut self) -> Option<WriteBack> {
        let (_, starts) = self.entries.iter().next()?;
        let start = *starts.iter().next().expect("a live entry has a run");
        let end = self.runs[&start].end;
        let (lo, hi) = self.chain(start, end).expect("the run itself");
        let pieces = self.carve_counting(lo, hi, false);
        Some(WriteBack {
            lbn: lo,
            end: hi,
            pieces,
        })
    }

    /// The parts of `lbn..end` the FQueue does not hold, in order (what a read must take
    /// from the platter).
    pub fn uncovered(&self, lbn: u64, end: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut at = lbn;
        for p in self.overlapping(lbn, end) {
            if p.lbn > at {
                out.push((at, p.lbn));
            }
            at = at.max(p.end);
        }
        if at < end {
            out.push((at, end));
        }
        out
    }
}
