//! CSV column maps (`--csv-map`), then a CSV trace read with the map. The first line of the
//! input is the map, the rest the trace.
#![no_main]
use libfuzzer_sys::fuzz_target;

use headway::workload::trace::{open_source, CsvSpec, TraceFormat, TraceSource};
use headway_fuzz::scratch_file;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (map, trace) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(spec) = CsvSpec::parse_map(map) else {
        return;
    };
    let path = scratch_file("mapped.csv", trace.as_bytes());
    let source = TraceSource {
        csv: Some(spec),
        ..TraceSource::new(TraceFormat::Csv)
    };
    let Ok(mut reader) = open_source(&path, &source) else {
        return;
    };
    for _ in 0..100_000 {
        match reader.next_record() {
            Ok(Some(r)) => assert!(r.sectors >= 1),
            Ok(None) => break,
            Err(_) if reader.can_continue() => continue,
            Err(_) => break,
        }
    }
});
