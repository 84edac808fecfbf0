//! Power states of a rotating drive: spin-down after the idle timeout, arrivals to a
//! spun-down drive wait for the spin-up, energy per state sums to the total, and hand-computed
//! cases.

use headway::device::flash::{FlashDevice, FlashSpec};
use headway::device::power::{PowerMeter, PowerSpec, PowerState, Powered};
use headway::device::{Device, DeviceIo};
use headway::request::{Command, Op, Request};

const MS: u64 = 1_000_000;

fn spec(timeout_ms: Option<f64>) -> PowerSpec {
    PowerSpec {
        active_w: 2.0,
        idle_w: 1.0,
        standby_w: 0.25,
        spinup_ms: 3000.0,
        spinup_j: 12.0,
        spindown_timeout_ms: timeout_ms,
    }
}

#[test]
fn spins_down_after_the_timeout_and_never_without_one() {
    let mut m = PowerMeter::new(spec(Some(5000.0)), 0);
    assert_eq!(m.state_at(4999 * MS), PowerState::Idle);
    assert_eq!(m.state_at(5000 * MS), PowerState::Standby);
    let mut never = PowerMeter::new(spec(None), 0);
    assert_eq!(never.state_at(1_000_000 * MS), PowerState::Idle);
}

#[test]
fn hand_computed_spin_up_delay_and_energy() {
    // Idle 0..5 s (timeout), standby 5..10 s, arrival at 10 s -> spin-up to 13 s, busy
    // 13..14 s, idle 14..20 s (report at 20 s, before the next timeout at 19 s? no: 14 + 5 =
    // 19 s, so standby 19..20 s).
    let mut m = PowerMeter::new(spec(Some(5000.0)), 0);
    let ready = m.arrive(10_000 * MS);
    assert_eq!(ready, 13_000 * MS);
    assert_eq!(m.state_at(11_000 * MS), PowerState::SpinUp);
    // A second arrival during the spin-up waits for the same end.
    assert_eq!(m.arrive(12_000 * MS), 13_000 * MS);
    m.spun_up(13_000 * MS);
    m.set_busy(13_000 * MS, true);
    m.set_busy(14_000 * MS, false);
    let r = m.report(20_000 * MS);
    assert_eq!(r.idle_ns, (5_000 + 5_000) * MS);
    assert_eq!(r.standby_ns, (5_000 + 1_000) * MS);
    assert_eq!(r.spinup_ns, 3_000 * MS);
    assert_eq!(r.active_ns, 1_000 * MS);
    assert_eq!(r.total_ns(), 20_000 * MS);
    assert_eq!((r.spinups, r.spindowns), (1, 2));
    // 10 s idle * 1 W + 6 s * 0.25 W + 12 J + 1 s * 2 W = 25.5 J
    assert!((r.total_j() - 25.5).abs() < 1e-9, "{}", r.total_j());
    assert!((r.active_j + r.idle_j + r.standby_j + r.spinup_j - r.total_j()).abs() < 1e-12);
}

#[test]
fn a_powered_device_delays_commands_by_the_spin_up_and_accounts_every_nanosecond() {
    let flash = FlashDevice::new(FlashSpec::ultra2_cf(8 << 20), 1, false).unwrap();
    let service = FlashSpec::ultra2_cf(8 << 20).access_ns(8, Op::Read);
    let mut dev = Powered::new(flash, spec(Some(1000.0))).unwrap();
    // Busy from 0: no delay.
    let mut io = DeviceIo::default();
    dev.submit(0, Command::single(Request::new(0, 0, 8, Op::Read)), &mut io);
    assert_eq!(io.wakeups, vec![(service, 0)]);
    let mut io = DeviceIo::default();
    dev.wake(service, 0, &mut io);
    assert_eq!(io.completions.len(), 1);
    // Spun down at service + 1 s; an arrival at 5 s waits 3 s.
    assert_eq!(dev.state_at(service + 1000 * MS), PowerState::Standby);
    let t = 5_000 * MS;
    let mut io = DeviceIo::default();
    dev.submit(t, Command::single(Request::new(t, 0, 8, Op::Read)), &mut io);
    assert_eq!(io.wakeups, vec![(t + 3_000 * MS, u64::MAX)]);
    assert!(io.completions.is_empty());
    assert_eq!(dev.outstanding(), 1);
    let mut io = DeviceIo::default();
    dev.wake(t + 3_000 * MS, u64::MAX, &mut io);
    assert_eq!(io.wakeups, vec![(t + 3_000 * MS + service, 0)]);
    let done = t + 3_000 * MS + service;
    let mut io = DeviceIo::default();
    dev.wake(done, 0, &mut io);
    assert_eq!(io.completions[0].done_ns - t, 3_000 * MS + service);
    let r = dev.energy(done);
    assert_eq!(r.total_ns(), done);
    assert_eq!(r.active_ns, 2 * service);
    assert_eq!(r.spinup_ns, 3_000 * MS);
    let by_state = r.active_j + r.idle_j + r.standby_j + r.spinup_j;
    assert!((by_state - r.total_j()).abs() < 1e-12);
    let expect = 2.0 * (2 * service) as f64 / 1e9
        + 1.0 * 1.0
        + 0.25 * (t - service - 1000 * MS) as f64 / 1e9
        + 12.0;
    assert!(
        (r.total_j() - expect).abs() < 1e-9,
        "{} {}",
        r.total_j(),
        expect
    );
}

#[test]
fn bad_power_numbers_name_the_key() {
    let mut s = spec(Some(-1.0));
    let e = s.validate().unwrap_err().to_string();
    assert!(e.contains("power.spindown_timeout_ms"), "{e}");
    s.spindown_timeout_ms = None;
    s.idle_w = f64::NAN;
    assert!(s
        .validate()
        .unwrap_err()
        .to_string()
        .contains("power.idle_w"));
}
