//! `kind = "zoned"`: sequential writers on a zoned drive, one per sequential zone, each
//! filling its zone and resetting it (docs/smr.md). Writer `i` owns zone `first_zone + i`.
//! It keeps up to `depth` writes of `write_sectors` in flight, each issued the moment the
//! previous one completes (closed loop, no think time); after `writes_per_reset` writes
//! (default: as many as fill the zone) it waits for its writes to complete, sends RESET
//! WRITE POINTER, and when the reset completes starts again at the zone's start; it does
//! this `fills` times (so resets its zone `fills - 1` times).
//!
//! With `append = false` a write names its place: the zone's start plus the sectors the
//! writer has issued since its reset, so with `depth` > 1 the host's scheduler must keep
//! each zone's writes in order (mq-deadline's zoned write locking does; a scheduler that
//! reorders them has the drive refuse the ones not at the write pointer). With
//! `append = true` every write is a ZONE APPEND naming the zone's start: the drive puts it
//! at the write pointer whatever order it arrives in, and the completed request's `lbn`
//! (in the records) is where it went.
//!
//! ```toml
//! [workload]
//! kind = "zoned"
//! zone_size_sectors = 260400   # the drive's zone size (as [drive.zoned])
//! first_zone = 1               # writer i writes zone first_zone + i (default 0)
//! writers = 4                  # default 1
//! write_sectors = 120          # default 128
//! writes_per_reset = 100       # default: zone_size_sectors / write_sectors
//! depth = 1                    # writes in flight per writer (default 1)
//! append = false               # true: zone appends
//! fills = 2                    # times each writer writes its zone (default 1)
//! ```
//!
//! Deterministic: no random stream is drawn.

use super::{Arrivals, Workload};
use crate::error::{HeadwayError, Result};
use crate::request::{Op, Request};
use crate::request_marks::ZoneOp;
use crate::table_keys::key_group;
use crate::time::SimTime;

/// `kind = "zoned"`.
#[derive(Clone, Debug, PartialEq)]
pub struct ZonedWritersConfig {
    pub zone_size_sectors: u64,
    pub first_zone: u64,
    pub writers: u32,
    pub write_sectors: u32,
    /// Writes per zone between resets; `None`: as many as fit the zone.
    pub writes_per_reset: Option<u64>,
    pub depth: u32,
    pub append: bool,
    /// Times each writer writes its zone, with a reset between.
    pub fills: u64,
}

key_group! {
    /// The keys of a zoned workload's table.
    pub(crate) struct ZonedKeys {
        zone_size_sectors: u64,
        first_zone: u64,
        writers: u32,
        write_sectors: u32,
        writes_per_reset: u64,
        depth: u32,
        append: bool,
        fills: u64,
    }
}

const DEFAULT_WRITE_SECTORS: u32 = 128;

impl ZonedWritersConfig {
    pub(crate) fn from_keys(keys: ZonedKeys) -> std::result::Result<Self, String> {
        Ok(ZonedWritersConfig {
            zone_size_sectors: keys
                .zone_size_sectors
                .ok_or("missing field `zone_size_sectors` (kind = \"zoned\" needs it)")?,
            first_zone: keys.first_zone.unwrap_or(0),
            writers: keys.writers.unwrap_or(1),
            write_sectors: keys.write_sectors.unwrap_or(DEFAULT_WRITE_SECTORS),
            writes_per_reset: keys.writes_per_reset,
            depth: keys.depth.unwrap_or(1),
            append: keys.append.unwrap_or(false),
            fills: keys.fills.unwrap_or(1),
        })
    }
}

/// One writer's place in its zone.
#[derive(Clone, Copy, Default)]
struct Writer {
    /// Writes issued since the last reset.
    issued: u64,
    /// Fills begun, this one included.
    fill: u64,
    in_flight: u32,
    resetting: bool,
}

pub struct ZonedWriters {
    zone_size_sectors: u64,
    first_zone: u64,
    write_sectors: u32,
    writes_per_reset: u64,
    depth: u32,
    append: bool,
    fills: u64,
    writers: Vec<Writer>,
}

impl ZonedWriters {
    pub fn new(cfg: &ZonedWritersConfig, capacity_sectors: u64) -> Result<Self> {
        let bad = |k: &str, m: String| HeadwayError::config(format!("workload.{k}"), m);
        let zone = cfg.zone_size_sectors;
        if zone == 0 {
            return Err(bad("zone_size_sectors", "must be at least 1".into()));
        }
        if cfg.writers == 0 || cfg.depth == 0 || cfg.fills == 0 {
            let k = [
                ("writers", cfg.writers as u64),
                ("depth", cfg.depth as u64),
                ("fills", cfg.fills),
            ]
            .into_iter()
            .find(|k| k.1 == 0)
            .map_or("writers", |k| k.0);
            return Err(bad(k, "must be at least 1".into()));
        }
        if cfg.write_sectors == 0 || cfg.write_sectors as u64 > zone {
            return Err(bad(
                "write_sectors",
                format!(
                    "must be between 1 and zone_size_sectors ({zone}), got {}",
                    cfg.write_sectors
                ),
            ));
        }
        let fit = zone / cfg.write_sectors as u64;
        let per_reset = cfg.writes_per_reset.unwrap_or(fit);
        if per_reset == 0 || per_reset > fit {
            return Err(bad(
                "writes_per_reset",
                format!(
                    "must be between 1 and {fit} (the {}-sector writes that fit a zone of \
                     {zone} sectors), got {per_reset}",
                    cfg.write_sectors
                ),
            ));
        }
        let end_zone = cfg.first_zone.saturating_add(cfg.writers as u64);
        if end_zone.saturating_mul(zone) > capacity_sectors {
            return Err(bad(
                "writers",
                format!(
                    "zones {}..{end_zone} of {zone} sectors do not fit the device \
                     ({capacity_sectors} sectors)",
                    cfg.first_zone
                ),
            ));
        }
        Ok(ZonedWriters {
            zone_size_sectors: zone,
            first_zone: cfg.first_zone,
            write_sectors: cfg.write_sectors,
            writes_per_reset: per_reset,
            depth: cfg.depth,
            append: cfg.append,
            fills: cfg.fills,
            writers: vec![
                Writer {
                    fill: 1,
                    ..Writer::default()
                };
                cfg.writers as usize
            ],
        })
    }

    fn zone_start(&self, writer: usize) -> u64 {
        (self.first_zone + writer as u64) * self.zone_size_sectors
    }

    /// Issue what writer `i` may issue at `now`: writes up to its depth, or, with its
    /// writes for this fill issued and completed, a reset.
    fn advance(&mut self, i: usize, now: SimTime, out: &mut Arrivals) {
        let start = self.zone_start(i);
        let w = &mut self.writers[i];
        if w.resetting {
            return;
        }
        if w.issued == self.writes_per_reset {
            if w.in_flight == 0 && w.fill < self.fills {
                w.resetting = true;
                let mut r = Request::new(now, start, 1, Op::Write);
                r.marks.set_zone_op(Some(ZoneOp::Reset));
                r.process = i as u32;
                out.push(r);
            }
            return;
        }
        while w.in_flight < self.depth && w.issued < self.writes_per_reset {
            let lbn = if self.append {
                start
            } else {
                start + w.issued * self.write_sectors as u64
            };
            let mut r = Request::new(now, lbn, self.write_sectors, Op::Write);
            if self.append {
                r.marks.set_zone_op(Some(ZoneOp::Append));
            }
            r.process = i as u32;
            out.push(r);
            w.issued += 1;
            w.in_flight += 1;
        }
    }
}

impl Workload for ZonedWriters {
    fn name(&self) -> &str {
        "zoned"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        for i in 0..self.writers.len() {
            self.advance(i, 0, out);
        }
        Ok(())
    }
    fn on_arrival(&mut self, _req: &Request, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
    fn on_completion(&mut self, req: &Request, now: SimTime, out: &mut Arrivals) -> Result<()> {
        let i = req.process as usize;
        let Some(w) = self.writers.get_mut(i) else {
            return Err(HeadwayError::Invariant(format!(
                "zoned workload told of a completion for writer {i}, but it has {}",
                self.writers.len()
            )));
        };
        if req.marks.zone_op() == Some(ZoneOp::Reset) {
            w.resetting = false;
            w.issued = 0;
            w.fill += 1;
        } else {
            w.in_flight = w.in_flight.saturating_sub(1);
        }
        self.advance(i, now, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(append: bool, depth: u32) -> ZonedWritersConfig {
        ZonedWritersConfig {
            zone_size_sectors: 1_000,
            first_zone: 1,
            writers: 2,
            write_sectors: 100,
            writes_per_reset: Some(3),
            depth,
            append,
            fills: 2,
        }
    }

    fn shown(v: &[Request]) -> Vec<(u32, u64, Option<ZoneOp>)> {
        v.iter()
            .map(|r| (r.process, r.lbn, r.marks.zone_op()))
            .collect()
    }

    #[test]
    fn each_writer_fills_its_zone_in_order_then_resets_after_its_writes_complete() {
        let mut w = ZonedWriters::new(&cfg(false, 2), 10_000).unwrap();
        let mut out = Arrivals::default();
        w.start(&mut out).unwrap();
        let first: Vec<Request> = out.drain().collect();
        assert_eq!(
            shown(&first),
            [
                (0, 1000, None),
                (0, 1100, None),
                (1, 2000, None),
                (1, 2100, None)
            ]
        );
        // Writer 0: one completes, its third write goes out; then no reset until the other
        // two have completed.
        w.on_completion(&first[0], 5, &mut out).unwrap();
        let third: Vec<Request> = out.drain().collect();
        assert_eq!(shown(&third), [(0, 1200, None)]);
        w.on_completion(&first[1], 6, &mut out).unwrap();
        assert!(out.is_empty());
        w.on_completion(&third[0], 7, &mut out).unwrap();
        let reset: Vec<Request> = out.drain().collect();
        assert_eq!(shown(&reset), [(0, 1000, Some(ZoneOp::Reset))]);
        assert_eq!(reset[0].arrival_ns, 7);
        // After the reset the writer starts again at the zone's start.
        w.on_completion(&reset[0], 9, &mut out).unwrap();
        let second: Vec<Request> = out.drain().collect();
        assert_eq!(shown(&second), [(0, 1000, None), (0, 1100, None)]);
        w.on_completion(&second[0], 10, &mut out).unwrap();
        assert_eq!(shown(&out.drain().collect::<Vec<_>>()), [(0, 1200, None)]);
        // Two fills: no second reset.
        for r in [second[1], Request::new(0, 1200, 100, Op::Write)] {
            w.on_completion(&r, 11, &mut out).unwrap();
        }
        assert!(out.is_empty(), "writer 0 is done");
    }

    #[test]
    fn appends_name_the_zone_start_and_carry_the_append_command() {
        let mut w = ZonedWriters::new(&cfg(true, 3), 10_000).unwrap();
        let mut out = Arrivals::default();
        w.start(&mut out).unwrap();
        let a = Some(ZoneOp::Append);
        assert_eq!(
            shown(&out.drain().collect::<Vec<_>>()),
            [
                (0, 1000, a),
                (0, 1000, a),
                (0, 1000, a),
                (1, 2000, a),
                (1, 2000, a),
                (1, 2000, a)
            ]
        );
    }

    #[test]
    fn bad_settings_name_their_key() {
        let err =
            |c: ZonedWritersConfig, cap: u64| ZonedWriters::new(&c, cap).err().unwrap().to_string();
        assert!(err(cfg(false, 1), 2_999).contains("workload.writers"));
        let c = ZonedWritersConfig {
            writes_per_reset: Some(11),
            ..cfg(false, 1)
        };
        assert!(err(c, 10_000).contains("workload.writes_per_reset"));
        let c = ZonedWritersConfig {
            write_sectors: 0,
            ..cfg(false, 1)
        };
        assert!(err(c, 10_000).contains("workload.write_sectors"));
        let c = ZonedWritersConfig {
            depth: 0,
            ..cfg(false, 1)
        };
        assert!(err(c, 10_000).contains("workload.depth"));
    }
}
