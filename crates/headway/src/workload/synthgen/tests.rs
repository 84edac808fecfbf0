use super::*;

fn generator(devices: Vec<DeviceId>) -> SynthGenerator {
    SynthGenerator {
        devices,
        capacity_sectors: 1_000_000,
        blocking_sectors: 8,
        prob_sequential: 0.0,
        prob_local: 0.0,
        prob_read: 0.66,
        prob_time_critical: 0.0,
        prob_time_limited: 0.0,
        time_limited_think_ms: SynthDist::new("normal", &[30.0, 100.0]).unwrap(),
        general_interarrival_ms: SynthDist::new("exponential", &[0.0, 25.0]).unwrap(),
        sequential_interarrival_ms: SynthDist::new("normal", &[0.0, 0.0]).unwrap(),
        local_interarrival_ms: SynthDist::new("exponential", &[0.0, 0.0]).unwrap(),
        local_distance_sectors: SynthDist::new("normal", &[0.0, 40000.0]).unwrap(),
        size_sectors: SynthDist::new("exponential", &[0.0, 8.0]).unwrap(),
    }
}

fn config(generators: Vec<SynthGenerator>, processors: u32) -> SynthgenConfig {
    SynthgenConfig {
        generators,
        total_requests: 2000,
        end_ms: 1e9,
        processors,
    }
}

/// Runs the workload against a device that serves every request in `service_ns`, one at a
/// time in arrival order; returns every request with its completion time.
fn drive(cfg: &SynthgenConfig, service_ns: SimTime) -> Vec<(Request, SimTime)> {
    let mut w = SynthgenWorkload::new(cfg, &RngStreams::new(3)).unwrap();
    let mut out = Arrivals::default();
    w.start(&mut out).unwrap();
    let mut pending: Vec<Request> = Vec::new();
    let mut next_id = 0;
    let mut done = Vec::new();
    let mut free_at = 0;
    let mut take = |out: &mut Arrivals, pending: &mut Vec<Request>| {
        for mut r in out.drain() {
            r.id = next_id;
            next_id += 1;
            pending.push(r);
        }
    };
    take(&mut out, &mut pending);
    while !pending.is_empty() {
        pending.sort_by_key(|r| std::cmp::Reverse((r.arrival_ns, r.id)));
        let r = pending.pop().unwrap();
        w.on_arrival(&r, &mut out).unwrap();
        take(&mut out, &mut pending);
        let end = free_at.max(r.arrival_ns) + service_ns;
        free_at = end;
        // Completions are delivered in order before any later arrival is handled.
        w.on_completion(&r, end, &mut out).unwrap();
        take(&mut out, &mut pending);
        done.push((r, end));
    }
    done
}

#[test]
fn makes_exactly_the_requests_asked_for_in_whole_blocks() {
    let done = drive(&config(vec![generator(vec![0, 1])], 1), 1_000_000);
    assert_eq!(done.len(), 2000);
    for (r, _) in &done {
        assert_eq!(r.lbn % 8, 0);
        assert!(r.sectors > 0 && r.sectors % 8 == 0);
        assert!(r.lbn + u64::from(r.sectors) < 1_000_000);
    }
    let on_1 = done.iter().filter(|(r, _)| r.device == 1).count();
    assert!(
        (800..1200).contains(&on_1),
        "devices drawn uniformly: {on_1} of 2000"
    );
    let reads = done.iter().filter(|(r, _)| r.op == Op::Read).count() as f64 / 2000.0;
    assert!((reads - 0.66).abs() < 0.04, "read fraction {reads}");
}

#[test]
fn open_arrivals_follow_the_inter_arrival_mean() {
    let done = drive(&config(vec![generator(vec![0])], 1), 1_000);
    let last = done.iter().map(|(r, _)| r.arrival_ns).max().unwrap();
    let mean_ms = last as f64 / 2000.0 / 1e6;
    assert!(
        (mean_ms - 25.0).abs() < 2.0,
        "mean inter-arrival {mean_ms} ms"
    );
}

#[test]
fn a_time_critical_process_waits_for_each_request_then_thinks() {
    let mut g = generator(vec![0]);
    g.prob_time_critical = 1.0;
    g.general_interarrival_ms = SynthDist::new("uniform", &[5.0, 5.0]).unwrap();
    let done = drive(&config(vec![g], 1), 10_000_000);
    // Each request arrives 5 ms after the previous one completed (10 ms service): 15 ms apart.
    for pair in done.windows(2) {
        assert_eq!(pair[1].0.arrival_ns, pair[0].1 + 5_000_000);
    }
}

#[test]
fn one_processor_runs_one_open_generator_and_starves_the_rest() {
    let done = drive(
        &config(
            vec![generator(vec![0]), generator(vec![1]), generator(vec![2])],
            1,
        ),
        1_000,
    );
    assert!(done.iter().all(|(r, _)| r.device == 2));
    let spread = drive(
        &config(
            vec![generator(vec![0]), generator(vec![1]), generator(vec![2])],
            3,
        ),
        1_000,
    );
    for d in 0..3 {
        let n = spread.iter().filter(|(r, _)| r.device == d).count();
        assert!((500..800).contains(&n), "device {d}: {n} of 2000");
    }
}

#[test]
fn sequential_requests_follow_the_previous_one() {
    let mut g = generator(vec![0]);
    g.prob_sequential = 1.0;
    let done = drive(&config(vec![g], 1), 1_000);
    let follows = done
        .windows(2)
        .filter(|p| p[1].0.lbn == p[0].0.lbn + u64::from(p[0].0.sectors))
        .count();
    assert!(follows > 1900, "{follows} of 1999 follow on");
}

#[test]
fn the_same_seed_makes_the_same_requests() {
    let cfg = config(vec![generator(vec![0, 1])], 1);
    let a: Vec<_> = drive(&cfg, 1_000)
        .iter()
        .map(|(r, _)| (r.arrival_ns, r.lbn))
        .collect();
    let b: Vec<_> = drive(&cfg, 1_000)
        .iter()
        .map(|(r, _)| (r.arrival_ns, r.lbn))
        .collect();
    assert_eq!(a, b);
}

#[test]
fn bad_generators_get_keyed_errors() {
    let mut g = generator(vec![0]);
    g.prob_read = 1.5;
    let e = config(vec![g], 1).validate().unwrap_err().to_string();
    assert!(e.contains("generators[0].prob_read"), "{e}");
    let e = config(vec![generator(vec![])], 1)
        .validate()
        .unwrap_err()
        .to_string();
    assert!(e.contains("devices"), "{e}");
}

#[test]
fn a_time_limited_request_holds_its_process_only_past_the_limit() {
    let mut g = generator(vec![0]);
    g.prob_time_limited = 1.0;
    g.general_interarrival_ms = SynthDist::new("uniform", &[5.0, 5.0]).unwrap();
    g.time_limited_think_ms = SynthDist::new("uniform", &[2.0, 2.0]).unwrap();
    // Served in 1 ms: done before its 2 ms limit, so requests come every 5 ms.
    let fast = drive(&config(vec![g.clone()], 1), 1_000_000);
    for pair in fast.windows(2) {
        assert_eq!(pair[1].0.arrival_ns, pair[0].0.arrival_ns + 5_000_000);
    }
    // Served in 10 ms: the process waits from 2 ms after issuing until completion, then
    // computes the 3 ms left.
    let slow = drive(&config(vec![g], 1), 10_000_000);
    for pair in slow.windows(2) {
        assert_eq!(pair[1].0.arrival_ns, pair[0].1 + 3_000_000);
    }
}
