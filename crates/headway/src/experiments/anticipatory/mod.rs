//! The anticipatory-scheduling paper's evaluation (Iyer and Druschel, SOSP 2001), on the
//! stand-in for its 7200 RPM IBM IDE disk (the catalog's 7200 RPM IBM Ultrastar 18ES) and a
//! faster drive (the catalog's 10K RPM Atlas 10K: the catalog has no 15K drive):
//!
//! * the motivating example and access-pattern microbenchmark (spec experiments 1 and 3):
//!   two synchronous readers, each in its own file (1/4 and 2/3 into the disk), patterns
//!   seq / alter / random in "mmap" mode (4 KiB page faults, no prefetch);
//! * the thinktime sweeps (experiment 4): symmetric, asymmetric (one reader with no think
//!   time) and random (uniform on [0, 2T]);
//! * the adversary (experiment 5): N rapid reads then a fixed pause, and the adaptive
//!   adversary (`adversary.rs`) whose pause is just past the timeout the core set for it;
//! * timer granularity (experiment 8), at 1 ms thinktime and on the adaptive adversary;
//! * the faster drive (experiment 14) on the patterns.
//!
//! Every table runs each wrapped scheduler without anticipation (`heuristic = "off"`, the
//! wrapper then transparent), with the paper's cost-benefit heuristic, and with the
//! Linux-era baselines (as-iosched's `antic_expire`, CFQ's `slice_idle`).

use serde::Serialize;

mod adversary;
pub mod andrew_phases;
pub mod apps;
mod on_paper_hw;
mod options;
mod runs;
pub(crate) mod sensitivity;

use super::interface_note::InterfaceNote;
use crate::config::{build_simulation, ExperimentConfig};
use crate::error::Result;
use crate::stats::Summary;
use adversary::AdversaryHeadline;
use andrew_phases::PhaseRow;
use apps::{AppHeadline, AppRow};
pub use options::{ReproduceOptions, CAPPED, FS_MODES, HEURISTICS, PATTERNS, SCHEDULERS};
pub use runs::SweepRow;
use runs::{config, fixed, on_device, run, two};

#[derive(Clone, Debug, Serialize)]
pub struct PatternRow {
    pub drive: String,
    pub pattern: String,
    /// File-system model: "mmap" (no prefetch) or "read" (sequential read-ahead).
    pub fs: String,
    pub scheduler: String,
    pub heuristic: String,
    pub throughput_mb_s: f64,
    pub utilisation: f64,
    pub mean_response_ms: f64,
}

/// Proportional share: one configuration's per-process service.
#[derive(Clone, Debug, Serialize)]
pub struct ShareRow {
    /// "original" (stride, no anticipation), "stride" (stride heuristic), "combination"
    /// (relaxed stride with the combination heuristic), "cost-benefit" (relaxed stride
    /// with the SPTF heuristic alone).
    pub config: String,
    pub share_low_busy_s: f64,
    pub share_high_busy_s: f64,
    /// Service (disk busy time) of the higher-share process over the lower's.
    pub service_ratio: f64,
    pub throughput_mb_s: f64,
    pub throughput_iops: f64,
    /// R_v of the relaxed stride (ms of normalised service; 0 for strict stride).
    pub relax_ms: f64,
}

/// Proportional share over time (the paper's Figures 1 and 2): each client's cumulative
/// service (disk busy time) at evenly spaced moments while both are active.
#[derive(Clone, Debug, Serialize)]
pub struct ServicePoint {
    pub config: String,
    pub t_s: f64,
    pub share_low_service_s: f64,
    pub share_high_service_s: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Headline {
    /// Two sequential synchronous readers, mmap mode, aged SPTF: throughput with the
    /// cost-benefit heuristic over without (paper: about 4).
    pub seq_mmap_speedup: f64,
    /// Mean fractional throughput loss over the adversary sweep (paper: small).
    pub adversary_slowdown: f64,
    pub adversary_worst_slowdown: f64,
    /// Achieved service ratio (higher share over lower) for shares 1:2 without
    /// anticipation (paper: about 1) and with the combination heuristic (paper: 2); total
    /// throughput with the combination heuristic over the stride heuristic alone.
    pub prop_share_ratio_original: Option<f64>,
    pub prop_share_ratio_stride: Option<f64>,
    pub prop_share_ratio_combination: Option<f64>,
    pub prop_share_throughput_gain_combination: Option<f64>,
    pub alter_mmap_speedup: f64,
    pub random_mmap_speedup: f64,
    pub fast_drive_seq_mmap_speedup: f64,
    pub seq_mmap_speedup_linux_as: f64,
    pub seq_mmap_speedup_slice_idle: f64,
    /// "read" mode (file-system read-ahead): with / without anticipation (paper: near full
    /// bandwidth both ways, AS slightly better), alter (prefetch defeated), and the
    /// original's read-mode throughput over its mmap-mode throughput.
    pub seq_read_speedup: f64,
    pub alter_read_speedup: f64,
    pub seq_read_over_mmap_original: f64,
    /// The application stand-ins (Andrew, Apache, linker, TPC-B).
    #[serde(flatten)]
    pub apps: AppHeadline,
    /// The adaptive adversary and the timer granularity on it.
    #[serde(flatten)]
    pub adaptive_adversary: AdversaryHeadline,
    /// The two sequential readers (mmap, aged SPTF, cost-benefit) on the headline's
    /// interface, and on the paper's with the speedup there (`None`: not run).
    pub seq_mmap_mb_s: f64,
    pub paper_interface_seq_mmap_mb_s: Option<f64>,
    pub paper_interface_seq_mmap_speedup: Option<f64>,
    /// The bus-speed sweep's fastest bus (the last of `bus_sector_ms`): the seq and alter
    /// mmap speedups there (`None`: no sweep).
    pub seq_mmap_speedup_fastest_bus: Option<f64>,
    pub alter_mmap_speedup_fastest_bus: Option<f64>,
    /// The headline's two-reader pairs (aged SPTF, mmap, cost-benefit over none) on the
    /// paper's own platforms ([`options::PAPER_HW`], [`options::PAPER_HW_FAST`]), which
    /// `paper_hw` names.
    pub paper_hw: String,
    pub seq_mmap_mb_s_paper_hw: f64,
    pub seq_mmap_speedup_paper_hw: f64,
    pub alter_mmap_speedup_paper_hw: f64,
    pub fast_drive_seq_mmap_speedup_paper_hw: f64,
    #[serde(flatten)]
    pub bus: InterfaceNote,
}

/// The stand-in drive's validated bus caps a reader at about 5 MB/s; the paper's disk was
/// on ATA-100.
const INTERFACE: InterfaceNote = InterfaceNote {
    interface: "validated",
    paper_interface: options::PAPER_INTERFACE,
    interface_why: "the IBM 18ES stands in for the paper's IBM 7200 RPM IDE disk with \
        DiskSim's validated parameters, whose bus (0.101 ms a sector, about 5 MB/s) caps a \
        sequential reader; the paper's disk was on ATA-100 (Ultra DMA mode 5), so the \
        sequential pair is also run behind that interface (paper_interface_* keys)",
};

#[derive(Clone, Debug, Serialize)]
pub struct Reproduction {
    pub shares: Vec<ShareRow>,
    pub service: Vec<ServicePoint>,
    pub apps: Vec<AppRow>,
    /// The Andrew runs' time per phase.
    pub phases: Vec<PhaseRow>,
    pub patterns: Vec<PatternRow>,
    pub sweeps: Vec<SweepRow>,
    pub headline: Headline,
    pub options: ReproduceOptions,
}

pub fn reproduce(
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<Reproduction> {
    let mut patterns = vec![];
    let short = fixed(o.short_think_ms);
    for (drive, scheds) in [
        (o.drive.as_str(), SCHEDULERS),
        (o.fast_drive.as_str(), &SCHEDULERS[..1]),
    ] {
        for (&pattern, fs) in PATTERNS
            .iter()
            .flat_map(|p| FS_MODES.iter().map(move |f| (p, *f)))
        {
            for &sched in scheds {
                for &h in HEURISTICS {
                    progress(&format!("patterns {drive} {pattern} {fs} {sched} {h}"))?;
                    let s = run(&config(
                        drive,
                        sched,
                        h,
                        "",
                        &two(pattern, fs, short.clone(), short.clone()),
                        o,
                    ))?;
                    patterns.push(PatternRow {
                        drive: drive.into(),
                        pattern: pattern.into(),
                        fs: fs.into(),
                        scheduler: sched.into(),
                        heuristic: h.into(),
                        throughput_mb_s: s.throughput_mb_s,
                        utilisation: s.utilisation,
                        mean_response_ms: s.response.mean_ms,
                    });
                }
            }
        }
    }
    let mut sweeps = vec![];
    let mut row = |sweep: &str, x: f64, h: &str, s: &Summary| {
        sweeps.push(SweepRow {
            sweep: sweep.into(),
            x,
            heuristic: h.into(),
            throughput_mb_s: s.throughput_mb_s,
            utilisation: s.utilisation,
        })
    };
    for &t in &o.thinktimes_ms {
        let uniform = format!(
            "think = \"uniform\"\nthink_min_ms = 0.0\nthink_max_ms = {:?}",
            2.0 * t
        );
        for (sweep, a, b) in [
            ("symmetric", fixed(t), fixed(t)),
            ("asymmetric", fixed(0.0), fixed(t)),
            ("random", uniform.clone(), uniform.clone()),
        ] {
            for &h in HEURISTICS {
                progress(&format!("{sweep} T={t} ms {h}"))?;
                let s = run(&config(
                    &o.drive,
                    "aged-sptf",
                    h,
                    "",
                    &two("seq", "mmap", a.clone(), b.clone()),
                    o,
                ))?;
                row(sweep, t, h, &s);
            }
        }
    }
    for &n in &o.bursts {
        // The mitigation of spec §7: the paper's heuristic with a cap on the expiry rate.
        let capped = format!("max_expiry_rate = {:?}", o.max_expiry_rate);
        let variants = HEURISTICS.iter().map(|&h| (h, h, "")).chain([(
            CAPPED,
            "cost-benefit",
            capped.as_str(),
        )]);
        for (label, h, extra) in variants {
            progress(&format!("adversary N={n} {label}"))?;
            let mut readers = two("seq", "mmap", fixed(0.0), fixed(0.0));
            for r in &mut readers {
                r.extra = format!("burst = {n}\nburst_pause_ms = {:?}", o.burst_pause_ms);
            }
            let s = run(&config(&o.drive, "aged-sptf", h, extra, &readers, o))?;
            row("adversary", n as f64, label, &s);
        }
    }
    for &g in &o.granularities_us {
        progress(&format!("granularity {g} us"))?;
        let s = run(&config(
            &o.drive,
            "aged-sptf",
            "cost-benefit",
            &format!("timer_granularity_us = {g:?}"),
            &two("seq", "mmap", fixed(1.0), fixed(1.0)),
            o,
        ))?;
        row("granularity", g, "cost-benefit", &s);
    }
    sweeps.extend(adversary::sweeps(o, progress)?);
    sweeps.extend(sensitivity::sweeps(o, progress)?);
    let (shares, service) = proportional_share(o, progress)?;
    let (apps, phases) = apps::apps(o, progress)?;
    let mut headline = headline(&patterns, &sweeps, &shares, o);
    headline.apps = apps::headline(&apps, &phases, o);
    headline.adaptive_adversary = adversary::headline(&sweeps, o);
    if let Some(iface) = &o.paper_interface {
        let mut mb_s = |h: &str| -> Result<f64> {
            progress(&format!(
                "patterns {} seq mmap aged-sptf {h} on {iface}",
                o.drive
            ))?;
            let readers = two("seq", "mmap", short.clone(), short.clone());
            let text = config(&o.drive, "aged-sptf", h, "", &readers, o);
            let text = on_device(&text, &format!("interface = \"{iface}\""));
            Ok(run(&text)?.throughput_mb_s)
        };
        let (off, on) = (mb_s("off")?, mb_s("cost-benefit")?);
        headline.paper_interface_seq_mmap_mb_s = Some(on);
        headline.paper_interface_seq_mmap_speedup = Some(on / off);
    }
    on_paper_hw::headline(&mut headline, &short, o, progress)?;
    Ok(Reproduction {
        shares,
        service,
        apps,
        phases,
        patterns,
        sweeps,
        headline,
        options: o.clone(),
    })
}

/// Two synchronous clients doing random record reads, each in its own database (the
/// TPC-B "select, separate databases" stand-in), with shares 1:2.
fn proportional_share(
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<(Vec<ShareRow>, Vec<ServicePoint>)> {
    let mut rows = vec![];
    let mut service = vec![];
    let configs = [
        ("original", "off", 0.0),
        ("stride", "stride", 0.0),
        ("combination", "combination", o.prop_relax_ms),
        ("cost-benefit", "cost-benefit", o.prop_relax_ms),
    ]
    .into_iter()
    .chain(
        o.relax_sweep_ms
            .iter()
            .map(|&r| ("combination-rv", "combination", r)),
    );
    for (name, heuristic, relax) in configs {
        progress(&format!("proportional share {name} R_v={relax} ms"))?;
        let mut text = format!(
            "seed = {}\n[[devices]]\nname = \"disk\"\ndrive = \"{}\"\n[host]\nscheduler = \"anticipatory\"\n\
             [host.options]\nheuristic = \"{heuristic}\"\nrelax_ms = {:?}\n\
             [host.inner]\nscheduler = \"stride\"\n[host.inner.options]\nrelax_ms = {relax:?}\n",
            o.seed,
            o.drive,
            if name == "combination-rv" { relax } else { o.prop_relax_ms }
        );
        for (start, share) in [(0.25, o.prop_shares[0]), (0.65, o.prop_shares[1])] {
            text += &format!(
                "[[workloads]]\nkind = \"sync\"\nrequests = {}\nsize_sectors = {}\npattern = \"random\"\n\
                 think_ms = {:?}\nshare = {share:?}\nregion = {{ start_fraction = {start}, size_fraction = 0.1 }}\n",
                o.requests, o.page_sectors, o.prop_think_ms
            );
        }
        let w = run_window(&text)?;
        if name != "combination-rv" {
            service.extend(w.series.iter().map(|&[t_s, low, high]| ServicePoint {
                config: name.into(),
                t_s,
                share_low_service_s: low,
                share_high_service_s: high,
            }));
        }
        rows.push(ShareRow {
            config: name.into(),
            share_low_busy_s: w.busy_s[0],
            share_high_busy_s: w.busy_s[1],
            service_ratio: w.busy_s[1] / w.busy_s[0],
            throughput_mb_s: w.throughput_mb_s,
            throughput_iops: w.throughput_iops,
            relax_ms: relax,
        });
    }
    Ok((rows, service))
}

/// Service and throughput while both clients are active: up to the moment the first one
/// has issued all its reads (after that the other runs alone, which would pull the ratio
/// towards the ratio of request counts).
struct Window {
    busy_s: [f64; 2],
    throughput_mb_s: f64,
    throughput_iops: f64,
    /// `[t_s, cumulative service of client 0, of client 1]` at `SERVICE_POINTS` moments.
    series: Vec<[f64; 3]>,
}

const SERVICE_POINTS: u64 = 40;

fn run_window(text: &str) -> Result<Window> {
    let cfg = ExperimentConfig::from_toml_str(&format!("{text}[output]\nrecords = true\n"), None)?;
    let r = build_simulation(&cfg, None)?.simulation.run()?;
    let rec = r.records.expect("records were asked for");
    let last_done = |p: u32| {
        (0..rec.len())
            .filter(|&i| rec.process[i] == p)
            .map(|i| rec.done_ns[i])
            .max()
            .unwrap_or(0)
    };
    let end = last_done(0).min(last_done(1));
    let mut busy_s = [0.0; 2];
    let (mut sectors, mut requests) = (0u64, 0u64);
    for i in (0..rec.len()).filter(|&i| rec.done_ns[i] <= end) {
        if let Some(b) = busy_s.get_mut(rec.process[i] as usize) {
            *b += (rec.done_ns[i] - rec.start_ns[i]) as f64 / 1e9;
        }
        sectors += rec.sectors[i] as u64;
        requests += 1;
    }
    let secs = end.max(1) as f64 / 1e9;
    let mut order: Vec<usize> = (0..rec.len()).filter(|&i| rec.done_ns[i] <= end).collect();
    order.sort_by_key(|&i| rec.done_ns[i]);
    let mut series = vec![];
    let mut cum = [0.0; 2];
    let mut next = order.iter().peekable();
    for k in 1..=SERVICE_POINTS {
        let t = end / SERVICE_POINTS * k;
        while let Some(&&i) = next.peek() {
            if rec.done_ns[i] > t {
                break;
            }
            if let Some(c) = cum.get_mut(rec.process[i] as usize) {
                *c += (rec.done_ns[i] - rec.start_ns[i]) as f64 / 1e9;
            }
            next.next();
        }
        series.push([t as f64 / 1e9, cum[0], cum[1]]);
    }
    Ok(Window {
        series,
        busy_s,
        throughput_mb_s: sectors as f64 * 512.0 / 1e6 / secs,
        throughput_iops: requests as f64 / secs,
    })
}

fn headline(
    patterns: &[PatternRow],
    sweeps: &[SweepRow],
    shares: &[ShareRow],
    o: &ReproduceOptions,
) -> Headline {
    let share = |c: &str| shares.iter().find(|r| r.config == c);
    let tp = |drive: &str, pattern: &str, fs: &str, h: &str| {
        patterns
            .iter()
            .find(|r| {
                r.drive == drive
                    && r.pattern == pattern
                    && r.fs == fs
                    && r.scheduler == "aged-sptf"
                    && r.heuristic == h
            })
            .map_or(f64::NAN, |r| r.throughput_mb_s)
    };
    let speedup = |drive: &str, pattern: &str, h: &str| {
        tp(drive, pattern, "mmap", h) / tp(drive, pattern, "mmap", "off")
    };
    let read_speedup = |pattern: &str| {
        tp(&o.drive, pattern, "read", "cost-benefit") / tp(&o.drive, pattern, "read", "off")
    };
    let losses: Vec<f64> = o
        .bursts
        .iter()
        .map(|&n| {
            let at = |h: &str| {
                sweeps
                    .iter()
                    .find(|r| r.sweep == "adversary" && r.x == n as f64 && r.heuristic == h)
                    .map_or(f64::NAN, |r| r.throughput_mb_s)
            };
            1.0 - at("cost-benefit") / at("off")
        })
        .collect();
    let fastest_bus = |pattern: &str| {
        let ms = *o.bus_sector_ms.last()?;
        let at = |h: &str| {
            sweeps
                .iter()
                .find(|r| {
                    r.sweep == "bus_sector_ms"
                        && r.x == ms
                        && r.heuristic == format!("{h}-{pattern}")
                })
                .map(|r| r.throughput_mb_s)
        };
        Some(at("cost-benefit")? / at("off")?)
    };
    Headline {
        seq_mmap_speedup: speedup(&o.drive, "seq", "cost-benefit"),
        adversary_slowdown: losses.iter().sum::<f64>() / losses.len().max(1) as f64,
        adversary_worst_slowdown: losses.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        prop_share_ratio_original: share("original").map(|r| r.service_ratio),
        prop_share_ratio_stride: share("stride").map(|r| r.service_ratio),
        prop_share_ratio_combination: share("combination").map(|r| r.service_ratio),
        prop_share_throughput_gain_combination: share("combination")
            .zip(share("stride"))
            .map(|(c, s)| c.throughput_iops / s.throughput_iops),
        alter_mmap_speedup: speedup(&o.drive, "alter", "cost-benefit"),
        random_mmap_speedup: speedup(&o.drive, "random", "cost-benefit"),
        fast_drive_seq_mmap_speedup: speedup(&o.fast_drive, "seq", "cost-benefit"),
        seq_mmap_speedup_linux_as: speedup(&o.drive, "seq", "linux-as"),
        seq_mmap_speedup_slice_idle: speedup(&o.drive, "seq", "slice-idle"),
        seq_read_speedup: read_speedup("seq"),
        alter_read_speedup: read_speedup("alter"),
        seq_read_over_mmap_original: tp(&o.drive, "seq", "read", "off")
            / tp(&o.drive, "seq", "mmap", "off"),
        apps: AppHeadline::default(),
        adaptive_adversary: AdversaryHeadline::default(),
        seq_mmap_mb_s: tp(&o.drive, "seq", "mmap", "cost-benefit"),
        paper_interface_seq_mmap_mb_s: None,
        paper_interface_seq_mmap_speedup: None,
        seq_mmap_speedup_fastest_bus: fastest_bus("seq"),
        alter_mmap_speedup_fastest_bus: fastest_bus("alter"),
        paper_hw: String::new(),
        seq_mmap_mb_s_paper_hw: f64::NAN,
        seq_mmap_speedup_paper_hw: f64::NAN,
        alter_mmap_speedup_paper_hw: f64::NAN,
        fast_drive_seq_mmap_speedup_paper_hw: f64::NAN,
        bus: INTERFACE,
    }
}
