//! The fuzz harnesses: one function per target, each taking arbitrary bytes. The cargo-fuzz
//! targets in `fuzz/` call them, and `tests/integration/fuzz_regressions.rs` replays the seed corpora
//! and every input that ever crashed one through the same functions on stable Rust. Each
//! returns normally on any input, with whether the input was accepted (parsed, read to its
//! end, or run), so that tests can check the seeds reach past the parsers; a panic (or a
//! failed assertion of an invariant) is the finding. docs/reliability.md lists what each covers.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::config::{build_simulation, ExperimentConfig};
use crate::device::catalog::parse_toml_spec;
use crate::device::disksim::{parse_diskspecs, parse_parv, parse_seek};
use crate::device::hdd::HddDevice;
use crate::workload::trace::{open_source, CsvSpec, Feed, FeedOptions, TraceFormat, TraceSource};
use crate::workload::WorkloadConfig;

/// Enough to cover every record a fuzz-sized input can hold.
const MAX_RECORDS: usize = 100_000;

/// Experiment TOML: parsing and the checks made when a file is read.
pub fn experiment_toml(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    ExperimentConfig::from_toml_str(&text, Some(Path::new("exp.toml"))).is_ok()
}

/// A drive in headway's TOML form, then the drive model built from it (where hostile
/// numbers would turn into allocations).
pub fn drive_toml(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    parse_toml_spec(&text, "drive.toml").is_ok_and(|spec| HddDevice::new(&spec, 4).is_ok())
}

/// DiskSim `.parv` / `.diskspecs` and the files they source, packed into one input
/// (`sections`); the first byte picks how the top file is read. Then the drive model.
pub fn disksim_params(data: &[u8]) -> bool {
    let Some((&pick, rest)) = data.split_first() else {
        return false;
    };
    let text = String::from_utf8_lossy(rest);
    let files = sections(&text);
    let resolver = |p: &Path| -> std::io::Result<String> {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such section"))
    };
    let top = &files[0].1;
    let spec = if pick % 2 == 0 {
        parse_parv(top, Path::new("dir/top.parv"), &resolver)
    } else {
        parse_diskspecs(top, Path::new("dir/top.diskspecs"), &resolver)
    };
    spec.is_ok_and(|spec| HddDevice::new(&spec, 4).is_ok())
}

/// DiskSim extracted seek curves.
pub fn disksim_seek(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    parse_seek(&text, Path::new("x.seek")).is_ok()
}

/// Every trace format, content detection and the compressed containers. Byte 0 picks the
/// format (`/ 8`, in [`TraceFormat::ALL`] order, `auto` first) and the wrapping (`% 8`:
/// 5 gzip, 6 zstd, 7 xz, else the bytes as they are, so corrupt containers from the seeds
/// are read too); byte 1 picks strict or lenient reading. Records go through the feed a
/// replay uses, whose guarantees are asserted.
pub fn trace(data: &[u8]) -> bool {
    let [pick, mode, payload @ ..] = data else {
        return false;
    };
    let format = TraceFormat::ALL[(*pick as usize / 8) % TraceFormat::ALL.len()];
    let path = scratch_file("trace", &wrap(*pick, payload));
    let Ok(resolved) = TraceSource::new(format).resolve(&path) else {
        return false;
    };
    assert_ne!(resolved, TraceFormat::Auto);
    let Ok(reader) = open_source(&path, &TraceSource::new(resolved)) else {
        return false;
    };
    // A 32 TiB drive: real traces' addresses fit, and the capacity check is still fuzzed.
    const CAPACITY: u64 = 1 << 36;
    let opts = FeedOptions {
        capacity_sectors: CAPACITY,
        skip_bad: mode & 1 == 1,
        ..FeedOptions::default()
    };
    let mut feed = Feed::new(reader, opts, path, resolved);
    let mut last_ns = 0;
    for _ in 0..MAX_RECORDS {
        match feed.next_record() {
            Ok(Some(r)) => {
                assert!(r.sectors >= 1, "a record of zero sectors got through");
                assert!(r.lbn + r.sectors as u64 <= CAPACITY, "past capacity: {r:?}");
                assert!(r.time_ns >= last_ns, "time went backwards: {r:?}");
                last_ns = r.time_ns;
            }
            Ok(None) => return feed.report().records_read > 0,
            Err(_) => return false,
        }
    }
    false
}

/// A `--csv-map` string (the first line), then a CSV trace (the rest) read with it.
pub fn csv_map(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let (map, trace) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(spec) = CsvSpec::parse_map(map) else {
        return false;
    };
    let path = scratch_file("mapped.csv", trace.as_bytes());
    let source = TraceSource {
        csv: Some(spec),
        ..TraceSource::new(TraceFormat::Csv)
    };
    let Ok(mut reader) = open_source(&path, &source) else {
        return false;
    };
    let mut clean = true;
    for _ in 0..MAX_RECORDS {
        match reader.next_record() {
            Ok(Some(r)) => assert!(r.sectors >= 1),
            Ok(None) => return clean,
            Err(_) if reader.can_continue() => clean = false,
            Err(_) => return false,
        }
    }
    false
}

const RUN_MAX_REQUESTS: u64 = 200;
const RUN_MAX_TIME_S: f64 = 20.0;

/// A whole run: an experiment TOML, then `@@ trace` on a line of its own, then the trace.
/// Kept small (request counts, the trace's record limit, simulated time, at most four
/// devices and four workloads) and to what a fuzzer may safely reach (catalog drives, the
/// trace in the scratch folder, the oracle predictor: calibrating costs seconds). Asserts conservation: a run that ends
/// before its time limit completed every request that arrived, exactly once.
pub fn whole_run(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let files = sections(&text);
    let trace = files
        .iter()
        .find(|(n, _)| n == "trace")
        .map(|(_, t)| t.as_str())
        .unwrap_or("");
    scratch_file("t.trace", trace.as_bytes());
    let origin = scratch_dir().join("exp.toml");
    let Ok(mut cfg) = ExperimentConfig::from_toml_str(&files[0].1, Some(&origin)) else {
        return false;
    };
    let catalog_only = |name: &mut String| {
        if name.contains('/') || name.contains('.') {
            *name = "elite3".into();
        }
    };
    catalog_only(&mut cfg.drive.name);
    cfg.host.predictor = "oracle".into();
    cfg.devices.truncate(4);
    for d in &mut cfg.devices {
        catalog_only(&mut d.drive);
        d.predictor = "oracle".into();
    }
    cfg.output.records = false;
    let max_time_s = cfg
        .output
        .max_time_s
        .unwrap_or(RUN_MAX_TIME_S)
        .min(RUN_MAX_TIME_S);
    cfg.output.max_time_s = Some(max_time_s);
    bound_workload(&mut cfg.workload);
    cfg.workloads.truncate(4);
    for w in &mut cfg.workloads {
        bound_workload(&mut w.config);
    }
    let Ok(built) = build_simulation(&cfg, None) else {
        return false;
    };
    let Ok(result) = built.simulation.run() else {
        return false;
    };
    let s = &result.summary;
    let done = s.requests + s.background_requests;
    if result.end_ns < (max_time_s * 1e9) as u64 {
        assert_eq!(
            done, s.arrived,
            "a run that ended on its own lost or repeated requests: {s:?}"
        );
    } else {
        assert!(done <= s.arrived, "more completions than arrivals: {s:?}");
    }
    done > 0
}

/// Keep a fuzzed workload small, and its trace (if any) the fuzzed one in the scratch folder.
fn bound_workload(w: &mut WorkloadConfig) {
    match w {
        WorkloadConfig::Open(c) => c.requests = c.requests.min(RUN_MAX_REQUESTS),
        WorkloadConfig::Closed(c) => {
            c.requests = c.requests.min(RUN_MAX_REQUESTS);
            c.processes = c.processes.min(64);
        }
        WorkloadConfig::Bursty(c) => c.requests = c.requests.min(RUN_MAX_REQUESTS),
        WorkloadConfig::Video(c) => {
            c.clients = c.clients.min(8);
            c.rounds = c.rounds.min(20);
            c.frame_traces.clear();
        }
        WorkloadConfig::Text(c) => {
            c.clients = c.clients.min(8);
            c.duration_ms = c.duration_ms.min(20_000.0);
        }
        WorkloadConfig::Sync(c) => c.closed.requests = c.closed.requests.min(RUN_MAX_REQUESTS),
        WorkloadConfig::App(c) => c.requests = c.requests.min(RUN_MAX_REQUESTS),
        WorkloadConfig::Synthgen(c) => c.total_requests = c.total_requests.min(RUN_MAX_REQUESTS),
        WorkloadConfig::Zoned(c) => {
            // At most 4 x 2 x 25 = 200 writes.
            c.writers = c.writers.min(4);
            c.fills = c.fills.min(2);
            c.writes_per_reset = Some(c.writes_per_reset.unwrap_or(25).min(25));
        }
        WorkloadConfig::Trace(c) => {
            c.path = PathBuf::from("t.trace");
            c.limit = Some(c.limit.unwrap_or(RUN_MAX_REQUESTS).min(RUN_MAX_REQUESTS));
        }
    }
}

/// Files packed into one input: `@@ name` on a line of its own starts each file; text before
/// the first header is the file called `top`.
pub(crate) fn sections(text: &str) -> Vec<(String, String)> {
    let mut out = vec![("top".to_string(), String::new())];
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("@@ ") {
            out.push((name.trim().to_string(), String::new()));
        } else {
            out.last_mut().expect("starts with top").1.push_str(line);
        }
    }
    out
}

/// `payload` as byte 0 of a [`trace`] input says: as it is, or in a valid container.
fn wrap(pick: u8, payload: &[u8]) -> Vec<u8> {
    match pick % 8 {
        5 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(payload).expect("in memory");
            e.finish().expect("in memory")
        }
        6 => zstd::stream::encode_all(payload, 1).expect("in memory"),
        7 => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 0);
            e.write_all(payload).expect("in memory");
            e.finish().expect("in memory")
        }
        _ => payload.to_vec(),
    }
}

/// A scratch folder for this process and thread (the trace reader detects compression from
/// the file it opens, so inputs are written to real files); on tmpfs when there is one.
fn scratch_dir() -> PathBuf {
    let base = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let thread = format!("{:?}", std::thread::current().id());
    let thread: String = thread.chars().filter(char::is_ascii_digit).collect();
    let dir = base.join(format!("headway-fuzz-{}-{thread}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch_dir().join(name);
    std::fs::write(&path, bytes).expect("scratch file");
    path
}

/// Remove this process's scratch folder (tests call it when done).
pub fn clean_scratch() {
    let _ = std::fs::remove_dir_all(scratch_dir());
}

/// The NBD server's side of a connection fed arbitrary client bytes: the handshake, then
/// requests (each checked against the export) until the bytes run out or break the protocol.
pub fn nbd_request(data: &[u8]) -> bool {
    use crate::serve::nbd::{negotiate, read_request, Export, Negotiated};
    struct Duplex<'a> {
        input: &'a [u8],
        output: Vec<u8>,
    }
    impl std::io::Read for Duplex<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.input.read(buf)
        }
    }
    impl Write for Duplex<'_> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.output.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let exports = [
        Export {
            name: "disk0".into(),
            size_bytes: 1 << 30,
        },
        Export {
            name: "flash".into(),
            size_bytes: 4096,
        },
    ];
    let mut conn = Duplex {
        input: data,
        output: Vec::new(),
    };
    let Ok(Negotiated::Export(i)) = negotiate(&mut conn, &exports) else {
        return false;
    };
    let mut requests = 0usize;
    while let Ok(Some(h)) = read_request(&mut conn.input) {
        requests += 1;
        if h.check(exports[i].size_bytes).is_ok() {
            let payload = h.payload_bytes();
            assert!(payload <= u64::from(u32::MAX));
            if crate::serve::nbd::wire::discard(&mut conn.input, payload).is_err() {
                break;
            }
        }
    }
    requests > 0
}
