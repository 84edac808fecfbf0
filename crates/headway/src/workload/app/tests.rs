use super::*;

fn cfg(app: AppKind, requests: u64) -> AppConfig {
    AppConfig {
        app,
        requests,
        fs: FsMode::Mmap,
        think_scale: 1.0,
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
    // cp: read + async write per file; scan; gcc: one page per copy.
    assert_eq!(full.len(), 50 * 4);
    let writes: Vec<_> = full.iter().filter(|s| s.op == Op::Write).collect();
    assert_eq!(writes.len(), 50);
    assert!(writes.iter().all(|s| !s.wait && s.lbn >= CAP / 2));
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
