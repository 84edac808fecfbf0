//! The freeblock paper's evaluation (Lumb, Schindler, Ganger, FAST 2002), on the Atlas 10K:
//!
//! * the conservatism sweep: for SSTF, SPTF and SPTF-SW(40%) in the foreground (the OLTP
//!   workload: MPL 10, 30 ms think time, 2:1 reads, exponential sizes in 4 KiB units, uniform
//!   over the disk) with a full-disk scan in the background, foreground and free bandwidth
//!   over `c_fb`, each point against a paired run without free reads (same seed, same
//!   workload, same two-command pipeline);
//! * the foreground-scheduler validation: random 4 KiB reads with a fixed number of requests
//!   in the system, external SSTF / SPTF-SW / SPTF keeping two commands at the drive against
//!   the drive's own SPTF given every request;
//! * the headline at the chosen `c_fb`: free bandwidth, potential free bandwidth (media rate
//!   times the fraction of time in rotational latency, measured on the paired run), the
//!   foreground's response-time increase, scans per day.
//!
//! * prediction-error PDFs (measured minus predicted completion time, completion to
//!   completion, two commands at the drive): small (the OLTP sizes) and large (mean 64 KiB)
//!   requests on the nominal drive, and small requests on a drive with imperfections (seek
//!   jitter, spindle drift, recalibration moves).
//!
//! * external versus firmware: the same planner inside the drive's queue
//!   (`[drive.firmware_freeblock]`, the drive's own SPTF ordering every request, exact
//!   knowledge of the head), with and without the one-request-per-track restriction, over
//!   `c_fb`, beside the external scheduler's free bandwidth (the paper's simulated upper
//!   bound).

pub mod measure;

use super::interface_note::InterfaceNote;
use serde::Serialize;

use crate::config::{build_simulation, ExperimentConfig};
use crate::error::Result;
use crate::sim::RunResult;

/// Foreground schedulers of the sweep, in the paper's order, as (label, `[host.inner]`).
pub(crate) const FOREGROUND: &[(&str, &str)] = &[
    ("sstf", "scheduler = \"sstf\""),
    ("sptf", "scheduler = \"sptf\""),
    (
        "sptf-sw40",
        "scheduler = \"sptf-sw\"\n[host.inner.options]\nwindow_percent = 40.0",
    ),
];

#[derive(Clone, Debug, Serialize)]
pub struct ReproduceOptions {
    pub drive: String,
    pub seed: u64,
    /// Foreground requests per run.
    pub requests: u64,
    pub c_fb_ms: Vec<f64>,
    /// The conservatism the headline is reported at.
    pub chosen_c_fb_ms: f64,
    pub queue_depths: Vec<u32>,
    /// Requests per queue-depth run = this × depth.
    pub requests_per_queued: u64,
}

impl ReproduceOptions {
    pub fn full() -> Self {
        ReproduceOptions {
            drive: "atlas10k".into(),
            seed: 1,
            requests: 20_000,
            c_fb_ms: vec![0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.5],
            chosen_c_fb_ms: 0.2,
            queue_depths: vec![1, 2, 4, 6, 8, 10, 14, 20],
            requests_per_queued: 300,
        }
    }
    pub fn quick() -> Self {
        ReproduceOptions {
            drive: "atlas10k".into(),
            seed: 1,
            requests: 3_000,
            c_fb_ms: vec![0.0, 0.2, 0.6, 1.5],
            chosen_c_fb_ms: 0.2,
            queue_depths: vec![1, 4, 10, 20],
            requests_per_queued: 100,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct SweepRow {
    pub foreground: String,
    pub c_fb_ms: f64,
    pub fg_bandwidth_mb_s: f64,
    pub fg_mean_response_ms: f64,
    /// The paired run without free reads.
    pub paired_fg_bandwidth_mb_s: f64,
    pub paired_fg_mean_response_ms: f64,
    pub fg_response_increase: f64,
    pub free_bandwidth_mb_s: f64,
    pub potential_free_bandwidth_mb_s: f64,
    pub free_reads: u64,
}

impl SweepRow {
    /// The row of run `r` at `c_fb_ms`, beside its paired run without free reads.
    fn measured(
        label: &str,
        c_fb_ms: f64,
        r: &RunResult,
        paired: &RunResult,
        potential_free_bandwidth_mb_s: f64,
    ) -> Self {
        SweepRow {
            foreground: label.into(),
            c_fb_ms,
            fg_bandwidth_mb_s: measure::fg_bandwidth_mb_s(r),
            fg_mean_response_ms: measure::fg_mean_response_ms(r),
            paired_fg_bandwidth_mb_s: measure::fg_bandwidth_mb_s(paired),
            paired_fg_mean_response_ms: measure::fg_mean_response_ms(paired),
            fg_response_increase: measure::fg_response_increase(r, paired),
            free_bandwidth_mb_s: measure::free_bandwidth_mb_s(r),
            potential_free_bandwidth_mb_s,
            free_reads: r.summary.background_requests,
        }
    }
}

/// The paper's interface (Ultra2 Wide SCSI), as an interface profile name.
pub const PAPER_INTERFACE: &str = "ultra2";
/// The paper's interface (Ultra2 Wide SCSI, 80 MB/s): time per 512-byte sector (ms).
pub const PAPER_BUS_SECTOR_MS: f64 = 512.0 / 80e6 * 1e3;

/// The headline's runs again with the drive behind the paper's interface instead of the
/// DiskSim parameters' bus.
#[derive(Clone, Debug, Serialize)]
pub struct BusRow {
    /// `validated` (the parameters' bus), `paper` ([`PAPER_BUS_SECTOR_MS`]) or
    /// `validated-overlap` (external SPTF only, at most 3,000 requests: [`MORE_BUSES`]).
    pub bus: String,
    pub sector_transfer_ms: Option<f64>,
    /// `external-sptf`, `external-sptf-sw40` or `firmware`.
    pub variant: String,
    pub c_fb_ms: f64,
    pub free_bandwidth_mb_s: f64,
    pub potential_free_bandwidth_mb_s: f64,
    pub fg_response_increase: f64,
}

/// One point of the external-versus-firmware figure.
#[derive(Clone, Debug, Serialize)]
pub struct FirmwareRow {
    /// `external-sptf`, `external-sptf-sw40`, `firmware`, `firmware-1-per-track`.
    pub variant: String,
    pub c_fb_ms: f64,
    pub free_bandwidth_mb_s: f64,
    pub potential_free_bandwidth_mb_s: f64,
    pub fg_mean_response_ms: f64,
    pub paired_fg_mean_response_ms: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct QueueRow {
    pub scheduler: String,
    pub queue_depth: u32,
    pub mean_response_ms: f64,
    pub throughput_iops: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Headline {
    pub foreground: String,
    pub c_fb_ms: f64,
    pub free_bandwidth_mb_s: f64,
    pub potential_free_bandwidth_mb_s: f64,
    pub free_fraction_of_potential: f64,
    /// The drive's media bandwidth over the whole disk ([`measure::media_bandwidth_mb_s`])
    /// and the free bandwidth's share of it: the paper's "15% of potential media bandwidth"
    /// has this denominator (not the potential free bandwidth).
    pub media_bandwidth_mb_s: f64,
    pub free_fraction_of_media_bandwidth: f64,
    pub fg_response_increase: f64,
    pub scans_per_day: f64,
    /// The firmware variant (drive's own SPTF, unrestricted) at the same `c_fb`.
    pub firmware_free_bandwidth_mb_s: Option<f64>,
    /// Its potential free bandwidth (on its own foreground, the drive's SPTF over every
    /// request).
    pub firmware_potential_free_bandwidth_mb_s: Option<f64>,
    /// The one-request-per-track firmware variant at the same `c_fb`.
    pub firmware_one_per_track_free_bandwidth_mb_s: Option<f64>,
    /// [TEAM CHOICE] the same external SPTF run with the drive behind the paper's interface
    /// (Ultra2 Wide SCSI, [`PAPER_BUS_SECTOR_MS`] per sector) instead of the DiskSim
    /// parameters' bus: free bandwidth, potential, foreground change.
    pub paper_bus_sector_transfer_ms: f64,
    pub paper_bus_free_bandwidth_mb_s: Option<f64>,
    pub paper_bus_potential_free_bandwidth_mb_s: Option<f64>,
    pub paper_bus_fg_response_increase: Option<f64>,
    pub paper_bus_free_fraction_of_media_bandwidth: Option<f64>,
    pub paper_bus_firmware_free_bandwidth_mb_s: Option<f64>,
    /// The paper's hardware (`paper_hw`: the drive behind the paper's interface) and the
    /// headline's external-SPTF figures on it: the `paper_bus` run, under the `_paper_hw`
    /// names every reproduction shares.
    pub paper_hw: String,
    pub free_bandwidth_mb_s_paper_hw: f64,
    pub fg_response_increase_paper_hw: f64,
    pub free_fraction_of_media_bandwidth_paper_hw: f64,
    /// The headline's interface and the paper's (`paper_bus_*` is that `ultra2` profile).
    #[serde(flatten)]
    pub bus: InterfaceNote,
    /// Disk bandwidth used (foreground + free) over foreground alone.
    pub utilisation_gain: f64,
    /// The headline from outside the firmware as a host can do it: the same external SPTF
    /// run at the same `c_fb`, planned with the calibrated predictor (timing only) instead
    /// of the oracle (the drive's own model, the upper bound above).
    pub free_bandwidth_mb_s_calibrated: f64,
    pub fg_response_increase_calibrated: f64,
    /// Its free bandwidth over the oracle's.
    pub calibrated_fraction_of_oracle: f64,
    /// Share of the small-request reads whose completion came at least half a rotation
    /// after the predictor said (completion to completion, two at the drive: the PDFs'
    /// measure), for the calibrated predictor and for the oracle.
    pub mispredicted_fraction_calibrated: f64,
    pub mispredicted_fraction_oracle: f64,
    pub paper_free_bandwidth_mb_s: f64,
    pub paper_fg_response_increase_below: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct PdfRow {
    pub case: String,
    pub error_ms: f64,
    pub fraction: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct PredictionSummaryRow {
    pub case: String,
    pub commands: u64,
    /// Share within ±0.5 ms of the prediction.
    pub within_half_ms: f64,
    /// Share at least half a rotation (3 ms) late.
    pub late_rotation: f64,
    pub mean_abs_error_ms: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Reproduction {
    pub sweep: Vec<SweepRow>,
    /// The conservatism sweep of external SPTF on the drive with imperfections (seek
    /// jitter, spindle drift, recalibrations: where a margin matters), with the calibrated
    /// predictor (`foreground` = `sptf-calibrated`) and the oracle (`sptf`).
    pub imperfect_sweep: Vec<SweepRow>,
    pub firmware: Vec<FirmwareRow>,
    pub bus: Vec<BusRow>,
    pub queue: Vec<QueueRow>,
    pub prediction_pdf: Vec<PdfRow>,
    pub prediction: Vec<PredictionSummaryRow>,
    pub headline: Headline,
    pub options: ReproduceOptions,
}

fn run(text: &str) -> Result<RunResult> {
    let cfg = ExperimentConfig::from_toml_str(text, None)?;
    build_simulation(&cfg, None)?.simulation.run()
}

/// The OLTP foreground under `freeblock` over `inner`, with `host_options`.
pub(crate) fn oltp_config(o: &ReproduceOptions, inner: &str, host_options: &str) -> String {
    format!(
        "seed = {}\n[drive]\nname = \"{}\"\nqueue_depth = 2\n\
         [host]\nscheduler = \"freeblock\"\nmax_outstanding = 2\n\
         [host.options]\n{host_options}\n[host.inner]\n{inner}\n\
         [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = {}\n\
         read_fraction = 0.6667\nalign_sectors = 8\n\
         size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n\
         [output]\nrecords = true\n",
        o.seed, o.drive, o.requests
    )
}

/// The OLTP foreground with every request at the drive (its own SPTF orders them) and,
/// with `fb`, the firmware's freeblock planner (`[drive.firmware_freeblock]` body).
pub(crate) fn firmware_config(o: &ReproduceOptions, fb: Option<&str>) -> String {
    let fb = fb.map_or(String::new(), |b| {
        format!("[drive.firmware_freeblock]\n{b}\n")
    });
    format!(
        "seed = {}\n[drive]\nname = \"{}\"\nqueue_depth = 16\nfirmware_scheduler = \"sptf\"\n\
         {fb}[host]\nscheduler = \"fcfs\"\nmax_outstanding = 16\n\
         [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = {}\n\
         read_fraction = 0.6667\nalign_sectors = 8\n\
         size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n\
         [output]\nrecords = true\n",
        o.seed, o.drive, o.requests
    )
}

/// Free bandwidth of the firmware's free reads, measured as the external one's: bytes per
/// second of the whole run (MB/s).
pub(crate) fn firmware_free_bandwidth_mb_s(r: &RunResult) -> f64 {
    let sectors: u64 = r.summary.firmware_free.iter().map(|f| f.free_sectors).sum();
    if r.summary.elapsed_s <= 0.0 {
        return 0.0;
    }
    sectors as f64 * 512.0 / r.summary.elapsed_s / 1e6
}

/// `text` with the drive's bus time per sector set to `ms`.
fn with_bus(text: &str, ms: f64) -> String {
    with_drive_setting(text, &format!("bus_sector_transfer_ms = {ms}"))
}

/// `text` with `setting` (a `[drive]` key line) on its drive.
fn with_drive_setting(text: &str, setting: &str) -> String {
    text.replacen("[drive]\n", &format!("[drive]\n{setting}\n"), 1)
}

/// The interface sweep's further bus for external SPTF: the validated bus with the drive
/// overlapping the next command's positioning with the last one's bus transfer
/// (`bus_overlap`), run with at most [`MORE_BUSES_REQUESTS`] foreground requests to keep it
/// cheap.
const MORE_BUSES: [(&str, &str); 1] = [("validated-overlap", "bus_overlap = true")];
const MORE_BUSES_REQUESTS: u64 = 3_000;

/// External SPTF and SPTF-SW(40) and the firmware at the chosen `c_fb`, each against its
/// paired run, on the validated bus (from the sweep) and on the paper's.
fn bus_rows(
    o: &ReproduceOptions,
    sweep: &[SweepRow],
    firmware: &[FirmwareRow],
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<Vec<BusRow>> {
    let c = o.chosen_c_fb_ms;
    let near = |x: f64| (x - c).abs() < 1e-9;
    let mut rows = vec![];
    for s in sweep
        .iter()
        .filter(|s| near(s.c_fb_ms) && s.foreground != "sstf")
    {
        rows.push(BusRow {
            bus: "validated".into(),
            sector_transfer_ms: None,
            variant: format!("external-{}", s.foreground),
            c_fb_ms: c,
            free_bandwidth_mb_s: s.free_bandwidth_mb_s,
            potential_free_bandwidth_mb_s: s.potential_free_bandwidth_mb_s,
            fg_response_increase: s.fg_response_increase,
        });
    }
    for f in firmware
        .iter()
        .filter(|f| near(f.c_fb_ms) && f.variant == "firmware")
    {
        rows.push(BusRow {
            bus: "validated".into(),
            sector_transfer_ms: None,
            variant: f.variant.clone(),
            c_fb_ms: c,
            free_bandwidth_mb_s: f.free_bandwidth_mb_s,
            potential_free_bandwidth_mb_s: f.potential_free_bandwidth_mb_s,
            fg_response_increase: f.fg_mean_response_ms / f.paired_fg_mean_response_ms - 1.0,
        });
    }
    let ms = PAPER_BUS_SECTOR_MS;
    for &(label, inner) in FOREGROUND.iter().filter(|f| f.0 != "sstf") {
        progress(&format!("{label} on the paper's bus"))?;
        let paired = run(&with_bus(&oltp_config(o, inner, "plan = false"), ms))?;
        let r = run(&with_bus(
            &oltp_config(o, inner, &format!("c_fb_ms = {c}")),
            ms,
        ))?;
        rows.push(BusRow {
            bus: "paper".into(),
            sector_transfer_ms: Some(ms),
            variant: format!("external-{label}"),
            c_fb_ms: c,
            free_bandwidth_mb_s: measure::free_bandwidth_mb_s(&r),
            potential_free_bandwidth_mb_s: measure::potential_free_bandwidth_mb_s(&paired),
            fg_response_increase: measure::fg_response_increase(&r, &paired),
        });
    }
    let short = ReproduceOptions {
        requests: o.requests.min(MORE_BUSES_REQUESTS),
        ..o.clone()
    };
    for (bus, setting) in MORE_BUSES {
        progress(&format!("sptf on {bus}"))?;
        let (label, inner) = FOREGROUND[1];
        let paired = run(&with_drive_setting(
            &oltp_config(&short, inner, "plan = false"),
            setting,
        ))?;
        let r = run(&with_drive_setting(
            &oltp_config(&short, inner, &format!("c_fb_ms = {c}")),
            setting,
        ))?;
        rows.push(BusRow {
            bus: bus.into(),
            sector_transfer_ms: None,
            variant: format!("external-{label}"),
            c_fb_ms: c,
            free_bandwidth_mb_s: measure::free_bandwidth_mb_s(&r),
            potential_free_bandwidth_mb_s: measure::potential_free_bandwidth_mb_s(&paired),
            fg_response_increase: measure::fg_response_increase(&r, &paired),
        });
    }
    progress("firmware on the paper's bus")?;
    let paired = run(&with_bus(&firmware_config(o, None), ms))?;
    let r = run(&with_bus(
        &firmware_config(o, Some(&format!("c_fb_ms = {c}"))),
        ms,
    ))?;
    rows.push(BusRow {
        bus: "paper".into(),
        sector_transfer_ms: Some(ms),
        variant: "firmware".into(),
        c_fb_ms: c,
        free_bandwidth_mb_s: firmware_free_bandwidth_mb_s(&r),
        potential_free_bandwidth_mb_s: measure::potential_free_bandwidth_mb_s(&paired),
        fg_response_increase: measure::fg_response_increase(&r, &paired),
    });
    Ok(rows)
}

fn firmware_rows(
    o: &ReproduceOptions,
    sweep: &[SweepRow],
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<Vec<FirmwareRow>> {
    let mut rows: Vec<FirmwareRow> = sweep
        .iter()
        .filter(|r| r.foreground == "sptf" || r.foreground == "sptf-sw40")
        .map(|r| FirmwareRow {
            variant: format!("external-{}", r.foreground),
            c_fb_ms: r.c_fb_ms,
            free_bandwidth_mb_s: r.free_bandwidth_mb_s,
            potential_free_bandwidth_mb_s: r.potential_free_bandwidth_mb_s,
            fg_mean_response_ms: r.fg_mean_response_ms,
            paired_fg_mean_response_ms: r.paired_fg_mean_response_ms,
        })
        .collect();
    progress("firmware SPTF without free reads")?;
    let paired = run(&firmware_config(o, None))?;
    let potential = measure::potential_free_bandwidth_mb_s(&paired);
    for (variant, extra) in [
        ("firmware", ""),
        ("firmware-1-per-track", "one_per_track = true\n"),
    ] {
        for &c in &o.c_fb_ms {
            progress(&format!("{variant} c_fb = {c} ms"))?;
            let r = run(&firmware_config(o, Some(&format!("{extra}c_fb_ms = {c}"))))?;
            rows.push(FirmwareRow {
                variant: variant.into(),
                c_fb_ms: c,
                free_bandwidth_mb_s: firmware_free_bandwidth_mb_s(&r),
                potential_free_bandwidth_mb_s: potential,
                fg_mean_response_ms: measure::fg_mean_response_ms(&r),
                paired_fg_mean_response_ms: measure::fg_mean_response_ms(&paired),
            });
        }
    }
    Ok(rows)
}

fn queue_config(o: &ReproduceOptions, sched: &str, q: u32) -> String {
    let requests = o.requests_per_queued * q as u64;
    let (drive, host) = match sched {
        "firmware-sptf" => (
            format!("queue_depth = {q}\nfirmware_scheduler = \"sptf\""),
            format!("scheduler = \"fcfs\"\nmax_outstanding = {q}"),
        ),
        s => {
            let (name, opts) = match s {
                "sptf-sw40" => ("sptf-sw", "[host.options]\nwindow_percent = 40.0"),
                other => (other, ""),
            };
            (
                "queue_depth = 2".to_string(),
                format!(
                    "scheduler = \"{name}\"\nmax_outstanding = {}\n{opts}",
                    q.min(2)
                ),
            )
        }
    };
    format!(
        "seed = {}\n[drive]\nname = \"{}\"\n{drive}\n[host]\n{host}\n\
         [workload]\nkind = \"closed\"\nprocesses = {q}\nrequests = {requests}\n\
         size_sectors = 8\nread_fraction = 1.0\n",
        o.seed, o.drive
    )
}

pub fn reproduce(
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<Reproduction> {
    let mut sweep = vec![];
    for &(label, inner) in FOREGROUND {
        progress(&format!("{label} without free reads"))?;
        let paired = run(&oltp_config(o, inner, "plan = false"))?;
        let potential = measure::potential_free_bandwidth_mb_s(&paired);
        for &c in &o.c_fb_ms {
            progress(&format!("{label} c_fb = {c} ms"))?;
            let r = run(&oltp_config(o, inner, &format!("c_fb_ms = {c}")))?;
            sweep.push(SweepRow::measured(label, c, &r, &paired, potential));
        }
    }
    let firmware = firmware_rows(o, &sweep, progress)?;
    let bus = bus_rows(o, &sweep, &firmware, progress)?;
    let mut queue = vec![];
    for &q in &o.queue_depths {
        for sched in ["sstf", "sptf-sw40", "sptf", "firmware-sptf"] {
            progress(&format!("queue depth {q} {sched}"))?;
            let s = run(&queue_config(o, sched, q))?.summary;
            queue.push(QueueRow {
                scheduler: sched.into(),
                queue_depth: q,
                mean_response_ms: s.response.mean_ms,
                throughput_iops: s.throughput_iops,
            });
        }
    }
    let spec = crate::config::resolve_drive(&o.drive, None)?;
    let layout = crate::device::hdd::Mechanics::new(&spec)?.layout;
    let mut headline = headline(&sweep, &firmware, o, layout.capacity_sectors());
    headline.media_bandwidth_mb_s =
        measure::media_bandwidth_mb_s(layout.zones(), spec.surfaces, spec.rpm);
    headline.free_fraction_of_media_bandwidth =
        headline.free_bandwidth_mb_s / headline.media_bandwidth_mb_s;
    let paper_bus = |v: &str| bus.iter().find(|b| b.bus == "paper" && b.variant == v);
    if let Some(b) = paper_bus("external-sptf") {
        headline.paper_bus_free_bandwidth_mb_s = Some(b.free_bandwidth_mb_s);
        headline.paper_bus_potential_free_bandwidth_mb_s = Some(b.potential_free_bandwidth_mb_s);
        headline.paper_bus_fg_response_increase = Some(b.fg_response_increase);
        headline.paper_bus_free_fraction_of_media_bandwidth =
            Some(b.free_bandwidth_mb_s / headline.media_bandwidth_mb_s);
        headline.free_bandwidth_mb_s_paper_hw = b.free_bandwidth_mb_s;
        headline.fg_response_increase_paper_hw = b.fg_response_increase;
        headline.free_fraction_of_media_bandwidth_paper_hw =
            b.free_bandwidth_mb_s / headline.media_bandwidth_mb_s;
    }
    headline.paper_bus_firmware_free_bandwidth_mb_s =
        paper_bus("firmware").map(|b| b.free_bandwidth_mb_s);
    let (prediction_pdf, prediction, late) = prediction_pdfs(o, progress)?;
    headline.mispredicted_fraction_oracle = late("small");
    headline.mispredicted_fraction_calibrated = late("small-calibrated");
    progress("sptf with the calibrated predictor")?;
    let calibrated = |t: String| with_predictor(&t, "calibrated");
    let paired = run(&calibrated(oltp_config(o, FOREGROUND[1].1, "plan = false")))?;
    let r = run(&calibrated(oltp_config(
        o,
        FOREGROUND[1].1,
        &format!("c_fb_ms = {}", headline.c_fb_ms),
    )))?;
    headline.free_bandwidth_mb_s_calibrated = measure::free_bandwidth_mb_s(&r);
    headline.fg_response_increase_calibrated = measure::fg_response_increase(&r, &paired);
    headline.calibrated_fraction_of_oracle =
        headline.free_bandwidth_mb_s_calibrated / headline.free_bandwidth_mb_s;
    let imperfect_sweep = imperfect_sweep(o, progress)?;
    Ok(Reproduction {
        sweep,
        imperfect_sweep,
        firmware,
        bus,
        queue,
        prediction_pdf,
        prediction,
        headline,
        options: o.clone(),
    })
}

/// `text` with the host planning with `predictor`.
fn with_predictor(text: &str, predictor: &str) -> String {
    text.replacen(
        "max_outstanding = 2\n",
        &format!("max_outstanding = 2\npredictor = \"{predictor}\"\n"),
        1,
    )
}

/// `text` on the drive with the reproduction's imperfections.
fn with_imperfections(text: &str) -> String {
    let imperfect = format!(
        "[drive.imperfections]\n{}",
        toml::to_string(&super::rotational::realistic_imperfections()).unwrap_or_default()
    );
    text.replacen(
        "queue_depth = 2\n",
        &format!("queue_depth = 2\n{imperfect}\n"),
        1,
    )
}

/// External SPTF over `c_fb` on the imperfect drive, with the oracle and the calibrated
/// predictor (calibrated on the imperfect drive), each point against its paired run.
fn imperfect_sweep(
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<Vec<SweepRow>> {
    let mut rows = vec![];
    for (label, predictor) in [("sptf", "oracle"), ("sptf-calibrated", "calibrated")] {
        let config = |opts: &str| {
            with_imperfections(&with_predictor(
                &oltp_config(o, FOREGROUND[1].1, opts),
                predictor,
            ))
        };
        progress(&format!(
            "{label} on the imperfect drive without free reads"
        ))?;
        let paired = run(&config("plan = false"))?;
        let potential = measure::potential_free_bandwidth_mb_s(&paired);
        for &c in &o.c_fb_ms {
            progress(&format!("{label} on the imperfect drive, c_fb = {c} ms"))?;
            let r = run(&config(&format!("c_fb_ms = {c}")))?;
            rows.push(SweepRow::measured(label, c, &r, &paired, potential));
        }
    }
    Ok(rows)
}

/// The prediction-error PDFs: the OLTP foreground alone (SPTF, two at the drive), small and
/// large requests, and small requests on the imperfect drive.
#[allow(clippy::type_complexity)]
fn prediction_pdfs(
    o: &ReproduceOptions,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<(Vec<PdfRow>, Vec<PredictionSummaryRow>, impl Fn(&str) -> f64)> {
    let spec = crate::config::resolve_drive(&o.drive, None)?;
    let mech = std::sync::Arc::new(crate::device::hdd::Mechanics::new(&spec)?);
    // The predictor the external schedulers plan with: the drive's own read tail and
    // read-ahead stop (docs/freeblock.md, "Prediction errors").
    let p = crate::predict::OraclePredictor::of_drive(&spec, mech, 0);
    // The calibrated predictor as the host builds it (from timing a fresh copy of the
    // drive), replayed through the run's completions.
    let link = crate::link::Link::new(&Default::default());
    let extracted = crate::calibrate::extract_cached(&spec, link, &Default::default())?;
    let half_rotation_ms = 30_000.0 / spec.rpm;
    let small = oltp_config(o, "scheduler = \"sptf\"", "plan = false");
    let cases = [
        ("small", small.clone()),
        (
            "large",
            small.replace("mean_sectors = 12.0", "mean_sectors = 124.0"),
        ),
        ("small-imperfect", with_imperfections(&small)),
        ("small-calibrated", with_predictor(&small, "calibrated")),
    ];
    let (mut rows, mut summary) = (vec![], vec![]);
    let mut late: Vec<(String, f64)> = vec![];
    for (case, text) in cases {
        progress(&format!("prediction errors, {case} requests"))?;
        let r = run(&text)?;
        let errs = if case.ends_with("calibrated") {
            let mut c = crate::predict::CalibratedPredictor::new(
                extracted.clone(),
                &Default::default(),
                link.completion_ns,
            );
            measure::observed_errors_ms(&r, &mut c)
        } else {
            measure::prediction_errors_ms(&r, &p)
        };
        let n = errs.len().max(1) as f64;
        summary.push(PredictionSummaryRow {
            case: case.into(),
            commands: errs.len() as u64,
            within_half_ms: errs.iter().filter(|e| e.abs() <= 0.5).count() as f64 / n,
            late_rotation: errs.iter().filter(|&&e| e >= 3.0).count() as f64 / n,
            mean_abs_error_ms: errs.iter().map(|e| e.abs()).sum::<f64>() / n,
        });
        late.push((
            case.to_string(),
            errs.iter().filter(|&&e| e >= half_rotation_ms).count() as f64 / n,
        ));
        for (error_ms, fraction) in measure::pdf(&errs, -8.0, 8.0, 0.25) {
            rows.push(PdfRow {
                case: case.into(),
                error_ms,
                fraction,
            });
        }
    }
    let late = move |case: &str| {
        late.iter()
            .find(|(c, _)| c == case)
            .map_or(f64::NAN, |l| l.1)
    };
    Ok((rows, summary, late))
}

fn headline(
    rows: &[SweepRow],
    firmware: &[FirmwareRow],
    o: &ReproduceOptions,
    capacity: u64,
) -> Headline {
    let fw = |variant: &str| {
        firmware
            .iter()
            .filter(|r| r.variant == variant)
            .min_by(|a, b| {
                (a.c_fb_ms - o.chosen_c_fb_ms)
                    .abs()
                    .total_cmp(&(b.c_fb_ms - o.chosen_c_fb_ms).abs())
            })
    };
    let row = rows
        .iter()
        .filter(|r| r.foreground == "sptf")
        .min_by(|a, b| {
            (a.c_fb_ms - o.chosen_c_fb_ms)
                .abs()
                .total_cmp(&(b.c_fb_ms - o.chosen_c_fb_ms).abs())
        });
    let get = |f: fn(&SweepRow) -> f64| row.map_or(f64::NAN, f);
    let free = get(|r| r.free_bandwidth_mb_s);
    let potential = get(|r| r.potential_free_bandwidth_mb_s);
    Headline {
        foreground: "sptf".into(),
        c_fb_ms: get(|r| r.c_fb_ms),
        free_bandwidth_mb_s: free,
        potential_free_bandwidth_mb_s: potential,
        free_fraction_of_potential: free / potential,
        media_bandwidth_mb_s: f64::NAN,
        free_fraction_of_media_bandwidth: f64::NAN,
        fg_response_increase: get(|r| r.fg_response_increase),
        scans_per_day: measure::scans_per_day(free, capacity),
        firmware_free_bandwidth_mb_s: fw("firmware").map(|r| r.free_bandwidth_mb_s),
        firmware_potential_free_bandwidth_mb_s: fw("firmware")
            .map(|r| r.potential_free_bandwidth_mb_s),
        firmware_one_per_track_free_bandwidth_mb_s: fw("firmware-1-per-track")
            .map(|r| r.free_bandwidth_mb_s),
        utilisation_gain: (get(|r| r.fg_bandwidth_mb_s) + free) / get(|r| r.fg_bandwidth_mb_s),
        free_bandwidth_mb_s_calibrated: f64::NAN,
        fg_response_increase_calibrated: f64::NAN,
        calibrated_fraction_of_oracle: f64::NAN,
        mispredicted_fraction_calibrated: f64::NAN,
        mispredicted_fraction_oracle: f64::NAN,
        paper_bus_sector_transfer_ms: PAPER_BUS_SECTOR_MS,
        paper_bus_free_bandwidth_mb_s: None,
        paper_bus_potential_free_bandwidth_mb_s: None,
        paper_bus_fg_response_increase: None,
        paper_bus_free_fraction_of_media_bandwidth: None,
        paper_bus_firmware_free_bandwidth_mb_s: None,
        paper_hw: format!("{} on {PAPER_INTERFACE}", o.drive),
        free_bandwidth_mb_s_paper_hw: f64::NAN,
        fg_response_increase_paper_hw: f64::NAN,
        free_fraction_of_media_bandwidth_paper_hw: f64::NAN,
        bus: InterfaceNote {
            interface: "validated",
            paper_interface: PAPER_INTERFACE,
            interface_why: "the Atlas 10K with DiskSim's validated parameters, whose bus \
                (0.099 ms a sector) folds in the validation system's host adapter; the \
                paper's drive was on Ultra2 Wide SCSI, so the same runs are repeated behind \
                that interface (the paper_bus_* keys)",
        },
        paper_free_bandwidth_mb_s: 3.1,
        paper_fg_response_increase_below: 0.02,
    }
}
