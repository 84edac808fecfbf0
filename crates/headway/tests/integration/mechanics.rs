//! Known analytical cases of the mechanical model.

use crate::common;

use common::*;
use headway::device::hdd::Mechanics;
use headway::request::{HeadPosition, Op};

fn toy() -> Mechanics {
    Mechanics::new(&toy_spec(0.0, 0.0)).unwrap()
}

#[test]
fn a_seek_of_distance_d_costs_seek_d() {
    let m = toy();
    for d in [1u32, 2, 10, 123, 999] {
        let lbn = d as u64 * TOY_CYL;
        let a = m.access(
            HeadPosition {
                cylinder: 0,
                surface: 0,
            },
            0,
            lbn,
            1,
            Op::Read,
        );
        let expect = 1_000_000 + 10_000 * d as u64;
        assert_eq!(a.seek_ns, expect, "distance {d}");
        assert_eq!(a.seek_ns, m.seek.seek_ns(d));
    }
}

#[test]
fn writes_add_settle_after_moving_but_not_in_place() {
    let m = toy();
    let moved = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        0,
        5 * TOY_CYL,
        1,
        Op::Write,
    );
    assert_eq!(moved.seek_ns, 1_000_000 + 50_000 + 200_000);
    let in_place = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        0,
        3,
        1,
        Op::Write,
    );
    assert_eq!(in_place.seek_ns, 0);
}

#[test]
fn head_switch_on_same_cylinder() {
    let m = toy();
    let a = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        0,
        TOY_SPT * 2,
        1,
        Op::Read,
    );
    assert_eq!(a.seek_ns, 500_000);
    assert_eq!(
        a.end,
        HeadPosition {
            cylinder: 0,
            surface: 2
        }
    );
}

#[test]
fn full_track_read_from_its_first_sector_takes_one_rotation() {
    let m = toy();
    // Head on track 0 at t = 0, exactly as sector 0 arrives (angle 0 at t = 0).
    let a = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        0,
        0,
        TOY_SPT as u32,
        Op::Read,
    );
    assert_eq!(a.seek_ns, 0);
    assert_eq!(a.rotate_ns, 0);
    assert_eq!(a.transfer_ns, TOY_PERIOD_NS);
    // Same from a later whole number of revolutions.
    let b = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        7 * TOY_PERIOD_NS,
        0,
        TOY_SPT as u32,
        Op::Read,
    );
    assert_eq!((b.rotate_ns, b.transfer_ns), (0, TOY_PERIOD_NS));
}

#[test]
fn a_sector_that_just_passed_waits_almost_a_full_rotation() {
    let m = toy();
    // Sector 10 starts at 1.0 ms into each revolution; arrive 1 ns after it started.
    let t = 10 * TOY_SECTOR_NS + 1;
    let a = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        t,
        10,
        1,
        Op::Read,
    );
    assert_eq!(a.rotate_ns, TOY_PERIOD_NS - 1);
    // Arriving just before it costs almost nothing.
    let b = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        10 * TOY_SECTOR_NS - 5,
        10,
        1,
        Op::Read,
    );
    assert_eq!(b.rotate_ns, 5);
}

#[test]
fn rotational_latency_is_the_angular_distance() {
    let m = toy();
    let a = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        0,
        25,
        1,
        Op::Read,
    );
    assert_eq!(a.rotate_ns, 25 * TOY_SECTOR_NS);
    assert_eq!(a.transfer_ns, TOY_SECTOR_NS);
}

#[test]
fn transfer_across_a_track_boundary_pays_switch_and_skew_wait() {
    // No skew: after the last sector of track 0 the head switches (0.5 ms = 5 sectors) and
    // then waits for sector 0 of track 1 to come round again (9.5 ms), then reads it: one
    // sector + a whole revolution + one sector.
    let m = toy();
    let a = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        0,
        99,
        2,
        Op::Read,
    );
    assert_eq!(a.rotate_ns, 99 * TOY_SECTOR_NS);
    assert_eq!(a.transfer_ns, TOY_PERIOD_NS + 2 * TOY_SECTOR_NS);
    assert_eq!(
        a.end,
        HeadPosition {
            cylinder: 0,
            surface: 1
        }
    );
    // A track skew of 5 sectors hides the 0.5 ms head switch exactly.
    let skewed = Mechanics::new(&toy_spec(5.0, 0.0)).unwrap();
    let b = skewed.access(
        HeadPosition {
            cylinder: 0,
            surface: 0,
        },
        0,
        99,
        2,
        Op::Read,
    );
    assert_eq!(b.transfer_ns, TOY_SECTOR_NS + 500_000 + TOY_SECTOR_NS);
}

#[test]
fn transfer_across_a_cylinder_boundary_pays_a_one_cylinder_seek() {
    // Cylinder skew of 11 sectors covers the 1.01 ms single-cylinder seek (10.1 sectors).
    let m = Mechanics::new(&toy_spec(0.0, 11.0)).unwrap();
    let last_of_cyl0 = TOY_CYL - 1;
    let start = m.layout.locate(last_of_cyl0);
    let t0 = (start.angle * TOY_PERIOD_NS as f64).round() as u64;
    let a = m.access(
        HeadPosition {
            cylinder: 0,
            surface: 3,
        },
        t0,
        last_of_cyl0,
        2,
        Op::Read,
    );
    assert_eq!(a.rotate_ns, 0);
    assert_eq!(
        a.transfer_ns,
        TOY_SECTOR_NS + 11 * TOY_SECTOR_NS + TOY_SECTOR_NS
    );
    assert_eq!(
        a.end,
        HeadPosition {
            cylinder: 1,
            surface: 0
        }
    );
}

#[test]
fn zero_length_access_is_a_pure_seek() {
    let m = toy();
    let a = m.access(HeadPosition::default(), 0, 500 * TOY_CYL, 0, Op::Read);
    assert_eq!(a.seek_ns, m.seek.seek_ns(500));
    assert_eq!((a.rotate_ns, a.transfer_ns), (0, 0));
    assert_eq!(a.end.cylinder, 500);
}
