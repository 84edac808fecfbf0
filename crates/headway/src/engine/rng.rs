use rand_pcg::Pcg64Mcg;

/// Independent, named random streams derived from one run seed.
///
/// Each component asks for its stream by a stable name ("workload", "device0.jitter", ...).
/// The stream's seed is a hash of (run seed, name), so adding a component, or changing how
/// many numbers another component draws, never perturbs anyone else's sequence.
/// Generator: PCG-64 (MCG variant), via `rand_pcg`.
#[derive(Clone, Copy, Debug)]
pub struct RngStreams {
    seed: u64,
}

impl RngStreams {
    pub fn new(seed: u64) -> Self {
        RngStreams { seed }
    }

    /// Streams of their own for a second instance of a component (the second workload, the
    /// second device), unrelated to these for every name.
    pub(crate) fn derive(&self, name: &str) -> RngStreams {
        let mut s = self.stream(name);
        RngStreams {
            seed: rand::RngCore::next_u64(&mut s),
        }
    }

    /// The stream for `name`. Calling twice with the same name gives identical streams.
    pub fn stream(&self, name: &str) -> Pcg64Mcg {
        // FNV-1a over the name, folded with the seed through SplitMix64 so that nearby seeds
        // and nearby names give unrelated streams. Stable across platforms and Rust versions
        // (unlike std's DefaultHasher, which we must not use here).
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        let a = splitmix64(self.seed ^ splitmix64(h));
        let b = splitmix64(a ^ 0x9e37_79b9_7f4a_7c15);
        Pcg64Mcg::new(((a as u128) << 64) | b as u128 | 1)
    }
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_name_same_stream_other_name_other_stream() {
        let s = RngStreams::new(42);
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream("workload");
                move |_| r.random()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream("workload");
                move |_| r.random()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream("device0");
                move |_| r.random()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let d: Vec<u64> = (0..4)
            .map({
                let mut r = RngStreams::new(43).stream("workload");
                move |_| r.random()
            })
            .collect();
        assert_ne!(a, d);
    }
}
