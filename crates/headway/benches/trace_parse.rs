//! Records per second of the DiskSim ASCII trace reader, on a generated one-million-line
//! trace shaped like the reference benchmark's (random 4 KiB reads, exponential gaps):
//! parsed from memory, from a file, from a gzip file, through the boxed reader tools get,
//! and replayed as a workload (reader, checks and request building, as the engine drives it).
//!
//! `cargo bench -p headway --bench trace_parse`

use std::io::Write;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use headway::engine::RngStreams;
use headway::workload::trace::{open_reader, DisksimAsciiReader, TraceInput};
use headway::workload::{Arrivals, TraceFormat, TraceReader, WorkloadConfig};
use rand::{Rng, SeedableRng};

const LINES: usize = 1_000_000;
const ATLAS10K_SECTORS: u64 = 17_938_986;

fn generate() -> Vec<u8> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
    let mut out = Vec::with_capacity(LINES * 32);
    let mut t = 0.0f64;
    for _ in 0..LINES {
        t += -12.0 * (1.0 - rng.random::<f64>()).ln();
        let lbn = rng.random_range(0..ATLAS10K_SECTORS / 8) * 8;
        writeln!(out, "{t:.6} 0 {lbn} 8 1").unwrap();
    }
    out
}

fn count(mut r: impl TraceReader) -> u64 {
    let mut n = 0;
    while let Some(rec) = r.next_record().unwrap() {
        n += rec.sectors as u64;
    }
    n
}

fn write_files(text: &[u8]) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("headway-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plain = dir.join("rand4k_1M.trace");
    std::fs::write(&plain, text).unwrap();
    let gz = dir.join("rand4k_1M.trace.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(text).unwrap();
    enc.finish().unwrap();
    (plain, gz)
}

fn replay(path: &Path) -> u64 {
    let cfg = WorkloadConfig::Trace(headway::workload::TraceConfig::new(path));
    let mut w = cfg
        .build(ATLAS10K_SECTORS, &RngStreams::new(1), None)
        .unwrap();
    let mut arrivals = Arrivals::default();
    w.start(&mut arrivals).unwrap();
    let mut n = 0;
    // One pending arrival at a time, as the engine holds it.
    loop {
        let Some(req) = arrivals.drain().next() else {
            return n;
        };
        n += 1;
        w.on_arrival(&req, &mut arrivals).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let text = generate();
    let (plain, gz) = write_files(&text);
    let mut g = c.benchmark_group("disksim_ascii");
    g.sample_size(10);
    g.throughput(Throughput::Elements(LINES as u64));
    g.bench_function("memory", |b| {
        b.iter(|| count(DisksimAsciiReader::new(&text[..], None)))
    });
    // The reader type the replay uses (static, not the boxed `open_reader`).
    let from_file = |p: &Path| DisksimAsciiReader::new(TraceInput::open(p).unwrap(), None);
    g.bench_function("file", |b| b.iter(|| count(from_file(&plain))));
    g.bench_function("gzip_file", |b| b.iter(|| count(from_file(&gz))));
    g.bench_function("file_boxed_reader", |b| {
        b.iter(|| count(open_reader(&plain, TraceFormat::DisksimAscii).unwrap()))
    });
    g.bench_function("replay_workload", |b| {
        b.iter(|| assert_eq!(replay(&plain), LINES as u64))
    });
    g.finish();
    let _ = std::fs::remove_dir_all(plain.parent().unwrap());
}

criterion_group!(benches, bench);
criterion_main!(benches);
