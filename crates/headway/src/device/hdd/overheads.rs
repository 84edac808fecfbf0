//! Controller overheads, resolved once from [`OverheadSpec`] to nanoseconds with DiskSim's
//! "Time scale for overheads" applied. Tables indexed `[previous op][...]` hold DiskSim's
//! "... after read" / "... after write" pairs: the previous op is the last command whose
//! completion the drive sent.

use super::spec::{HddSpec, OverheadSpec};
use crate::request::Op;
use crate::time::{ms_to_ns, SimTime};

/// DiskSim's extra write disconnect (HP C22xx firmware): a write that follows a non-sequential
/// write disconnects once more before taking its data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExtraDisconnect {
    pub command_ns: SimTime,
    pub first_disconnect_ns: SimTime,
    pub inter_disconnect_ns: SimTime,
    pub second_disconnect_ns: SimTime,
    pub seek_delta_ns: SimTime,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overheads {
    /// DiskSim "Per-request overhead time": before the drive looks at the command at all.
    pub per_request_ns: SimTime,
    pub read_hit_ns: [SimTime; 2],
    pub read_miss_ns: [SimTime; 2],
    pub write_hit_ns: [SimTime; 2],
    pub write_miss_ns: [SimTime; 2],
    /// Indexed by this command's op.
    pub completion_ns: [SimTime; 2],
    pub data_prep_ns: SimTime,
    pub reselect_first_ns: SimTime,
    pub reselect_other_ns: SimTime,
    /// A read's disconnect, by previous op.
    pub read_disconnect_ns: [SimTime; 2],
    pub write_disconnect_ns: SimTime,
    pub extra_disconnect: Option<ExtraDisconnect>,
    /// Writes that do not continue a sequential stream position for at least this long.
    pub min_write_seek_ns: SimTime,
    /// Writes complete once in the buffer (DiskSim "Fast write level" > 0 with caching on):
    /// their command overhead is the write *hit* overhead.
    pub fast_write: bool,
}

impl Overheads {
    pub fn from_spec(spec: &HddSpec) -> Self {
        let mut o = Self::from_overheads(&spec.overheads);
        o.fast_write = spec
            .cache
            .as_ref()
            .is_some_and(|c| c.enabled && c.fast_write_level > 0);
        o
    }

    pub(crate) fn from_overheads(o: &OverheadSpec) -> Self {
        let scale = if o.time_scale > 0.0 {
            o.time_scale
        } else {
            1.0
        };
        let s = |ms: f64| ms_to_ns(ms.max(0.0) * scale);
        Overheads {
            per_request_ns: s(o.per_request_ms),
            read_hit_ns: [s(o.read_hit_after_read_ms), s(o.read_hit_after_write_ms)],
            read_miss_ns: [s(o.read_miss_after_read_ms), s(o.read_miss_after_write_ms)],
            write_hit_ns: [s(o.write_hit_after_read_ms), s(o.write_hit_after_write_ms)],
            write_miss_ns: [
                s(o.write_miss_after_read_ms),
                s(o.write_miss_after_write_ms),
            ],
            completion_ns: [s(o.read_completion_ms), s(o.write_completion_ms)],
            data_prep_ns: s(o.data_preparation_ms),
            reselect_first_ns: s(o.first_reselect_ms),
            reselect_other_ns: s(o.other_reselect_ms),
            read_disconnect_ns: [
                s(o.read_disconnect_after_read_ms),
                s(o.read_disconnect_after_write_ms),
            ],
            write_disconnect_ns: s(o.write_disconnect_ms),
            extra_disconnect: o.extra_write_disconnect.then(|| ExtraDisconnect {
                command_ns: s(o.extradisc_command_ms),
                first_disconnect_ns: s(o.extradisc_disconnect_ms),
                // DiskSim does not scale the inter-disconnect delay.
                inter_disconnect_ns: ms_to_ns(o.extradisc_inter_disconnect_ms.max(0.0)),
                second_disconnect_ns: s(o.extradisc_second_disconnect_ms),
                seek_delta_ns: s(o.extradisc_seek_delta_ms),
            }),
            min_write_seek_ns: ms_to_ns(o.minimum_seek_delay_ms.max(0.0)),
            fast_write: false,
        }
    }

    /// Overhead before the mechanism may start on a command that misses the cache (DiskSim's
    /// `overhead_done`): read miss, or write hit/miss by fast-write level.
    #[inline]
    pub(crate) fn mechanical_start_ns(&self, prev: Op, op: Op) -> SimTime {
        let p = prev as usize;
        self.per_request_ns
            + match (op, self.fast_write) {
                (Op::Read, _) => self.read_miss_ns[p],
                (Op::Write, true) => self.write_hit_ns[p],
                (Op::Write, false) => self.write_miss_ns[p],
            }
    }

    /// The smallest of [`Overheads::mechanical_start_ns`] over every previous op and op.
    pub(crate) fn min_mechanical_start_ns(&self) -> SimTime {
        let mut m = SimTime::MAX;
        for prev in [Op::Read, Op::Write] {
            for op in [Op::Read, Op::Write] {
                m = m.min(self.mechanical_start_ns(prev, op));
            }
        }
        m
    }
}
