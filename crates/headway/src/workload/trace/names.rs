//! Process names seen in a trace, kept per pid for statistics and batches. Bounded: a trace
//! with more distinct pids than [`MAX_NAMES`] keeps the first ones only, and a name is kept
//! to its first [`MAX_NAME_BYTES`] (a field may be a whole 64 KiB line: without the cap the
//! table could reach 4 GiB).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

pub(crate) const MAX_NAMES: usize = 1 << 16;

/// Linux keeps 16 bytes of a command name; other tracers a path at most.
pub(crate) const MAX_NAME_BYTES: usize = 256;

/// A hasher for small integer keys (pids, device numbers) looked up once per record: one
/// multiply instead of SipHash, which measured a third of the FIU reader's time. Keys come
/// from trace files, not from an adversary choosing collisions.
#[derive(Default)]
pub(crate) struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u16(&mut self, v: u16) {
        self.write_u64(v as u64);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;

#[derive(Default, Debug)]
pub(crate) struct ProcessNames {
    names: IntMap<u32, Box<str>>,
    /// The pid noted last: consecutive records of one process skip the lookup.
    last: Option<u32>,
}

impl ProcessNames {
    /// Remember `name` for `pid` the first time the pid is seen.
    #[inline]
    pub(crate) fn note(&mut self, pid: u32, name: &[u8]) {
        if self.last == Some(pid) {
            return;
        }
        self.last = Some(pid);
        if self.names.len() < MAX_NAMES && !self.names.contains_key(&pid) {
            let mut name = String::from_utf8_lossy(name).into_owned();
            if name.len() > MAX_NAME_BYTES {
                let mut end = MAX_NAME_BYTES;
                while !name.is_char_boundary(end) {
                    end -= 1;
                }
                name.truncate(end);
            }
            self.names.insert(pid, name.into());
        }
    }

    pub(crate) fn get(&self, pid: u32) -> Option<&str> {
        self.names.get(&pid).map(|s| &**s)
    }
}
