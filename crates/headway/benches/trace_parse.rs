//! Records per second of the trace readers, on generated one-million-record traces shaped
//! like the reference benchmark's (random 4 KiB reads, exponential gaps).
//!
//! `disksim_ascii`: parsed from memory, from a file, from gzip/zstd/xz files, through the
//! boxed reader tools get, and replayed as a workload (reader, checks and request building,
//! as the engine drives it). `formats`: every other reader parsing the same records written
//! in its own format, from memory.
//!
//! `cargo bench -p headway --bench trace_parse`

use std::io::Write;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use headway::engine::RngStreams;
use headway::workload::trace::{
    open_reader, BlkparseEvent, BlkparseReader, CsvReader, CsvSpec, DisksimAsciiReader,
    DisksimValidateReader, FiuReader, HpSrtReader, MsrReader, SpcReader, TraceInput,
};
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

/// The same random records, as (time_ns, lbn, read, pid).
fn records() -> Vec<(u64, u64, bool, u32)> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
    let mut t = 0.0f64;
    (0..LINES)
        .map(|_| {
            t += -12.0 * (1.0 - rng.random::<f64>()).ln();
            let lbn = rng.random_range(0..ATLAS10K_SECTORS / 8) * 8;
            (
                (t * 1e6) as u64,
                lbn,
                rng.random_bool(0.7),
                rng.random_range(100..140),
            )
        })
        .collect()
}

/// `recs` written in `format`.
fn render(format: &str, recs: &[(u64, u64, bool, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(LINES * 64);
    if format == "hp-srt" {
        out.extend_from_slice(
            b"$$TR_IOREC-1.3 (bench)\ndisks = { 0 -> { sectorsize = 512, } };\n\x0c",
        );
    }
    if format == "csv" {
        out.extend_from_slice(b"time_ns,device,lbn,sectors,op,process\n");
    }
    let mut last_ns = 0;
    for &(ns, lbn, read, pid) in recs {
        let rw = if read { "R" } else { "W" };
        match format {
            "disksim-validate" => {
                let gap_us = (ns - last_ns) as f64 / 1e3;
                writeln!(
                    out,
                    "{rw} Hit {lbn} 8 {:.5} {:.5}",
                    gap_us / 2.0,
                    gap_us / 2.0
                )
            }
            "spc" => writeln!(
                out,
                "0,{lbn},4096,{},{:.6}",
                rw.to_lowercase(),
                ns as f64 / 1e9
            ),
            "msr" => writeln!(
                out,
                "{},hm,0,{},{},4096,{}",
                128_166_372_000_000_000 + ns / 100,
                if read { "Read" } else { "Write" },
                lbn * 512,
                ns % 100_000
            ),
            "fiu" => writeln!(
                out,
                "{ns} {pid} proc{pid} {lbn} 8 {rw} 8 0 531e779ad2ba07b7bbb2b4a9d2ef5f40"
            ),
            "blkparse" => writeln!(
                out,
                "  8,0    1 {:8} {:5}.{:09} {pid:5}  Q {rw} {lbn} + 8 [proc{pid}]",
                1,
                ns / 1_000_000_000,
                ns % 1_000_000_000
            ),
            "csv" => writeln!(out, "{ns},0,{lbn},8,{rw},{pid}"),
            "hp-srt" => {
                let words: [u32; 13] = [
                    56,
                    4 << 16 | 1,
                    (ns / 1_000_000_000) as u32,
                    (ns % 1_000_000_000 / 1000) as u32,
                    100,
                    5000,
                    4096,
                    lbn as u32,
                    0x0800_0007,
                    4,
                    27,
                    read as u32,
                    0,
                ];
                for w in words {
                    out.extend_from_slice(&w.to_be_bytes());
                }
                out.extend_from_slice(&1u32.to_be_bytes());
                Ok(())
            }
            other => unreachable!("{other}"),
        }
        .unwrap();
        last_ns = ns;
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
    let zst = plain.with_extension("trace.zst");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
    g.bench_function("zstd_file", |b| b.iter(|| count(from_file(&zst))));
    let xz = plain.with_extension("trace.xz");
    let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 6);
    enc.write_all(&text).unwrap();
    std::fs::write(&xz, enc.finish().unwrap()).unwrap();
    g.bench_function("xz_file", |b| b.iter(|| count(from_file(&xz))));
    g.bench_function("file_boxed_reader", |b| {
        b.iter(|| count(open_reader(&plain, TraceFormat::DisksimAscii).unwrap()))
    });
    g.bench_function("replay_workload", |b| {
        b.iter(|| assert_eq!(replay(&plain), LINES as u64))
    });
    g.finish();
    let _ = std::fs::remove_dir_all(plain.parent().unwrap());

    // Every reader on the same records, in memory: the parsing cost alone.
    let recs = records();
    let mut g = c.benchmark_group("formats");
    g.sample_size(10);
    g.throughput(Throughput::Elements(LINES as u64));
    for format in [
        "disksim-validate",
        "spc",
        "msr",
        "fiu",
        "blkparse",
        "hp-srt",
        "csv",
    ] {
        let data = render(format, &recs);
        g.bench_function(format, |b| {
            b.iter(|| {
                let n = match format {
                    "disksim-validate" => count(DisksimValidateReader::new(&data[..], None)),
                    "spc" => count(SpcReader::new(&data[..], None)),
                    "msr" => count(MsrReader::new(&data[..], None)),
                    "fiu" => count(FiuReader::new(&data[..], None)),
                    "blkparse" => count(BlkparseReader::new(&data[..], None, BlkparseEvent::Queue)),
                    "hp-srt" => count(HpSrtReader::new(&data[..], None).unwrap()),
                    "csv" => count(CsvReader::new(&data[..], None, CsvSpec::default()).unwrap()),
                    _ => unreachable!(),
                };
                assert_eq!(n, LINES as u64 * 8, "{format}");
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
