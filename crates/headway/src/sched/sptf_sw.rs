use super::options::OptionReader;
use super::stf::{Ranking, Stf};
use super::timed::{Origin, TimedQueue};
use super::SchedCtx;
use crate::error::Result;
use crate::order::sweep::Key;
use crate::predict::{Access, Moment};
use crate::time::SimTime;

/// SPTF-SW(n), SPTF with a seek window: among the requests whose positioning time is within
/// n% of the best, the one with the least predicted seek (ties: less positioning, then
/// older). It gives up a little rotational efficiency to keep the arm near, which leaves
/// freeblock scheduling more rotational slack to fill.
///
/// Options: `window_percent` (n, default 10), `prune`.
pub type SptfSw = Stf<SeekWindow>;

/// [`SptfSw`]'s ranking: the least seek inside the window.
pub struct SeekWindow {
    window_percent: f64,
}

pub const DEFAULT_WINDOW_PERCENT: f64 = 10.0;

impl Stf<SeekWindow> {
    pub fn from_options(o: &OptionReader) -> Result<Self> {
        Ok(Stf::with(
            TimedQueue::new(o.bool("prune", true)?),
            SeekWindow {
                window_percent: o.f64("window_percent", DEFAULT_WINDOW_PERCENT, 0.0, 1e6)?,
            },
        ))
    }
}

impl Ranking for SeekWindow {
    fn name(&self) -> &'static str {
        "sptf-sw"
    }
    fn choose(&mut self, q: &mut TimedQueue, ctx: &SchedCtx) -> Option<(Key, Origin)> {
        let origin = q.origin(ctx, 2 * q.len());
        let (_, best) = q.argmin(ctx, origin, 0, u32::MAX, |f| f, |_, _, pos| pos)?;
        let window = (best as f64 * (1.0 + self.window_percent / 100.0)).floor() as SimTime;
        let p = ctx.predictor(q.device);
        // In-window candidates rank (0, seek, positioning); the rest rank after all of them,
        // so the search stops once the positioning floor leaves the window.
        let (key, _) = q.argmin(
            ctx,
            origin,
            0,
            u32::MAX,
            |floor| (u8::from(floor > window), 0, 0),
            |r, _, pos| {
                if pos <= window {
                    let (from, start_ns) = origin.of(r.op);
                    let e = p.estimate(
                        Moment::new(from, start_ns),
                        Access::new(r.lbn, r.sectors, r.op),
                    );
                    (0, e.seek_ns, pos)
                } else {
                    (1, 0, pos)
                }
            },
        )?;
        Some((key, origin))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testkit::*;
    use crate::sched::Scheduler;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn every_choice_is_the_least_seek_inside_the_window(
            head in head_strategy(), now in 0u64..50_000_000, reqs in requests_strategy(60),
            pct in prop_oneof![Just(0.0), 0.0f64..100.0], prune in any::<bool>(),
        ) {
            let preds = predictor(head);
            let ctx = SchedCtx::new(now, &preds, &[0], &[1]);
            let opts = options(&format!("window_percent = {pct:e}\nprune = {prune}"));
            let mut s = SptfSw::from_options(&OptionReader::new("sptf-sw", &opts)).unwrap();
            let mut all = feed(&reqs, &ctx, &mut [&mut s]);
            let p = ctx.predictor(0);
            while !all.is_empty() {
                let est: Vec<_> = all.iter().map(|r| (r.id, p.estimate(Moment::new(p.head(), now), Access::new(r.lbn, r.sectors, r.op)))).collect();
                let best = est.iter().map(|(_, e)| e.positioning_ns()).min().unwrap();
                let window = (best as f64 * (1.0 + pct / 100.0)).floor() as u64;
                let want = est.iter().filter(|(_, e)| e.positioning_ns() <= window)
                    .map(|(id, e)| (e.seek_ns, e.positioning_ns(), *id)).min().unwrap().2;
                let got = dispatched_id(s.decide(&ctx));
                prop_assert_eq!(got, want);
                all.retain(|r| r.id != got);
            }
        }
    }
}
