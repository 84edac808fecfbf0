use super::*;
use crate::time::ms_to_ns;

fn cfg(app: AppKind, requests: u64) -> AppConfig {
    AppConfig {
        app,
        requests,
        fs: FsMode::Mmap,
        think_scale: 1.0,
        mmap_limit_bytes: None,
    }
}

fn script(c: &AppConfig, capacity: u64) -> Vec<Step> {
    AppWorkload::new(c, capacity, &RngStreams::new(7))
        .unwrap()
        .steps
        .collect()
}

const CAP: u64 = 1 << 24;

#[test]
fn andrew_reads_every_file_in_each_phase_and_copies_asynchronously() {
    let full = script(&cfg(AppKind::Andrew, 50), CAP);
    let scan = script(&cfg(AppKind::AndrewScan, 50), CAP);
    assert_eq!(scan.len(), 50);
    assert!(scan.iter().all(|s| s.wait && s.op == Op::Read));
    // mkdir: a page per directory; cp: read + async write per file; stat: a page per
    // directory; scan; gcc: one page per copy.
    let dirs = andrew::directories(50);
    assert_eq!(dirs, 3);
    assert_eq!(full.len() as u64, 50 * 4 + 2 * dirs);
    let writes: Vec<_> = full.iter().filter(|s| s.op == Op::Write).collect();
    assert_eq!(writes.len() as u64, 50 + dirs);
    assert!(writes.iter().all(|s| s.lbn >= CAP / 2));
    assert_eq!(writes.iter().filter(|s| !s.wait).count(), 50);
    // The scan reads files in layout order: addresses increase.
    assert!(scan
        .windows(2)
        .all(|w| w[0].lbn + w[0].sectors as u64 <= w[1].lbn));
    let sizes: Vec<u32> = scan.iter().map(|s| s.sectors).collect();
    assert!(sizes.iter().all(|&s| (8..=128).contains(&s) && s % 8 == 0));
    for s in &scan {
        assert!((100_000..1_000_000).contains(&s.think_ns));
    }
}

#[test]
fn andrew_phases_split_the_script_and_metadata_sits_between_the_copies_directories() {
    let files = 45;
    let full = script(&cfg(AppKind::Andrew, files), CAP);
    let counts = andrew::phase_steps(files);
    assert_eq!(counts.iter().sum::<u64>(), full.len() as u64);
    let mut at = 0usize;
    let mut phase = |k: usize| {
        let steps = &full[at..at + counts[k] as usize];
        at += counts[k] as usize;
        steps.to_vec()
    };
    let (mkdir, cp, stat, scan, gcc) = (phase(0), phase(1), phase(2), phase(3), phase(4));
    // mkdir: synchronous page writes, one per directory; stat reads the same pages back.
    assert!(mkdir
        .iter()
        .all(|s| s.op == Op::Write && s.wait && s.sectors == PAGE_SECTORS));
    assert!(stat
        .iter()
        .all(|s| s.op == Op::Read && s.wait && s.sectors == PAGE_SECTORS));
    let pages = |v: &[Step]| v.iter().map(|s| s.lbn).collect::<Vec<_>>();
    assert_eq!(pages(&mkdir), pages(&stat));
    // Each directory's page follows its last copied file and precedes the next directory.
    let copies: Vec<&Step> = cp.iter().filter(|s| s.op == Op::Write).collect();
    for (d, &page) in pages(&mkdir).iter().enumerate() {
        let last =
            copies[(d * andrew::FILES_PER_DIR + andrew::FILES_PER_DIR).min(copies.len()) - 1];
        assert_eq!(page, last.lbn + last.sectors as u64, "directory {d}");
        if let Some(next) = copies.get((d + 1) * andrew::FILES_PER_DIR) {
            assert!(page + PAGE_SECTORS as u64 <= next.lbn);
        }
    }
    assert!(cp.iter().step_by(2).all(|s| s.op == Op::Read && s.wait));
    assert!(scan.iter().all(|s| s.op == Op::Read && s.lbn < CAP / 2));
    assert!(gcc
        .iter()
        .all(|s| s.think_ns >= 2_000_000 && s.sectors == PAGE_SECTORS));
    // A region too small for the files is refused, not a panic.
    let tight = AppWorkload::new(&cfg(AppKind::Andrew, 1), 16, &RngStreams::new(1));
    assert!(tight.is_err());
}

#[test]
fn web_mixed_maps_small_files_and_clusters_large_ones() {
    let mut c = cfg(AppKind::Web, 400);
    let mmap = script(&c, CAP);
    c.mmap_limit_bytes = Some(64 * 1024);
    let mixed = script(&c, CAP);
    let total = |v: &[Step]| v.iter().map(|s| s.sectors as u64).sum::<u64>();
    assert_eq!(total(&mmap), total(&mixed));
    // Files are the runs that start with the request's computation.
    let files = |v: &[Step]| -> Vec<(u64, Vec<Step>)> {
        let mut out: Vec<(u64, Vec<Step>)> = vec![];
        for s in v {
            if s.think_ns == ms_to_ns(web::REQUEST_MS) {
                out.push((0, vec![]));
            }
            let f = out.last_mut().unwrap();
            f.0 += s.sectors as u64 * 512;
            f.1.push(*s);
        }
        out
    };
    let (mut small, mut large) = (0, 0);
    for (bytes, steps) in files(&mixed) {
        if bytes > 64 * 1024 {
            large += 1;
            assert!(steps.iter().skip(1).all(|s| s.chunk), "{steps:?}");
            assert!(steps.iter().any(|s| s.sectors > PAGE_SECTORS));
        } else {
            small += 1;
            assert!(steps.iter().all(|s| s.sectors == PAGE_SECTORS && !s.chunk));
        }
    }
    assert_eq!(small + large, 400);
    assert!(large > 0 && small > large, "{small} {large}");
    // The limit belongs to the web server's mmap mode.
    c.fs = FsMode::Read;
    assert!(c.validate().is_err());
    let mut a = cfg(AppKind::Andrew, 10);
    a.mmap_limit_bytes = Some(1);
    assert!(a.validate().is_err());
}

#[test]
fn web_mmap_faults_pages_and_read_mode_clusters_the_same_files() {
    let mut c = cfg(AppKind::Web, 400);
    let mmap = script(&c, CAP);
    c.fs = FsMode::Read;
    let read = script(&c, CAP);
    assert!(mmap.iter().all(|s| s.sectors == PAGE_SECTORS));
    assert!(read.iter().all(|s| s.sectors <= web::CHUNK_SECTORS));
    let total = |v: &[Step]| v.iter().map(|s| s.sectors as u64).sum::<u64>();
    assert_eq!(total(&mmap), total(&read));
    assert!(read.len() < mmap.len());
    // Read mode: every chunk after a file's first carries the large-read flag; mmap faults
    // are separate reads.
    assert!(mmap.iter().all(|s| !s.chunk));
    for s in &read {
        assert_eq!(s.chunk, s.think_ns == 0, "{s:?}");
    }
    assert!(read.iter().any(|s| s.chunk));
    // Heavy tail: median one page, mean several.
    let files = read.iter().filter(|s| s.think_ns > 0).count() as u64;
    assert_eq!(files, 400);
    let mean_bytes = total(&read) as f64 * 512.0 / files as f64;
    assert!((8_000.0..40_000.0).contains(&mean_bytes), "{mean_bytes}");
}

#[test]
fn linker_reads_a_header_then_pages_within_the_file() {
    let s = script(&cfg(AppKind::Linker, 30), CAP);
    assert!(s.len() > 30);
    assert!(s.iter().all(|x| x.wait && x.sectors == PAGE_SECTORS));
}

#[test]
fn tpcb_update_adds_an_asynchronous_write_of_the_page_read() {
    let u = script(&cfg(AppKind::TpcbUpdate, 100), CAP);
    let sel = script(&cfg(AppKind::TpcbSelect, 100), CAP);
    assert_eq!(sel.len(), 100);
    assert_eq!(u.len(), 200);
    for p in u.chunks(2) {
        assert_eq!((p[0].op, p[1].op), (Op::Read, Op::Write));
        assert_eq!(p[0].lbn, p[1].lbn);
        assert!(!p[1].wait);
    }
}

#[test]
fn think_scale_multiplies_think_times_and_scripts_are_deterministic() {
    let a = script(&cfg(AppKind::TpcbSelect, 10), CAP);
    let mut c = cfg(AppKind::TpcbSelect, 10);
    assert_eq!(a, script(&c, CAP));
    c.think_scale = 0.5;
    let b = script(&c, CAP);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.lbn, y.lbn);
        assert_eq!(x.think_ns / 2, y.think_ns);
    }
}

#[test]
fn bad_values_are_keyed() {
    let err = |c: &AppConfig, cap: u64| {
        AppWorkload::new(c, cap, &RngStreams::new(0))
            .err()
            .unwrap()
            .to_string()
    };
    assert!(err(&cfg(AppKind::Andrew, 0), CAP).contains("workload.requests"));
    let mut c = cfg(AppKind::Andrew, 10);
    c.think_scale = -1.0;
    assert!(err(&c, CAP).contains("workload.think_scale"));
    c.think_scale = 1.0;
    c.fs = FsMode::Read;
    assert!(err(&c, CAP).contains("workload.fs"));
    assert!(err(&cfg(AppKind::Andrew, 1000), 1000).contains("workload.region"));
    assert!(err(&cfg(AppKind::Web, 10), 1000).contains("workload.region"));
}
