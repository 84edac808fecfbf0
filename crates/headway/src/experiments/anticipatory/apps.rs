//! The anticipatory paper's application experiments (spec experiments 9–12 and the
//! Apache / TPC-B parts of 14) on the `kind = "app"` stand-ins: Andrew-like clients, a
//! web server in read and mmap mode, one and two linker instances, TPC-B-like clients in
//! the paper's variants, each without anticipation, with the paper's cost-benefit
//! heuristic and with the Linux-era baselines.

use serde::Serialize;

use super::andrew_phases::{self, PhaseRow, PHASE_NAMES};
use super::options::{ReproduceOptions, HEURISTICS};
use super::runs::run;
use crate::error::Result;

#[derive(Clone, Debug, Serialize)]
pub struct AppRow {
    pub drive: String,
    /// "andrew", "andrew-scan", "web-read", "web-mmap", "web-mixed", "linker", "tpcb-1" …
    /// "tpcb-4", and
    /// the process-count sweep's "web-read-processes", "web-mmap-processes".
    pub experiment: String,
    pub scheduler: String,
    pub heuristic: String,
    /// Clients (processes, instances).
    pub clients: u32,
    /// Makespan: the time the last client finished.
    pub elapsed_s: f64,
    /// Application operations (files, transactions) per second over all clients.
    pub ops_per_s: f64,
    pub throughput_mb_s: f64,
    pub mean_response_ms: f64,
}

/// The TPC-B variants, numbered as in the spec: (update, separate databases).
pub(crate) const TPCB_VARIANTS: [(bool, bool); 4] =
    [(true, false), (true, true), (false, false), (false, true)];

/// The heuristic column of the web server in read mode with the large-read flag ignored.
pub(crate) const UNFLAGGED: &str = "cost-benefit-unflagged";

/// One client: its app, region and operations.
struct Client {
    app: &'static str,
    fs: Option<&'static str>,
    /// The web server's mixed configuration: files above this are read in read mode.
    mmap_limit_bytes: Option<u64>,
    start: f64,
    size: f64,
    ops: u64,
}

fn config(
    drive: &str,
    sched: &str,
    heuristic: &str,
    think_scale: f64,
    clients: &[Client],
    seed: u64,
) -> String {
    // `UNFLAGGED`: the paper's heuristic with the large-read flag ignored.
    let (heuristic, extra) = match heuristic {
        UNFLAGGED => ("cost-benefit", "large_read_flag = false\n"),
        h => (h, ""),
    };
    let mut t = format!(
        "seed = {seed}\n[[devices]]\nname = \"disk\"\ndrive = \"{drive}\"\n[host]\nscheduler = \"anticipatory\"\n\
         [host.options]\nheuristic = \"{heuristic}\"\n{extra}[host.inner]\nscheduler = \"{sched}\"\n"
    );
    for c in clients {
        t += &format!(
            "[[workloads]]\nkind = \"app\"\napp = \"{}\"\nrequests = {}\nthink_scale = {think_scale:?}\n{}{}\
             region = {{ start_fraction = {}, size_fraction = {} }}\n",
            c.app,
            c.ops,
            c.fs.map_or(String::new(), |f| format!("fs = \"{f}\"\n")),
            c.mmap_limit_bytes
                .map_or(String::new(), |b| format!("mmap_limit_bytes = {b}\n")),
            c.start,
            c.size
        );
    }
    t
}

/// `processes` web-server processes in `fs` mode, `ops` files each; `fs = "mixed"` is
/// mmap with files above `mmap_limit_bytes` read in read mode.
fn web(fs: &'static str, processes: u32, ops: u64, mmap_limit_bytes: u64) -> Vec<Client> {
    let (fs, limit) = match fs {
        "mixed" => ("mmap", Some(mmap_limit_bytes)),
        f => (f, None),
    };
    (0..processes)
        .map(|_| Client {
            app: "web",
            fs: Some(fs),
            mmap_limit_bytes: limit,
            start: 0.0,
            size: 1.0,
            ops,
        })
        .collect()
}

/// Each experiment's clients on a drive (`fast`: the faster platform, shorter thinktimes).
fn experiments(o: &ReproduceOptions, fast: bool) -> Vec<(String, Vec<&'static str>, Vec<Client>)> {
    let n = o.app_operations;
    let mut out = vec![];
    let aged = vec!["aged-sptf"];
    if !fast {
        for (name, app, k) in [
            ("andrew", "andrew", 2),
            ("andrew-scan", "andrew-scan", 1),
            ("andrew-scan", "andrew-scan", 2),
        ] {
            let clients = (0..k)
                .map(|i| Client {
                    app,
                    fs: None,
                    mmap_limit_bytes: None,
                    start: 0.1 + 0.4 * i as f64,
                    size: 0.05,
                    ops: n,
                })
                .collect();
            out.push((name.to_string(), aged.clone(), clients));
        }
        for k in [1, 2] {
            let clients = (0..k)
                .map(|i| Client {
                    app: "linker",
                    fs: None,
                    mmap_limit_bytes: None,
                    start: 0.25 + 0.4 * i as f64,
                    size: 0.05,
                    ops: n,
                })
                .collect();
            out.push(("linker".to_string(), vec!["aged-sptf", "cscan"], clients));
        }
    }
    // The mixed configuration (Apache's default) on the IDE platform, as in the paper.
    let modes: &[&'static str] = if fast {
        &["read", "mmap"]
    } else {
        &["read", "mmap", "mixed"]
    };
    for &fs in modes {
        out.push((
            format!("web-{fs}"),
            aged.clone(),
            web(fs, o.web_processes, n, o.web_mmap_limit_bytes),
        ));
    }
    for (v, (update, separate)) in TPCB_VARIANTS.iter().enumerate() {
        let app = if *update {
            "tpcb-update"
        } else {
            "tpcb-select"
        };
        let k = o.tpcb_clients;
        let clients = (0..k)
            .map(|i| {
                let (start, size) = if *separate {
                    (0.05 + 0.9 * i as f64 / k as f64, 0.02)
                } else {
                    (0.3, 0.08)
                };
                Client {
                    app,
                    fs: None,
                    mmap_limit_bytes: None,
                    start,
                    size,
                    ops: n * 4,
                }
            })
            .collect();
        out.push((format!("tpcb-{}", v + 1), aged.clone(), clients));
    }
    out
}

/// The application rows, and the Andrew runs' time per phase.
pub(crate) fn apps(
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<(Vec<AppRow>, Vec<PhaseRow>)> {
    let mut rows = vec![];
    let mut phases = vec![];
    let mut push = |drive: &str,
                    name: &str,
                    sched: &str,
                    h: &str,
                    clients: &[Client],
                    s: crate::stats::Summary| {
        let ops: u64 = clients.iter().map(|c| c.ops).sum();
        rows.push(AppRow {
            drive: drive.into(),
            experiment: name.into(),
            scheduler: sched.into(),
            heuristic: h.into(),
            clients: clients.len() as u32,
            elapsed_s: s.elapsed_s,
            ops_per_s: ops as f64 / s.elapsed_s.max(1e-12),
            throughput_mb_s: s.throughput_mb_s,
            mean_response_ms: s.response.mean_ms,
        });
    };
    for (drive, fast) in [(o.drive.as_str(), false), (o.fast_drive.as_str(), true)] {
        let think_scale = if fast { o.fast_think_scale } else { 1.0 };
        for (name, scheds, clients) in experiments(o, fast) {
            for sched in scheds {
                let unflagged = name == "web-read";
                for &h in HEURISTICS.iter().chain(unflagged.then_some(&UNFLAGGED)) {
                    progress(&format!(
                        "apps {drive} {name} x{} {sched} {h}",
                        clients.len()
                    ))?;
                    let text = config(drive, sched, h, think_scale, &clients, o.seed);
                    let s = if name == "andrew" {
                        let k = clients.len() as u32;
                        let (s, times) = andrew_phases::run(&text, k, o.app_operations)?;
                        phases.extend(PHASE_NAMES.iter().zip(times).map(|(p, t)| PhaseRow {
                            drive: drive.into(),
                            scheduler: sched.into(),
                            heuristic: h.into(),
                            clients: k,
                            phase: p.to_string(),
                            time_s: t,
                        }));
                        s
                    } else {
                        run(&text)?
                    };
                    push(drive, &name, sched, h, &clients, s);
                }
            }
        }
    }
    // The process-count sweep: the web server's gain turns with the number of processes.
    for fs in ["read", "mmap"] {
        for &k in &o.web_process_sweep {
            let clients = web(fs, k, o.app_operations, o.web_mmap_limit_bytes);
            let name = format!("web-{fs}-processes");
            for h in ["off", "cost-benefit"] {
                progress(&format!("apps {} {name} x{k} {h}", o.drive))?;
                let s = run(&config(&o.drive, "aged-sptf", h, 1.0, &clients, o.seed))?;
                push(&o.drive, &name, "aged-sptf", h, &clients, s);
            }
        }
    }
    Ok((rows, phases))
}

/// The application experiments' numbers compared with the paper.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AppHeadline {
    /// Andrew, 2 clients: fractional reduction of the total time with anticipation (paper:
    /// 8%), of the scan phase's time (paper: 54%), and of the scan with 1 client (paper: none).
    pub andrew_time_reduction: f64,
    pub andrew_scan_time_reduction: f64,
    pub andrew_scan_time_reduction_1client: f64,
    /// Web server: throughput gain with anticipation, read mode (paper: 29%) and mmap mode
    /// (paper: 71%).
    pub apache_read_gain: f64,
    pub apache_mmap_gain: f64,
    /// The mixed configuration (Apache's default: mmap up to `web_mmap_limit_bytes`, read
    /// above; paper: between the read and mmap gains).
    pub apache_mixed_gain: f64,
    /// Andrew, 2 clients: each phase's time reduction with anticipation (mean over the
    /// clients of each client's phase time; paper: scan 54%, the others small, gcc slightly
    /// slower), and the clients' mean total.
    pub andrew_mkdir_time_reduction: f64,
    pub andrew_cp_time_reduction: f64,
    pub andrew_stat_time_reduction: f64,
    pub andrew_scan_phase_time_reduction: f64,
    pub andrew_gcc_time_reduction: f64,
    pub andrew_total_time_reduction: f64,
    /// The read-mode gain when the core ignores the large-read flag (every chunk a sample).
    pub apache_read_gain_unflagged: f64,
    /// Linker: time of 2 instances over 1 instance (paper: far above 2 without
    /// anticipation, about 2 with it under aged SPTF, above that under C-SCAN).
    pub linker_two_over_one_original: f64,
    pub linker_two_over_one_anticipatory: f64,
    pub linker_two_over_one_cscan_anticipatory: f64,
    /// TPC-B: transactions/s gain per variant 1–4 (paper: from 2% for update / one
    /// database up to 60% for select / separate databases).
    pub tpcb_gain: [f64; 4],
    /// The faster platform: web server and TPC-B variant 4 gains (paper: positive, Apache's
    /// smaller than on the IDE disk).
    pub fast_drive_apache_read_gain: f64,
    pub fast_drive_apache_mmap_gain: f64,
    pub fast_drive_tpcb_gain: [f64; 4],
    /// The web server's gains at the process-count sweep's fewest processes (the first of
    /// `web_process_sweep`; NaN without a sweep).
    pub apache_read_gain_fewest_processes: f64,
    pub apache_mmap_gain_fewest_processes: f64,
}

pub(crate) fn headline(rows: &[AppRow], phases: &[PhaseRow], o: &ReproduceOptions) -> AppHeadline {
    let phase = |p: &str, h: &str| {
        phases
            .iter()
            .find(|r| {
                r.drive == o.drive && r.scheduler == "aged-sptf" && r.heuristic == h && r.phase == p
            })
            .map_or(f64::NAN, |r| r.time_s)
    };
    let phase_reduction = |p: &str| 1.0 - phase(p, "cost-benefit") / phase(p, "off");
    let get = |drive: &str, exp: &str, sched: &str, h: &str, clients: Option<u32>| {
        rows.iter()
            .find(|r| {
                r.drive == drive
                    && r.experiment == exp
                    && r.scheduler == sched
                    && r.heuristic == h
                    && clients.is_none_or(|c| r.clients == c)
            })
            .map_or(f64::NAN, |r| r.elapsed_s)
    };
    let d = o.drive.as_str();
    let f = o.fast_drive.as_str();
    let reduction = |exp: &str, c: Option<u32>| {
        1.0 - get(d, exp, "aged-sptf", "cost-benefit", c) / get(d, exp, "aged-sptf", "off", c)
    };
    // Same work both ways, so the throughput gain is the ratio of times.
    let gain = |drive: &str, exp: &str| {
        get(drive, exp, "aged-sptf", "off", None)
            / get(drive, exp, "aged-sptf", "cost-benefit", None)
            - 1.0
    };
    let linker = |sched: &str, h: &str| {
        get(d, "linker", sched, h, Some(2)) / get(d, "linker", sched, h, Some(1))
    };
    let fewest = |fs: &str| {
        let k = o.web_process_sweep.first().copied();
        let exp = format!("web-{fs}-processes");
        get(d, &exp, "aged-sptf", "off", k) / get(d, &exp, "aged-sptf", "cost-benefit", k) - 1.0
    };
    let tpcb = |drive: &str| std::array::from_fn(|v| gain(drive, &format!("tpcb-{}", v + 1)));
    AppHeadline {
        andrew_time_reduction: reduction("andrew", None),
        andrew_scan_time_reduction: reduction("andrew-scan", Some(2)),
        andrew_scan_time_reduction_1client: reduction("andrew-scan", Some(1)),
        apache_read_gain: gain(d, "web-read"),
        apache_mmap_gain: gain(d, "web-mmap"),
        apache_mixed_gain: gain(d, "web-mixed"),
        andrew_mkdir_time_reduction: phase_reduction("mkdir"),
        andrew_cp_time_reduction: phase_reduction("cp"),
        andrew_stat_time_reduction: phase_reduction("stat"),
        andrew_scan_phase_time_reduction: phase_reduction("scan"),
        andrew_gcc_time_reduction: phase_reduction("gcc"),
        andrew_total_time_reduction: phase_reduction("total"),
        apache_read_gain_unflagged: get(d, "web-read", "aged-sptf", "off", None)
            / get(d, "web-read", "aged-sptf", UNFLAGGED, None)
            - 1.0,
        linker_two_over_one_original: linker("aged-sptf", "off"),
        linker_two_over_one_anticipatory: linker("aged-sptf", "cost-benefit"),
        linker_two_over_one_cscan_anticipatory: linker("cscan", "cost-benefit"),
        tpcb_gain: tpcb(d),
        fast_drive_apache_read_gain: gain(f, "web-read"),
        fast_drive_apache_mmap_gain: gain(f, "web-mmap"),
        fast_drive_tpcb_gain: tpcb(f),
        apache_read_gain_fewest_processes: fewest("read"),
        apache_mmap_gain_fewest_processes: fewest("mmap"),
    }
}
