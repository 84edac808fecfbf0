//! Measurements of a freeblock run, from its summary and per-request records:
//! free bandwidth, potential free bandwidth, full scans per day, and the foreground's
//! change against a paired run without free reads (same seed, same requests).

use crate::device::hdd::layout::ZoneInfo;
use crate::predict::{self, Access, Moment, Predictor};
use crate::request::{HeadPosition, HOST_ORIGIN_BASE};
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

/// The drive's media bandwidth over the whole disk (MB/s): every exported sector's bytes
/// over the time the platters take to pass every track under a head (one revolution a
/// track), so each zone weighs by its share of the tracks' time, as for a full-disk scan.
/// The paper's "15% of potential media bandwidth" divides by this.
pub(crate) fn media_bandwidth_mb_s(zones: &[ZoneInfo], surfaces: u32, rpm: f64) -> f64 {
    let (mut bytes, mut tracks) = (0.0, 0.0);
    for z in zones {
        bytes += (z.end_lbn - z.first_lbn) as f64 * SECTOR_BYTES;
        tracks += f64::from(z.last_cylinder - z.first_cylinder + 1) * f64::from(surfaces);
    }
    if tracks == 0.0 {
        return 0.0;
    }
    bytes / (tracks * 60.0 / rpm) / 1e6
}

/// Full scans of a `capacity_sectors` device per day at `free_mb_s`.
pub(crate) fn scans_per_day(free_mb_s: f64, capacity_sectors: u64) -> f64 {
    free_mb_s * 1e6 * 86_400.0 / (capacity_sectors as f64 * SECTOR_BYTES)
}

/// Mean response time of the workload's requests (ms).
pub(crate) fn fg_mean_response_ms(r: &RunResult) -> f64 {
    r.summary.response.mean_ms
}

/// Foreground bandwidth: workload bytes per second (MB/s).
pub(crate) fn fg_bandwidth_mb_s(r: &RunResult) -> f64 {
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

/// Prediction errors (measured minus predicted completion time, ms) of a run's media reads,
/// measured completion to completion as the paper does: a command's completion time is
/// `done − start`, where the drive started it when the one before completed (two at the
/// drive), and its prediction is `p`'s service time from the previous command's last track
/// at that start, plus the bus tail per sector (learned as the wrapper learns it: the
/// largest seen so far among earlier reads, from the drive's reported phases). Writes
/// (absorbed by the drive's buffer), reads right after a write and cache hits are left out.
/// A predictor with the device's own bus tail ([`QueueModel::exact_tail`]) predicts as the
/// host schedulers do with it instead (see `exact_errors_ms`).
///
/// [`QueueModel::exact_tail`]: crate::predict::QueueModel::exact_tail
pub(crate) fn prediction_errors_ms(r: &RunResult, p: &dyn Predictor) -> Vec<f64> {
    let cmds = commands(r);
    if predict::exact_tail(p) {
        return exact_errors_ms(&cmds, p);
    }
    let mut tail_per_sector: Option<f64> = None;
    let mut out = Vec::new();
    for w in cmds.windows(2) {
        let (prev, c) = (w[0], w[1]);
        let (start, done, lbn, end, read, hit, media_end) = c;
        if !read || hit || end <= lbn {
            continue;
        }
        // After a write the drive writes back from its buffer when it likes: the head is
        // not where the previous command left it (the freeblock wrapper plans nothing there
        // either).
        let after_write = !prev.4;
        let n = (end - lbn) as u32;
        let Some(g) = p.geometry() else {
            return out;
        };
        let from = g.track_of(prev.3.saturating_sub(1));
        let e = p.estimate(
            Moment::new(from, start),
            Access::new(lbn, n, crate::request::Op::Read),
        );
        if let (Some(t), false) = (tail_per_sector, after_write) {
            let predicted = e.service_ns() as f64 + t * n as f64;
            out.push((done - start) as f64 / 1e6 - predicted / 1e6);
        }
        let per = done.saturating_sub(media_end) as f64 / n as f64;
        tail_per_sector = Some(tail_per_sector.map_or(per, |t: f64| t.max(per)));
    }
    out
}

/// One entry per command of a run (merged requests share start and completion), in start
/// order: (start, done, first lbn, end lbn, read, hit, media end as the drive reports it).
type Cmd = (u64, u64, u64, u64, bool, bool, u64);

fn commands(r: &RunResult) -> Vec<Cmd> {
    let Some(rec) = &r.records else {
        return Vec::new();
    };
    let mut cmds: Vec<Cmd> = Vec::new();
    let mut idx: Vec<usize> = (0..rec.len()).collect();
    idx.sort_by_key(|&i| (rec.start_ns[i], rec.lbn[i]));
    for i in idx {
        let end = rec.lbn[i] + rec.sectors[i] as u64;
        match cmds.last_mut() {
            Some(c) if c.0 == rec.start_ns[i] && c.1 == rec.done_ns[i] => {
                c.2 = c.2.min(rec.lbn[i]);
                c.3 = c.3.max(end);
            }
            _ => cmds.push((
                rec.start_ns[i],
                rec.done_ns[i],
                rec.lbn[i],
                end,
                rec.is_read[i],
                rec.cache_hit[i],
                rec.start_ns[i]
                    + rec.overhead_ns[i]
                    + rec.seek_ns[i]
                    + rec.rotate_ns[i]
                    + rec.transfer_ns[i],
            )),
        }
    }
    cmds
}

/// [`prediction_errors_ms`] for a predictor that learns where the head is from the
/// completions it observes (the calibrated predictor, timing only): the run's commands are
/// replayed through `p` in order, and each read miss after a read miss is predicted from
/// what the completions before it left `p` believing, from its start (the one ahead's
/// completion, two at the drive), plus the bus tail per sector learned as
/// [`prediction_errors_ms`] learns it.
pub(crate) fn observed_errors_ms(r: &RunResult, p: &mut dyn Predictor) -> Vec<f64> {
    use crate::request::{Command, Completion, Op, Phases, Request};
    let cmds = commands(r);
    let mut tail_per_sector: Option<f64> = None;
    let mut out = Vec::new();
    for (k, &(start, done, lbn, end, read, hit, media_end)) in cmds.iter().enumerate() {
        let op = if read { Op::Read } else { Op::Write };
        let n = end.saturating_sub(lbn) as u32;
        let prev_read = k > 0 && cmds[k - 1].4;
        if read && !hit && n > 0 && prev_read {
            let e = p.estimate(Moment::new(p.head(), start), Access::new(lbn, n, op));
            if let Some(t) = tail_per_sector {
                let predicted = e.service_ns() as f64 + t * n as f64;
                out.push((done - start) as f64 / 1e6 - predicted / 1e6);
            }
        }
        if read && !hit && n > 0 {
            let per = done.saturating_sub(media_end) as f64 / n as f64;
            tail_per_sector = Some(tail_per_sector.map_or(per, |t: f64| t.max(per)));
        }
        p.observe(&Completion {
            command: Command::single(Request::new(start, lbn, n, op)),
            done_ns: done,
            phases: Phases::default(),
            cache_hit: hit,
            head: HeadPosition::default(),
            head_lbn: end,
        });
    }
    out
}

/// [`prediction_errors_ms`] for a predictor with the device's own bus tail (the oracle's
/// `predict/oracle_bus.rs`), predicting as the host schedulers do: a read miss queued behind
/// a read miss begins where and when the predictor says the one ahead releases the drive
/// (its read-ahead stopped), measured from that one's actual completion. The first read
/// after anything else only anchors the chain (where its head was is not known).
fn exact_errors_ms(cmds: &[(u64, u64, u64, u64, bool, bool, u64)], p: &dyn Predictor) -> Vec<f64> {
    use crate::request::Op;
    let mut out = Vec::new();
    // The previous command's predicted origin (head, start), if it was a read miss.
    let mut state: Option<(HeadPosition, u64)> = None;
    for w in cmds.windows(2) {
        let (prev, c) = (w[0], w[1]);
        let (start, done, lbn, end, read, hit, _) = c;
        if !read || hit || end <= lbn {
            state = None;
            continue;
        }
        let n = (end - lbn) as u32;
        state = match state {
            Some((from_p, o_p)) => {
                let n_p = (prev.3 - prev.2) as u32;
                let r_p = predict::release(
                    p,
                    Moment::new(from_p, o_p),
                    Access::new(prev.2, n_p, Op::Read),
                );
                let d_p = r_p.done_ns;
                let rel_p = r_p.next_start_ns(o_p);
                // Queued at the drive: it begins at the one ahead's actual completion (its
                // overhead done while it waited, as `release` says) where stopping the
                // read-ahead leaves the head; otherwise when it came, from where the one
                // ahead reported the head (the schedulers' own view of an idle drive). A
                // drive whose clock drifts reports starts a little off its completions.
                let (from, o) = if start <= prev.1 {
                    (
                        r_p.head,
                        (prev.1 as i64 + rel_p as i64 - d_p.unwrap_or(rel_p) as i64).max(0) as u64,
                    )
                } else {
                    (r_p.estimate.end, start)
                };
                if let Some(d) =
                    predict::release(p, Moment::new(from, o), Access::new(lbn, n, Op::Read)).done_ns
                {
                    out.push((done as f64 - d as f64) / 1e6);
                }
                Some((from, o))
            }
            _ => p
                .geometry()
                .map(|g| (g.track_of(prev.3.saturating_sub(1)), start)),
        };
    }
    out
}

/// A probability density over bins of `bin_ms` from `lo_ms` to `hi_ms` (values outside
/// go to the end bins), as (bin centre ms, fraction).
pub(crate) fn pdf(values: &[f64], lo_ms: f64, hi_ms: f64, bin_ms: f64) -> Vec<(f64, f64)> {
    let bins = ((hi_ms - lo_ms) / bin_ms).ceil() as usize;
    let mut counts = vec![0u64; bins.max(1)];
    for &v in values {
        let k = ((v - lo_ms) / bin_ms)
            .floor()
            .clamp(0.0, (counts.len() - 1) as f64) as usize;
        counts[k] += 1;
    }
    let n = values.len().max(1) as f64;
    counts
        .iter()
        .enumerate()
        .map(|(k, &c)| (lo_ms + (k as f64 + 0.5) * bin_ms, c as f64 / n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(first_cylinder: u32, last_cylinder: u32, spt: u32, first_lbn: u64) -> ZoneInfo {
        let sectors = u64::from((last_cylinder - first_cylinder + 1) * spt * 2);
        ZoneInfo {
            first_cylinder,
            last_cylinder,
            sectors_per_track: spt,
            first_lbn,
            end_lbn: first_lbn + sectors,
        }
    }

    #[test]
    fn media_bandwidth_weighs_zones_by_their_tracks_time() {
        // 6,000 rpm: 10 ms a revolution. Two surfaces; 10 cylinders of 200 sectors a track
        // and 30 of 100: 4,000 + 6,000 sectors (5.12 MB) over 80 tracks (0.8 s) = 6.4 MB/s,
        // not the mean of the zones' rates (10.24 and 5.12 MB/s).
        let zones = [zone(0, 9, 200, 0), zone(10, 39, 100, 4_000)];
        let mb_s = media_bandwidth_mb_s(&zones, 2, 6_000.0);
        assert!((mb_s - 6.4).abs() < 1e-9, "{mb_s}");
        assert_eq!(media_bandwidth_mb_s(&[], 2, 6_000.0), 0.0);
    }
}
