//! Lazy insertion: the paper's Example 2, and where a held class's time goes.

use super::*;

/// Example 2 under lazy insertion: the requests due at 1 s wait until one interval before
/// their deadline, so the urgent request arriving later is inserted at once and meets its
/// deadline, and every held request is still on time.
#[test]
fn lazy_insertion_keeps_late_deadlines_from_starving_an_early_one() {
    let est = Linear {
        base: 10 * MS,
        per_cyl: 0,
    };
    let mut core = rt_and_be(CoreOptions {
        reallocate: false,
        early_start: false,
        lazy: true,
        ..opts(200)
    });
    let arrivals = example_2_arrivals();
    let done = drive(&mut core, &est, &arrivals, 10_000 * MS);
    assert_eq!(done.len(), 11);
    let urgent = done.iter().find(|d| d.0.id == 99).unwrap();
    assert_eq!(urgent.2, 11 * MS, "inserted on arrival, served at once");
    for d in done.iter().filter(|d| d.0.id < 10) {
        // Held until the interval [600, 800) ms, then served just in time.
        assert!(
            (600 * MS..=1000 * MS).contains(&d.2),
            "request {} done at {} ms",
            d.0.id,
            d.2 / MS
        );
    }
}

/// Lazy insertion hands a held class's time to a blocked best-effort class (reallocation),
/// and an idle disk with only held requests waits for the next interval instead of
/// starting one early.
#[test]
fn lazy_insertion_reallocates_the_held_time_and_does_not_start_intervals_early() {
    let est = Linear {
        base: 5 * MS,
        per_cyl: 0,
    };
    let mut core = rt_and_be(CoreOptions {
        lazy: true,
        ..opts(1000)
    });
    let log: IntervalLog = Rc::new(RefCell::new(Vec::new()));
    core.log = Some(log.clone());
    // A real-time request due in the fourth interval, and 150 best-effort requests (750 ms).
    let mut arrivals = vec![(0, req(0, 0, 0, Some(3500 * MS)))];
    arrivals.extend((1..=150u64).map(|i| (1, req(i, 0, i * 10, None))));
    let done = drive(&mut core, &est, &arrivals, 10_000 * MS);
    assert_eq!(done.len(), 151);
    // Best effort took the whole first 750 ms (its 500 ms share plus the held class's).
    let be_last = done.iter().filter(|d| d.1 == 1).map(|d| d.2).max().unwrap();
    assert_eq!(be_last, 750 * MS);
    let rt = done.iter().find(|d| d.1 == 0).unwrap();
    assert!(
        (2000 * MS..=3500 * MS).contains(&rt.2),
        "held until its interval: done at {} ms",
        rt.2 / MS
    );
    let starts: Vec<SimTime> = log.borrow().iter().map(|r| r.start_ns / MS).collect();
    assert_eq!(&starts[..2], &[0, 1000], "no early start for held requests");
}
