//! Validation against the real drives: replay each shipped DiskSim validation trace in
//! validate mode and hold headway to DiskSim 4.0's own demerit on that drive (the RMS
//! horizontal distance between measured and simulated access-time CDFs), and to 3% of the
//! measured mean on the ST41601N, where DiskSim aborts.
//!
//! DiskSim's published figures are computed from its printed histograms (its `rms` tool:
//! binned, interpolated CDFs), so headway is compared with them by the same formula
//! (`disksim_formula_demerit_ms`); headway's own formula (RMS of sample quantiles) is guarded
//! separately by the `stays_at_its_validated_demerit` tests.

use headway::device::catalog;
use headway::request::Op;
use headway::validate::{builtin_trace, disksim_demerit_ms, validate, BuiltinTrace};

/// headway by DiskSim's formula at most DiskSim's exact published figure (3% of the measured
/// mean by headway's formula where DiskSim aborts).
fn check(name: &str) {
    let t = BuiltinTrace::get(name).unwrap();
    let spec = catalog::lookup(t.drive).unwrap();
    let records = builtin_trace(name).unwrap();
    let r = validate(&spec, &records).unwrap();
    assert_eq!(r.requests, records.len());
    eprintln!(
        "{name}: demerit {:.4} ms, by DiskSim's formula {:.4}; DiskSim {:?}",
        r.demerit_ms,
        r.disksim_formula_demerit_ms,
        disksim_demerit_ms(t.drive)
    );
    match disksim_demerit_ms(t.drive) {
        Some(d) => assert!(
            r.disksim_formula_demerit_ms <= d,
            "{name}: demerit by DiskSim's formula {:.6} ms exceeds DiskSim's {d} ms",
            r.disksim_formula_demerit_ms
        ),
        None => assert!(
            r.demerit_ms <= 0.03 * r.measured_mean_ms,
            "{name}: demerit {:.4} ms exceeds 3% of the measured mean {:.3} ms",
            r.demerit_ms,
            r.measured_mean_ms
        ),
    }
}

/// headway's own demerit formula at most `limit_ms` (a guard on headway's validated figure).
fn check_against(name: &str, limit: f64) {
    let t = BuiltinTrace::get(name).unwrap();
    let spec = catalog::lookup(t.drive).unwrap();
    let records = builtin_trace(name).unwrap();
    let r = validate(&spec, &records).unwrap();
    assert_eq!(r.requests, records.len());
    assert_eq!(r.pairs.len(), records.len());
    eprintln!(
        "{name}: demerit {:.4} ms (limit {limit:.4}); measured {:.3}/{:.3}, simulated {:.3}/{:.3}",
        r.demerit_ms, r.measured_mean_ms, r.measured_sd_ms, r.simulated_mean_ms, r.simulated_sd_ms
    );
    assert!(
        r.demerit_ms <= limit,
        "{name}: demerit {:.4} ms exceeds {limit:.4} ms",
        r.demerit_ms
    );
}

#[test]
fn atlas10k_matches_the_real_drive_at_least_as_well_as_disksim() {
    check("atlas10k");
}

/// headway's simulation of this trace is DiskSim's own (next test: the same write mean to the
/// nanosecond, the same overall mean within 50 ns), so by DiskSim's formula it scores
/// DiskSim's figure (0.3181 against 0.318228; DiskSim's per-request times printed to six
/// decimals give 0.3180 by the same code, docs/fidelity.md "Which demerit").
#[test]
fn cheetah4lp_matches_the_real_drive_at_least_as_well_as_disksim() {
    check("cheetah4lp");
}

/// headway's own figure on the Cheetah 4LP (0.3182 ms; DiskSim's per-request times give 0.3182
/// by the same formula). Before "Combine seq writes" was modelled headway was at 0.3167,
/// because two writes the real drive served in 0.9 and 1.7 ms waited 6.5 and 7.2 ms for a
/// write-back; see docs/fidelity.md.
#[test]
fn cheetah4lp_stays_at_its_validated_demerit() {
    check_against("cheetah4lp", 0.3185);
}

/// DiskSim's printed means for the Cheetah 4LP trace (`disksim-output/cheetah4LP.outv`:
/// "IOdriver Non-Critical Write Response time average 0.958704", "IOdriver Physical access
/// time average 5.070471"). The write mean needs the combined sequential writes.
#[test]
fn cheetah4lp_reproduces_disksims_own_simulated_means() {
    let records = builtin_trace("cheetah4lp").unwrap();
    let spec = catalog::lookup("cheetah4lp").unwrap();
    let r = validate(&spec, &records).unwrap();
    let writes: Vec<f64> = r
        .pairs
        .iter()
        .zip(&records)
        .filter(|(_, rec)| rec.op == Op::Write)
        .map(|(p, _)| p.1)
        .collect();
    let write_mean = writes.iter().sum::<f64>() / writes.len() as f64;
    assert_eq!(writes.len(), 3361);
    assert!(
        (write_mean - 0.958704).abs() < 1e-6,
        "write mean {write_mean}"
    );
    assert!(
        (r.simulated_mean_ms - 5.070471).abs() < 1e-4,
        "mean {}",
        r.simulated_mean_ms
    );
}

/// headway's own figure on the HP C2247A (0.0924 ms), guarded against regressions. DiskSim's
/// per-request times score 0.0941 by this formula: headway matches DiskSim on 9,996 of the
/// 9,999 requests within 0.01 ms, and DiskSim makes three writes a revolution later.
#[test]
fn hp_c2247a_stays_at_its_validated_demerit() {
    check_against("hp_c2247a", 0.0925);
}

/// By DiskSim's formula headway scores 0.0882 against DiskSim's published 0.089932. (Until
/// the formula was modelled this compared headway's formula, 0.0924, with DiskSim's and was
/// ignored; by headway's formula DiskSim scores 0.0941.)
#[test]
fn hp_c2247a_matches_the_real_drive_at_least_as_well_as_disksim() {
    check("hp_c2247a");
}

/// headway's own figure on the DEC RZ26 (0.4392 ms), guarded against regressions.
#[test]
fn dec_rz26_stays_at_its_validated_demerit() {
    check_against("dec_rz26", 0.4395);
}

#[test]
#[ignore = "known gap, an open fidelity issue, not a passing check: headway's demerit is \
            0.4380 ms against DiskSim's 0.340575 by DiskSim's formula (0.4392 by headway's): \
            the real drive serves writes with 100-800-cylinder seeks up to 8 ms later than both \
            models, by no rule found (not the previous command, idle time, direction, position, \
            head switch; not monotonic in the distance: docs/fidelity.md, \"The RZ26's \
            medium-seek writes, binned\"); DiskSim's reads, slower than the real drive's (it \
            ignores zero-latency access), offset them in its total. With the measured reads in \
            place of headway's the writes alone give 0.371 \
            (dec_rz26_reaches_disksims_figure_only_through_its_slow_reads)"]
fn dec_rz26_matches_the_real_drive_at_least_as_well_as_disksim() {
    check("dec_rz26");
}

/// The RZ26 with "Immediate buffer read" switched off is DiskSim's own simulation of the trace
/// (DiskSim's controller leaves that parameter inert: its output is the same with 0 and 1).
/// DiskSim's printed means (`disksim-output/dec_rz26.outv`): reads 15.101590, writes
/// 16.942523, all 15.691242. Per request (a private DiskSim copy printing each request's
/// simulated time) 7,970 of the 7,980 agree within 0.01 ms.
#[test]
fn dec_rz26_without_zero_latency_reads_is_disksims_own_simulation() {
    let records = builtin_trace("dec_rz26").unwrap();
    let mut spec = catalog::lookup("dec_rz26").unwrap();
    spec.cache.as_mut().unwrap().immediate_buffer_read = false;
    let r = validate(&spec, &records).unwrap();
    let mean = |op: Op| {
        let v: Vec<f64> = r
            .pairs
            .iter()
            .zip(&records)
            .filter(|(_, rec)| rec.op == op)
            .map(|(p, _)| p.1)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let (reads, writes) = (mean(Op::Read), mean(Op::Write));
    assert!((reads - 15.101590).abs() < 1e-3, "read mean {reads}");
    assert!((writes - 16.942523).abs() < 1e-3, "write mean {writes}");
    assert!(
        (r.simulated_mean_ms - 15.691242).abs() < 1e-4,
        "mean {}",
        r.simulated_mean_ms
    );
    // And DiskSim's formula on DiskSim's own simulation is DiskSim's published figure.
    let published = disksim_demerit_ms("dec_rz26").unwrap();
    eprintln!(
        "dec_rz26 without zero latency, DiskSim's formula: {:.6}",
        r.disksim_formula_demerit_ms
    );
    assert!(
        (r.disksim_formula_demerit_ms - published).abs() < 5e-4,
        "{} against DiskSim's {published}",
        r.disksim_formula_demerit_ms
    );
}

/// The only difference between headway and DiskSim on the RZ26 is the zero-latency read, and
/// the real trace takes headway's side: reads alone fit it at 0.2415 ms with zero-latency
/// access and 0.2736 without (DiskSim's reads). DiskSim's 0.341 over the whole trace comes
/// from two errors that cancel: its reads 0.21 ms slow on average, its writes (the same as
/// headway's) 0.82 ms fast. headway's writes with the *measured* reads still give 0.371, above
/// DiskSim's figure, so no change to the reads can reach it: the writes must (next test).
#[test]
fn dec_rz26_reaches_disksims_figure_only_through_its_slow_reads() {
    let records = builtin_trace("dec_rz26").unwrap();
    let spec = catalog::lookup("dec_rz26").unwrap();
    let mut no_zl = spec.clone();
    no_zl.cache.as_mut().unwrap().immediate_buffer_read = false;
    let with = validate(&spec, &records).unwrap();
    let without = validate(&no_zl, &records).unwrap();
    let reads = |r: &headway::validate::ValidationReport| {
        let (m, s): (Vec<f64>, Vec<f64>) = r
            .pairs
            .iter()
            .zip(&records)
            .filter(|(_, rec)| rec.op == Op::Read)
            .map(|(p, _)| *p)
            .unzip();
        headway::validate::demerit_ms(&m, &s)
    };
    let (d_with, d_without) = (reads(&with), reads(&without));
    eprintln!("dec_rz26 reads: demerit {d_with:.4} with zero latency, {d_without:.4} without");
    assert!(d_with < 0.25 && d_without > 0.27, "{d_with} {d_without}");
    assert!(without.demerit_ms < 0.345, "{}", without.demerit_ms);
    // Perfect reads, headway's writes.
    let measured: Vec<f64> = with.pairs.iter().map(|p| p.0).collect();
    let mixed: Vec<f64> = with
        .pairs
        .iter()
        .zip(&records)
        .map(|(p, rec)| if rec.op == Op::Read { p.0 } else { p.1 })
        .collect();
    let d = headway::validate::demerit_ms(&measured, &mixed);
    eprintln!("dec_rz26 with the measured reads: demerit {d:.4}");
    assert!(d > 0.341, "{d}");
}

/// The write settle's sign, per request (docs/fidelity.md, "The sign of a negative write
/// settle"): leaving out the writes whose seek (settle included) is 6-10 ms, where the real
/// drive adds 3-6 ms that no parameter describes, the RZ26 trace fits the signed settle at
/// 0.246 ms, far below DiskSim's 0.341 (with the settle's magnitude it was 0.323).
#[test]
fn dec_rz26_outside_its_medium_seek_writes_matches_the_real_drive() {
    let records = builtin_trace("dec_rz26").unwrap();
    let spec = catalog::lookup("dec_rz26").unwrap();
    assert!(spec.write_settle_ms < 0.0, "the settle keeps its sign");
    let r = validate(&spec, &records).unwrap();
    let rec = &r.records;
    let (mut measured, mut simulated) = (Vec::new(), Vec::new());
    let mut left_out = 0;
    for (i, (p, t)) in r.pairs.iter().zip(&records).enumerate() {
        let seek_ms = rec.seek_ns[i] as f64 / 1e6;
        if t.op == Op::Write && !rec.cache_hit[i] && (6.0..10.0).contains(&seek_ms) {
            left_out += 1;
            continue;
        }
        measured.push(p.0);
        simulated.push(p.1);
    }
    let d = headway::validate::demerit_ms(&measured, &simulated);
    eprintln!("dec_rz26 without {left_out} medium-seek writes: demerit {d:.4} ms");
    assert!(
        (450..=560).contains(&left_out),
        "{left_out} writes left out"
    );
    assert!(d < 0.26, "demerit {d:.4} ms");
}

#[test]
fn st41601n_runs_within_three_percent_of_its_mean() {
    check("st41601n");
}

#[test]
fn every_shipped_trace_validates_by_name_and_keeps_trace_order() {
    use headway::validate::{builtin_trace_names, validate_builtin};
    assert_eq!(builtin_trace_names().len(), 5);
    let r = validate_builtin("DEC_RZ26").unwrap();
    let recs = builtin_trace("dec_rz26").unwrap();
    // Pairs are in trace order: the measured column is the trace's own.
    for (p, rec) in r.pairs.iter().zip(&recs) {
        assert_eq!(p.0, rec.measured_ms);
    }
    assert!(validate_builtin("nope").is_err());
}
