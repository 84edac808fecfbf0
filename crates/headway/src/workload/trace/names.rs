//! Process names seen in a trace, kept per pid for statistics and batches. Bounded: a trace
//! with more distinct pids than [`MAX_NAMES`] keeps the first ones only.

use std::collections::HashMap;

pub const MAX_NAMES: usize = 1 << 16;

#[derive(Default, Debug)]
pub struct ProcessNames {
    names: HashMap<u32, Box<str>>,
}

impl ProcessNames {
    /// Remember `name` for `pid` the first time the pid is seen.
    #[inline]
    pub fn note(&mut self, pid: u32, name: &[u8]) {
        if self.names.len() < MAX_NAMES && !self.names.contains_key(&pid) {
            self.names
                .insert(pid, String::from_utf8_lossy(name).into_owned().into());
        }
    }

    pub fn get(&self, pid: u32) -> Option<&str> {
        self.names.get(&pid).map(|s| &**s)
    }
}
