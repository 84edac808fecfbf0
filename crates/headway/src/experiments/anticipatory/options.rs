//! The reproduction's options and the variants its tables cross.

use serde::Serialize;

use crate::experiments::paper_hw::PaperHw;

/// The paper's IBM 7200 RPM IDE disk (a Deskstar DTLA of about 2000,
/// the specs' disks.md) supports Ultra DMA mode 5.
pub const PAPER_INTERFACE: &str = "ata100";

/// The paper's platforms as catalog drives (`_paper_hw` headline keys): a 2001 IBM 7200 RPM
/// IDE disk on ATA-100, and the faster platform's 15,000 RPM Seagate Cheetah X15 on
/// Ultra160 SCSI.
pub const PAPER_HW: PaperHw = PaperHw {
    drive: "deskstar_60gxp",
    interface: PAPER_INTERFACE,
};
pub const PAPER_HW_FAST: PaperHw = PaperHw {
    drive: "cheetah_x15",
    interface: "ultra160",
};

/// Anticipation variants, in table order.
pub const HEURISTICS: &[&str] = &["off", "cost-benefit", "linux-as", "slice-idle"];
/// The adversary rows of the paper's heuristic with the expiry-rate mitigation.
pub const CAPPED: &str = "cost-benefit-capped";
pub const PATTERNS: &[&str] = &["seq", "alter", "random"];
pub const FS_MODES: &[&str] = &["mmap", "read"];
/// Wrapped schedulers (aged SPTF is the paper's default). `mq-deadline` with the
/// `linux-as` heuristic is the Linux 2.6 anticipatory scheduler's structure (deadline plus
/// anticipation); with `off`, the kernel's deadline baseline.
pub const SCHEDULERS: &[&str] = &["aged-sptf", "sptf", "clook", "mq-deadline"];

#[derive(Clone, Debug, Serialize)]
pub struct ReproduceOptions {
    pub drive: String,
    pub fast_drive: String,
    pub seed: u64,
    /// Reads per process per run.
    pub requests: u64,
    pub page_sectors: u32,
    /// The short think time of the motivating example, ms.
    pub short_think_ms: f64,
    pub thinktimes_ms: Vec<f64>,
    pub bursts: Vec<u64>,
    /// The adversary's pause after each burst, ms: just past the 0.1 ms timeout that rapid
    /// reads teach the heuristic (one 100 µs bucket).
    pub burst_pause_ms: f64,
    pub granularities_us: Vec<f64>,
    /// The adaptive adversary: how far past the core's timeout it pauses (ms), and the
    /// random adversary's burst length N in the timer-granularity sweep run on it (1: every
    /// read follows a pause, where it loses most).
    pub adversary_over_ms: f64,
    pub granularity_burst: u64,
    /// Proportional share (spec experiment 10): the two readers' think time (ms), the
    /// relaxed stride's R_v (ms of normalised service) and the shares.
    pub prop_think_ms: f64,
    pub prop_relax_ms: f64,
    pub prop_shares: [f64; 2],
    /// Application stand-ins (spec experiments 9–12): operations per client (files; TPC-B
    /// clients run four times as many transactions), web-server processes, TPC-B clients,
    /// and the faster platform's thinktime scale (its faster CPU).
    pub app_operations: u64,
    pub web_processes: u32,
    /// The web server's mixed configuration: files above this many bytes are read in read
    /// mode, smaller ones mapped.
    pub web_mmap_limit_bytes: u64,
    pub tpcb_clients: u32,
    pub fast_think_scale: f64,
    /// Sensitivity sweeps (spec §5): R_v of the combination heuristic (ms of normalised
    /// service), thinktime histogram bucket (µs) and range (ms), histogram decay, the
    /// seek-distance weight of E_pos, and the M-process C-SCAN example's process counts.
    pub relax_sweep_ms: Vec<f64>,
    pub buckets_us: Vec<f64>,
    pub ranges_ms: Vec<f64>,
    pub decays: Vec<f64>,
    pub seek_weights: Vec<f64>,
    pub cscan_processes: Vec<u32>,
    /// The adversary mitigation's cap on a process's timeout-expiry rate.
    pub max_expiry_rate: f64,
    /// Bus-speed sweep (`bus_sector_ms` rows): the drive's bus time per 512-byte sector
    /// (ms), the two-reader seq and alter pairs with and without anticipation at each.
    pub bus_sector_ms: Vec<f64>,
    /// Web-server process counts of the process-count sweep (`web_processes_*` rows).
    pub web_process_sweep: Vec<u32>,
    /// The paper's interface (`[drive] interface`): the headline's two sequential readers
    /// are also run behind it (`None`: not).
    pub paper_interface: Option<String>,
}

impl ReproduceOptions {
    pub fn full() -> Self {
        ReproduceOptions {
            drive: "ibm18es".into(),
            fast_drive: "atlas10k".into(),
            seed: 1,
            requests: 4000,
            page_sectors: 8,
            short_think_ms: 0.05,
            thinktimes_ms: vec![0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 20.0],
            bursts: vec![1, 2, 3, 5, 8, 10, 15, 20, 30],
            burst_pause_ms: 0.15,
            granularities_us: vec![0.0, 50.0, 500.0, 1000.0],
            // Half a histogram bucket: past the timeout, inside the next bucket.
            adversary_over_ms: 0.05,
            granularity_burst: 1,
            prop_think_ms: 0.1,
            prop_relax_ms: 100.0,
            prop_shares: [1.0, 2.0],
            app_operations: 400,
            web_processes: 16,
            // Apache's own limit is 4 MiB, above every file of the stand-in's distribution
            // (capped there); 64 KiB (one read-mode cluster) maps 96% of the files and
            // reads about 40% of the bytes in read mode (docs/anticipatory.md).
            web_mmap_limit_bytes: 64 * 1024,
            tpcb_clients: 4,
            fast_think_scale: 0.5,
            relax_sweep_ms: vec![0.0, 10.0, 1000.0],
            buckets_us: vec![25.0, 100.0, 400.0, 1000.0],
            ranges_ms: vec![1.0, 2.0, 5.0, 10.0, 20.0],
            decays: vec![0.5, 0.8, 0.9, 0.99],
            seek_weights: vec![0.05, 0.25, 0.5, 1.0],
            cscan_processes: vec![2, 3, 4, 6, 8],
            max_expiry_rate: 0.1,
            // 5 MB/s (the validated bus), 10, 33 (ATA-33) and 100 MB/s (ATA-100).
            bus_sector_ms: vec![0.101, 0.0512, 0.0154, 0.00512],
            web_process_sweep: vec![2, 4, 8, 16],
            paper_interface: Some(PAPER_INTERFACE.into()),
        }
    }
    pub fn quick() -> Self {
        ReproduceOptions {
            requests: 400,
            thinktimes_ms: vec![0.0, 1.0, 3.0, 6.0, 12.0],
            bursts: vec![1, 3, 10, 30],
            app_operations: 60,
            web_processes: 8,
            bus_sector_ms: vec![0.101, 0.0154],
            web_process_sweep: vec![2, 8],
            ..Self::full()
        }
    }
}
