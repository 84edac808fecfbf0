//! A rebuild's or a scrub's progress over the volume's rows, and its pacing: `rate` starts
//! steps at the set rate with up to `rate_window_steps` in flight, `idle` one step at a
//! time once the foreground has been quiet, `freeblock` hands the rows to the members'
//! freeblock schedulers (see `free_rows.rs`) and finishes rows in any order. A rebuild's
//! writes onto the spare follow its reads at once, or wait for the spare's idle time
//! (`held_writes.rs`).

use std::collections::BTreeMap;

use super::held_writes::HeldWrites;
use super::settings::{BackgroundConfig, BackgroundPolicy, SpareWrites};
use crate::time::SimTime;

/// [TEAM CHOICE] Steps of a `rate` rebuild or scrub in flight at once, unless
/// `rate_window_steps` says otherwise. One step at a time would make the rate a ceiling
/// only (a step that takes longer than its interval delays the next), so two rates above
/// what one step at a time achieves would give the same run; with eight, the members'
/// queues absorb a step's variation and the set rate holds until the drives are the limit.
pub(crate) const RATE_WINDOW_STEPS: u32 = 8;

/// Background work over every row: a rebuild or a scrub, and its pacing.
#[derive(Clone, Debug)]
pub(crate) struct Background {
    pub policy: BackgroundPolicy,
    /// Member sectors per step.
    pub step_sectors: u64,
    pub total_sectors: u64,
    /// Member sectors issued (`rate`, `idle`: steps go in order).
    pub next_sectors: u64,
    /// Member sectors finished, in all.
    pub done_sectors: u64,
    /// The finished prefix (`rate`, `idle`): every sector below it is done.
    prefix_sectors: u64,
    /// Steps finished beyond the prefix (`rate`: several are in flight), start to length.
    beyond_prefix: BTreeMap<u64, u64>,
    /// `freeblock`: rows finished, one bit each (rows finish in any order).
    rows_done: Vec<u64>,
    pub start_ns: SimTime,
    /// `rate`: time between step starts.
    pub interval_ns: SimTime,
    /// `idle`: quiet time before a step.
    pub idle_ns: SimTime,
    /// `rate`: steps in flight at most.
    pub window_steps: u32,
    /// Steps issued and not yet finished (a step whose write is held is not finished).
    pub in_flight: u32,
    /// A rebuild's spare writes held for the spare's idle time (`spare_writes = "idle"`).
    pub held: Option<HeldWrites>,
    pub last_issue_ns: Option<SimTime>,
    pub started_ns: Option<SimTime>,
    pub finished_ns: Option<SimTime>,
}

impl Background {
    /// The work `cfg` describes over `total_sectors` member sectors in steps of
    /// `step_sectors`, from `start_ns`.
    pub(crate) fn new(
        cfg: &BackgroundConfig,
        step_sectors: u64,
        total_sectors: u64,
        start_ns: SimTime,
    ) -> Self {
        let interval_ns = cfg.rate_mb_s.map_or(0, |r| {
            ((step_sectors as f64 * 512.0) / (r * 1e6) * 1e9).round() as SimTime
        });
        let idle_ns = (cfg.idle_ms.unwrap_or(50.0) * 1e6).round() as SimTime;
        Background {
            policy: cfg.policy,
            step_sectors,
            total_sectors,
            next_sectors: 0,
            done_sectors: 0,
            prefix_sectors: 0,
            beyond_prefix: BTreeMap::new(),
            rows_done: Vec::new(),
            start_ns,
            interval_ns,
            idle_ns,
            window_steps: cfg.rate_window_steps.unwrap_or(RATE_WINDOW_STEPS),
            in_flight: 0,
            held: (cfg.spare_writes == SpareWrites::Idle).then(|| HeldWrites::new(idle_ns)),
            last_issue_ns: None,
            started_ns: None,
            finished_ns: None,
        }
    }

    /// Whether `row` (of `unit_sectors` member sectors) is finished.
    #[inline]
    pub(crate) fn row_done(&self, row: u64, unit_sectors: u64) -> bool {
        (row + 1) * unit_sectors <= self.prefix_sectors
            || self
                .rows_done
                .get((row / 64) as usize)
                .is_some_and(|w| w & (1 << (row % 64)) != 0)
    }

    /// When the next step may start, given the volume's foreground activity; `None` when
    /// the window is full, after the last step, (`idle`) while the foreground is busy, and
    /// (`freeblock`) once the rows have been handed to the members.
    pub(crate) fn due(&self, fg_inflight: u32, fg_last_ns: SimTime) -> Option<SimTime> {
        match self.policy {
            BackgroundPolicy::Freeblock => {
                return self.started_ns.is_none().then_some(self.start_ns);
            }
            _ if self.next_sectors >= self.total_sectors => return None,
            BackgroundPolicy::Rate if self.in_flight >= self.window_steps => return None,
            BackgroundPolicy::Idle if self.in_flight > 0 => return None,
            _ => {}
        }
        match self.policy {
            BackgroundPolicy::Rate => Some(
                self.last_issue_ns
                    .map_or(self.start_ns, |t| t + self.interval_ns)
                    .max(self.start_ns),
            ),
            _ => (fg_inflight == 0).then(|| (fg_last_ns + self.idle_ns).max(self.start_ns)),
        }
    }

    /// The next step's member sectors, marked as running.
    pub(crate) fn take_step(&mut self, now: SimTime) -> (u64, u64) {
        let at = self.next_sectors;
        let n = self.step_sectors.min(self.total_sectors - at);
        self.next_sectors += n;
        self.in_flight += 1;
        self.last_issue_ns = Some(now);
        self.started_ns.get_or_insert(now);
        (at, n)
    }

    /// `freeblock`: the rows are handed to the members at `now`.
    pub(crate) fn begin(&mut self, now: SimTime, unit_sectors: u64) {
        self.started_ns = Some(now);
        let rows = self.total_sectors / unit_sectors;
        self.rows_done = vec![0; rows.div_ceil(64) as usize];
        self.next_sectors = self.total_sectors;
    }

    /// The step of `n` sectors from `at` finished at `now`.
    pub(crate) fn step_done(&mut self, now: SimTime, at: u64, n: u64, unit_sectors: u64) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if let Some(h) = self.held.as_mut() {
            h.written();
        }
        self.done_sectors += n;
        if self.policy == BackgroundPolicy::Freeblock {
            let row = at / unit_sectors;
            if let Some(w) = self.rows_done.get_mut((row / 64) as usize) {
                *w |= 1 << (row % 64);
            }
        } else {
            self.beyond_prefix.insert(at, n);
            while let Some(n) = self.beyond_prefix.remove(&self.prefix_sectors) {
                self.prefix_sectors += n;
            }
        }
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
