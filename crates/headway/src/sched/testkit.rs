//! Shared fixtures for the schedulers' brute-force property tests.

use std::sync::Arc;

use proptest::prelude::*;

use super::options::SchedOptions;
use super::{Decision, SchedCtx, Scheduler};
use crate::device::hdd::spec::{HddSpec, LayoutSpec, SeekSpec, Sparing, ZoneSpec};
use crate::device::hdd::{Mechanics, Overheads};
use crate::predict::{OraclePredictor, Predictor};
use crate::request::{Command, Completion, HeadPosition, Op, Phases, Request};

pub const CAPACITY: u64 = 200 * 3 * 120 + 200 * 3 * 90;
pub const CYLINDERS: u32 = 400;

/// Two zones with skews and a noisy (non-monotone) seek table, so the pruning bound is
/// exercised where a naive "seek grows with distance" assumption would be wrong.
pub(crate) fn spec() -> HddSpec {
    let zone = |first, last, spt, ts, cs| ZoneSpec {
        first_cylinder: first,
        last_cylinder: last,
        sectors_per_track: spt,
        first_block_offset: 3.0,
        empty_space_front: 0,
        track_skew: ts,
        cylinder_skew: cs,
        spares: 0,
        slips: vec![],
        defects: vec![],
    };
    HddSpec {
        name: "t".into(),
        description: String::new(),
        rpm: 10025.0,
        surfaces: 3,
        cylinders: CYLINDERS,
        block_count: CAPACITY,
        layout: LayoutSpec {
            mapping_scheme: 0,
            sparing: Sparing::None,
            range_size: 1,
            zones: vec![
                zone(0, 199, 120, 20.0, 35.0),
                zone(200, 399, 90, 15.0, 27.0),
            ],
            exported_sectors: None,
        },
        seek: SeekSpec::Table {
            points: vec![
                (1, 1.2),
                (5, 1.1),
                (20, 2.0),
                (50, 1.8),
                (100, 3.0),
                (399, 8.0),
            ],
        },
        head_switch_ms: 0.3,
        write_settle_ms: -0.35,
        overheads: Default::default(),
        bus: Default::default(),
        cache: None,
        queue: Default::default(),
        actuators: 1,
        smr: None,
        zoned: None,
        reader_warnings: Vec::new(),
    }
}

/// An oracle predictor that believes the head is at `head`.
pub fn predictor(head: HeadPosition) -> Vec<Box<dyn Predictor>> {
    let s = spec();
    let mech = Arc::new(Mechanics::new(&s).unwrap());
    let mut ovh = Overheads::from_spec(&s);
    // Read and write overheads by previous op, a minimum write positioning, and (in the
    // spec) a negative write settle: every path the pruning bound must stay below.
    ovh.read_miss_ns = [150_000, 120_000];
    ovh.write_miss_ns = [300_000, 450_000];
    ovh.min_write_seek_ns = 200_000;
    let mut p = OraclePredictor::new(mech, ovh, 0);
    let cmd = Command::single(Request::new(0, 0, 1, Op::Read));
    p.observe(&Completion {
        command: cmd,
        done_ns: 0,
        phases: Phases::default(),
        cache_hit: false,
        head,
        head_lbn: 0,
    });
    vec![Box::new(p)]
}

pub(crate) fn head_strategy() -> impl Strategy<Value = HeadPosition> {
    (0u32..CYLINDERS, 0u32..3).prop_map(|(cylinder, surface)| HeadPosition { cylinder, surface })
}

/// (lbn, sectors, is_write, arrival_ns)
pub(crate) fn requests_strategy(max: usize) -> impl Strategy<Value = Vec<(u64, u32, bool, u64)>> {
    prop::collection::vec(
        (
            0u64..(CAPACITY - 64),
            1u32..64,
            any::<bool>(),
            0u64..2_000_000_000,
        ),
        1..max,
    )
}

pub(crate) fn options(text: &str) -> SchedOptions {
    toml::from_str(text).unwrap()
}

/// Give every scheduler the same requests (ids in order); returns them.
pub(crate) fn feed(
    reqs: &[(u64, u32, bool, u64)],
    ctx: &SchedCtx,
    scheds: &mut [&mut dyn Scheduler],
) -> Vec<Request> {
    let mut all = vec![];
    for (i, &(lbn, n, w, arrival)) in reqs.iter().enumerate() {
        let mut r = Request::new(arrival, lbn, n, if w { Op::Write } else { Op::Read });
        r.id = i as u64;
        for s in scheds.iter_mut() {
            s.on_arrival(r, ctx);
        }
        all.push(r);
    }
    all
}

pub(crate) fn dispatched_id(d: Decision) -> u64 {
    match d {
        Decision::Dispatch(c) => c.requests[0].id,
        d => panic!("expected a dispatch, got {d:?}"),
    }
}
