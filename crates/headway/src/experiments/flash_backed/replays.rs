//! The replays of one trace, each distinct setup run once: the experiments share setups
//! (the sweep's F = 100 MiB run is also the speed sweep's factor 1, the look-ahead run's
//! "on" and the idle-delay sweep's zero delay), and a replay is a pure function of the
//! trace and its setup.

use std::rc::Rc;

use super::replay::{replay, Io, ReplayReport, ReplaySetup};
use crate::device::power::PowerSpec;
use crate::sched::flash_backed::options::FlashBackedOptions;
use crate::sched::flash_backed::rq::RqPolicy;

pub(crate) struct Replays<'a> {
    trace: &'a [Io],
    /// The setup every replay starts from (its policy, options and power are replaced).
    base: ReplaySetup,
    done: Vec<(ReplaySetup, Rc<ReplayReport>)>,
}

impl<'a> Replays<'a> {
    pub(crate) fn new(trace: &'a [Io], base: ReplaySetup) -> Self {
        Replays {
            trace,
            base,
            done: Vec::new(),
        }
    }

    /// The replay of the trace under `policy`, `options` and `power`.
    pub(crate) fn run(
        &mut self,
        policy: RqPolicy,
        options: FlashBackedOptions,
        power: Option<PowerSpec>,
    ) -> Rc<ReplayReport> {
        let same = |s: &ReplaySetup| s.policy == policy && s.options == options && s.power == power;
        if let Some((_, r)) = self.done.iter().find(|(s, _)| same(s)) {
            return r.clone();
        }
        let setup = ReplaySetup {
            policy,
            options,
            power,
            ..self.base.clone()
        };
        let r = Rc::new(replay(self.trace, &setup));
        self.done.push((setup, r.clone()));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::flash::FlashSpec;
    use crate::experiments::flash_backed::platter::PlatterModel;
    use crate::request::Op;

    /// A setup asked for again is the first run's report, and equals a fresh replay of it.
    #[test]
    fn a_repeated_setup_is_replayed_once_and_reports_the_same() {
        let spec = crate::device::catalog::lookup("ek1000").unwrap();
        let base = ReplaySetup {
            platter: PlatterModel::new(&spec).unwrap(),
            flash: FlashSpec::ultra2_cf(128 << 20),
            policy: RqPolicy::Fcfs,
            options: FlashBackedOptions::default(),
            power: None,
            verify: false,
        };
        let trace: Vec<Io> = (0..400u64)
            .map(|i| Io {
                time_ns: i * 3_000_000,
                lbn: (i * 7919 * 64) % 10_000_000,
                sectors: 8,
                op: if i % 3 == 0 { Op::Read } else { Op::Write },
            })
            .collect();
        let mut runs = Replays::new(&trace, base.clone());
        let a = runs.run(RqPolicy::Clook, FlashBackedOptions::default(), None);
        let b = runs.run(RqPolicy::Clook, FlashBackedOptions::default(), None);
        assert!(Rc::ptr_eq(&a, &b));
        let other = FlashBackedOptions {
            fqueue_mib: 1.0,
            ..Default::default()
        };
        let c = runs.run(RqPolicy::Clook, other, None);
        assert!(!Rc::ptr_eq(&a, &c));
        let fresh = replay(
            &trace,
            &ReplaySetup {
                policy: RqPolicy::Clook,
                ..base
            },
        );
        assert_eq!(
            serde_json::to_string(&*a).unwrap(),
            serde_json::to_string(&fresh).unwrap()
        );
        assert_eq!(runs.done.len(), 2);
    }
}
