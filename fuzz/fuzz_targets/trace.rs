//! Every trace format, content detection and the compressed containers. The first byte
//! picks the format (`auto` included) and a wrapping (raw bytes, so corrupt containers from
//! the seeds are read as they are, or the payload compressed with gzip, zstd or xz); the
//! second picks strict or lenient (`skip_bad`) reading. Records go through the shared feed
//! (time order, capacity, zero-length checks) as a replay would read them.
#![no_main]
use libfuzzer_sys::fuzz_target;

use headway::workload::trace::{open_source, Feed, FeedOptions, TraceFormat, TraceSource};
use headway_fuzz::{scratch_file, Wrap, FORMATS};

/// Enough to cover every record a small input can hold.
const MAX_RECORDS: usize = 100_000;

fuzz_target!(|data: &[u8]| {
    let [pick, mode, payload @ ..] = data else {
        return;
    };
    let format = FORMATS[(*pick as usize / 8) % FORMATS.len()];
    let bytes = Wrap::of(*pick).apply(payload);
    let path = scratch_file("trace", &bytes);
    let source = TraceSource::new(format);
    let resolved = match source.resolve(&path) {
        Ok(f) => f,
        Err(_) => return,
    };
    assert_ne!(resolved, TraceFormat::Auto);
    let Ok(reader) = open_source(&path, &TraceSource::new(resolved)) else {
        return;
    };
    let opts = FeedOptions {
        capacity_sectors: 1 << 24,
        skip_bad: mode & 1 == 1,
        ..FeedOptions::default()
    };
    let mut feed = Feed::new(reader, opts, path.clone(), resolved);
    let mut last_ns = 0;
    for _ in 0..MAX_RECORDS {
        match feed.next_record() {
            Ok(Some(r)) => {
                assert!(r.sectors >= 1, "a record of zero sectors got through");
                assert!(r.lbn + r.sectors as u64 <= 1 << 24, "past capacity: {r:?}");
                assert!(r.time_ns >= last_ns, "time went backwards: {r:?}");
                last_ns = r.time_ns;
            }
            Ok(None) | Err(_) => break,
        }
    }
    let _ = feed.report();
});
