//! Disk arrays end to end: `[[arrays]]` volumes run, every logical request completes once
//! after its member operations, the member I/O counts of small and full-stripe writes,
//! degraded reads, rebuild and scrub coverage, keyed errors, determinism.

use headway::config::{build_simulation, ExperimentConfig};
use headway::sim::RunResult;
use headway::stats::{ArraySummary, HOST_DEVICE};

pub(crate) fn run(toml: &str) -> RunResult {
    let cfg = ExperimentConfig::from_toml_str(toml, None).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    build_simulation(&cfg, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .simulation
        .run()
        .unwrap_or_else(|e| panic!("{e}"))
}

pub(crate) fn err(toml: &str) -> String {
    match ExperimentConfig::from_toml_str(toml, None)
        .and_then(|cfg| build_simulation(&cfg, None).map(|_| ()))
    {
        Ok(()) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

/// `n` devices `d0..` of `drive`, the array table `array`, the workload table `wl`.
fn system_of(drive: &str, n: usize, array: &str, wl: &str) -> String {
    let mut s = String::from("seed = 3\n");
    for i in 0..n {
        s += &format!("[[devices]]\nname = \"d{i}\"\ndrive = \"{drive}\"\n\n");
    }
    s += &format!("[[arrays]]\nname = \"vol\"\n{array}\n\n[[workloads]]\ndevice = \"vol\"\n{wl}\n");
    s
}

fn system(n: usize, array: &str, wl: &str) -> String {
    system_of("atlas10k", n, array, wl)
}

const RAID5: &str = "level = \"raid5\"\nmembers = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\"]\nstripe_unit_sectors = 16";

fn open(requests: u64, size: u32, read_fraction: f64) -> String {
    format!(
        "kind = \"open\"\nrequests = {requests}\ninterarrival_ms = 4.0\nsize_sectors = {size}\n\
         read_fraction = {read_fraction}\nalign_sectors = {size}"
    )
}

fn volume(r: &RunResult) -> &ArraySummary {
    &r.arrays[0]
}

#[test]
fn raid5_small_writes_are_four_member_ios() {
    let r = run(&system(5, RAID5, &open(200, 8, 0.0)));
    let a = volume(&r);
    assert_eq!((a.requests, r.summary.requests), (200, 200));
    assert_eq!(a.rmw_writes, 200);
    assert_eq!(
        (a.member_reads, a.member_writes, a.parity_ios),
        (400, 400, 400)
    );
    // Every member operation went to a member, and the members' counts add up.
    let reads: u64 = a.members.iter().map(|m| m.reads).sum();
    assert_eq!(reads, 400);
}

#[test]
fn full_stripe_writes_write_every_member_and_read_nothing() {
    // 4 data units of 16 sectors: a 64-sector aligned write is one whole row.
    let r = run(&system(5, RAID5, &open(100, 64, 0.0)));
    let a = volume(&r);
    assert_eq!(
        (a.full_stripe_writes, a.rmw_writes, a.reconstruct_writes),
        (100, 0, 0)
    );
    assert_eq!(
        (a.member_reads, a.member_writes, a.parity_ios),
        (0, 500, 100)
    );
}

#[test]
fn every_logical_request_completes_once_after_its_member_operations() {
    let wl = open(300, 24, 0.5) + "\n[output]\nrecords = true";
    let arr = format!("{RAID5}\nmember_sectors = 65536\nspare = \"d5\"\nfailure = {{ member = \"d1\", at_ms = 400.0 }}\nrebuild = {{ policy = \"rate\", rate_mb_s = 50.0 }}");
    let r = run(&system_of("dec_rz26", 6, &arr, &wl));
    let rec = r.records.as_ref().expect("records");
    assert_eq!(rec.logical_id.len(), rec.len());
    let logical: Vec<usize> = (0..rec.len())
        .filter(|&i| rec.device[i] == HOST_DEVICE)
        .collect();
    assert_eq!(logical.len(), 300);
    let mut ids: Vec<u64> = logical.iter().map(|&i| rec.id[i]).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 300, "a logical request completed twice");
    for &i in &logical {
        let members: Vec<usize> = (0..rec.len())
            .filter(|&k| rec.logical_id[k] == rec.id[i])
            .collect();
        assert!(
            !members.is_empty(),
            "request {} had no member operation",
            rec.id[i]
        );
        for k in members {
            assert!(rec.done_ns[k] <= rec.done_ns[i]);
            assert!(rec.arrival_ns[k] >= rec.arrival_ns[i]);
        }
    }
    assert_eq!(volume(&r).requests, 300);
}

#[test]
fn degraded_reads_read_the_other_four_members() {
    let arr = format!("{RAID5}\nfailure = {{ member = \"d2\", at_ms = 0.0 }}");
    let r = run(&system(5, &arr, &open(400, 8, 1.0)));
    let a = volume(&r);
    let lost_reads = a.degraded_reads / 4;
    assert_eq!(a.degraded_reads % 4, 0);
    assert!(lost_reads > 40, "{a:?}");
    assert_eq!(a.member_reads, (400 - lost_reads) + a.degraded_reads);
    assert_eq!((a.members[2].reads, a.members[2].degraded_reads), (0, 0));
    assert_eq!(r.summary.requests, 400);
}

fn rebuild_system(policy: &str, wl: &str) -> String {
    // 32 rows of 512 KiB units on each member.
    let arr = format!(
        "level = \"raid5\"\nmembers = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\"]\n\
         stripe_unit_sectors = 1024\nmember_sectors = 32768\nspare = \"d5\"\n\
         failure = {{ member = \"d3\", at_ms = 100.0 }}\nrebuild = {{ {policy} }}"
    );
    system_of("dec_rz26", 6, &arr, wl)
}

#[test]
fn rebuild_covers_every_row_exactly_once() {
    for policy in [
        "policy = \"rate\", rate_mb_s = 100.0",
        "policy = \"idle\", idle_ms = 5.0",
    ] {
        let r = run(&rebuild_system(policy, &open(200, 8, 0.5)));
        let a = volume(&r);
        let b = a.rebuild.as_ref().expect("rebuild");
        assert_eq!(b.rows_total, 32, "{b:?}");
        assert_eq!(b.rows_done, b.rows_total, "{policy}: {b:?}");
        assert!(b.started_ms.unwrap() >= 100.0);
        assert!(b.duration_ms.unwrap() > 0.0);
        // One read of each survivor and one spare write per row.
        for (i, m) in a.members.iter().enumerate() {
            let want = match i {
                3 => (0, 0),
                5 => (0, b.rows_total),
                _ => (b.rows_total, 0),
            };
            assert_eq!((m.rebuild_reads, m.rebuild_writes), want, "{policy}: {m:?}");
        }
    }
}

#[test]
fn scrub_reads_every_row_of_every_member() {
    let arr = "level = \"raid1\"\nmembers = [\"d0\", \"d1\"]\nstripe_unit_sectors = 1024\n\
               member_sectors = 65536\n\
               scrub = { policy = \"rate\", rate_mb_s = 200.0 }";
    let r = run(&system_of("dec_rz26", 2, arr, &open(50, 8, 0.5)));
    let b = volume(&r).scrub.clone().expect("scrub");
    assert_eq!((b.rows_done, b.rows_total), (64, 64));
    for m in &volume(&r).members {
        assert_eq!(m.scrub_reads, b.rows_total);
    }
}

#[test]
fn mirrored_reads_follow_the_policy() {
    let arr = |policy: &str| {
        format!("level = \"raid1\"\nmembers = [\"d0\", \"d1\"]\nmirror_read = \"{policy}\"")
    };
    let r = run(&system(2, &arr("primary"), &open(100, 8, 1.0)));
    let m = &volume(&r).members;
    assert_eq!((m[0].reads, m[1].reads), (100, 0));
    let r = run(&system(2, &arr("round-robin"), &open(100, 8, 1.0)));
    let m = &volume(&r).members;
    assert_eq!((m[0].reads, m[1].reads), (50, 50));
    for p in ["fastest", "shortest-queue"] {
        let r = run(&system(2, &arr(p), &open(100, 8, 1.0)));
        let m = &volume(&r).members;
        assert_eq!(m[0].reads + m[1].reads, 100);
    }
}

#[test]
fn array_runs_are_deterministic() {
    let arr = format!("{RAID5}\nmember_sectors = 65536\nspare = \"d5\"\nfailure = {{ member = \"d0\", at_ms = 100.0 }}\nrebuild = {{ policy = \"idle\", idle_ms = 2.0 }}");
    let t = system_of("dec_rz26", 6, &arr, &open(150, 16, 0.5));
    let (a, b) = (run(&t), run(&t));
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.end_ns, b.end_ns);
}

#[test]
fn bad_arrays_get_keyed_errors() {
    let cases: [(&str, usize, &str); 9] = [
        ("level = \"raid5\"\nmembers = [\"d0\", \"d1\"]", 2, "arrays[0].members"),
        ("level = \"raid6\"\nmembers = [\"d0\", \"d1\", \"d2\"]", 3, "raid6 needs at least 4"),
        ("level = \"raid10\"\nmembers = [\"d0\", \"d1\", \"d2\"]", 3, "multiple of 2"),
        ("level = \"raid7\"\nmembers = [\"d0\", \"d1\"]", 2, "unknown variant `raid7`"),
        (
            "level = \"raid1\"\nmembers = [\"d0\", \"d1\"]\nfailure = { member = \"d2\", at_ms = 1.0 }",
            3,
            "arrays[0].failure.member",
        ),
        (
            "level = \"raid1\"\nmembers = [\"d0\", \"d1\"]\nfailure = { member = \"d1\", at_ms = 1.0 }\nrebuild = { policy = \"idle\" }",
            2,
            "needs a spare",
        ),
        ("level = \"raid0\"\nmembers = [\"d0\", \"dx\"]", 2, "no device is named `dx`"),
        (
            "level = \"raid0\"\nmembers = [\"d0\", \"d1\"]\nstripe_unit_sectors = 0",
            2,
            "arrays[0].stripe_unit_sectors",
        ),
        (
            "level = \"raid5\"\nmembers = [\"d0\", \"d1\", \"d2\"]\nparity_stripe_unit_sectors = 64",
            3,
            "arrays[0].parity_stripe_unit_sectors",
        ),
    ];
    for (array, n, want) in cases {
        let e = err(&system(n, array, &open(1, 8, 1.0)));
        assert!(e.contains(want), "{array}: {e}");
    }
    // Members of different sizes, found when the drives are built.
    let mut t = system(
        2,
        "level = \"raid1\"\nmembers = [\"d0\", \"d1\"]",
        &open(1, 8, 1.0),
    );
    t = t.replacen("drive = \"atlas10k\"", "drive = \"dec_rz26\"", 1);
    let e = err(&t);
    assert!(
        e.contains("arrays[0].members") && e.contains("same size"),
        "{e}"
    );
    // A workload may not address a member behind the volume's back.
    let t = system(
        2,
        "level = \"raid1\"\nmembers = [\"d0\", \"d1\"]",
        &open(1, 8, 1.0),
    )
    .replace("device = \"vol\"", "device = \"d1\"");
    assert!(err(&t).contains("member of array `vol`"));
}

#[test]
fn example_raid5_runs() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/raid5.toml");
    let cfg = ExperimentConfig::from_toml_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let a = volume(&r);
    assert_eq!(a.requests, r.summary.requests);
    assert!(a.degraded_reads > 0 && a.rmw_writes > 0);
    let b = a.rebuild.as_ref().unwrap();
    assert_eq!(b.rows_done, b.rows_total);
}

#[test]
fn the_one_workload_form_addresses_the_first_volume() {
    // The Python `Result.arrays` example, as TOML.
    let mut t = String::new();
    for i in 0..5 {
        t += &format!("[[devices]]\nname = \"d{i}\"\ndrive = \"atlas10k\"\n\n");
    }
    t += "[[arrays]]\nname = \"vol\"\nlevel = \"raid5\"\n\
          members = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\"]\n\n\
          [workload]\nrequests = 20\nread_fraction = 0.0\nsize_sectors = 8\nalign_sectors = 8\n";
    let r = run(&t);
    let a = volume(&r);
    assert_eq!(
        (a.requests, a.member_reads, a.member_writes, a.rmw_writes),
        (20, 40, 40, 20)
    );
}

#[test]
fn raid6_raid10_and_raid4_member_io_counts() {
    // RAID 6 on 6 members (4 data): a one-unit write ties, 6 I/Os by RMW (3 reads, 3 writes).
    let six = "level = \"raid6\"\nmembers = [\"d0\", \"d1\", \"d2\", \"d3\", \"d4\", \"d5\"]\n\
               stripe_unit_sectors = 16";
    let r = run(&system(6, six, &open(50, 8, 0.0)));
    let a = volume(&r);
    assert_eq!(
        (a.member_reads, a.member_writes, a.parity_ios),
        (150, 150, 200)
    );
    // RAID 10 over two mirrored pairs: every write on both copies, every read on one.
    let ten =
        "level = \"raid10\"\nmembers = [\"d0\", \"d1\", \"d2\", \"d3\"]\nstripe_unit_sectors = 16";
    let r = run(&system(4, ten, &open(100, 8, 0.5)));
    let a = volume(&r);
    assert_eq!(a.member_reads + a.member_writes / 2, 100);
    assert_eq!(a.member_writes % 2, 0);
    // RAID 4: parity always on the last member.
    let four =
        "level = \"raid4\"\nmembers = [\"d0\", \"d1\", \"d2\", \"d3\"]\nstripe_unit_sectors = 16";
    let r = run(&system(4, four, &open(60, 8, 0.0)));
    let a = volume(&r);
    assert_eq!((a.members[3].parity_ios, a.parity_ios), (120, 120));
}

#[test]
fn rmw_fraction_is_disksims_breakpoint() {
    // Two of four units written: 0.5 of the row. Below a 0.6 breakpoint: RMW; at 0.5 not.
    let wl = open(40, 32, 0.0);
    for (fraction, rmw) in [(0.6, 40), (0.5, 0)] {
        let arr = format!("{RAID5}\nrmw_fraction = {fraction}");
        let a = run(&system(5, &arr, &wl)).arrays[0].clone();
        assert_eq!(a.rmw_writes, rmw, "{fraction}");
        assert_eq!(a.rmw_writes + a.reconstruct_writes, 40);
    }
}

#[test]
fn disksims_small_writes_need_its_breakpoint() {
    let e = err(&system(
        5,
        &format!("{RAID5}\ndisksim_small_writes = true"),
        &open(1, 8, 0.0),
    ));
    assert!(e.contains("disksim_small_writes"), "{e}");
    assert!(e.contains("needs rmw_fraction"), "{e}");
}

#[test]
fn array_errors_name_the_file_and_line() {
    let t = system(
        2,
        "level = \"raid5\"\nmembers = [\"d0\", \"d1\"]",
        &open(1, 8, 1.0),
    );
    let line = t.lines().position(|l| l.starts_with("members")).unwrap() + 1;
    let e = ExperimentConfig::from_toml_str(&t, Some(std::path::Path::new("raid.toml")))
        .expect_err("two-member RAID 5")
        .to_string();
    assert!(e.contains(&format!("raid.toml:{line}")), "{e}");
    assert!(e.contains("raid5 needs at least 3 members"), "{e}");
}
