//! The hybrid drive: pinned ranges served by the NVCache, everything else by the platter,
//! one command at a time, and keyed errors.

use headway::device::catalog;
use headway::device::flash::FlashSpec;
use headway::device::hybrid::HybridDevice;
use headway::device::{Device, DeviceIo};
use headway::request::{Command, Op, Request};
use headway::time::SimTime;

/// Serve one command alone; its service time.
fn serve(dev: &mut HybridDevice, now: SimTime, lbn: u64, sectors: u32, op: Op) -> SimTime {
    let mut io = DeviceIo::default();
    dev.submit(
        now,
        Command::single(Request::new(now, lbn, sectors, op)),
        &mut io,
    );
    let mut done = io.completions.pop();
    while done.is_none() {
        let (t, tok) = io.wakeups.remove(0);
        let mut next = DeviceIo::default();
        dev.wake(t, tok, &mut next);
        io.wakeups.extend(next.wakeups);
        done = next.completions.pop();
    }
    let c = done.unwrap();
    assert_eq!(
        (c.command.lbn, c.command.sectors),
        (lbn, sectors),
        "the host's command comes back"
    );
    c.done_ns - now
}

fn ek1000() -> headway::device::hdd::HddSpec {
    catalog::lookup("ek1000").unwrap()
}

fn dev() -> HybridDevice {
    HybridDevice::new(&ek1000(), FlashSpec::ultra2_cf(32 << 20)).unwrap()
}

#[test]
fn pinned_writes_and_populated_reads_go_to_flash() {
    let flash = FlashSpec::ultra2_cf(32 << 20);
    let mut d = dev();
    let far = 60_000_000;
    // Not pinned: the platter (a long seek from LBN 0).
    let t = serve(&mut d, 0, far, 8, Op::Read);
    assert!(t > flash.access_ns(8, Op::Read), "{t}");
    assert_eq!((d.from_flash, d.to_platter), (0, 1));
    // Pinned without Populate Immediate: a read still needs the platter, a write goes to flash,
    // and then reads of it are served by flash.
    d.pin(1_000, 1_064, false).unwrap();
    let now = 1_000_000_000;
    serve(&mut d, now, 1_000, 8, Op::Read);
    assert_eq!(d.to_platter, 2);
    assert_eq!(
        serve(&mut d, now * 2, 1_000, 16, Op::Write),
        flash.access_ns(16, Op::Write)
    );
    assert_eq!(
        serve(&mut d, now * 3, 1_000, 16, Op::Read),
        flash.access_ns(16, Op::Read)
    );
    assert_eq!(d.from_flash, 2);
    // A write reaching past the pinned range goes to the platter and makes the flash copy
    // of the overlap stale: reads of it go to the platter again; the rest stays in flash.
    d.pin(1_040, 1_064, false).unwrap();
    serve(&mut d, now * 4, 1_040, 24, Op::Write);
    assert_eq!(d.from_flash, 3);
    serve(&mut d, now * 4 + now / 2, 1_040, 60, Op::Write);
    assert_eq!(d.to_platter, 3);
    serve(&mut d, now * 5, 1_040, 8, Op::Read);
    assert_eq!(d.to_platter, 4);
    assert_eq!(
        serve(&mut d, now * 5 + now / 2, 1_000, 16, Op::Read),
        flash.access_ns(16, Op::Read)
    );
    // Populate Immediate: reads served by flash at once; unpin returns them to the platter.
    d.pin(far, far + 128, true).unwrap();
    assert_eq!(
        serve(&mut d, now * 6, far, 64, Op::Read),
        flash.access_ns(64, Op::Read)
    );
    d.unpin(far, far + 128);
    serve(&mut d, now * 7, far, 64, Op::Read);
    assert_eq!(d.to_platter, 5);
}

#[test]
fn one_command_at_a_time_through_the_channel() {
    let flash = FlashSpec::ultra2_cf(32 << 20);
    let mut d = dev();
    d.pin(0, 64, true).unwrap();
    let mut io = DeviceIo::default();
    d.submit(0, Command::single(Request::new(0, 0, 8, Op::Read)), &mut io);
    d.submit(0, Command::single(Request::new(0, 8, 8, Op::Read)), &mut io);
    assert_eq!(d.outstanding(), 2);
    // Only the first is in service: one wake-up, at the flash read's end.
    assert_eq!(io.wakeups.len(), 1);
    let (t, tok) = io.wakeups[0];
    assert_eq!(t, flash.access_ns(8, Op::Read));
    let mut io = DeviceIo::default();
    d.wake(t, tok, &mut io);
    assert_eq!(io.completions.len(), 1);
    assert_eq!(io.wakeups[0].0, 2 * flash.access_ns(8, Op::Read));
}

#[test]
fn impossible_hybrids_name_the_key() {
    let mut d = dev();
    let e = d.pin(0, 1 << 40, false).unwrap_err().to_string();
    assert!(e.contains("hybrid.pin") && e.contains("NVCache"), "{e}");
    let mut s = FlashSpec::ultra2_cf(32 << 20);
    s.page_bytes = 1000;
    let e = HybridDevice::new(&ek1000(), s).err().unwrap().to_string();
    assert!(e.contains("hybrid.flash.page_bytes"), "{e}");
}

/// Run everything submitted so far to completion; (lbn, completion time) in completion order.
fn drain(d: &mut HybridDevice, mut io: DeviceIo) -> Vec<(u64, SimTime)> {
    let mut done: Vec<(u64, SimTime)> = io
        .completions
        .drain(..)
        .map(|c| (c.command.lbn, c.done_ns))
        .collect();
    let mut wakeups = io.wakeups;
    while !wakeups.is_empty() {
        wakeups.sort();
        let (t, tok) = wakeups.remove(0);
        let mut next = DeviceIo::default();
        d.wake(t, tok, &mut next);
        wakeups.extend(next.wakeups);
        done.extend(next.completions.iter().map(|c| (c.command.lbn, c.done_ns)));
    }
    done
}

#[test]
fn concurrent_lets_the_flash_serve_while_the_platter_works() {
    let flash = FlashSpec::ultra2_cf(32 << 20);
    let far = 60_000_000;
    for concurrent in [false, true] {
        let spec = headway::config::resolve_drive("ek1000", None).unwrap();
        let platter = headway::device::hdd::HddDevice::new(&spec, 1).unwrap();
        let mut d = HybridDevice::with_platter(
            Box::new(platter),
            "ek1000",
            flash.clone(),
            concurrent,
            "hybrid",
        )
        .unwrap()
        .with_queue_depth(2);
        d.pin(0, 64, true).unwrap();
        // A long platter read, then a pinned read queued behind it.
        let mut io = DeviceIo::default();
        d.submit(
            0,
            Command::single(Request::new(0, far, 8, Op::Read)),
            &mut io,
        );
        d.submit(0, Command::single(Request::new(0, 0, 8, Op::Read)), &mut io);
        let done = drain(&mut d, io);
        assert_eq!(done.len(), 2);
        let platter_end = done.iter().find(|c| c.0 == far).unwrap().1;
        let flash_end = done.iter().find(|c| c.0 == 0).unwrap().1;
        let f = flash.access_ns(8, Op::Read);
        assert!(platter_end > 3 * f, "{platter_end}");
        if concurrent {
            // Both media at once: the flash read ends at its own service time.
            assert_eq!(flash_end, f);
        } else {
            // One channel: the flash read starts when the platter read ends.
            assert_eq!(flash_end, platter_end + f);
        }
    }
}
