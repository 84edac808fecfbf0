//! The completion tail: how long after a command's last sector leaves the media the host
//! hears of its completion, against the command's size. A read's data crosses the bus after
//! it comes off the media, and the bus is slower than the media on most drives, so an
//! eight-sector read completes well after its last sector passed; one sector's tail is in
//! every lag MinOffset measures, the rest would put the reference point (where the head is
//! when the host hears of the completion) that much too early.
//!
//! Each size is measured on a fresh track: write one sector (the reference: the lags are
//! measured from a write's completion), then issue the command of `n` sectors on the same
//! track, starting a third of a turn past where the head is ready (no rotational miss, no
//! zero-latency landing mid-request), all on that track. Its media end follows from the
//! track phase and the period; the completion's distance from it is the tail.

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::phases::frac;
use super::probe::Probe;
use super::zones::ZoneTable;
use crate::error::Result;
use crate::request::Op;

/// Sizes the tail is measured at; between them it is interpolated, past the last
/// extrapolated along the last segment.
const SIZES: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// Tracks sampled per size and direction (the median is kept).
const PLACES: usize = 5;

/// Completion tails (ns) by direction, at [`SIZES`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tails {
    pub sizes: Vec<u32>,
    pub ns: [Vec<f64>; 2],
}

impl Tails {
    /// How much longer the tail of a command of `sectors` is than a one-sector command's
    /// (which the lags already hold); 0 when nothing was measured.
    #[inline]
    pub(crate) fn extra_ns(&self, op: Op, sectors: u32) -> f64 {
        let v = &self.ns[op as usize];
        if v.len() < 2 || v.len() != self.sizes.len() || sectors <= 1 {
            return 0.0;
        }
        let x = sectors as f64;
        let i = self
            .sizes
            .iter()
            .position(|&s| s as f64 >= x)
            .unwrap_or(self.sizes.len() - 1)
            .max(1);
        let (x0, x1) = (self.sizes[i - 1] as f64, self.sizes[i] as f64);
        let y = v[i - 1] + (v[i] - v[i - 1]) * (x - x0) / (x1 - x0);
        y - v[0]
    }
}

/// Measure the tails of both directions. `same_track_ns[prev][op]`: the same-track lags
/// (ns), to start each command clear of where the head is ready.
pub(crate) fn measure_tails(
    probe: &mut Probe,
    table: &ZoneTable,
    period_ns: f64,
    same_track_ns: &[[f64; 2]; 2],
    rng: &mut Pcg64Mcg,
) -> Result<Tails> {
    let mut tails = Tails {
        sizes: SIZES.to_vec(),
        ns: Default::default(),
    };
    for op in [Op::Read, Op::Write] {
        let lag_turns = same_track_ns[Op::Write as usize][op as usize].max(0.0) / period_ns;
        for &n in &SIZES {
            let mut v = vec![];
            for _ in 0..PLACES * 4 {
                if v.len() == PLACES {
                    break;
                }
                if let Some(t) = one_tail(probe, table, period_ns, lag_turns, op, n, rng)? {
                    v.push(t);
                }
            }
            if v.is_empty() {
                // No track holds this many sectors past a clear start: keep what was found.
                tails.sizes.truncate(tails.ns[op as usize].len());
                break;
            }
            v.sort_by(f64::total_cmp);
            let mut t = v[v.len() / 2];
            // Only the tail's remainder in the revolution places the head: a write whose data
            // reaches the drive too late for its sector waits whole turns, which unwrap away.
            if let Some(&last) = tails.ns[op as usize].last() {
                t -= ((t - last) / period_ns).round() * period_ns;
            }
            tails.ns[op as usize].push(t);
        }
    }
    let len = tails.ns[0].len().min(tails.ns[1].len());
    tails.sizes.truncate(len);
    for v in &mut tails.ns {
        v.truncate(len);
    }
    Ok(tails)
}

/// One tail on a random track, or `None` when the track has no room for the command.
fn one_tail(
    probe: &mut Probe,
    table: &ZoneTable,
    period_ns: f64,
    lag_turns: f64,
    op: Op,
    n: u32,
    rng: &mut Pcg64Mcg,
) -> Result<Option<f64>> {
    let track = rng.random_range(0..table.tracks.len());
    let first = table.tracks[track].first_lbn;
    let l0 = table.locate(first);
    let lbns = l0.left_on_track as u64;
    if lbns < n as u64 + 2 {
        return Ok(None);
    }
    let a = first + rng.random_range(0..lbns);
    let la = table.locate(a);
    let ready = table.angle(&la) + 1.0 / la.spt as f64 + lag_turns;
    // The start whose wait after the head is ready is nearest a third of a turn, with all
    // `n` sectors on this track and clear of `a`.
    let best = (first..first + lbns - n as u64 + 1)
        .filter(|&b| b > a || b + (n as u64) <= a)
        .map(|b| (b, frac(table.angle(&table.locate(b)) - ready)))
        .min_by(|x, y| (x.1 - 1.0 / 3.0).abs().total_cmp(&(y.1 - 1.0 / 3.0).abs()));
    let Some((b, wait_turns)) = best else {
        return Ok(None);
    };
    if !(0.1..0.6).contains(&wait_turns) {
        return Ok(None);
    }
    let t0 = probe.access(Op::Write, a, 1)? as f64;
    let (lb, ll) = (table.locate(b), table.locate(b + n as u64 - 1));
    let span = frac(table.angle(&ll) + 1.0 / ll.spt as f64 - table.angle(&lb));
    let span = if span == 0.0 { 1.0 } else { span };
    let media_end = t0 + (lag_turns + wait_turns + span) * period_ns;
    let done = probe.access(op, b, n)? as f64;
    Ok(Some(done - media_end))
}
