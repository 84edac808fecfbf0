//! Memory bounds of the trace readers that a hostile file could otherwise push: the xz
//! decoder's memory limit, and the per-process name table. (The line cap that stops a file
//! inflating to one endless line is tested in `lines.rs` and, compressed, through the CLI
//! in tests/test_hostile_inputs.py.)

use std::io::Write;

use crate::common::{fixture, scratch};
use headway::workload::trace::{
    open_reader, stats, FeedOptions, TraceFormat, TraceSource, XZ_MEMLIMIT_BYTES,
};

/// 76 bytes of xz whose header asks for a 1.5 GiB dictionary (made with Python's `lzma`,
/// `dict_size = 1536 << 20`): refused before the decoder allocates it.
#[test]
fn an_xz_file_asking_for_a_huge_dictionary_is_refused() {
    let path = fixture("traces/big_dictionary.xz");
    let mut r = open_reader(&path, TraceFormat::DisksimAscii).unwrap();
    let e = r.next_record().unwrap_err().to_string();
    assert!(e.contains("big_dictionary.xz:1: "), "{e}");
    assert!(
        e.contains(&format!(
            "more than {} MiB to decode",
            XZ_MEMLIMIT_BYTES >> 20
        )),
        "{e}"
    );
    // An ordinary xz file still reads.
    let mut ok = open_reader(
        &fixture("traces/disksim_small.trace.xz"),
        TraceFormat::DisksimAscii,
    )
    .unwrap();
    assert!(ok.next_record().unwrap().is_some());
}

/// A process name as long as a line is kept to its first 256 bytes, so that 65,536 of them
/// cannot fill gigabytes.
#[test]
fn process_names_are_capped() {
    let dir = scratch("long-names");
    let path = dir.join("t.fiu");
    let mut f = std::fs::File::create(&path).unwrap();
    let long = "n".repeat(60_000);
    for pid in 1..=3u32 {
        writeln!(
            f,
            "{} {pid} {long}é 0 8 R 8 0 00000000000000000000000000000000",
            1000 * pid
        )
        .unwrap();
    }
    drop(f);
    let s = stats(
        &path,
        &TraceSource::new(TraceFormat::Fiu),
        &FeedOptions::default(),
    )
    .unwrap();
    assert_eq!(s.processes.len(), 3);
    for p in &s.processes {
        let name = p.name.as_deref().unwrap();
        assert_eq!(name.len(), 256, "{}", &name[..20]);
        assert!(name.chars().all(|c| c == 'n'));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
