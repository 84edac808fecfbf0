use super::options::OptionReader;
use super::stf::{Ranking, Stf};
use super::timed::{Origin, TimedQueue};
use super::SchedCtx;
use crate::error::Result;
use crate::order::sweep::Key;
use crate::time::SimTime;

/// Aged SPTF in DiskSim's form: the effective time of a request is its positioning time
/// minus its age times a weight, so a long-waiting request eventually wins however far away
/// it is (Worthington, Ganger and Patt's ASPTF). Weight 0 is plain SPTF.
///
/// Options: `age_weight` (dimensionless: nanoseconds of positioning forgiven per nanosecond
/// waited; default 0.01, i.e. 1 ms per 100 ms of waiting), `prune`.
pub type AgedSptf = Stf<Aged>;

/// [`AgedSptf`]'s ranking: positioning less the credit for waiting.
pub struct Aged {
    weight: f64,
}

pub const DEFAULT_AGE_WEIGHT: f64 = 0.01;

impl Stf<Aged> {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        Ok(Stf::with(
            TimedQueue::with_age(o.bool("prune", true)?),
            Aged {
                weight: o.f64("age_weight", DEFAULT_AGE_WEIGHT, 0.0, 1e6)?,
            },
        ))
    }
}

impl Aged {
    #[inline]
    fn credit_ns(&self, age_ns: SimTime) -> i128 {
        // Rounding is monotone, so an older request never gets less credit.
        (self.weight * age_ns as f64).round() as i128
    }
}

impl Ranking for Aged {
    fn name(&self) -> &'static str {
        "aged-sptf"
    }
    fn choose(&mut self, q: &mut TimedQueue, ctx: &SchedCtx) -> Option<(Key, Origin)> {
        let origin = q.origin(ctx, q.len());
        let now = ctx.now;
        let (_, oldest) = q.oldest().expect("queue is not empty");
        let most_credit = self.credit_ns(now.saturating_sub(oldest));
        let w = self.weight;
        let credit = |age: SimTime| (w * age as f64).round() as i128;
        let (key, _) = q.argmin(
            ctx,
            origin,
            0,
            u32::MAX,
            |floor| floor as i128 - most_credit,
            |r, _, pos| pos as i128 - credit(now.saturating_sub(r.arrival_ns)),
        )?;
        Some((key, origin))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::{Access, Moment};
    use crate::sched::testkit::*;
    use crate::sched::Scheduler;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn every_choice_is_the_brute_force_minimum_of_the_aged_time(
            head in head_strategy(), now in 1_000_000_000u64..3_000_000_000, reqs in requests_strategy(60),
            weight in prop_oneof![Just(0.0), 0.0001f64..0.05],
        ) {
            let preds = predictor(head);
            let ctx = SchedCtx::new(now, &preds, &[0], &[1]);
            let opts = options(&format!("age_weight = {weight:e}"));
            let mut s = AgedSptf::from_options(&OptionReader::new("aged-sptf", &opts)).unwrap();
            let mut all = feed(&reqs, &ctx, &mut [&mut s]);
            let p = ctx.predictor(0);
            while !all.is_empty() {
                let want = all.iter().map(|r| {
                    let pos = p.estimate(Moment::new(p.head(), now), Access::new(r.lbn, r.sectors, r.op)).positioning_ns() as i128;
                    (pos - (weight * now.saturating_sub(r.arrival_ns) as f64).round() as i128, r.id)
                }).min().unwrap().1;
                let got = dispatched_id(s.decide(&ctx));
                prop_assert_eq!(got, want);
                all.retain(|r| r.id != got);
            }
        }
    }
}
