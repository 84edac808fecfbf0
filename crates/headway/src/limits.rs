//! Reading a whole text file whose size nobody vouches for: refused from its length before
//! it is read, and cut off at the bound when its length cannot be trusted (a device, a pipe).

use std::io::{self, Read};
use std::path::Path;

/// Experiment and drive TOML files; real ones are a few KiB.
pub(crate) const MAX_TOML_BYTES: u64 = 4 << 20;

/// `path` as text, or an `InvalidData` error saying it is larger than `max_bytes` (with
/// `what` the file is meant to be: "not a DiskSim parameter file").
pub(crate) fn read_text(path: &Path, max_bytes: u64, what: &str) -> io::Result<String> {
    let file = std::fs::File::open(path)?;
    let too_big = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {} MiB: {what}", max_bytes >> 20),
        )
    };
    if file.metadata()?.len() > max_bytes {
        return Err(too_big());
    }
    let mut text = String::new();
    file.take(max_bytes + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max_bytes {
        return Err(too_big());
    }
    Ok(text)
}
