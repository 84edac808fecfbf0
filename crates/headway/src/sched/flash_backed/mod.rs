//! Flash-backed I/O (Bisson and Brandt, MASCOTS 2007; spec `flash_backed.md`): writes whose
//! platter service would cost a long head movement are redirected to the hybrid drive's
//! NVCache, held in a host-memory FQueue mirrored by pinned NVCache ranges, and written back
//! to the platter by coalescing with platter writes, by watermark flushes alternating 1:1
//! with normal requests, and in idle time.
//!
//! - `fqueue`: the DRAM FQueue (newest data win, overwrites absorbed, FIFO write-back with
//!   neighbour merging, coverage of reads);
//! - `redirect`: the redirect inequality with the look-ahead term;
//! - `rq`: the request-queue orders (FCFS, SSTF, C-LOOK over LBNs) that predict the next
//!   pick;
//! - `options`: every open choice, validated with keyed errors;
//! - `wrapper`: the `flash-backed` scheduler on the core (platter + flash `[[devices]]`).
//!
//! The NV FQueue is the hybrid drive's pinned-range set
//! ([`crate::device::hybrid::PinnedSet`]). The paper's trace-driven replay, which reuses these
//! pieces, is in `experiments::flash_backed`.

pub mod fqueue;
pub mod options;
pub mod redirect;
pub mod rq;
pub mod wrapper;

pub use options::FlashBackedOptions;
pub use rq::RqPolicy;
