//! What the fuzz targets share: turning fuzz bytes into files, sections and formats.

use std::io::Write;
use std::path::{Path, PathBuf};

use headway::workload::trace::TraceFormat;

/// A scratch folder for this process (targets write their input to a real file, because
/// headway's trace reader detects compression from the file it opens). On tmpfs when there.
pub fn scratch_dir() -> PathBuf {
    let base = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("headway-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Write `bytes` to `name` in the scratch folder.
pub fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch_dir().join(name);
    std::fs::write(&path, bytes).expect("scratch file");
    path
}

/// Every format a trace can be read as, `auto` first.
pub const FORMATS: [TraceFormat; 9] = TraceFormat::ALL;

/// How the payload is wrapped before headway reads it: as it is, or compressed with a
/// valid container (so the fuzzer reaches the parsers behind the decoders too).
#[derive(Clone, Copy, Debug)]
pub enum Wrap {
    Raw,
    Gzip,
    Zstd,
    Xz,
}

impl Wrap {
    pub fn of(b: u8) -> Self {
        match b % 8 {
            5 => Wrap::Gzip,
            6 => Wrap::Zstd,
            7 => Wrap::Xz,
            _ => Wrap::Raw,
        }
    }

    pub fn apply(self, data: &[u8]) -> Vec<u8> {
        match self {
            Wrap::Raw => data.to_vec(),
            Wrap::Gzip => {
                let mut e =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            Wrap::Zstd => zstd::stream::encode_all(data, 1).unwrap(),
            Wrap::Xz => {
                let mut e = liblzma::write::XzEncoder::new(Vec::new(), 0);
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
        }
    }
}

/// Files packed into one input: `@@ name` on a line of its own starts each file; text before
/// the first header is the file called `top`. Lets one input carry a `.parv` together with
/// the `.diskspecs`, `.model` and `.seek` files it sources.
pub fn sections(text: &str) -> Vec<(String, String)> {
    let mut out = vec![("top".to_string(), String::new())];
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("@@ ") {
            out.push((name.trim().to_string(), String::new()));
        } else {
            out.last_mut().unwrap().1.push_str(line);
        }
    }
    out
}
