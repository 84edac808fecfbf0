//! Where the exported bytes live: a sparse file (`--backing PATH`) or memory. Every export
//! has its own region, one after another in the order the devices are configured, so one
//! file holds them all and one sync makes every acknowledged write durable.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::RwLock;

use crate::error::{HeadwayError, Result};

/// Memory is kept in pages allocated on first write; unwritten bytes read as zero.
const PAGE_BYTES: u64 = 64 << 10;

enum Store {
    Memory(RwLock<HashMap<u64, Box<[u8]>>>),
    File(File),
}

pub(crate) struct Backing {
    store: Store,
    base_bytes: Vec<u64>,
}

impl Backing {
    pub(crate) fn memory(export_bytes: &[u64]) -> Backing {
        Backing {
            store: Store::Memory(RwLock::new(HashMap::new())),
            base_bytes: bases(export_bytes),
        }
    }

    /// Opens (or creates) `path`, growing it sparsely to hold every export; an existing
    /// file's contents are kept, so a restarted server serves what was flushed before.
    pub(crate) fn file(path: &Path, export_bytes: &[u64]) -> Result<Backing> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| HeadwayError::io(path, e))?;
        let total: u64 = export_bytes.iter().sum();
        let len = file
            .metadata()
            .map_err(|e| HeadwayError::io(path, e))?
            .len();
        if len < total {
            file.set_len(total).map_err(|e| HeadwayError::io(path, e))?;
        }
        Ok(Backing {
            store: Store::File(file),
            base_bytes: bases(export_bytes),
        })
    }

    pub(crate) fn read(&self, export: usize, offset_bytes: u64, buf: &mut [u8]) -> io::Result<()> {
        let at = self.base_bytes[export] + offset_bytes;
        match &self.store {
            Store::File(f) => f.read_exact_at(buf, at),
            Store::Memory(pages) => {
                let pages = pages.read().unwrap_or_else(|p| p.into_inner());
                for_pages(at, buf.len(), |page, within, range| {
                    let out = &mut buf[range];
                    match pages.get(&page) {
                        Some(p) => out.copy_from_slice(&p[within..within + out.len()]),
                        None => out.fill(0),
                    }
                });
                Ok(())
            }
        }
    }

    pub(crate) fn write(&self, export: usize, offset_bytes: u64, data: &[u8]) -> io::Result<()> {
        let at = self.base_bytes[export] + offset_bytes;
        match &self.store {
            Store::File(f) => f.write_all_at(data, at),
            Store::Memory(pages) => {
                let mut pages = pages.write().unwrap_or_else(|p| p.into_inner());
                for_pages(at, data.len(), |page, within, range| {
                    let p = pages
                        .entry(page)
                        .or_insert_with(|| vec![0u8; PAGE_BYTES as usize].into_boxed_slice());
                    p[within..within + range.len()].copy_from_slice(&data[range]);
                });
                Ok(())
            }
        }
    }

    /// Forgets what whole memory pages inside the range held (they read as zero again). A
    /// file keeps its bytes: the protocol leaves trimmed contents unspecified.
    pub(crate) fn trim(&self, export: usize, offset_bytes: u64, len_bytes: u64) {
        if let Store::Memory(pages) = &self.store {
            let at = self.base_bytes[export] + offset_bytes;
            let first = at.div_ceil(PAGE_BYTES);
            let end = (at + len_bytes) / PAGE_BYTES;
            let mut pages = pages.write().unwrap_or_else(|p| p.into_inner());
            pages.retain(|&p, _| p < first || p >= end);
        }
    }

    /// Every write made so far is durable once this returns (a no-op for memory).
    pub(crate) fn sync(&self) -> io::Result<()> {
        match &self.store {
            Store::File(f) => f.sync_data(),
            Store::Memory(_) => Ok(()),
        }
    }
}

fn bases(export_bytes: &[u64]) -> Vec<u64> {
    export_bytes
        .iter()
        .scan(0u64, |next, &size| {
            let base = *next;
            *next += size;
            Some(base)
        })
        .collect()
}

/// Calls `f(page, offset within the page, range of the caller's buffer)` for each page the
/// byte range `[at, at + len)` touches.
fn for_pages(at: u64, len: usize, mut f: impl FnMut(u64, usize, std::ops::Range<usize>)) {
    let mut done = 0usize;
    while done < len {
        let pos = at + done as u64;
        let within = (pos % PAGE_BYTES) as usize;
        let n = (PAGE_BYTES as usize - within).min(len - done);
        f(pos / PAGE_BYTES, within, done..done + n);
        done += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_reads_back_writes_across_pages_and_exports_do_not_overlap() {
        let b = Backing::memory(&[1 << 20, 1 << 20]);
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        b.write(0, PAGE_BYTES - 10, &data).unwrap();
        let mut back = vec![0u8; data.len()];
        b.read(0, PAGE_BYTES - 10, &mut back).unwrap();
        assert_eq!(back, data);
        let mut other = vec![1u8; data.len()];
        b.read(1, PAGE_BYTES - 10, &mut other).unwrap();
        assert!(other.iter().all(|&x| x == 0));
    }

    #[test]
    fn trim_drops_only_whole_pages() {
        let b = Backing::memory(&[4 * PAGE_BYTES]);
        b.write(0, 0, &vec![7u8; 3 * PAGE_BYTES as usize]).unwrap();
        b.trim(0, 10, 2 * PAGE_BYTES);
        let mut buf = vec![0u8; 3 * PAGE_BYTES as usize];
        b.read(0, 0, &mut buf).unwrap();
        assert!(buf[..PAGE_BYTES as usize].iter().all(|&x| x == 7));
        assert!(buf[PAGE_BYTES as usize..2 * PAGE_BYTES as usize]
            .iter()
            .all(|&x| x == 0));
        assert!(buf[2 * PAGE_BYTES as usize..].iter().all(|&x| x == 7));
    }

    #[test]
    fn a_file_keeps_its_contents_when_opened_again() {
        let dir = std::env::temp_dir().join(format!("headway-backing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("disk.img");
        let _ = std::fs::remove_file(&path);
        let b = Backing::file(&path, &[1 << 20, 1 << 20]).unwrap();
        b.write(1, 512, b"flushed").unwrap();
        b.sync().unwrap();
        drop(b);
        let b = Backing::file(&path, &[1 << 20, 1 << 20]).unwrap();
        let mut buf = [0u8; 7];
        b.read(1, 512, &mut buf).unwrap();
        assert_eq!(&buf, b"flushed");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 << 20);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
