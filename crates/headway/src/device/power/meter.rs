//! The power state machine of one drive, advanced lazily: a spin-down happens at
//! `idle_since + timeout` and is accounted when the next event looks at the drive, so a
//! powered drive asks the engine for a wake-up only to finish a spin-up.

use super::spec::PowerSpec;
use crate::time::{ms_to_ns, SimTime};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerState {
    Active,
    Idle,
    Standby,
    SpinUp,
}

/// Time and energy per state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EnergyReport {
    pub active_ns: SimTime,
    pub idle_ns: SimTime,
    pub standby_ns: SimTime,
    pub spinup_ns: SimTime,
    pub active_j: f64,
    pub idle_j: f64,
    pub standby_j: f64,
    pub spinup_j: f64,
    pub spinups: u64,
    pub spindowns: u64,
}

impl EnergyReport {
    pub fn total_j(&self) -> f64 {
        self.active_j + self.idle_j + self.standby_j + self.spinup_j
    }
    pub fn total_ns(&self) -> SimTime {
        self.active_ns + self.idle_ns + self.standby_ns + self.spinup_ns
    }
}

/// One device's energy in a run summary (`energy` section), seconds and joules.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct EnergySummary {
    pub name: String,
    pub total_j: f64,
    pub active_j: f64,
    pub idle_j: f64,
    pub standby_j: f64,
    pub spinup_j: f64,
    pub active_s: f64,
    pub idle_s: f64,
    pub standby_s: f64,
    pub spinup_s: f64,
    pub spinups: u64,
    pub spindowns: u64,
}

impl EnergySummary {
    pub fn new(name: String, r: &EnergyReport) -> Self {
        EnergySummary {
            name,
            total_j: r.total_j(),
            active_j: r.active_j,
            idle_j: r.idle_j,
            standby_j: r.standby_j,
            spinup_j: r.spinup_j,
            active_s: r.active_ns as f64 / 1e9,
            idle_s: r.idle_ns as f64 / 1e9,
            standby_s: r.standby_ns as f64 / 1e9,
            spinup_s: r.spinup_ns as f64 / 1e9,
            spinups: r.spinups,
            spindowns: r.spindowns,
        }
    }
}

#[derive(Clone, Debug)]
pub struct PowerMeter {
    spec: PowerSpec,
    state: PowerState,
    /// When the current state began.
    since: SimTime,
    /// End of a spin-up in progress.
    ready_at: SimTime,
    report: EnergyReport,
}

impl PowerMeter {
    /// A drive spinning and idle at `t0`.
    pub fn new(spec: PowerSpec, t0: SimTime) -> Self {
        PowerMeter {
            spec,
            state: PowerState::Idle,
            since: t0,
            ready_at: t0,
            report: EnergyReport::default(),
        }
    }

    /// The state at `now`, after any spin-down or spin-up completion due by then.
    pub fn state_at(&mut self, now: SimTime) -> PowerState {
        self.advance(now);
        self.state
    }

    fn charge(&mut self, state: PowerState, ns: SimTime) {
        charge(&mut self.report, &self.spec, state, ns);
    }

    fn enter(&mut self, state: PowerState, at: SimTime) {
        let from = self.state;
        self.charge(from, at.saturating_sub(self.since));
        self.state = state;
        self.since = at;
    }

    /// Apply the transitions that happen on their own: spin-down after the idle timeout.
    fn advance(&mut self, now: SimTime) {
        if self.state == PowerState::Idle {
            if let Some(t) = self.spec.spindown_timeout_ms {
                let down = self.since + ms_to_ns(t);
                if down <= now {
                    self.enter(PowerState::Standby, down);
                    self.report.spindowns += 1;
                }
            }
        }
    }

    /// A command arrives at `now`: the time the drive can start it (after a spin-up if the
    /// drive is spun down or spinning up).
    pub fn arrive(&mut self, now: SimTime) -> SimTime {
        self.advance(now);
        match self.state {
            PowerState::Standby => {
                self.enter(PowerState::SpinUp, now);
                self.report.spinups += 1;
                self.report.spinup_j += self.spec.spinup_j;
                self.ready_at = now + ms_to_ns(self.spec.spinup_ms);
                self.ready_at
            }
            PowerState::SpinUp => self.ready_at,
            _ => now,
        }
    }

    /// A spin-up has finished at `now` (== the time `arrive` returned).
    pub fn spun_up(&mut self, now: SimTime) {
        if self.state == PowerState::SpinUp && now >= self.ready_at {
            self.enter(PowerState::Idle, self.ready_at);
        }
    }

    /// The drive starts (`true`) or stops (`false`) having commands to serve at `now`.
    pub fn set_busy(&mut self, now: SimTime, busy: bool) {
        self.advance(now);
        match (self.state, busy) {
            (PowerState::Idle, true) => self.enter(PowerState::Active, now),
            (PowerState::Active, false) => self.enter(PowerState::Idle, now),
            _ => {}
        }
    }

    /// Totals up to `now`.
    pub fn report(&mut self, now: SimTime) -> EnergyReport {
        self.advance(now);
        // The open interval is charged on a copy, so a later report still starts from `since`.
        let mut r = self.report;
        charge(
            &mut r,
            &self.spec,
            self.state,
            now.saturating_sub(self.since),
        );
        r
    }
}

/// Add `ns` spent in `state` to `r` (energy at the state's power; spin-ups are charged per
/// spin-up elsewhere).
fn charge(r: &mut EnergyReport, spec: &PowerSpec, state: PowerState, ns: SimTime) {
    let s = ns as f64 / 1e9;
    match state {
        PowerState::Active => {
            r.active_ns += ns;
            r.active_j += s * spec.active_w;
        }
        PowerState::Idle => {
            r.idle_ns += ns;
            r.idle_j += s * spec.idle_w;
        }
        PowerState::Standby => {
            r.standby_ns += ns;
            r.standby_j += s * spec.standby_w;
        }
        PowerState::SpinUp => r.spinup_ns += ns,
    }
}
