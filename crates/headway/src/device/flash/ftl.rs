//! A page-mapped flash translation layer with greedy garbage collection.
//!
//! Every logical page maps to any physical page. Writes go to the open block; when it is full
//! and only one free block remains, garbage collection picks the closed block with the fewest
//! valid pages (ties: lowest index, so runs are deterministic), copies its valid pages into
//! the last free block and erases it. Per-block erase counts and the pages programmed give
//! write amplification.

use std::collections::VecDeque;

use super::spec::FlashSpec;

const UNMAPPED: u32 = u32::MAX;

/// Counters of the work a sequence of writes cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FtlCounters {
    /// Pages the host asked to write.
    pub host_pages: u64,
    /// Pages programmed: host pages plus pages garbage collection copied.
    pub programmed_pages: u64,
    pub gc_copied_pages: u64,
    pub erases: u64,
}

impl FtlCounters {
    /// Pages programmed per page the host wrote (1.0 before any write).
    pub fn write_amplification(&self) -> f64 {
        if self.host_pages == 0 {
            1.0
        } else {
            self.programmed_pages as f64 / self.host_pages as f64
        }
    }
}

/// What one write cost inside the flash (for service time when GC time is counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteCost {
    pub copied_pages: u64,
    pub erases: u64,
}

#[derive(Clone, Debug)]
pub struct Ftl {
    pages_per_block: u32,
    blocks: u32,
    /// logical page -> physical page
    map: Vec<u32>,
    /// physical page -> logical page (UNMAPPED when free or stale)
    rmap: Vec<u32>,
    valid: Vec<u32>,
    erase_counts: Vec<u64>,
    free: VecDeque<u32>,
    active: u32,
    /// Next page to program in the active block (== pages_per_block when full).
    next: u32,
    /// Hand out the least-erased free block instead of the oldest (dynamic wear levelling).
    wear_aware: bool,
    counters: FtlCounters,
}

impl Ftl {
    pub fn new(spec: &FlashSpec, wear_aware: bool) -> Self {
        let ppb = spec.pages_per_block() as u32;
        let blocks = spec.physical_blocks() as u32;
        let logical = spec.logical_pages() as usize;
        let mut free: VecDeque<u32> = (0..blocks).collect();
        let active = free.pop_front().expect("at least two blocks");
        Ftl {
            pages_per_block: ppb,
            blocks,
            map: vec![UNMAPPED; logical],
            rmap: vec![UNMAPPED; (blocks * ppb) as usize],
            valid: vec![0; blocks as usize],
            erase_counts: vec![0; blocks as usize],
            free,
            active,
            next: 0,
            wear_aware,
            counters: FtlCounters::default(),
        }
    }

    pub(crate) fn logical_pages(&self) -> u64 {
        self.map.len() as u64
    }
    pub fn pages_per_block(&self) -> u32 {
        self.pages_per_block
    }
    pub fn counters(&self) -> FtlCounters {
        self.counters
    }
    pub fn erase_counts(&self) -> &[u64] {
        &self.erase_counts
    }
    pub fn free_blocks(&self) -> usize {
        self.free.len()
    }
    /// Logical pages holding data.
    pub fn mapped_pages(&self) -> u64 {
        self.map.iter().filter(|&&p| p != UNMAPPED).count() as u64
    }
    /// Valid pages over all blocks (equals `mapped_pages` always).
    pub fn valid_pages(&self) -> u64 {
        self.valid.iter().map(|&v| v as u64).sum()
    }
    /// Pages programmed and not yet erased (every block that is not free, counting how far
    /// the open block has been filled).
    pub fn programmed_unerased_pages(&self) -> u64 {
        let closed = self.blocks as u64 - self.free.len() as u64 - 1;
        closed * self.pages_per_block as u64 + self.next as u64
    }

    /// Write logical pages `first..first + count` (wrapping at the logical capacity, as the
    /// NVCache is used as a ring of pinned ranges).
    pub fn write(&mut self, first: u64, count: u64) -> WriteCost {
        let before = self.counters;
        let n = self.map.len() as u64;
        for i in 0..count {
            let lpn = ((first + i) % n) as u32;
            self.counters.host_pages += 1;
            self.invalidate(lpn);
            self.program(lpn, false);
        }
        WriteCost {
            copied_pages: self.counters.gc_copied_pages - before.gc_copied_pages,
            erases: self.counters.erases - before.erases,
        }
    }

    fn invalidate(&mut self, lpn: u32) {
        let old = self.map[lpn as usize];
        if old != UNMAPPED {
            self.rmap[old as usize] = UNMAPPED;
            self.valid[(old / self.pages_per_block) as usize] -= 1;
            self.map[lpn as usize] = UNMAPPED;
        }
    }

    fn program(&mut self, lpn: u32, gc: bool) {
        if self.next == self.pages_per_block {
            if !gc && self.free.len() <= 1 {
                self.collect();
            }
            if self.next == self.pages_per_block {
                self.active = self.take_free();
                self.next = 0;
            }
        }
        let phys = self.active * self.pages_per_block + self.next;
        self.next += 1;
        self.map[lpn as usize] = phys;
        self.rmap[phys as usize] = lpn;
        self.valid[self.active as usize] += 1;
        self.counters.programmed_pages += 1;
        if gc {
            self.counters.gc_copied_pages += 1;
        }
    }

    fn take_free(&mut self) -> u32 {
        if self.wear_aware {
            let (i, _) = self
                .free
                .iter()
                .enumerate()
                .min_by_key(|(_, &b)| (self.erase_counts[b as usize], b))
                .expect("a free block");
            self.free.remove(i).expect("index in range")
        } else {
            self.free.pop_front().expect("a free block")
        }
    }

    /// One greedy collection: the closed block with the fewest valid pages. Called with the
    /// open block full, so every non-free block is a candidate; since the logical space is
    /// at least two blocks smaller than the physical one, the victim has a stale page.
    fn collect(&mut self) {
        let ppb = self.pages_per_block;
        // A mask of the free blocks: asking the free list about every block would cost
        // blocks x free per collection.
        let mut is_free = vec![false; self.blocks as usize];
        for &b in &self.free {
            is_free[b as usize] = true;
        }
        let victim = (0..self.blocks)
            .filter(|&b| !is_free[b as usize])
            .min_by_key(|&b| (self.valid[b as usize], b))
            .expect("a closed block");
        let victim_active = victim == self.active;
        for p in victim * ppb..(victim + 1) * ppb {
            let lpn = self.rmap[p as usize];
            if lpn != UNMAPPED {
                self.invalidate(lpn);
                self.program(lpn, true);
            }
        }
        debug_assert_eq!(self.valid[victim as usize], 0);
        self.erase_counts[victim as usize] += 1;
        self.counters.erases += 1;
        if victim_active && self.active == victim {
            // Nothing was copied out of the (full) open block: it is simply rewound.
            self.next = 0;
        } else {
            self.free.push_back(victim);
        }
    }
}
