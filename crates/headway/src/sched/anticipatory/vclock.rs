//! Virtual clocks of proportional-share scheduling (paper §3.6): each process's clock
//! advances by the disk time it received divided by its share, so shares are in disk-time
//! (utilisation) terms, the paper's choice. The stride scheduler and the anticipation
//! core's proportional-share heuristics keep identical copies, charged by the same
//! completions.

use crate::request::Completion;
use crate::sched::SchedCtx;

#[derive(Clone, Debug, Default)]
pub struct VirtualClocks {
    /// Nanoseconds of disk time per unit of share.
    vc: Vec<f64>,
}

impl VirtualClocks {
    pub(crate) fn get(&self, p: u32) -> f64 {
        self.vc.get(p as usize).copied().unwrap_or(0.0)
    }

    /// Charge a completed command's device time to the processes whose requests it carried
    /// (split evenly between the requests of a merged command).
    pub(crate) fn charge(&mut self, done: &Completion, ctx: &SchedCtx) {
        let reqs: Vec<u32> = done
            .command
            .requests
            .iter()
            .filter(|r| !r.is_host_work())
            .map(|r| r.process)
            .collect();
        if reqs.is_empty() {
            return;
        }
        let service_ns = done.done_ns.saturating_sub(done.phases.start_ns) as f64;
        let each = service_ns / reqs.len() as f64;
        for p in reqs {
            let share = ctx
                .process(p)
                .map_or(1.0, |i| i.share)
                .max(f64::MIN_POSITIVE);
            let i = p as usize;
            if self.vc.len() <= i {
                self.vc.resize(i + 1, 0.0);
            }
            self.vc[i] += each / share;
        }
    }
}
