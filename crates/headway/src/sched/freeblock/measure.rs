//! Measurements of a freeblock run, from its summary and per-request records:
//! free bandwidth, potential free bandwidth, full scans per day, and the foreground's
//! change against a paired run without free reads (same seed, same requests).

use crate::request::HOST_ORIGIN_BASE;
use crate::sim::RunResult;

const SECTOR_BYTES: f64 = 512.0;

/// Background bytes the freeblock scheduler read per second of the run (MB/s, 10^6 bytes).
pub fn free_bandwidth_mb_s(r: &RunResult) -> f64 {
    let bytes: u64 = r
        .summary
        .by_origin
        .iter()
        .filter(|g| g.name == "freeblock")
        .map(|g| g.bytes)
        .sum();
    if r.summary.elapsed_s <= 0.0 {
        return 0.0;
    }
    bytes as f64 / r.summary.elapsed_s / 1e6
}

/// Media bandwidth times the fraction of time the head spent in the foreground's
/// rotational latency: each foreground request contributes its rotational latency times
/// its own track's media rate (its sectors over its transfer time), so the zones are
/// weighted as the workload visits them. Needs records; best measured on the paired run
/// without free reads.
pub fn potential_free_bandwidth_mb_s(r: &RunResult) -> f64 {
    let Some(rec) = &r.records else {
        return f64::NAN;
    };
    let mut bytes = 0.0;
    for i in 0..rec.len() {
        if rec.origin[i] >= HOST_ORIGIN_BASE || rec.cache_hit[i] || rec.transfer_ns[i] == 0 {
            continue;
        }
        let rate = rec.sectors[i] as f64 * SECTOR_BYTES / rec.transfer_ns[i] as f64;
        bytes += rec.rotate_ns[i] as f64 * rate;
    }
    if r.summary.elapsed_s <= 0.0 {
        return 0.0;
    }
    bytes / r.summary.elapsed_s / 1e6
}

/// Full scans of a `capacity_sectors` device per day at `free_mb_s`.
pub fn scans_per_day(free_mb_s: f64, capacity_sectors: u64) -> f64 {
    free_mb_s * 1e6 * 86_400.0 / (capacity_sectors as f64 * SECTOR_BYTES)
}

/// Mean response time of the workload's requests (ms).
pub fn fg_mean_response_ms(r: &RunResult) -> f64 {
    r.summary.response.mean_ms
}

/// Foreground bandwidth: workload bytes per second (MB/s).
pub fn fg_bandwidth_mb_s(r: &RunResult) -> f64 {
    r.summary.throughput_mb_s
}

/// Fractional increase of the mean foreground response time against the paired run.
pub fn fg_response_increase(with: &RunResult, without: &RunResult) -> f64 {
    let b = fg_mean_response_ms(without);
    if b <= 0.0 {
        return 0.0;
    }
    fg_mean_response_ms(with) / b - 1.0
}
