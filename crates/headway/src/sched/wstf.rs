use super::options::OptionReader;
use super::stf::{Ranking, Stf};
use super::timed::{Objective, Origin, TimedQueue};
use super::SchedCtx;
use crate::error::Result;
use crate::order::sweep::Key;
use crate::time::{SimTime, NS_PER_MS};

/// Weighted shortest time first (the paper's aging): each request's estimated time T_real is
/// weighted by how much of the allowed maximum response time M it has left,
/// T_w = T_real * (M - E) / M with E its wait so far, and the least T_w goes next. A request
/// that has waited M or longer (T_w <= 0) is overdue: the oldest overdue request goes first.
///
/// Options: `max_response_ms` (M, default 1000), `objective` (what T_real is; default
/// `"service"`, the paper's "I/O time"), `prune`.
pub type Wstf = Stf<Weighted>;

/// [`Wstf`]'s ranking: the least time weighted by the response-time budget left.
pub struct Weighted {
    objective: Objective,
    max_response_ns: SimTime,
}

pub const DEFAULT_MAX_RESPONSE_MS: f64 = 1000.0;

impl Stf<Weighted> {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        let m = o.f64("max_response_ms", DEFAULT_MAX_RESPONSE_MS, 1e-3, 1e9)?;
        Ok(Stf::with(
            TimedQueue::with_age(o.bool("prune", true)?),
            Weighted {
                objective: Objective::parse(o.choice("objective", &["service", "positioning"])?),
                max_response_ns: (m * NS_PER_MS as f64).round() as SimTime,
            },
        ))
    }
}

impl Ranking for Weighted {
    fn name(&self) -> &'static str {
        "wstf"
    }
    fn choose(&mut self, q: &mut TimedQueue, ctx: &SchedCtx) -> Option<(Key, Origin)> {
        let origin = q.origin(ctx, q.len());
        let (oldest_key, oldest_arrival) = q.oldest().expect("queue is not empty");
        let m = self.max_response_ns;
        let waited_max = ctx.now.saturating_sub(oldest_arrival);
        if waited_max >= m {
            return Some((oldest_key, origin));
        }
        // Compare T_real * (M - E) exactly in integers (the common 1/M drops out). Every
        // request has waited at most `waited_max`, so its factor is at least M - waited_max.
        let now = ctx.now;
        let obj = self.objective;
        let least_left = (m - waited_max) as u128;
        let (key, _) = q.argmin(
            ctx,
            origin,
            0,
            u32::MAX,
            |floor| floor as u128 * least_left,
            |r, t, pos| obj.of(pos, t) as u128 * (m - now.saturating_sub(r.arrival_ns)) as u128,
        )?;
        Some((key, origin))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::{Access, Moment, Needs};
    use crate::sched::testkit::*;
    use crate::sched::Scheduler;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn every_choice_is_the_brute_force_minimum_of_the_weighted_time(
            head in head_strategy(), now in 1_000_000_000u64..3_000_000_000, reqs in requests_strategy(60),
            m_ms in 100u64..3000, prune in any::<bool>(),
        ) {
            let preds = predictor(head);
            let ctx = SchedCtx::new(now, &preds, &[0], &[1]);
            let opts = options(&format!("max_response_ms = {m_ms}\nprune = {prune}"));
            let mut s = Wstf::from_options(&OptionReader::new("wstf", &opts)).unwrap();
            let mut all = feed(&reqs, &ctx, &mut [&mut s]);
            let p = ctx.predictor(0);
            let m = m_ms * 1_000_000;
            while !all.is_empty() {
                let overdue = all.iter().filter(|r| now.saturating_sub(r.arrival_ns) >= m)
                    .min_by_key(|r| (r.arrival_ns, r.id));
                let want = match overdue {
                    Some(r) => r.id,
                    None => all.iter().map(|r| {
                        let t = p.target(Access::new(r.lbn, r.sectors, r.op), Needs::Service);
                        let real = p.estimate(Moment::new(p.head(), now), Access::new(r.lbn, r.sectors, r.op)).positioning_ns() + t.transfer_ns;
                        (real as u128 * (m - now.saturating_sub(r.arrival_ns)) as u128, r.id)
                    }).min().unwrap().1,
                };
                let got = dispatched_id(s.decide(&ctx));
                prop_assert_eq!(got, want);
                all.retain(|r| r.id != got);
            }
        }
    }
}
