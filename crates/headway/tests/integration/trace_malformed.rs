//! Each malformed-input case, in strict mode (the run fails with an error naming the file and
//! the line or record) and lenient mode (`skip_bad`: the run completes, and the bad records
//! are counted and reported in the run result with their line numbers).

use std::path::Path;

use crate::common::{fixture, scratch};
use headway::config::{build_simulation, ExperimentConfig};
use headway::sim::RunResult;

/// Run `file` (in `dir`) on the Elite 3 (5,461,533 sectors) with extra workload keys.
fn run(dir: &Path, file: &str, keys: &str) -> headway::Result<RunResult> {
    let exp = dir.join("exp.toml");
    std::fs::write(
        &exp,
        format!(
            "[drive]\nname = \"elite3\"\n[workload]\nkind = \"trace\"\npath = \"{file}\"\n{keys}\n"
        ),
    )
    .unwrap();
    let cfg = ExperimentConfig::from_toml_file(&exp)?;
    build_simulation(&cfg, None)?.simulation.run()
}

struct Case {
    name: &'static str,
    file: &'static str,
    text: &'static str,
    keys: &'static str,
    /// The first bad line (or record), the message it gives, and the good requests.
    line: usize,
    needle: &'static str,
    good: u64,
    bad: u64,
}

const CASES: &[Case] = &[
    Case {
        name: "zero-length-disksim",
        file: "t.trace",
        text: "0 0 0 8 1\n1 0 8 0 1\n2 0 16 8 1\n",
        keys: "format = \"disksim-ascii\"",
        line: 2,
        needle: "at least 1 sector",
        good: 2,
        bad: 1,
    },
    Case {
        name: "zero-length-spc",
        file: "t.spc",
        text: "0,0,512,r,0.0\n0,8,0,r,0.1\n0,16,512,w,0.2\n",
        keys: "format = \"spc\"",
        line: 2,
        needle: "Size: zero-length request",
        good: 2,
        bad: 1,
    },
    Case {
        name: "zero-length-blkparse",
        file: "t.blk",
        text: "  8,0 1 1 0.000000000 5 Q R 8 + 8 [a]\n  8,0 1 2 0.100000000 5 Q R 16 + 0 [a]\n",
        keys: "format = \"blkparse\"",
        line: 2,
        needle: "zero-length",
        good: 1,
        bad: 1,
    },
    Case {
        name: "beyond-capacity",
        file: "t.trace",
        text: "0 0 0 8 1\n1 0 5461530 8 1\n2 0 16 8 1\n",
        keys: "format = \"disksim-ascii\"",
        line: 2,
        needle: "runs past the end of the drive",
        good: 2,
        bad: 1,
    },
    Case {
        name: "negative-time-disksim",
        file: "t.trace",
        text: "0 0 0 8 1\n-1.5 0 8 8 1\n2 0 16 8 1\n",
        keys: "format = \"disksim-ascii\"",
        line: 2,
        needle: "time_ms: must not be negative",
        good: 2,
        bad: 1,
    },
    Case {
        name: "negative-time-csv",
        file: "t.csv",
        text: "0,0,8,8,R,0\n-3,0,8,8,R,0\n5,0,8,8,W,0\n",
        keys: "format = \"csv\"\ncsv = { time = 0, device = 1, address = 2, size = 3, op = 4 }",
        line: 2,
        needle: "time: must not be negative",
        good: 2,
        bad: 1,
    },
    Case {
        name: "negative-time-msr",
        file: "t.msr",
        text: "128166372003061629,hm,0,Read,0,4096,10\n-128166372003061630,hm,0,Read,0,4096,10\n",
        keys: "format = \"msr\"",
        line: 2,
        needle: "Timestamp: must not be negative",
        good: 1,
        bad: 1,
    },
    Case {
        name: "decreasing-time",
        file: "t.trace",
        text: "0 0 0 8 1\n5 0 8 8 1\n3 0 16 8 1\n4 0 24 8 1\n6 0 32 8 0\n",
        keys: "format = \"disksim-ascii\"",
        line: 3,
        needle: "time goes backwards: 3 ms after 5 ms",
        good: 3,
        bad: 2,
    },
    Case {
        name: "decreasing-time-fiu",
        file: "t.fiu",
        text: "2000 1 a 0 8 R 8 0 00000000000000000000000000000000\n1000 1 a 8 8 R 8 0 00000000000000000000000000000000\n",
        keys: "format = \"fiu\"",
        line: 2,
        needle: "time goes backwards",
        good: 1,
        bad: 1,
    },
    Case {
        name: "bad-field-fiu",
        file: "t.fiu",
        text: "1000 1 a 0 8 R 8 0 00000000000000000000000000000000\n2000 1 a 8 8 X 8 0 00000000000000000000000000000000\n",
        keys: "format = \"fiu\"",
        line: 2,
        needle: "R|W: expected R or W, got `X`",
        good: 1,
        bad: 1,
    },
    Case {
        name: "bad-field-msr",
        file: "t.msr",
        text: "128166372003061629,hm,0,Read,0,4096,10\n128166372003061639,hm,0,Erase,0,4096,10\n",
        keys: "format = \"msr\"",
        line: 2,
        needle: "Type: expected Read or Write",
        good: 1,
        bad: 1,
    },
    Case {
        name: "bad-field-validate",
        file: "t.val",
        text: "R Hit 8 8 100.0 10.0\nR Hit7 16 8 100.0 10.0\nW Miss 24 8 100.0 10.0\n",
        keys: "format = \"disksim-validate\"",
        line: 2,
        needle: "Hit|Miss",
        good: 2,
        bad: 1,
    },
    Case {
        name: "bad-field-blkparse",
        file: "t.blk",
        text: "  8,0 1 1 0.000000000 5 Q R 8 + 8 [a]\n  8,0 1 2 0.100000000 5 Q R 16 - 8 [a]\n",
        keys: "format = \"blkparse\"",
        line: 2,
        needle: "should read `sector + sectors`",
        good: 1,
        bad: 1,
    },
    Case {
        name: "bad-field-spc",
        file: "t.spc",
        text: "0,0,512,r,0.0\n0,eight,512,r,0.1\n",
        keys: "format = \"spc\"",
        line: 2,
        needle: "LBA: expected a non-negative integer, got `eight`",
        good: 1,
        bad: 1,
    },
];

#[test]
fn strict_mode_fails_at_the_first_bad_record_naming_file_and_line() {
    for c in CASES {
        let dir = scratch(&format!("strict-{}", c.name));
        std::fs::write(dir.join(c.file), c.text).unwrap();
        let e = run(&dir, c.file, c.keys).expect_err(c.name).to_string();
        let at = format!("{}:{}: ", c.file, c.line);
        assert!(e.contains(&at), "{}: expected `{at}` in: {e}", c.name);
        assert!(
            e.contains(c.needle),
            "{}: expected `{}` in: {e}",
            c.name,
            c.needle
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn lenient_mode_counts_and_reports_bad_records_at_the_end() {
    for c in CASES {
        let dir = scratch(&format!("lenient-{}", c.name));
        std::fs::write(dir.join(c.file), c.text).unwrap();
        let keys = format!("{}\nskip_bad = true", c.keys);
        let r = run(&dir, c.file, &keys).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert_eq!(r.summary.requests, c.good, "{}", c.name);
        let rep = r.trace_report.as_ref().unwrap();
        assert_eq!(rep.bad_records, c.bad, "{}", c.name);
        let first = &rep.bad_examples[0];
        assert!(
            first.starts_with(&format!("line {}: ", c.line)) && first.contains(c.needle),
            "{}: {first}",
            c.name
        );
        let w = r.warnings.join("\n");
        assert!(
            w.contains(&format!("skipped {} bad record(s)", c.bad)) && w.contains(c.file),
            "{}: {w}",
            c.name
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_truncated_binary_record_is_named_by_record_and_offset() {
    let bytes = std::fs::read(fixture("traces/hp_small.srt")).unwrap();
    let dir = scratch("truncated-srt");
    std::fs::write(dir.join("t.srt"), &bytes[..bytes.len() - 10]).unwrap();
    let e = run(&dir, "t.srt", "merge_devices = true")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.srt:4: record 4 (byte offset")
            && e.contains("truncated record: 42 of its 52 bytes"),
        "{e}"
    );
    let r = run(&dir, "t.srt", "merge_devices = true\nskip_bad = true").unwrap();
    assert_eq!(r.summary.requests, 2);
    let rep = r.trace_report.unwrap();
    assert_eq!((rep.bad_records, rep.skipped_by_reader), (1, 1));
    assert!(
        rep.bad_examples[0].starts_with("line 4: record 4"),
        "{:?}",
        rep.bad_examples
    );
    assert!(r
        .warnings
        .iter()
        .any(|w| w.contains("1 suspect record(s) skipped")));

    // A record size that cannot be an I/O record leaves nothing to resynchronise on: fatal
    // even in lenient mode.
    let mut broken = bytes.clone();
    let first_record = broken.iter().position(|&b| b == 0x0C).unwrap() + 1;
    broken[first_record + 3] = 0xFF;
    std::fs::write(dir.join("b.srt"), &broken).unwrap();
    let e = run(&dir, "b.srt", "merge_devices = true\nskip_bad = true")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("b.srt:1: record 1") && e.contains("record size"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_binary_file_that_is_not_a_trace_is_refused() {
    let dir = scratch("binary");
    std::fs::write(dir.join("x.bin"), [0u8, 1, 2, 3, 255, 254]).unwrap();
    let e = run(&dir, "x.bin", "").unwrap_err().to_string();
    assert!(
        e.contains("x.bin: cannot detect the trace format: binary data"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
