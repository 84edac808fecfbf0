//! A round trip that jitters, around any [`BlockIo`]: each command reaches the device late
//! by a random delay and its completion is heard late by another, both real time on the
//! device's clock. This is what a disk behind FUSE and NBD (or a virtual disk, or a loaded
//! host) does to calibration's timings, and wrapping an
//! [`EmulatedBlock`](super::emulated_block::EmulatedBlock) in it gives a jittery device whose
//! truth is known, with a fixed seed, so that calibration's tolerance of jitter is tested
//! without the real path's nondeterminism.
//!
//! Each leg's delay is uniform over `0..core_ns`, and with probability `tail_probability`
//! it is instead uniform over `0..tail_ns`: a round trip is mostly a little late and, now and
//! then, very late (a process descheduled on a busy machine). Measured through `headway
//! serve` and `nbdfuse` on a busy two-core machine, gaps between back-to-back reads spread
//! ±50 µs from the 10th to the 90th percentile, and 1% to 2% of them are off by 0.8 to 3.5 ms.

use std::io;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::block_target::BlockIo;

/// How a round trip's two legs are delayed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundTripJitter {
    /// Each leg's usual delay is uniform over `0..core_ns`.
    pub core_ns: u64,
    /// The chance that a leg is delayed by the tail instead.
    pub tail_probability: f64,
    /// A tail delay is uniform over `0..tail_ns`.
    pub tail_ns: u64,
}

impl RoundTripJitter {
    /// The jitter measured through FUSE and NBD on a busy two-core machine (the module's
    /// description), in the device's time frame for a drive served at `speed` times real
    /// time (a served drive at `--speed 2` sees every wall-clock delay doubled).
    pub fn fuse_nbd(speed: f64) -> Self {
        RoundTripJitter {
            core_ns: (100_000.0 * speed) as u64,
            tail_probability: 0.01,
            tail_ns: (3_500_000.0 * speed) as u64,
        }
    }
}

pub struct JitteredBlock<B: BlockIo> {
    inner: B,
    jitter: RoundTripJitter,
    rng: Pcg64Mcg,
}

impl<B: BlockIo> JitteredBlock<B> {
    pub fn new(inner: B, jitter: RoundTripJitter, seed: u64) -> Self {
        JitteredBlock {
            inner,
            jitter,
            rng: Pcg64Mcg::seed_from_u64(seed),
        }
    }

    /// The device underneath.
    pub fn inner(&self) -> &B {
        &self.inner
    }

    fn leg(&mut self) {
        let j = self.jitter;
        let bound = if j.tail_probability > 0.0 && self.rng.random_bool(j.tail_probability) {
            j.tail_ns
        } else {
            j.core_ns
        };
        let d = if bound > 0 {
            self.rng.random_range(0..bound)
        } else {
            0
        };
        let t = self.inner.now_ns() + d;
        self.inner.wait_until_ns(t);
    }
}

impl<B: BlockIo> BlockIo for JitteredBlock<B> {
    fn len_bytes(&mut self) -> io::Result<u64> {
        self.inner.len_bytes()
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.leg();
        self.inner.read_at(buf, offset)?;
        self.leg();
        Ok(())
    }

    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.leg();
        self.inner.write_at(buf, offset)?;
        self.leg();
        Ok(())
    }

    fn now_ns(&self) -> u64 {
        self.inner.now_ns()
    }

    fn wait_until_ns(&mut self, t: u64) {
        self.inner.wait_until_ns(t)
    }
}
