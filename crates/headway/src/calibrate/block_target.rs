//! A block device or file as calibration's target: every command is one `pread`/`pwrite`
//! of whole 512-byte sectors through a buffer aligned for direct I/O, timed with a
//! monotonic clock. The syscalls sit behind [`BlockIo`]; [`DirectFile`] makes them with
//! O_DIRECT on Linux, and a test double can answer them from a simulated drive, so
//! everything here (sizes, alignment, bounds, the read-only rule, the clock's use) is the
//! same code in both.
//!
//! Read-only (no `--writable`): the calibration's writes are issued as reads of the same
//! sectors, and nothing is ever written. Writable: writes put zeros on the device.

use std::io;
use std::path::{Path, PathBuf};

use super::target::ProbeTarget;
use crate::error::{HeadwayError, Result};
use crate::request::Op;
use crate::time::SimTime;

/// Bytes in a logical sector, the unit calibration and headway's drive files count in.
pub const SECTOR_BYTES: u64 = 512;

/// The smallest device calibration accepts (512 KiB): enough tracks for GeoExtraction to
/// see a track's length between boundaries and for the seek curve to have a few distances,
/// on a small emulated drive; any disk is far larger.
pub const MIN_DEVICE_SECTORS: u64 = 1 << 10;

/// Alignment of the transfer buffer: a page, which satisfies any logical block size.
const BUFFER_ALIGN_BYTES: usize = 4096;

/// The largest command calibration issues, in sectors.
const MAX_COMMAND_SECTORS: u32 = 2048;

/// What the target needs from the operating system.
pub trait BlockIo {
    /// The device's or file's size in bytes.
    fn len_bytes(&mut self) -> io::Result<u64>;
    /// Fill `buf` from `offset`; both are multiples of [`SECTOR_BYTES`], `buf` page-aligned.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Write `buf` at `offset` (same alignment).
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// A monotonic clock (ns since an arbitrary start).
    fn now_ns(&self) -> u64;
    /// Return no earlier than `t` on that clock.
    fn wait_until_ns(&mut self, t: u64);
}

/// A zeroed, page-aligned buffer of [`MAX_COMMAND_SECTORS`] sectors.
struct AlignedBuffer {
    words: Vec<u8>,
    start: usize,
}

impl AlignedBuffer {
    fn new() -> Self {
        let len = MAX_COMMAND_SECTORS as usize * SECTOR_BYTES as usize;
        let words = vec![0u8; len + BUFFER_ALIGN_BYTES];
        let start = words.as_ptr().align_offset(BUFFER_ALIGN_BYTES);
        AlignedBuffer { words, start }
    }

    fn slice(&mut self, bytes: usize) -> &mut [u8] {
        &mut self.words[self.start..self.start + bytes]
    }
}

pub struct BlockTarget<B: BlockIo> {
    io: B,
    path: PathBuf,
    capacity_sectors: u64,
    writable: bool,
    buffer: AlignedBuffer,
    /// Clock reading when the target was opened: the target's clock starts at 0.
    origin_ns: u64,
}

impl<B: BlockIo> BlockTarget<B> {
    /// A target over `io`, named `path` in errors. Refuses a device smaller than
    /// [`MIN_DEVICE_SECTORS`].
    pub fn new(mut io: B, path: &Path, writable: bool) -> Result<Self> {
        let bytes = io.len_bytes().map_err(|e| HeadwayError::io(path, e))?;
        let capacity_sectors = bytes / SECTOR_BYTES;
        if capacity_sectors < MIN_DEVICE_SECTORS {
            return Err(HeadwayError::io(
                path,
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{bytes} bytes is too small to calibrate: calibration needs at least \
                         {} bytes ({MIN_DEVICE_SECTORS} sectors of {SECTOR_BYTES})",
                        MIN_DEVICE_SECTORS * SECTOR_BYTES
                    ),
                ),
            ));
        }
        let origin_ns = io.now_ns();
        Ok(BlockTarget {
            io,
            path: path.to_path_buf(),
            capacity_sectors,
            writable,
            buffer: AlignedBuffer::new(),
            origin_ns,
        })
    }

    /// Whether writes reach the device (otherwise they are issued as reads).
    pub fn writable(&self) -> bool {
        self.writable
    }

    /// The syscalls underneath (a test double's simulated drive, for one).
    pub fn io(&self) -> &B {
        &self.io
    }
}

impl<B: BlockIo> ProbeTarget for BlockTarget<B> {
    fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }

    fn now(&self) -> SimTime {
        self.io.now_ns() - self.origin_ns
    }

    fn wait_until(&mut self, t: SimTime) {
        self.io.wait_until_ns(t + self.origin_ns)
    }

    fn access(&mut self, op: Op, lbn: u64, sectors: u32) -> Result<SimTime> {
        if sectors > MAX_COMMAND_SECTORS {
            return Err(HeadwayError::Invariant(format!(
                "calibration asked for {sectors} sectors in one command; the device probe \
                 issues at most {MAX_COMMAND_SECTORS}"
            )));
        }
        let offset = lbn * SECTOR_BYTES;
        let buf = self.buffer.slice((sectors as u64 * SECTOR_BYTES) as usize);
        let r = if op == Op::Write && self.writable {
            buf.fill(0);
            self.io.write_at(buf, offset)
        } else {
            self.io.read_at(buf, offset)
        };
        r.map_err(|e| {
            HeadwayError::io(
                &self.path,
                io::Error::new(
                    e.kind(),
                    format!("{sectors} sectors at sector {lbn} (byte {offset}): {e}"),
                ),
            )
        })?;
        Ok(self.now())
    }
}

/// A block device or file opened for direct I/O, timed with the monotonic clock.
pub struct DirectFile {
    file: std::fs::File,
    start: std::time::Instant,
}

impl DirectFile {
    /// Open `path` with O_DIRECT, for reading and, when `writable`, writing. A file system
    /// that cannot bypass its page cache (tmpfs, for one) refuses, and the error says so:
    /// timings through the page cache say nothing about a disk.
    #[cfg(target_os = "linux")]
    pub fn open(path: &Path, writable: bool) -> Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(writable)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .map_err(|e| open_error(path, e))?;
        Ok(DirectFile {
            file,
            start: std::time::Instant::now(),
        })
    }

    #[cfg(not(target_os = "linux"))]
    pub fn open(path: &Path, _writable: bool) -> Result<Self> {
        Err(HeadwayError::io(
            path,
            io::Error::new(
                io::ErrorKind::Unsupported,
                "calibrating a device needs O_DIRECT, which headway supports on Linux only",
            ),
        ))
    }
}

/// Why `path` could not be opened for direct I/O. Linux answers EINVAL for a file system
/// without it.
fn open_error(path: &Path, e: io::Error) -> HeadwayError {
    const EINVAL: i32 = 22;
    let why = if e.raw_os_error() == Some(EINVAL) {
        format!(
            "cannot open with O_DIRECT: its file system does not support direct I/O \
             (a file only in the page cache); calibrate a block device or a file on a disk \
             file system"
        )
    } else {
        format!("cannot open with O_DIRECT: {e}")
    };
    HeadwayError::io(path, io::Error::new(e.kind(), why))
}

impl BlockIo for DirectFile {
    fn len_bytes(&mut self) -> io::Result<u64> {
        // A block device's metadata says 0 bytes; seeking to its end gives its size.
        use std::io::Seek;
        self.file.seek(io::SeekFrom::End(0))
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)
    }

    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::write_all_at(&self.file, buf, offset)
    }

    fn now_ns(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    fn wait_until_ns(&mut self, t: u64) {
        // Sleep to within a scheduling quantum of `t`, then spin: calibration places
        // commands at a chosen rotational angle, which a sleep's wake-up jitter would blur.
        const SPIN_NS: u64 = 200_000;
        let now = self.now_ns();
        if t > now + SPIN_NS {
            std::thread::sleep(std::time::Duration::from_nanos(t - now - SPIN_NS));
        }
        while self.now_ns() < t {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_system_without_direct_io_is_named_as_such() {
        let e = open_error(Path::new("/mnt/x"), io::Error::from_raw_os_error(22)).to_string();
        assert!(e.starts_with("/mnt/x: "), "{e}");
        assert!(e.contains("does not support direct I/O"), "{e}");
        let e = open_error(Path::new("/dev/sdz"), io::Error::from_raw_os_error(13)).to_string();
        assert!(
            e.contains("/dev/sdz") && e.contains("cannot open with O_DIRECT"),
            "{e}"
        );
    }
}
