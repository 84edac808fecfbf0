//! A real drive is not the tidy model a host calibrates against once: seeks vary, the
//! spindle's speed wanders, and the firmware moves the heads on its own (thermal
//! recalibration; "wear levelling" that shifts the heads a track every 15 s). These are what
//! make a host's software head prediction decay (the paper's Stability experiment), so they
//! are a parameter of the truth: [`ImperfectDevice`] wraps any device and adds them, without
//! touching the device model itself.
//!
//! * Seek jitter: a command whose cylinder differs from the previous one's starts up to
//!   `seek_jitter_ms` late (uniformly), as if its seek had taken that much longer.
//! * Rotation drift: the spindle's phase departs from the nominal by
//!   `A sin(2 pi t / T)`, i.e. its speed wanders by up to `rotation_drift_ppm`. It is
//!   applied as a warp of the wrapped device's clock, which moves the platter by exactly that
//!   phase and stretches every other duration by parts per million.
//! * Recalibration: every `recal_interval_s` the drive seeks `recal_cylinders` cylinders on
//!   its own (and stays busy `recal_busy_ms` longer); commands wait for it, and the head is
//!   left where the host does not expect it.

use std::collections::VecDeque;
use std::sync::Arc;

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::hdd::Mechanics;
use super::{Device, DeviceInfo, DeviceIo};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::{Command, Op};
use crate::time::{ms_to_ns, SimTime, NEVER, NS_PER_S};

/// `[drive.imperfections]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Imperfections {
    /// Upper bound of the extra delay of a command that changes cylinder (ms).
    pub seek_jitter_ms: f64,
    /// Peak spindle speed error (parts per million).
    pub rotation_drift_ppm: f64,
    /// Period of the speed's wander (s).
    pub drift_period_s: f64,
    /// Interval between the drive's own head movements (s); 0: never.
    pub recal_interval_s: f64,
    /// Cylinders each movement goes (towards the disk's middle).
    pub recal_cylinders: u32,
    /// Time each movement keeps the drive busy after its seek (ms).
    pub recal_busy_ms: f64,
}

impl Default for Imperfections {
    fn default() -> Self {
        Imperfections {
            seek_jitter_ms: 0.0,
            rotation_drift_ppm: 0.0,
            drift_period_s: 60.0,
            recal_interval_s: 0.0,
            recal_cylinders: 1,
            recal_busy_ms: 0.0,
        }
    }
}

impl Imperfections {
    /// No imperfection at all: the wrapper is not needed.
    pub fn is_none(&self) -> bool {
        self.seek_jitter_ms == 0.0 && self.rotation_drift_ppm == 0.0 && self.recal_interval_s == 0.0
    }

    pub fn validate(&self) -> Result<()> {
        let key = |k: &str| format!("drive.imperfections.{k}");
        let check = |k: &str, v: f64, lo: f64, hi: f64| {
            if v.is_finite() && (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(HeadwayError::config(
                    key(k),
                    format!("must be between {lo} and {hi}, got {v}"),
                ))
            }
        };
        check("seek_jitter_ms", self.seek_jitter_ms, 0.0, 1e3)?;
        check("rotation_drift_ppm", self.rotation_drift_ppm, 0.0, 1e4)?;
        check("drift_period_s", self.drift_period_s, 1e-3, 1e7)?;
        check("recal_interval_s", self.recal_interval_s, 0.0, 1e7)?;
        check("recal_busy_ms", self.recal_busy_ms, 0.0, 1e5)?;
        if self.recal_interval_s > 0.0 && self.recal_interval_s < 1e-3 {
            return Err(HeadwayError::config(
                key("recal_interval_s"),
                "must be 0 (never) or at least a millisecond",
            ));
        }
        Ok(())
    }
}

/// Tokens of the wrapper's own wake-ups; the wrapped device's never have this bit.
const OWN: u64 = 1 << 63;
const RELEASE: u64 = OWN | 1;

pub struct ImperfectDevice {
    inner: Box<dyn Device>,
    mech: Arc<Mechanics>,
    cfg: Imperfections,
    rng: Pcg64Mcg,
    /// Phase warp amplitude (ns) and angular frequency (rad/ns).
    amp_ns: f64,
    omega: f64,
    io: DeviceIo,
    /// The wrapped device's pending wake-ups: (real time, token, its own time).
    pending: Vec<(SimTime, u64, SimTime)>,
    /// Host commands not yet passed on: (release time, command).
    held: VecDeque<(SimTime, Command)>,
    recal_outstanding: bool,
    recal_due: bool,
    /// Host commands wait until then (the recalibration's dwell after its seek).
    hold_until: SimTime,
    /// The release wake-up already asked for, so it is not asked for twice.
    release_armed: SimTime,
    next_recal: SimTime,
    last_cylinder: u32,
    /// Last device time given to the wrapped device (its clock must not run backwards).
    last_device_ns: SimTime,
    interval_ns: SimTime,
    /// The real time of the call being handled: wake-ups at or before it are run at once.
    clock: SimTime,
}

impl ImperfectDevice {
    /// `mech` locates cylinders for the jitter and the recalibration seeks; `rng` is the
    /// stream the imperfections draw from.
    pub fn new(
        inner: Box<dyn Device>,
        mech: Arc<Mechanics>,
        cfg: Imperfections,
        rng: Pcg64Mcg,
    ) -> Self {
        let period_ns = cfg.drift_period_s * NS_PER_S as f64;
        let omega = std::f64::consts::TAU / period_ns;
        // Phase error A sin(wt) has speed error A w cos(wt): A = ppm * 1e-6 / w.
        let amp_ns = cfg.rotation_drift_ppm * 1e-6 / omega;
        let interval_ns = if cfg.recal_interval_s > 0.0 {
            ms_to_ns(cfg.recal_interval_s * 1e3).max(1)
        } else {
            NEVER
        };
        ImperfectDevice {
            inner,
            mech,
            cfg,
            rng,
            amp_ns,
            omega,
            io: DeviceIo::default(),
            pending: vec![],
            held: VecDeque::new(),
            recal_outstanding: false,
            recal_due: false,
            hold_until: 0,
            release_armed: NEVER,
            next_recal: interval_ns,
            interval_ns,
            last_cylinder: 0,
            last_device_ns: 0,
            clock: 0,
        }
    }

    /// The wrapped device's clock at real time `t`.
    #[inline]
    fn device_time(&mut self, t: SimTime) -> SimTime {
        let d = if self.amp_ns == 0.0 {
            t
        } else {
            (t as f64 + self.amp_ns * (self.omega * t as f64).sin()).round() as SimTime
        };
        self.last_device_ns = self.last_device_ns.max(d);
        self.last_device_ns
    }

    /// The first real time at which the wrapped device's clock reads `d` or later.
    fn real_time(&self, d: SimTime) -> SimTime {
        if self.amp_ns == 0.0 {
            return d;
        }
        // t = d - A sin(w t) converges at once: the warp's slope is parts per million.
        let mut t = d as f64;
        for _ in 0..4 {
            t = d as f64 - self.amp_ns * (self.omega * t).sin();
        }
        let mut r = t.max(0.0).floor() as SimTime;
        while ((r as f64) + self.amp_ns * (self.omega * r as f64).sin()).round() < d as f64 {
            r += 1;
        }
        r
    }

    /// Pass on what the wrapped device asked for: its wake-ups (in real time) and its
    /// completions (minus the drive's own recalibration seeks).
    fn forward(&mut self, now: SimTime, out: &mut DeviceIo) {
        for (d, token) in std::mem::take(&mut self.io.wakeups) {
            let r = self.real_time(d).max(now);
            self.pending.push((r, token, d));
            if r > self.clock {
                out.wake_at(r, token);
            }
        }
        for mut c in self.io.completions.drain(..) {
            if c.command.dispatch_ns == NEVER && c.command.requests.is_empty() {
                self.recal_outstanding = false;
                self.hold_until = now + ms_to_ns(self.cfg.recal_busy_ms);
                continue;
            }
            c.done_ns = now;
            c.phases.start_ns = c.phases.start_ns.min(now);
            out.complete(c);
        }
    }

    fn cylinder_of(&self, lbn: u64) -> u32 {
        self.mech.layout.cylinder_of(lbn)
    }

    /// Recalibrations that fell due by `now`. No timer keeps the simulation alive for them:
    /// one that fell due while the drive was idle is run from its due time as soon as the
    /// drive is next addressed, its past part (the seek, the dwell) done at once. One that
    /// fell due while the drive was busy waits for it to become idle.
    fn catch_up(&mut self, now: SimTime, out: &mut DeviceIo) {
        while self.next_recal <= now {
            let due = self.next_recal;
            self.next_recal = self.next_recal.saturating_add(self.interval_ns);
            let idle = self.inner.outstanding() == 0 && !self.recal_outstanding;
            if !idle {
                self.recal_due = true;
                continue;
            }
            self.recalibrate(due.max(self.hold_until).min(now), out);
            // Finish at once whatever of it lies in the past.
            while let Some(i) = self.pending.iter().position(|p| p.0 <= now) {
                let (r, token, d) = self.pending.swap_remove(i);
                self.last_device_ns = self.last_device_ns.max(d);
                self.inner.wake(d, token, &mut self.io);
                self.forward(r, out);
            }
        }
    }

    /// Start the drive's own head movement at `now`.
    fn recalibrate(&mut self, now: SimTime, out: &mut DeviceIo) {
        self.recal_due = false;
        let cyls = self.mech.seek.max_distance() + 1;
        let n = self.cfg.recal_cylinders.max(1);
        let target = if self.last_cylinder + n < cyls / 2 {
            self.last_cylinder + n
        } else {
            self.last_cylinder.saturating_sub(n)
        };
        let lbn = self.mech.layout.first_lbn_on_cylinder(target).unwrap_or(0);
        let mut cmd = Command::single(crate::request::Request::new(now, lbn, 0, Op::Read));
        cmd.sectors = 0;
        cmd.requests.clear();
        cmd.dispatch_ns = NEVER;
        self.last_cylinder = target;
        self.recal_outstanding = true;
        let d = self.device_time(now);
        self.inner.submit(d, cmd, &mut self.io);
        self.forward(now, out);
    }

    /// Hand released host commands to the wrapped device, unless the drive is busy with
    /// itself.
    fn release(&mut self, now: SimTime, out: &mut DeviceIo) {
        if self.recal_outstanding {
            return;
        }
        if self.recal_due && self.inner.outstanding() == 0 {
            self.recalibrate(now, out);
            return;
        }
        while let Some(&(at, _)) = self.held.front() {
            let at = at.max(self.hold_until);
            if at > now {
                if self.release_armed != at {
                    self.release_armed = at;
                    out.wake_at(at, RELEASE);
                }
                break;
            }
            let (_, cmd) = self.held.pop_front().unwrap();
            let d = self.device_time(now);
            self.inner.submit(d, cmd, &mut self.io);
            self.forward(now, out);
        }
    }
}

impl Device for ImperfectDevice {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }

    fn submit(&mut self, now: SimTime, cmd: Command, io: &mut DeviceIo) {
        self.clock = now;
        self.catch_up(now, io);
        let cyl = self.cylinder_of(cmd.lbn);
        let jitter = if cyl != self.last_cylinder && self.cfg.seek_jitter_ms > 0.0 {
            ms_to_ns(self.rng.random_range(0.0..self.cfg.seek_jitter_ms))
        } else {
            0
        };
        self.last_cylinder = cyl;
        let after = self.held.back().map_or(0, |h| h.0);
        self.held.push_back(((now + jitter).max(after), cmd));
        self.release(now, io);
    }

    fn wake(&mut self, now: SimTime, token: u64, io: &mut DeviceIo) {
        self.clock = now;
        match token {
            RELEASE => self.release_armed = NEVER,
            _ => {
                let Some(i) = self
                    .pending
                    .iter()
                    .position(|&(r, t, _)| r == now && t == token)
                else {
                    return;
                };
                let (_, _, d) = self.pending.swap_remove(i);
                self.last_device_ns = self.last_device_ns.max(d);
                self.inner.wake(d, token, &mut self.io);
                self.forward(now, io);
            }
        }
        self.catch_up(now, io);
        self.release(now, io);
    }

    fn outstanding(&self) -> usize {
        self.inner.outstanding() - self.recal_outstanding as usize + self.held.len()
    }

    fn firmware_free(&self) -> Option<crate::device::hdd::FirmwareFreeReport> {
        self.inner.firmware_free()
    }
}

/// Wrap `device` in the imperfections `cfg` describes (or return it as is), drawing from
/// `rng`'s stream `device0.imperfections`.
pub(crate) fn with_imperfections(
    device: Box<dyn Device>,
    mech: Arc<Mechanics>,
    cfg: &Imperfections,
    rng: &RngStreams,
) -> Box<dyn Device> {
    if cfg.is_none() {
        return device;
    }
    Box::new(ImperfectDevice::new(
        device,
        mech,
        cfg.clone(),
        rng.stream("device0.imperfections"),
    ))
}
