//! The paper's software head prediction, built only from what calibration measured
//! ([`ExtractedDrive`]), never from the drive's description.
//!
//! * Reference point: after every completion that was not a cache hit, (T_0, the track and
//!   slot just past the last sector accessed). The spindle angle at any later T_1 follows
//!   from RotateTime: the paper's `S_1 = ((T_1 - T_0) mod RotateTime) / RotateTime * SPT + S_0`.
//! * Arrival: a command issued at T_1 finds the head ready on the target track after a lag:
//!   on the same track the paper's delta (in sectors of the track); otherwise the MinOffset
//!   lag of the move (head switch, or seek of d cylinders) for the two commands' directions.
//!   Arrival point minus start point is the paper's S_offset; the extracted track phases
//!   carry it across tracks and zones.
//! * S_rotate = (S_target - arrival) mod SPT, with the CMPS rule: a target reached fewer
//!   than CMPS sectors early is priced as a near miss, S_rotate + SPT - CMPS.
//! * Service time T_s = T_a + the media transfer of the request (track switches included,
//!   from the phases).
//! * The reference timestamp is the completion less the command's extra completion tail
//!   (`calibrate::tail`: a read's data crosses the bus after its last sector), so that it
//!   marks the media end whatever the command's size.
//! * A fast write (acknowledged from the buffer) is written at once all the same: the head
//!   ends on its track when its predicted write ends, and the mechanism is busy until then.

use std::sync::Arc;

use super::{
    Access, Estimate, Geometry, Moment, Needs, Predictor, PredictorOptions, Target, TrackInfo,
};
use crate::calibrate::phases::frac;
use crate::calibrate::{ExtractedDrive, Loc};
use crate::request::{Completion, HeadPosition, Op};
use crate::time::SimTime;

pub struct CalibratedPredictor {
    drive: Arc<ExtractedDrive>,
    period_ns: f64,
    cmps_sectors: f64,
    delta_sectors: f64,
    lag_error_ns: f64,
    link_completion_ns: SimTime,
    /// Zone of each cylinder.
    cyl_zone: Vec<u16>,
    /// Lags by [prev op][op]: same track (beyond delta), head switch, and seek by distance.
    same_track_extra_ns: [[f64; 2]; 2],
    head_switch_ns: [[f64; 2]; 2],
    seek_ns: [[Vec<f64>; 2]; 2],
    /// `floor_ns[d]`: least lag of any move of d or more cylinders.
    floor_ns: Vec<SimTime>,
    // The reference point.
    head: HeadPosition,
    ref_angle: f64,
    ref_ns: SimTime,
    last_op: Op,
    /// Until when the mechanism writes back the last fast write (host frame): a command
    /// issued before then starts its mechanism only then.
    busy_until_ns: SimTime,
}

impl CalibratedPredictor {
    /// `link_completion_ns`: the completion latency between device and host, so that the
    /// reference timestamp is the host's, as the probe's were.
    pub fn new(
        drive: Arc<ExtractedDrive>,
        opts: &PredictorOptions,
        link_completion_ns: SimTime,
    ) -> Self {
        let table = &drive.table;
        let cyls = table.cylinders() as usize;
        let mut cyl_zone = vec![0u16; cyls];
        for (i, z) in table.zones.iter().enumerate() {
            for c in z.first_cylinder..=z.last_cylinder {
                cyl_zone[c as usize] = i as u16;
            }
        }
        let lag_error_ns = opts.lag_error_ms * 1e6;
        let lags = &drive.lags;
        let seek_fit = if opts.offset_segments > 0 && !lags.seek_samples.is_empty() {
            crate::calibrate::fit::Pieces::fit_at_most(
                &lags.seek_samples,
                opts.offset_segments as usize,
            )
        } else {
            lags.seek_ww.clone()
        };
        let ww = lags.seek_offset_ns;
        let mut seek_ns: [[Vec<f64>; 2]; 2] = Default::default();
        let mut same_track_extra_ns = [[0.0; 2]; 2];
        let mut head_switch_ns = [[0.0; 2]; 2];
        let base_same = lags.same_track_ns[Op::Write as usize][Op::Write as usize];
        for p in 0..2 {
            for o in 0..2 {
                same_track_extra_ns[p][o] = lags.same_track_ns[p][o] - base_same;
                head_switch_ns[p][o] = lags.head_switch_ns[p][o] + lag_error_ns;
                seek_ns[p][o] = (0..cyls.max(1))
                    .map(|d| {
                        if d == 0 {
                            0.0
                        } else {
                            (seek_fit.eval(d as f64) + ww[p][o] + lag_error_ns).max(0.0)
                        }
                    })
                    .collect();
            }
        }
        let delta_sectors = drive.delta_sectors + opts.delta_error_sectors;
        let period_ns = drive.period_ns * (1.0 + opts.period_error_ppm * 1e-6);
        // Lower bounds: the same-track lag is least on the zone with the shortest sectors.
        let max_spt = table
            .zones
            .iter()
            .map(|z| z.sectors_per_track)
            .max()
            .unwrap_or(1) as f64;
        let min_of = |m: &[[f64; 2]; 2]| m.iter().flatten().copied().fold(f64::INFINITY, f64::min);
        let same_min =
            delta_sectors * period_ns / max_spt + min_of(&same_track_extra_ns) + lag_error_ns;
        let at_zero = same_min.min(min_of(&head_switch_ns)).max(0.0);
        let mut floor_ns = vec![0; cyls + 1];
        floor_ns[cyls] = SimTime::MAX;
        for d in (0..cyls).rev() {
            let here = if d == 0 {
                at_zero
            } else {
                seek_ns
                    .iter()
                    .flatten()
                    .map(|v| v[d])
                    .fold(f64::INFINITY, f64::min)
            };
            floor_ns[d] = (here.floor() as SimTime).min(floor_ns[d + 1]);
        }
        CalibratedPredictor {
            drive,
            period_ns,
            cmps_sectors: opts.cmps_sectors,
            delta_sectors,
            lag_error_ns,
            link_completion_ns,
            cyl_zone,
            same_track_extra_ns,
            head_switch_ns,
            seek_ns,
            floor_ns,
            head: HeadPosition::default(),
            ref_angle: 0.0,
            ref_ns: 0,
            last_op: Op::Read,
            busy_until_ns: 0,
        }
    }

    #[inline]
    fn spt_of_cylinder(&self, cyl: u32) -> u32 {
        let z = self.cyl_zone.get(cyl as usize).copied().unwrap_or(0) as usize;
        self.drive.table.zones[z].sectors_per_track
    }

    /// Where on the platter (revolutions) the slot `l` starts.
    #[inline]
    fn angle_of(&self, l: &Loc) -> f64 {
        self.drive.table.angle(l)
    }

    /// Lag from issuing to the head being ready on (`cyl`, `track`).
    #[inline]
    fn lag_ns(&self, from: HeadPosition, cyl: u32, track: u32, op: Op) -> f64 {
        let (p, o) = (self.last_op as usize, op as usize);
        let d = from.cylinder.abs_diff(cyl) as usize;
        if d > 0 {
            return *self.seek_ns[p][o].get(d).unwrap_or(&0.0);
        }
        if from.surface != track {
            return self.head_switch_ns[p][o].max(0.0);
        }
        let unit = self.period_ns / self.spt_of_cylinder(cyl) as f64;
        (self.delta_sectors * unit + self.same_track_extra_ns[p][o] + self.lag_error_ns).max(0.0)
    }

    /// Rotational wait (ns) after arriving `lag` after `start_ns`, for a target at `angle`
    /// on a track of `spt` slots, with the CMPS rule. Lags and the reference timestamp are
    /// host times, late by each command's completion latency; the difference between the
    /// reference command's and this one's is put back.
    #[inline]
    fn rotate_ns(&self, start_ns: SimTime, lag: f64, angle: f64, spt: u32, op: Op) -> f64 {
        let c = &self.drive.lags.completion_offset_ns;
        let since =
            start_ns as f64 - self.ref_ns as f64 + lag + c[self.last_op as usize] - c[op as usize];
        let arrival = self.ref_angle + since / self.period_ns;
        let spt = spt as f64;
        let mut s = frac(angle - arrival) * spt;
        if s < self.cmps_sectors {
            s += spt - self.cmps_sectors;
        }
        s / spt * self.period_ns
    }

    /// A write the drive acknowledged from its buffer (a fast write) still goes to the
    /// media at once: its mechanism started when the command reached the drive, as for any
    /// write, and the acknowledgement came before the head got there. The predictor plays
    /// that write as it would have predicted it from the dispatch, and takes its end as the
    /// reference point and the moment the mechanism is free again.
    fn fast_write(&mut self, c: &Completion) {
        let cmd = &c.command;
        let e = self.estimate(
            Moment::new(self.head, cmd.dispatch_ns),
            Access::new(cmd.lbn, cmd.sectors, Op::Write),
        );
        let end_ns = cmd.dispatch_ns + e.positioning_ns() + e.transfer_ns;
        let l = self.drive.table.locate(cmd.end_lbn() - 1);
        self.last_op = Op::Write;
        self.head = HeadPosition {
            cylinder: l.cylinder,
            surface: l.track,
        };
        self.ref_angle = frac(self.angle_of(&l) + 1.0 / l.spt as f64);
        self.ref_ns = end_ns;
        self.busy_until_ns = end_ns;
    }

    /// Media transfer of `sectors` from `lbn` and the track the head ends on.
    fn transfer(&self, lbn: u64, sectors: u32) -> (f64, HeadPosition) {
        let table = &self.drive.table;
        let mut l = table.locate(lbn);
        let mut left = sectors as u64;
        let mut lbn = lbn;
        let mut angle = self.angle_of(&l);
        let mut t = 0.0;
        loop {
            let run = left.min(l.left_on_track.max(1) as u64);
            t += run as f64 / l.spt as f64 * self.period_ns;
            angle += run as f64 / l.spt as f64;
            left -= run;
            lbn += run;
            if left == 0 || lbn >= table.capacity_sectors {
                return (
                    t,
                    HeadPosition {
                        cylinder: l.cylinder,
                        surface: l.track,
                    },
                );
            }
            let next = table.locate(lbn);
            let a = self.angle_of(&next);
            t += frac(a - angle) * self.period_ns;
            angle = a;
            l = next;
        }
    }
}

#[inline]
fn round_ns(x: f64) -> SimTime {
    (x.max(0.0) + 0.5) as SimTime
}

impl Predictor for CalibratedPredictor {
    fn name(&self) -> &str {
        "calibrated"
    }
    fn capacity_sectors(&self) -> u64 {
        self.drive.table.capacity_sectors
    }
    fn cylinders(&self) -> u32 {
        self.drive.table.cylinders()
    }
    #[inline]
    fn cylinder_of(&self, lbn: u64) -> u32 {
        self.drive.table.locate(lbn).cylinder
    }
    fn head(&self) -> HeadPosition {
        self.head
    }
    fn estimate(&self, at: Moment, a: Access) -> Estimate {
        let (from, lbn, sectors, op) = (at.from, a.lbn, a.sectors, a.op);
        // A command issued during a write-back waits for the mechanism.
        let start_ns = at.start_ns.max(self.busy_until_ns);
        let waits_ns = (start_ns - at.start_ns) as f64;
        let l = self.drive.table.locate(lbn);
        let lag = self.lag_ns(from, l.cylinder, l.track, op);
        let (transfer, end) = if sectors == 0 {
            (
                0.0,
                HeadPosition {
                    cylinder: l.cylinder,
                    surface: l.track,
                },
            )
        } else {
            self.transfer(lbn, sectors)
        };
        let rotate = if sectors == 0 {
            0.0
        } else {
            self.rotate_ns(start_ns, lag, self.angle_of(&l), l.spt, op)
        };
        // The same-track part of the lag is the command processing; the rest is the move.
        let overhead = self.lag_ns(from, from.cylinder, from.surface, op).min(lag) + waits_ns;
        let positioning = round_ns(waits_ns + lag + rotate);
        let overhead_ns = round_ns(overhead);
        let seek_ns = round_ns(waits_ns + lag).saturating_sub(overhead_ns);
        Estimate {
            overhead_ns,
            seek_ns,
            rotate_ns: positioning.saturating_sub(overhead_ns + seek_ns),
            transfer_ns: round_ns(transfer),
            end,
        }
    }
    #[inline]
    fn positioning_floor_ns(&self, distance: u32) -> SimTime {
        *self
            .floor_ns
            .get(distance as usize)
            .unwrap_or(&SimTime::MAX)
    }
    fn target(&self, a: Access, _needs: Needs) -> Target {
        let l = self.drive.table.locate(a.lbn);
        Target {
            lbn: a.lbn,
            sectors: a.sectors,
            op: a.op,
            cylinder: l.cylinder,
            surface: l.track,
            angle: self.angle_of(&l),
            transfer_ns: round_ns(self.transfer(a.lbn, a.sectors).0),
        }
    }
    #[inline]
    fn positioning_to(&self, from: HeadPosition, start_ns: SimTime, t: &Target) -> SimTime {
        if t.sectors == 0 {
            return self
                .estimate(Moment::new(from, start_ns), t.access())
                .positioning_ns();
        }
        let begin_ns = start_ns.max(self.busy_until_ns);
        let lag = self.lag_ns(from, t.cylinder, t.surface, t.op);
        round_ns(
            (begin_ns - start_ns) as f64
                + lag
                + self.rotate_ns(
                    begin_ns,
                    lag,
                    t.angle,
                    self.spt_of_cylinder(t.cylinder),
                    t.op,
                ),
        )
    }
    fn observe(&mut self, c: &Completion) {
        if c.cache_hit && c.command.op == Op::Write && c.command.sectors > 0 {
            self.fast_write(c);
            return;
        }
        self.last_op = c.command.op;
        // A read served from the buffer did not move the head: the reference point stays
        // (the paper's rule).
        if c.cache_hit {
            return;
        }
        if c.command.sectors == 0 {
            // A pure seek: the head is on that cylinder; the spindle's phase is unchanged.
            self.head.cylinder = self.cylinder_of(c.command.lbn);
            return;
        }
        let l = self.drive.table.locate(c.command.end_lbn() - 1);
        self.head = HeadPosition {
            cylinder: l.cylinder,
            surface: l.track,
        };
        self.ref_angle = frac(self.angle_of(&l) + 1.0 / l.spt as f64);
        // The lags hold a one-sector command's completion tail; a longer command's data
        // reached the host that much later after its last sector passed the head.
        let extra = self
            .drive
            .lags
            .tails
            .extra_ns(c.command.op, c.command.sectors);
        self.ref_ns =
            (c.done_ns + self.link_completion_ns).saturating_add_signed(-(extra.round() as i64));
    }
    fn geometry(&self) -> Option<&dyn Geometry> {
        Some(self)
    }
}

impl Geometry for CalibratedPredictor {
    fn track_of(&self, lbn: u64) -> HeadPosition {
        let l = self
            .drive
            .table
            .locate(lbn.min(self.capacity_sectors().saturating_sub(1)));
        HeadPosition {
            cylinder: l.cylinder,
            surface: l.track,
        }
    }
    fn track_info(&self, track: HeadPosition) -> Option<TrackInfo> {
        let table = &self.drive.table;
        let i = table.track_index(track.cylinder, track.surface)?;
        let first = table.tracks[i].first_lbn;
        let end = table
            .tracks
            .get(i + 1)
            .map_or(table.capacity_sectors, |t| t.first_lbn);
        let spt = table.zones[table.zone_of(first)].sectors_per_track;
        Some(TrackInfo {
            track,
            first_lbn: first,
            lbns: (end - first) as u32,
            slots: spt,
            // Calibration counts slots from the track's first LBN, whose start is the phase.
            slot0_angle: frac(table.tracks[i].phase),
            sector_ns: self.period_ns / spt as f64,
        })
    }
    fn slot_lbn(&self, track: HeadPosition, slot: u32) -> Option<u64> {
        // Slots past the LBNs (and past slipped gaps) hold none; gaps shift later LBNs.
        let table = &self.drive.table;
        table.slot_lbn(table.track_index(track.cylinder, track.surface)?, slot)
    }
    fn angle_at(&self, t: SimTime) -> f64 {
        // The reference point's frame: the angle just past the last sector accessed, which
        // passed the completion latency before the host saw it, carried forward by the
        // believed period.
        let latency = self.drive.lags.completion_offset_ns[self.last_op as usize];
        frac(self.ref_angle + (t as f64 - self.ref_ns as f64 + latency) / self.period_ns)
    }
    fn period_ns(&self) -> f64 {
        self.period_ns
    }
    fn move_ns(&self, from: HeadPosition, to: HeadPosition, op: Op) -> SimTime {
        round_ns(self.lag_ns(from, to.cylinder, to.surface, op))
    }
    fn move_floor_ns(&self, distance: u32) -> SimTime {
        // The lags' floor bounds every move (a move is a lag, rounded).
        self.positioning_floor_ns(distance)
    }
}
