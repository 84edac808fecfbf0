//! The flash device: size-dependent access time (the spec's stand-in), the page-mapped FTL's
//! conservation under garbage collection, write amplification and erase counts.

use headway::device::flash::endurance::{erases_for_bytes, years_to_wear_out};
use headway::device::flash::{FlashDevice, FlashSpec, Ftl};
use headway::device::{Device, DeviceIo};
use headway::request::{Command, Op, Request};
use proptest::prelude::*;

#[test]
fn access_time_is_the_spec_stand_in_and_ignores_address() {
    let s = FlashSpec::ultra2_cf(64 << 20);
    // spec/disks.md section 5: read 0.3 ms + size / 10 MB/s, write 1.0 ms + size / 9 MB/s.
    assert!((s.access_ms(4096, Op::Read) - (0.3 + 4096.0 / 10e6 * 1e3)).abs() < 1e-12);
    assert!((s.access_ms(65536, Op::Read) - 6.8536).abs() < 1e-9);
    assert!((s.access_ms(65536, Op::Write) - (1.0 + 65536.0 / 9e6 * 1e3)).abs() < 1e-12);
    // 4 KiB write: 1.0 + 0.4551 ms = 1.4551 ms, in integer ns.
    assert_eq!(s.access_ns(8, Op::Write), 1_455_111);
    let mut fast = s.clone();
    fast.write_speed_factor = 5.0;
    assert!((fast.access_ms(65536, Op::Write) * 5.0 - s.access_ms(65536, Op::Write)).abs() < 1e-12);
    // Address does not matter: the device serves the same size anywhere in the same time.
    let mut dev = FlashDevice::new(s.clone(), 1, false).unwrap();
    let mut times = Vec::new();
    let mut now = 0;
    for lbn in [0u64, 100_000, 7, 60_000] {
        let mut io = DeviceIo::default();
        dev.submit(
            now,
            Command::single(Request::new(now, lbn, 8, Op::Write)),
            &mut io,
        );
        let (t, tok) = io.wakeups[0];
        let mut io2 = DeviceIo::default();
        dev.wake(t, tok, &mut io2);
        assert_eq!(io2.completions.len(), 1);
        times.push(t - now);
        now = t + 1_000;
    }
    assert!(times.iter().all(|&t| t == 1_455_111), "{times:?}");
}

#[test]
fn one_channel_serves_commands_in_order() {
    let s = FlashSpec::ultra2_cf(8 << 20);
    let mut dev = FlashDevice::new(s.clone(), 4, false).unwrap();
    let mut io = DeviceIo::default();
    dev.submit(0, Command::single(Request::new(0, 0, 8, Op::Read)), &mut io);
    dev.submit(
        0,
        Command::single(Request::new(0, 64, 128, Op::Read)),
        &mut io,
    );
    assert_eq!(dev.outstanding(), 2);
    let first = s.access_ns(8, Op::Read);
    assert_eq!(io.wakeups, vec![(first, 0)]);
    let mut io = DeviceIo::default();
    dev.wake(first, 0, &mut io);
    assert_eq!(io.completions[0].command.lbn, 0);
    assert_eq!(io.wakeups, vec![(first + s.access_ns(128, Op::Read), 0)]);
    assert_eq!(dev.outstanding(), 1);
}

fn tiny() -> FlashSpec {
    // 4 pages of 2 KiB per block, 8 logical blocks -> 32 logical pages, 2 spare blocks.
    let mut s = FlashSpec::ultra2_cf(64 << 10);
    s.page_bytes = 2048;
    s.erase_block_bytes = 8192;
    s.overprovision = 0.0;
    s
}

#[test]
fn erase_counts_match_pages_programmed_on_a_hand_computed_case() {
    let s = tiny();
    assert_eq!(s.physical_blocks(), 10);
    let mut ftl = Ftl::new(&s, false);
    // Fill the logical space once: 32 pages into blocks 0..7, no erase.
    ftl.write(0, 32);
    assert_eq!(ftl.counters().erases, 0);
    assert_eq!(ftl.counters().programmed_pages, 32);
    // Rewrite logical pages 0..8 twice. First pass: blocks 8 and 9 (the last free one is
    // taken when block 8 is full and one free block remains: GC first). Hand count: after
    // 4 pages into block 8, block 0 is fully stale; the 5th write needs a block with only
    // block 9 free, so GC erases block 0 (0 valid, nothing copied) and writing continues in
    // block 9, then block 0 ...
    ftl.write(0, 8);
    let c = ftl.counters();
    assert_eq!(c.host_pages, 40);
    assert_eq!(
        c.gc_copied_pages, 0,
        "stale blocks are erased without copies"
    );
    assert_eq!(c.erases, 1);
    ftl.write(0, 8);
    let c = ftl.counters();
    assert_eq!(c.gc_copied_pages, 0);
    assert_eq!(c.erases, 3);
    // Conservation: pages programmed = pages still on flash (not erased) + erased pages.
    assert_eq!(
        c.programmed_pages,
        ftl.programmed_unerased_pages() + c.erases * s.pages_per_block()
    );
    assert_eq!(ftl.erase_counts().iter().sum::<u64>(), c.erases);
    assert_eq!(ftl.erase_counts()[0], 1);
    assert_eq!(ftl.valid_pages(), 32);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn gc_keeps_every_page_and_amplification_is_at_least_one(
        writes in prop::collection::vec((0u64..32, 1u64..6), 1..300),
        wear_aware in any::<bool>(),
    ) {
        let s = tiny();
        let mut ftl = Ftl::new(&s, wear_aware);
        let mut written = std::collections::BTreeSet::new();
        for (first, count) in writes {
            ftl.write(first, count);
            for i in 0..count {
                written.insert((first + i) % 32);
            }
            let c = ftl.counters();
            prop_assert_eq!(ftl.mapped_pages(), written.len() as u64);
            prop_assert_eq!(ftl.valid_pages(), written.len() as u64);
            prop_assert_eq!(
                c.programmed_pages,
                ftl.programmed_unerased_pages() + c.erases * s.pages_per_block()
            );
            prop_assert_eq!(c.programmed_pages, c.host_pages + c.gc_copied_pages);
            prop_assert!(c.write_amplification() >= 1.0);
            prop_assert_eq!(ftl.erase_counts().iter().sum::<u64>(), c.erases);
            prop_assert!(ftl.free_blocks() >= 1);
        }
    }
}

#[test]
fn random_overwrites_amplify_and_wear_aware_allocation_evens_erases() {
    let s = tiny();
    let mut plain = Ftl::new(&s, false);
    let mut even = Ftl::new(&s, true);
    plain.write(0, 32);
    even.write(0, 32);
    // A hot page and a sweep, deterministic.
    let mut x = 7u64;
    for _ in 0..4000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let lpn = (x >> 33) % 32;
        plain.write(lpn, 1);
        even.write(lpn, 1);
    }
    assert!(plain.counters().write_amplification() > 1.0);
    let spread = |f: &Ftl| {
        let e = f.erase_counts();
        e.iter().max().unwrap() - e.iter().min().unwrap()
    };
    assert!(
        spread(&even) <= spread(&plain),
        "{} {}",
        spread(&even),
        spread(&plain)
    );
}

#[test]
fn endurance_formula_is_the_papers() {
    // 100 MB of 128 KiB blocks (800 blocks), 100k cycles, 7,000 erases in 7 days:
    // 800 * 100000 / (1000 * 365) = 219.18 years.
    let y = years_to_wear_out(800.0, 100_000, 7_000, 7.0);
    assert!((y - 219.178).abs() < 1e-3, "{y}");
    assert!(years_to_wear_out(800.0, 100_000, 0, 7.0).is_infinite());
    assert_eq!(erases_for_bytes(10 * 131_072 + 5, 131_072), 10);
}

#[test]
fn impossible_geometry_names_the_key() {
    let mut s = FlashSpec::ultra2_cf(1 << 20);
    s.erase_block_bytes = 3000;
    let e = s.validate().unwrap_err().to_string();
    assert!(e.contains("flash.erase_block_bytes"), "{e}");
    let mut s = FlashSpec::ultra2_cf(1 << 20);
    s.write_mb_s = 0.0;
    assert!(FlashDevice::new(s, 1, false).is_err());
}
