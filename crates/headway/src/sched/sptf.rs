use super::options::OptionReader;
use super::stf::{Ranking, Stf};
use super::timed::{Objective, Origin, TimedQueue};
use super::SchedCtx;
use crate::error::Result;
use crate::order::sweep::Key;

/// Shortest time first: dispatch the request the predictor says can start its media
/// transfer soonest (SPTF: overheads + seek + rotational latency), or, with the `service`
/// objective, finish it soonest (adding the transfer: the paper's STF and Jacobson and
/// Wilkes' SATF). Ties go to the older request. The search is pruned without changing its
/// answer (see `timed.rs`).
///
/// Names: `sptf` and `stf` default to positioning, `satf` to service. Options: `objective`
/// (`"positioning"` or `"service"`), `prune` (default true; false evaluates every queued
/// request, as the paper's implementation did, which matters when decisions cost CPU time).
pub type Sptf = Stf<Shortest>;

/// [`Sptf`]'s ranking: the least objective.
pub struct Shortest {
    objective: Objective,
    name: &'static str,
}

impl Ranking for Shortest {
    #[inline]
    fn name(&self) -> &'static str {
        self.name
    }
    #[inline]
    fn choose(&mut self, q: &mut TimedQueue, ctx: &SchedCtx) -> Option<(Key, Origin)> {
        let origin = q.origin(ctx, q.len());
        let obj = self.objective;
        // Transfer time is non-negative, so the positioning floor bounds either objective.
        let (key, _) = q.argmin(
            ctx,
            origin,
            0,
            u32::MAX,
            |floor| floor,
            |_, t, pos| obj.of(pos, t),
        )?;
        Some((key, origin))
    }
}

impl Stf<Shortest> {
    pub fn new() -> Self {
        Stf::with(
            TimedQueue::new(true).ranked_by(Objective::Positioning),
            Shortest {
                objective: Objective::Positioning,
                name: "sptf",
            },
        )
    }

    /// An SPTF that evaluates every queued request (for checking the pruned search).
    #[cfg(test)]
    pub(crate) fn unpruned() -> Self {
        Stf::with(
            TimedQueue::new(false).ranked_by(Objective::Positioning),
            Self::new().rank,
        )
    }

    /// `name` is `sptf`, `stf` or `satf`.
    pub fn from_options(name: &'static str, o: &OptionReader) -> Result<Self> {
        let choices: &[&'static str] = if name == "satf" {
            &["service", "positioning"]
        } else {
            Objective::NAMES
        };
        let objective = Objective::parse(o.choice("objective", choices)?);
        Ok(Stf::with(
            TimedQueue::new(o.bool("prune", true)?).ranked_by(objective),
            Shortest { objective, name },
        ))
    }
}

impl Default for Stf<Shortest> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::{Access, Moment, Needs};
    use crate::request::{Op, Request};
    use crate::sched::testkit::*;
    use crate::sched::Scheduler;
    use crate::time::SimTime;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn every_choice_is_the_brute_force_minimum(
            head in head_strategy(), now in 0u64..50_000_000, reqs in requests_strategy(80),
            service in any::<bool>(),
        ) {
            let preds = predictor(head);
            let ctx = SchedCtx::new(now, &preds, &[0], &[1]);
            let obj = if service { "service" } else { "positioning" };
            let opts = options(&format!("objective = \"{obj}\""));
            let mut pruned = Sptf::from_options("stf", &OptionReader::new("stf", &opts)).unwrap();
            let opts_full = options(&format!("objective = \"{obj}\"\nprune = false"));
            let mut full = Sptf::from_options("stf", &OptionReader::new("stf", &opts_full)).unwrap();
            let mut all = feed(&reqs, &ctx, &mut [&mut pruned, &mut full]);
            while !all.is_empty() {
                let p = ctx.predictor(0);
                let best = all.iter().map(|r| {
                    let e = p.estimate(Moment::new(p.head(), now), Access::new(r.lbn, r.sectors, r.op));
                    let t = p.target(Access::new(r.lbn, r.sectors, r.op), Needs::Service);
                    (if service { e.positioning_ns() + t.transfer_ns } else { e.positioning_ns() }, r.id)
                }).min().unwrap();
                let a = dispatched_id(pruned.decide(&ctx));
                let b = dispatched_id(full.decide(&ctx));
                prop_assert_eq!(a, best.1);
                prop_assert_eq!(b, best.1);
                all.retain(|r| r.id != a);
            }
            prop_assert!(pruned.evaluations() <= full.evaluations());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]
        /// With the origin planned per op (the commands at the drive seen by a read and by a
        /// write), each candidate is ranked from its own op's origin on one clock: the
        /// choice is the least (start - earlier start) + positioning, pruned or not, and a
        /// write origin on another cylinder still finds it.
        #[test]
        fn each_op_is_ranked_from_its_own_origin(
            head in head_strategy(), write_head in head_strategy(), now in 0u64..50_000_000,
            write_later in -20_000_000i64..20_000_000, reqs in requests_strategy(60),
        ) {
            let preds = predictor(head);
            let ctx = SchedCtx::new(now, &preds, &[0], &[1]);
            let p = ctx.predictor(0);
            let write_start = (now as i64 + 20_000_000 + write_later) as SimTime;
            let origin = Origin {
                write: (write_head, write_start),
                ..Origin::uniform(head, now + 20_000_000, now)
            };
            let mut pruned = Sptf::new();
            let mut full = Sptf::unpruned();
            let all = feed(&reqs, &ctx, &mut [&mut pruned, &mut full]);
            let base = origin.start_ns.min(write_start);
            let best = all.iter().map(|r| {
                let (from, start) = origin.of(r.op);
                (start - base + p.estimate(Moment::new(from, start), Access::new(r.lbn, r.sectors, r.op)).positioning_ns(), r.id)
            }).min().unwrap();
            for s in [&mut pruned, &mut full] {
                let (key, cost) = s.q.argmin(&ctx, origin, 0, u32::MAX, |f| f, |_, _, pos| pos).unwrap();
                prop_assert_eq!((cost, key.1), best);
            }
        }
    }

    /// A backlog deeper than the cylinder index keeps in one array (it moves into a B-tree
    /// and back as the queue drains): every choice is still the brute-force minimum.
    #[test]
    fn a_backlog_past_the_flat_index_chooses_as_brute_force() {
        let head = crate::request::HeadPosition {
            cylinder: 170,
            surface: 1,
        };
        let preds = predictor(head);
        let ctx = SchedCtx::new(3_000_000, &preds, &[0], &[1]);
        let mut s = Sptf::new();
        let reqs: Vec<_> = (0..700u64)
            .map(|i| ((i * 7919 * 13) % (CAPACITY - 64), 8, i % 5 == 0, 0))
            .collect();
        let mut all = feed(&reqs, &ctx, &mut [&mut s]);
        let p = ctx.predictor(0);
        while !all.is_empty() {
            let best = all
                .iter()
                .map(|r| {
                    let e = p.estimate(
                        Moment::new(p.head(), ctx.now),
                        Access::new(r.lbn, r.sectors, r.op),
                    );
                    (e.positioning_ns(), r.id)
                })
                .min()
                .unwrap();
            let id = dispatched_id(s.decide(&ctx));
            assert_eq!(id, best.1, "with {} queued", all.len());
            all.retain(|r| r.id != id);
        }
    }

    #[test]
    fn pruning_skips_most_of_a_deep_queue() {
        let preds = predictor(crate::request::HeadPosition {
            cylinder: 200,
            surface: 0,
        });
        let ctx = SchedCtx::new(0, &preds, &[0], &[1]);
        let mut s = Sptf::new();
        for i in 0..400u64 {
            let mut r = Request::new(0, (i * 7919 * 13) % (200 * 3 * 120), 8, Op::Read);
            r.id = i;
            s.on_arrival(r, &ctx);
        }
        let _ = s.decide(&ctx);
        assert!(
            s.evaluations() < 200,
            "evaluated {} of 400",
            s.evaluations()
        );
        assert_eq!(ctx.estimates.get(), s.evaluations());
    }

    #[test]
    fn a_full_scan_plans_for_when_the_decision_is_done() {
        let preds = predictor(crate::request::HeadPosition {
            cylinder: 200,
            surface: 0,
        });
        let mut ctx = SchedCtx::new(1_000_000, &preds, &[0], &[1]);
        ctx.ns_per_estimate = 8_000;
        let mut s = Sptf::unpruned();
        for i in 0..50u64 {
            let mut r = Request::new(0, (i * 7919 * 13) % (200 * 3 * 120), 8, Op::Read);
            r.id = i;
            s.on_arrival(r, &ctx);
        }
        assert_eq!(s.q.origin(&ctx, 50).start_ns, 1_000_000 + 50 * 8_000);
        let _ = s.decide(&ctx);
        assert_eq!(ctx.estimates.get(), 50);
    }
}
