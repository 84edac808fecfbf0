//! What each disk-array volume did: its logical requests, the member operations they
//! became, degraded reads, and the progress of its rebuild and scrub.

use serde::Serialize;

/// One volume's summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ArraySummary {
    pub name: String,
    pub level: String,
    /// Logical requests completed, and of them reads and writes.
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// Mean response of the logical requests completed (ms), from arrival at the volume to
    /// the completion of the last member operation each waited for.
    pub mean_response_ms: f64,
    /// Member operations the logical requests became (rebuild and scrub not included).
    pub member_reads: u64,
    pub member_writes: u64,
    /// Member operations on parity (old-parity reads and parity writes).
    pub parity_ios: u64,
    /// Member reads made to compute a lost member's data.
    pub degraded_reads: u64,
    /// Row updates by kind: whole rows written without reads, read-modify-write,
    /// reconstruct-write.
    pub full_stripe_writes: u64,
    pub rmw_writes: u64,
    pub reconstruct_writes: u64,
    /// The failed member's device, and when it failed (ms).
    pub failed_member: Option<String>,
    pub failed_at_ms: Option<f64>,
    pub rebuild: Option<BackgroundSummary>,
    pub scrub: Option<BackgroundSummary>,
    pub members: Vec<MemberSummary>,
    /// A `cache-device` volume's hits, misses and destaging.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheDeviceSummary>,
}

/// What a cache device did. Its member operations are in the volume's `members` (the
/// cache device first): hits, population writes, writes and destage reads on the cache
/// device; misses, write-through and destage writes on the disk.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CacheDeviceSummary {
    /// Reads served wholly from the cache device, and reads sent to the disk.
    pub read_hits: u64,
    pub read_misses: u64,
    /// Writes of a missed read's data onto the cache device.
    pub population_writes: u64,
    /// Writes within the cached range (onto the cache device), and beyond it (to the disk).
    pub write_hits: u64,
    pub write_misses: u64,
    /// Destage steps: a read of a dirty extent from the cache device, then its write to
    /// the disk; and the sectors they moved.
    pub destage_reads: u64,
    pub destage_writes: u64,
    pub destage_sectors: u64,
    /// Sectors still dirty when the run ended.
    pub dirty_sectors_end: u64,
}

/// One member (or the spare) of a volume.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MemberSummary {
    pub device: String,
    pub reads: u64,
    pub writes: u64,
    pub parity_ios: u64,
    pub degraded_reads: u64,
    pub rebuild_reads: u64,
    pub rebuild_writes: u64,
    pub scrub_reads: u64,
}

/// A rebuild's or scrub's progress.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BackgroundSummary {
    pub policy: String,
    /// Rows finished, of all rows.
    pub rows_done: u64,
    pub rows_total: u64,
    pub started_ms: Option<f64>,
    pub finished_ms: Option<f64>,
    /// From start to finish (ms), when finished.
    pub duration_ms: Option<f64>,
}
