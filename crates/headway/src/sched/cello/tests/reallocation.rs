//! Work conservation when the estimates overstate service, and priority reallocation.

use super::*;

/// Run `core` over `arrivals` with each dispatched request taking `num/den` of its τ (an
/// estimator that overstates service, as the mean-rotation τ does in a saturated SCAN-ordered
/// queue); returns (class, completion time) in completion order and the device's busy time
/// in each interval of `interval_ns` up to `until`.
fn drive_scaled(
    core: &mut Core,
    est: &dyn Estimator,
    arrivals: &[(usize, Request)],
    (num, den): (SimTime, SimTime),
    interval_ns: SimTime,
    until: SimTime,
) -> (Vec<(usize, SimTime)>, Vec<SimTime>) {
    let mut done = Vec::new();
    let mut busy_ns = vec![0; until.div_ceil(interval_ns) as usize];
    let mut next = 0;
    let mut busy: Option<(Entry, SimTime)> = None;
    let mut now = 0;
    loop {
        let t_arr = arrivals.get(next).map(|a| a.1.arrival_ns);
        let t_done = busy.as_ref().map(|b| b.1);
        let t_wake = if busy.is_none() { core.wake_at() } else { None };
        let Some(t) = [t_arr, t_done, t_wake].into_iter().flatten().min() else {
            break;
        };
        if t >= until {
            break;
        }
        now = now.max(t);
        if t_done == Some(t) {
            let (e, at) = busy.take().unwrap();
            core.complete(at);
            done.push((e.class, at));
        }
        while next < arrivals.len() && arrivals[next].1.arrival_ns == t {
            core.arrive(arrivals[next].0, arrivals[next].1);
            next += 1;
        }
        core.pump(now, est).unwrap();
        if busy.is_none() {
            if let Some(e) = core.dispatch(now) {
                let end = now + e.tau_ns * num / den;
                // Spread the service over the intervals it spans.
                let mut t = now;
                while t < end.min(until) {
                    let k = t / interval_ns;
                    let stop = ((k + 1) * interval_ns).min(end);
                    busy_ns[k as usize] += stop - t;
                    t = stop;
                }
                busy = Some((e, end));
            }
        }
    }
    (done, busy_ns)
}

/// A silent real-time class and two saturated best-effort classes (interactive and
/// throughput), 1:1:1, every request there at t = 0.
fn silent_realtime_core(priority: bool, early_start: bool) -> (Core, Vec<(usize, Request)>) {
    let core = Core::new(
        vec![
            slot("rt", ClassKind::RealTime, 1.0, Fit::First),
            slot("int", ClassKind::Interactive, 1.0, Fit::First),
            slot("thr", ClassKind::Throughput, 1.0, Fit::First),
        ],
        CoreOptions {
            realloc_priority: priority,
            early_start,
            ..opts(1000)
        },
    );
    let arrivals = (0..3000u64)
        .map(|i| {
            (
                1 + (i % 2) as usize,
                req(i, 0, (i * 7919 % 500) * 1000, None),
            )
        })
        .collect();
    (core, arrivals)
}

/// Work conservation (the paper: the disk never idles while requests are pending). With
/// estimates that overstate service by two thirds, the charges of (8) fill P well before
/// the interval's end; the disk must still be busy to within one request of every
/// interval, with early start off and under both reallocation rules.
#[test]
fn a_saturated_disk_does_not_idle_when_estimates_overstate_service() {
    let est = Linear {
        base: 5 * MS,
        per_cyl: 10_000,
    };
    let max_tau = 5 * MS + 10_000 * 500;
    for priority in [false, true] {
        let (mut core, arrivals) = silent_realtime_core(priority, false);
        let (_, busy) = drive_scaled(&mut core, &est, &arrivals, (6, 10), 1000 * MS, 3000 * MS);
        for (k, b) in busy.iter().enumerate() {
            assert!(
                *b + max_tau >= 1000 * MS,
                "priority {priority}: interval {k} busy only {} ms of 1000 with requests pending",
                b / MS
            );
        }
    }
}

/// Priority reallocation: the silent real-time class's third goes to the interactive class
/// (the stricter of the two blocked ones); weight-proportional reallocation splits it.
#[test]
fn priority_reallocation_gives_unused_time_to_the_stricter_class_first() {
    let est = Linear {
        base: 5 * MS,
        per_cyl: 0,
    };
    for priority in [false, true] {
        let (mut core, arrivals) = silent_realtime_core(priority, true);
        let (done, busy) =
            drive_scaled(&mut core, &est, &arrivals, (1, 1), 1000 * MS, 1000 * MS + 1);
        assert_eq!(busy[0], 1000 * MS, "work conserving");
        let served_ms = |c: usize| done.iter().filter(|d| d.0 == c).count() as u64 * 5;
        let (int, thr) = (served_ms(1), served_ms(2));
        assert_eq!(int + thr, 1000, "priority {priority}");
        if priority {
            // Its own third (330 ms of 5 ms requests) plus all of the real-time third.
            assert!(int >= 660, "interactive {int} ms, throughput {thr} ms");
            assert!(thr <= 340, "interactive {int} ms, throughput {thr} ms");
        } else {
            assert!(
                int.abs_diff(thr) <= 10,
                "interactive {int} ms, throughput {thr} ms"
            );
        }
    }
}
