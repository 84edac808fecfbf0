//! One volume's state during a run: its layout and rules, which member failed and how far
//! the rebuild has come, its rebuild and scrub, and the member operations in flight.

use super::layout::Layout;
use super::plan::WriteRule;
use super::settings::{BackgroundPolicy, MirrorRead};
use crate::request::DeviceId;
use crate::time::SimTime;

/// A volume as the array layer runs it.
pub(crate) struct Volume {
    pub name: String,
    pub layout: Layout,
    pub rule: WriteRule,
    pub sync_writes: bool,
    pub mirror_read: MirrorRead,
    /// Member index to device.
    pub devices: Vec<DeviceId>,
    pub spare: Option<DeviceId>,
    /// The failed member and when it fails.
    pub failure: Option<(usize, SimTime)>,
    pub rebuild: Option<Background>,
    pub scrub: Option<Background>,
    /// Array operations queued or outstanding per member (the spare last).
    pub inflight: Vec<u32>,
    /// Foreground member operations queued or outstanding, and when the last one came or
    /// went (the idle policy's clock).
    pub fg_inflight: u32,
    pub fg_last_ns: SimTime,
    /// The next copy a round-robin mirrored read takes.
    pub next_copy: usize,
}

impl Volume {
    /// The member whose contents are lost in `row` at `now`: the failed one, in rows the
    /// rebuild has not yet written onto the spare.
    #[inline]
    pub(crate) fn lost(&self, now: SimTime, row: u64) -> Option<usize> {
        match self.failure {
            Some((m, at)) if now >= at && row >= self.rebuilt_rows() => Some(m),
            _ => None,
        }
    }

    /// Rows whose lost unit the rebuild has written onto the spare.
    pub(crate) fn rebuilt_rows(&self) -> u64 {
        self.rebuild
            .as_ref()
            .map_or(0, |b| b.done_sectors / self.layout.unit_sectors)
    }

    /// The device serving member `m` in `row` (the spare, once the rebuild has passed it).
    #[inline]
    pub(crate) fn device_of(&self, m: usize, row: u64) -> DeviceId {
        match (self.failure, self.spare) {
            (Some((f, _)), Some(spare)) if f == m && row < self.rebuilt_rows() => spare,
            _ => self.devices[m],
        }
    }

    /// The inflight slot of device `dev` (a member, or the spare).
    pub(crate) fn slot_of(&self, dev: DeviceId) -> usize {
        self.devices
            .iter()
            .position(|&d| d == dev)
            .unwrap_or(self.devices.len())
    }
}

/// Background work over every row: a rebuild or a scrub, and its pacing.
#[derive(Clone, Debug)]
pub(crate) struct Background {
    pub policy: BackgroundPolicy,
    /// Member sectors per step.
    pub step_sectors: u64,
    pub total_sectors: u64,
    /// Member sectors issued, and finished.
    pub next_sectors: u64,
    pub done_sectors: u64,
    pub start_ns: SimTime,
    /// `rate`: time between step starts.
    pub interval_ns: SimTime,
    /// `idle`: quiet time before a step.
    pub idle_ns: SimTime,
    pub in_step: bool,
    pub last_issue_ns: Option<SimTime>,
    pub started_ns: Option<SimTime>,
    pub finished_ns: Option<SimTime>,
}

impl Background {
    pub(crate) fn new(
        policy: BackgroundPolicy,
        step_sectors: u64,
        total_sectors: u64,
        start_ns: SimTime,
        rate_mb_s: Option<f64>,
        idle_ms: Option<f64>,
    ) -> Self {
        let interval_ns = rate_mb_s.map_or(0, |r| {
            ((step_sectors as f64 * 512.0) / (r * 1e6) * 1e9).round() as SimTime
        });
        Background {
            policy,
            step_sectors,
            total_sectors,
            next_sectors: 0,
            done_sectors: 0,
            start_ns,
            interval_ns,
            idle_ns: (idle_ms.unwrap_or(50.0) * 1e6).round() as SimTime,
            in_step: false,
            last_issue_ns: None,
            started_ns: None,
            finished_ns: None,
        }
    }

    /// When the next step may start, given the volume's foreground activity; `None` while
    /// a step runs, after the last, or (idle policy) while the foreground is busy. The
    /// freeblock policy issues its steps to the members' schedulers as they ask.
    pub(crate) fn due(&self, fg_inflight: u32, fg_last_ns: SimTime) -> Option<SimTime> {
        if self.in_step || self.next_sectors >= self.total_sectors {
            return None;
        }
        match self.policy {
            BackgroundPolicy::Rate => Some(
                self.last_issue_ns
                    .map_or(self.start_ns, |t| t + self.interval_ns)
                    .max(self.start_ns),
            ),
            BackgroundPolicy::Idle | BackgroundPolicy::Freeblock => {
                (fg_inflight == 0).then(|| (fg_last_ns + self.idle_ns).max(self.start_ns))
            }
        }
    }

    /// The next step's member sectors, marked as running.
    pub(crate) fn take_step(&mut self, now: SimTime) -> (u64, u64) {
        let at = self.next_sectors;
        let n = self.step_sectors.min(self.total_sectors - at);
        self.next_sectors += n;
        self.in_step = true;
        self.last_issue_ns = Some(now);
        self.started_ns.get_or_insert(now);
        (at, n)
    }

    /// The running step finished at `now`.
    pub(crate) fn step_done(&mut self, now: SimTime) {
        self.in_step = false;
        self.done_sectors = self.next_sectors;
        if self.done_sectors >= self.total_sectors {
            self.finished_ns = Some(now);
        }
    }

    pub(crate) fn summary(&self, unit_sectors: u64) -> crate::stats::BackgroundSummary {
        let ms = |t: SimTime| t as f64 / 1e6;
        crate::stats::BackgroundSummary {
            policy: match self.policy {
                BackgroundPolicy::Rate => "rate",
                BackgroundPolicy::Idle => "idle",
                BackgroundPolicy::Freeblock => "freeblock",
            }
            .into(),
            rows_done: self.done_sectors / unit_sectors,
            rows_total: self.total_sectors / unit_sectors,
            started_ms: self.started_ns.map(ms),
            finished_ms: self.finished_ns.map(ms),
            duration_ms: self
                .finished_ns
                .zip(self.started_ns)
                .map(|(f, s)| ms(f - s)),
        }
    }
}
