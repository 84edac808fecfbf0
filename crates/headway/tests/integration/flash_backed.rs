//! Flash-backed I/O: the redirect inequality on hand-built states, the FQueue's data
//! correctness against a reference model, the host and NVCache copies, flushing, idle
//! write-back, conservation, determinism and keyed errors.

use std::collections::BTreeMap;

use headway::device::catalog;
use headway::device::flash::FlashSpec;
use headway::device::hybrid::PinnedSet;
use headway::experiments::flash_backed::desktop::{generate, DesktopParams};
use headway::experiments::flash_backed::platter::PlatterModel;
use headway::experiments::flash_backed::{replay, Io, ReplaySetup};
use headway::request::Op;
use headway::sched::flash_backed::fqueue::FQueue;
use headway::sched::flash_backed::redirect::{should_redirect, RedirectCosts};
use headway::sched::flash_backed::{FlashBackedOptions, RqPolicy};
use proptest::prelude::*;

const MS: u64 = 1_000_000;

#[test]
fn redirect_inequality_on_hand_built_states() {
    // Far write, nothing else waiting: 15 ms on the platter vs 1.5 ms to flash.
    assert!(should_redirect(RedirectCosts {
        h_n: 15 * MS,
        f_n: 3 * MS / 2,
        next: None
    }));
    // Near write: cheaper on the platter.
    assert!(!should_redirect(RedirectCosts {
        h_n: MS,
        f_n: 3 * MS / 2,
        next: None
    }));
    // Ties never redirect.
    assert!(!should_redirect(RedirectCosts {
        h_n: 2 * MS,
        f_n: 2 * MS,
        next: None
    }));
    // The look-ahead case that must NOT redirect: n is far from the head (15 ms), but the
    // next pick nn sits right beside n (n_nn = 1 ms) and just as far from the head (h_nn =
    // 15 ms). Platter: 15 + 1 = 16 ms; flash: 1.5 + 15 = 16.5 ms. Redirecting n alone (the
    // head-distance-only rule, h_n > f_n) would pollute the FQueue.
    let clustered = RedirectCosts {
        h_n: 15 * MS,
        f_n: 3 * MS / 2,
        next: Some((MS, 15 * MS)),
    };
    assert!(!should_redirect(clustered));
    assert!(clustered.h_n > clustered.f_n);
    // Next pick near the head, n far: redirect (15 + 14 > 1.5 + 0.5).
    assert!(should_redirect(RedirectCosts {
        h_n: 15 * MS,
        f_n: 3 * MS / 2,
        next: Some((14 * MS, MS / 2)),
    }));
}

/// Operations on the FQueue and the pinned set, as the replay issues them.
#[derive(Clone, Debug)]
enum Step {
    Redirect(u64, u64),
    PlatterWrite(u64, u64),
    Flush,
    Read(u64, u64),
}

fn step() -> impl Strategy<Value = Step> {
    let ext = || (0u64..200, 1u64..24);
    prop_oneof![
        ext().prop_map(|(a, n)| Step::Redirect(a, a + n)),
        ext().prop_map(|(a, n)| Step::PlatterWrite(a, a + n)),
        Just(Step::Flush),
        ext().prop_map(|(a, n)| Step::Read(a, a + n)),
    ]
}

fn merged_ranges(fq: &FQueue) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for p in fq.pieces() {
        match out.last_mut() {
            Some(l) if l.1 == p.lbn => l.1 = p.end,
            _ => out.push((p.lbn, p.end)),
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// After any sequence of redirections, coalescing platter writes, flushes and reads,
    /// every read's source (FQueue where it holds the sector, else the platter) has the
    /// newest version; the host copy and the NVCache hold the same sectors; nothing is lost.
    #[test]
    fn reads_never_see_stale_data_and_the_copies_agree(steps in prop::collection::vec(step(), 1..80)) {
        let mut fq = FQueue::new(64);
        let mut nv = PinnedSet::default();
        let mut truth: BTreeMap<u64, u64> = BTreeMap::new();
        let mut platter: BTreeMap<u64, u64> = BTreeMap::new();
        let mut version = 0u64;
        for s in steps {
            match s {
                Step::Redirect(a, b) => {
                    version += 1;
                    if fq.fits(a, b) {
                        fq.insert(a, b, version);
                        nv.pin(a, b);
                    } else {
                        for x in a..b { platter.insert(x, version); }
                        if let Some(wb) = fq.coalesce(a, b) {
                            nv.unpin(wb.lbn, wb.end);
                            for p in &wb.pieces { for x in p.lbn..p.end { platter.insert(x, p.version); } }
                        }
                    }
                    for x in a..b { truth.insert(x, version); }
                }
                Step::PlatterWrite(a, b) => {
                    version += 1;
                    if let Some(wb) = fq.coalesce(a, b) {
                        prop_assert!(wb.lbn <= a && wb.end >= b);
                        nv.unpin(wb.lbn, wb.end);
                        for p in &wb.pieces {
                            prop_assert!(p.end <= a || p.lbn >= b, "own range not overridden");
                            for x in p.lbn..p.end { platter.insert(x, p.version); }
                        }
                    }
                    for x in a..b { platter.insert(x, version); truth.insert(x, version); }
                    prop_assert_eq!(fq.overlap_sectors(a, b), 0);
                }
                Step::Flush => {
                    if let Some(wb) = fq.pop_writeback() {
                        nv.unpin(wb.lbn, wb.end);
                        let covered: u64 = wb.pieces.iter().map(|p| p.end - p.lbn).sum();
                        prop_assert_eq!(covered, wb.sectors(), "a flush write is contiguous FQueue data");
                        for p in &wb.pieces { for x in p.lbn..p.end { platter.insert(x, p.version); } }
                    }
                }
                Step::Read(a, b) => {
                    let held: BTreeMap<u64, u64> = fq.pieces()
                        .flat_map(|p| (p.lbn..p.end).map(move |x| (x, p.version))).collect();
                    let unc = fq.uncovered(a, b);
                    for x in a..b {
                        let in_fq = held.contains_key(&x);
                        prop_assert_eq!(in_fq, !unc.iter().any(|&(u, v)| u <= x && x < v));
                        let src = held.get(&x).or_else(|| platter.get(&x));
                        prop_assert_eq!(src, truth.get(&x), "sector {} stale", x);
                    }
                }
            }
            prop_assert_eq!(merged_ranges(&fq), nv.ranges());
            prop_assert_eq!(fq.occupied_sectors(), nv.sectors());
            prop_assert!(fq.occupied_sectors() <= fq.capacity_sectors());
        }
        // Flush everything: the platter then holds every newest version.
        while let Some(wb) = fq.pop_writeback() {
            nv.unpin(wb.lbn, wb.end);
            for p in &wb.pieces { for x in p.lbn..p.end { platter.insert(x, p.version); } }
        }
        prop_assert_eq!(nv.sectors(), 0);
        for (x, v) in &truth {
            prop_assert_eq!(platter.get(x), Some(v));
        }
    }
}

#[test]
fn overwrites_are_absorbed_in_memory_and_fifo_merges_neighbours() {
    let mut fq = FQueue::new(1000);
    fq.insert(100, 108, 1);
    fq.insert(500, 508, 2);
    fq.insert(108, 116, 3); // adjacent to entry 1
    fq.insert(500, 508, 4); // overwrites entry 2 entirely
    let c = fq.counters();
    assert_eq!((c.entries_added, c.entries_overwritten), (4, 1));
    assert_eq!(fq.occupied_sectors(), 24);
    // FIFO head is entry 1 (100..108); merged with its neighbour 108..116 in one write.
    let wb = fq.pop_writeback().unwrap();
    assert_eq!((wb.lbn, wb.end), (100, 116));
    assert_eq!(wb.pieces.len(), 2);
    let wb = fq.pop_writeback().unwrap();
    assert_eq!((wb.lbn, wb.end, wb.pieces[0].version), (500, 508, 4));
    assert!(fq.pop_writeback().is_none());
    // Coalescing: a platter write at 96..101 touches an entry at 101..110: one write 96..110
    // carrying 101..110 from memory; the platter write's own sectors win where they overlap.
    fq.insert(100, 110, 5);
    let wb = fq.coalesce(96, 104).unwrap();
    assert_eq!((wb.lbn, wb.end), (96, 110));
    assert_eq!(wb.pieces.len(), 1);
    assert_eq!((wb.pieces[0].lbn, wb.pieces[0].end), (104, 110));
    assert!(fq.is_empty());
    assert!(fq.coalesce(0, 8).is_none());
}

fn setup(policy: RqPolicy, options: FlashBackedOptions) -> ReplaySetup {
    ReplaySetup {
        platter: PlatterModel::new(&catalog::lookup("ek1000").unwrap()).unwrap(),
        flash: FlashSpec::ultra2_cf(64 << 20),
        policy,
        options,
        power: None,
        verify: true,
    }
}

fn small_trace() -> Vec<Io> {
    let mut p = DesktopParams::eng(3000);
    p.span_sectors = 400_000; // dense, so reads and writes overlap FQueue data often
    generate(&p)
}

#[test]
fn replay_is_correct_conserving_and_deterministic_for_every_rq_scheduler() {
    let trace = small_trace();
    let writes = trace.iter().filter(|i| i.op == Op::Write).count() as u64;
    for policy in [RqPolicy::Fcfs, RqPolicy::Sstf, RqPolicy::Clook] {
        for (fq_mib, absorb) in [(0.05, true), (1.0, true), (100.0, true), (1.0, false)] {
            let o = FlashBackedOptions {
                fqueue_mib: fq_mib,
                absorb_overwrites: absorb,
                ..Default::default()
            };
            let s = setup(policy, o);
            let r = replay(&trace, &s);
            assert_eq!(r.requests, trace.len() as u64);
            assert_eq!(r.writes, writes);
            assert_eq!(r.stale_reads, 0, "{policy:?} {fq_mib}");
            assert_eq!(r.mirror_mismatches, 0, "{policy:?} {fq_mib}");
            assert_eq!(r.lost_sectors, 0, "{policy:?} {fq_mib}");
            assert!(r.redirected > 0, "{policy:?} {fq_mib}");
            // Every workload write went to flash, coalesced, or went to the platter alone.
            let workload_platter_writes =
                r.platter_writes - r.flush_writes - r.idle_writes - r.coalesced_writes;
            assert_eq!(
                r.redirected + r.coalesced_writes + workload_platter_writes,
                writes
            );
            if absorb {
                assert!(r.fqueue_entries_overwritten > 0, "{policy:?} {fq_mib}");
            } else {
                assert_eq!(r.fqueue_entries_overwritten, 0);
            }
            // With idle write-back and a trace ending in silence, the FQueue drains.
            assert_eq!(r.fqueue_sectors_left, 0);
            let again = replay(&trace, &s);
            assert_eq!(
                serde_json::to_string(&r).unwrap(),
                serde_json::to_string(&again).unwrap()
            );
        }
    }
}

#[test]
fn the_paired_baseline_never_touches_flash() {
    let trace = small_trace();
    let o = FlashBackedOptions {
        redirect: false,
        ..Default::default()
    };
    let r = replay(&trace, &setup(RqPolicy::Clook, o));
    assert_eq!(
        (r.redirected, r.flash_bytes_written, r.flush_writes),
        (0, 0, 0)
    );
    assert_eq!(r.reads_from_memory, 0);
    assert_eq!(r.platter_writes, r.writes);
    assert_eq!(r.stale_reads + r.lost_sectors, 0);
}

#[test]
fn flushing_never_redirects_and_alternates_with_requests() {
    // An FQueue of 16 sectors, full after two far 8-sector writes; then four more far
    // writes at once, each of which would redirect. High watermark 100%, low 0%.
    let far = [
        10_000_000u64,
        50_000_000,
        30_000_000,
        70_000_000,
        20_000_000,
        60_000_000,
    ];
    let mut trace: Vec<Io> = far[..2]
        .iter()
        .enumerate()
        .map(|(i, &lbn)| Io {
            time_ns: i as u64 * 100 * MS,
            lbn,
            sectors: 8,
            op: Op::Write,
        })
        .collect();
    for &lbn in &far[2..] {
        trace.push(Io {
            time_ns: 300 * MS,
            lbn,
            sectors: 8,
            op: Op::Write,
        });
    }
    let o = FlashBackedOptions {
        fqueue_mib: 16.0 * 512.0 / 1048576.0,
        low_watermark: 0.0,
        idle_writeback: false,
        ..Default::default()
    };
    let r = replay(&trace, &setup(RqPolicy::Fcfs, o.clone()));
    // Hand trace: writes 1-2 redirect (FQueue full: flushing starts). At 300 ms: flush
    // (8 left), write 3 -> platter (it would redirect, but a flush is on), flush (0 left:
    // the episode ends at the low watermark), writes 4 and 5 redirect (full again:
    // flushing), flush, write 6 -> platter. Idle write-back is off, so 8 sectors stay.
    assert_eq!(r.redirected, 4, "{r:?}");
    assert_eq!(r.flush_writes, 3);
    assert_eq!(r.platter_writes, 3 + 2);
    assert_eq!((r.fqueue_sectors_left, r.lost_sectors), (8, 0));
    // With room for everything, all six redirect: the two platter writes above were the
    // flush episodes' doing.
    let roomy = FlashBackedOptions {
        fqueue_mib: 1.0,
        ..o
    };
    assert_eq!(replay(&trace, &setup(RqPolicy::Fcfs, roomy)).redirected, 6);
}

#[test]
fn idle_time_writes_the_fqueue_back_without_loss() {
    let trace: Vec<Io> = (0..10u64)
        .map(|i| Io {
            time_ns: i * 1000 * MS,
            lbn: (i * 7_000_003) % 70_000_000,
            sectors: 16,
            op: Op::Write,
        })
        .collect();
    let r = replay(
        &trace,
        &setup(RqPolicy::Clook, FlashBackedOptions::default()),
    );
    // The first write is at LBN 0 with the head there: 16 sectors of transfer beat flash.
    assert_eq!(r.redirected, 9, "{r:?}");
    assert_eq!(r.idle_writes, r.redirected);
    assert_eq!(r.flush_writes, 0);
    assert!((r.idle_share() - 1.0).abs() < 1e-12);
    assert_eq!((r.fqueue_sectors_left, r.lost_sectors), (0, 0));
    // Perceived latency of a redirected write: the flash write (1.0 ms + 8 KiB / 9 MB/s)
    // plus a pin command (and its unpin later: both charged, 10 us each). The idle
    // write-back of one finished long before the next arrives, so nobody waits.
    let f = FlashSpec::ultra2_cf(1 << 20).access_ns(16, Op::Write) + 20_000;
    let platter = PlatterModel::new(&catalog::lookup("ek1000").unwrap()).unwrap();
    assert_eq!(
        r.write_latency_sum_ns,
        9 * f as u128 + platter.transfer_ns(16) as u128
    );
}

#[test]
fn an_idle_delay_keeps_entries_across_short_gaps_so_rewrites_become_overwrites() {
    // Two far blocks written in turn, one write a second: 10,000,000 and 40,000,000.
    let trace: Vec<Io> = (0..8u64)
        .map(|i| Io {
            time_ns: i * 1000 * MS,
            lbn: if i % 2 == 0 { 10_000_000 } else { 40_000_000 },
            sectors: 16,
            op: Op::Write,
        })
        .collect();
    let run = |idle_delay_ms: f64| {
        let o = FlashBackedOptions {
            idle_delay_ms,
            ..Default::default()
        };
        replay(&trace, &setup(RqPolicy::Clook, o))
    };
    // No delay: each gap writes the entry back, nothing stays to be overwritten.
    let now = run(0.0);
    assert_eq!(now.redirected, 8, "{now:?}");
    assert_eq!(now.idle_writes, 8);
    assert_eq!(now.fqueue_entries_overwritten, 0);
    // A 5 s delay outlasts every 1 s gap: the head never leaves LBN 0, every write is
    // redirected, and writes 3 to 8 each replace the entry two before them.
    let later = run(5000.0);
    assert_eq!(later.redirected, 8, "{later:?}");
    assert_eq!(later.fqueue_entries_overwritten, 6);
    assert_eq!(later.idle_writes, 2);
    assert_eq!(later.platter_writes, 2);
    assert_eq!((later.fqueue_sectors_left, later.lost_sectors), (0, 0));
    assert_eq!((later.stale_reads, later.mirror_mismatches), (0, 0));
    // Write-back starts only once the queue has been empty for the delay.
    assert!(later.end_ns > 7000 * MS + 5000 * MS, "{}", later.end_ns);
    assert!(now.end_ns < 7100 * MS, "{}", now.end_ns);
}

#[test]
fn bad_options_name_their_key() {
    let o = FlashBackedOptions {
        fqueue_mib: 200.0,
        nvcache_mib: Some(128.0),
        ..Default::default()
    };
    let e = o.validate().unwrap_err().to_string();
    assert!(
        e.contains("host.options.fqueue_mib") && e.contains("NVCache"),
        "{e}"
    );
    let o = FlashBackedOptions {
        high_watermark: 0.5,
        low_watermark: 0.8,
        ..Default::default()
    };
    let e = o.validate().unwrap_err().to_string();
    assert!(
        e.contains("host.options.low_watermark") && e.contains("out of order"),
        "{e}"
    );
    let o = FlashBackedOptions {
        flash_write_factor: 0.0,
        ..Default::default()
    };
    assert!(o
        .validate()
        .unwrap_err()
        .to_string()
        .contains("host.options.flash_write_factor"));
    let o = FlashBackedOptions {
        idle_delay_ms: -1.0,
        ..Default::default()
    };
    assert!(o
        .validate()
        .unwrap_err()
        .to_string()
        .contains("host.options.idle_delay_ms"));
}

#[test]
fn the_reproduction_seed_redraws_the_stand_ins_and_seed_one_keeps_them() {
    use headway::experiments::flash_backed::{reproduce, ReproduceOptions};
    let mut o = ReproduceOptions::quick();
    assert_eq!(o.seed, 1);
    o.synthetic_requests = 400;
    o.core_requests = 150;
    o.fqueue_mib = vec![1.0];
    o.flash_factors = vec![1.0];
    o.spindown_timeouts_s = vec![10.0];
    let rows = |o: &ReproduceOptions| {
        let r = reproduce(o, &mut |_| Ok(())).unwrap();
        let requests: Vec<usize> = r.traces.iter().map(|t| t.requests).collect();
        (
            serde_json::to_string(&r.sweep).unwrap(),
            serde_json::to_string(&r.core).unwrap(),
            requests,
        )
    };
    let one = rows(&o);
    assert_eq!(one, rows(&o), "the same seed, the same tables");
    o.seed = 2;
    let two = rows(&o);
    // Another seed: other traces of the same size, and other core runs.
    assert_eq!(one.2, two.2);
    assert!(one.2.iter().all(|&n| n == 400));
    assert_ne!(one.0, two.0);
    assert_ne!(one.1, two.1);
}
