//! Every block trace in the shared reference data (`../shared/reference/traces/`, not shipped
//! with the project: ignored with a reason, run by `scripts/test.sh` where present) replays end to end, and the number
//! of requests completed equals a count made independently of headway's readers (non-blank
//! lines for text traces; I/O records found by walking the SRT size words for HP's binary).
//! The video folder holds frame-size traces, not block traces, and is left out.

use std::path::{Path, PathBuf};

use headway::config::{build_simulation, ExperimentConfig};

use crate::common;

fn reference() -> PathBuf {
    common::shared_path("reference/traces")
}

mod shared_data {
    use super::*;

    /// Non-blank lines: what `grep -c .` counts.
    fn text_count(path: &Path) -> u64 {
        std::fs::read(path)
            .unwrap()
            .split(|&b| b == b'\n')
            .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
            .count() as u64
    }

    /// I/O records (type 1) of an SRT file, found from the size words alone.
    fn srt_count(path: &Path) -> u64 {
        let d = std::fs::read(path).unwrap();
        let mut off = d.iter().position(|&b| b == 0x0C).unwrap() + 1;
        let mut n = 0;
        while off + 8 <= d.len() {
            let word = |i: usize| u32::from_be_bytes(d[i..i + 4].try_into().unwrap());
            n += (word(off + 4) & 0xFFFF == 1) as u64;
            off += word(off) as usize;
        }
        n
    }

    /// Replay `trace` with the given workload keys; returns (completed, replayed per report).
    fn replay(trace: &Path, keys: &str) -> (u64, u64, Vec<String>) {
        let toml = format!(
            "[drive]\nname = \"elite3\"\n[host]\nscheduler = \"cscan\"\n[workload]\nkind = \"trace\"\npath = \"{}\"\n{keys}\n",
            trace.display()
        );
        let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap_or_else(|e| panic!("{e}"));
        let result = build_simulation(&cfg, None)
            .unwrap()
            .simulation
            .run()
            .unwrap_or_else(|e| panic!("{}: {e}", trace.display()));
        let report = result.trace_report.expect("a trace run has a report");
        (result.summary.requests, report.replayed, result.warnings)
    }

    #[test]
    #[ignore = "needs the reference data in ../shared (not shipped); scripts/test.sh runs it when present"]
    fn every_reference_trace_replays_with_an_independent_request_count() {
        let dir = reference();
        let msr_chunks = "format = \"csv\"\nfit = \"scale\"\ncsv = { delimiter = \"whitespace\", time = 0, device = 1, address = 2, size = 3, op = 4, time_unit = \"ms\", address_unit = \"bytes\", size_unit = \"bytes\", read_values = [\"1\"], write_values = [\"0\"] }";
        let mqsim = "format = \"csv\"\nfit = \"scale\"\nmerge_devices = true\ncsv = { delimiter = \"whitespace\", time = 0, device = 1, address = 2, size = 3, op = 4, time_unit = \"ns\", read_values = [\"1\"], write_values = [\"0\"] }";
        let cases: Vec<(&str, &str, u64)> = vec![
            // 90 GB of addresses onto a 2.8 GB drive.
            ("msn-fs/MSN-FS-30s-ms", "fit = \"scale\"", 0),
            ("mqsim/wsrch-small.trace", mqsim, 0),
            ("mqsim/tpcc-small.trace", mqsim, 0),
            (
                "msr-chunks/msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
                msr_chunks,
                0,
            ),
            (
                "msr-chunks/msr.cut.per_10k.rw_20_80.105.trace",
                msr_chunks,
                0,
            ),
            (
                "msr-chunks/msr.cut.per_10k.rw_40_60.1370.trace",
                msr_chunks,
                0,
            ),
            // Two disks of an HP workstation, merged; 335 MB fits the drive as it is.
            ("hplajw/ajw.1week.srt", "merge_devices = true", 0),
        ];
        let mut seen = 0;
        for (rel, keys, _) in cases {
            let path = dir.join(rel);
            let expect = if rel.ends_with(".srt") {
                srt_count(&path)
            } else {
                text_count(&path)
            };
            let (done, replayed, warnings) = replay(&path, keys);
            assert_eq!(done, expect, "{rel}: completed requests");
            assert_eq!(replayed, expect, "{rel}: replayed per the trace report");
            eprintln!("{rel}: {done} requests ({})", warnings.join(" | "));
            seen += 1;
        }
        // Every folder but video/ is covered.
        let folders: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "video")
            .collect();
        for f in folders {
            assert!(
                ["msn-fs", "mqsim", "msr-chunks", "hplajw"].contains(&f.as_str()),
                "reference folder {f} has no replay case"
            );
        }
        assert_eq!(seen, 7);
    }

    #[test]
    #[ignore = "needs the reference data in ../shared (not shipped); scripts/test.sh runs it when present"]
    fn the_hp_trace_counts_match_the_readme() {
        let dir = reference();
        assert_eq!(srt_count(&dir.join("hplajw/ajw.1week.srt")), 44_519);
        assert_eq!(text_count(&dir.join("mqsim/wsrch-small.trace")), 24_783);
    }

    #[test]
    #[ignore = "needs the reference data in ../shared (not shipped); scripts/test.sh runs it when present"]
    fn a_trace_larger_than_the_drive_fails_by_default_giving_both_sizes() {
        let dir = reference();
        let toml = format!(
            "[drive]\nname = \"elite3\"\n[workload]\nkind = \"trace\"\npath = \"{}\"\n",
            dir.join("msn-fs/MSN-FS-30s-ms").display()
        );
        let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
        let e = build_simulation(&cfg, None)
            .unwrap()
            .simulation
            .run()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("MSN-FS-30s-ms:1: ")
                && e.contains("the drive has 5461533 sectors")
                && e.contains("the trace addresses 355642704 sectors")
                && e.contains("fit = "),
            "{e}"
        );
    }

    /// DiskSim's validation traces (in `../shared/reference/disksim/validation/`) replay in
    /// validate mode on their drives, every request once, and the format is detected.
    #[test]
    #[ignore = "needs the reference data in ../shared (not shipped); scripts/test.sh runs it when present"]
    fn the_disksim_validation_traces_replay_in_validate_mode() {
        let dir = reference();
        let dir = dir.join("../disksim/validation");
        for (file, drive) in [
            ("atlas10k.trace", "atlas10k"),
            ("cheetah4LP.trace", "cheetah4lp"),
            ("dec_rz26.trace", "dec_rz26"),
            ("hp_c2247a.trace", "hp_c2247a"),
            ("st41601n.trace", "st41601n"),
        ] {
            let path = dir.join(file);
            let toml = format!(
                "[drive]\nname = \"{drive}\"\n[workload]\nkind = \"trace\"\npath = \"{}\"\nmode = \"validate\"\n",
                path.display()
            );
            let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
            let r = build_simulation(&cfg, None)
                .unwrap()
                .simulation
                .run()
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(r.summary.requests, text_count(&path), "{file}");
            assert_eq!(r.trace_report.unwrap().format, "disksim-validate");
            // One request in the system at a time.
            assert!(r.summary.max_queue_length <= 1, "{file}");
        }
    }
}
