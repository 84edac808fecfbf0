//! The class-independent scheduler's accounts for one interval (spec §3.2-3.4): service
//! time charged to each class (U_i), bytes (B_i), disk idle time (I) and reallocated time
//! (X_i), and the admission tests of equations (2)-(16).

use crate::time::SimTime;

/// How the interval is shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocation {
    /// Proportionate time allocation, equations (2)-(6).
    Time,
    /// Proportionate byte allocation, equations (11)-(16).
    Bytes,
    /// Static partitioning (a baseline, not Cello): each class owns w_i/Σw of P, idle time
    /// is never charged and nothing is reallocated.
    Static,
}

/// The accounts of the current interval. Times are signed nanoseconds: the τ_next credit
/// of (6) can make a class's charge shrink.
#[derive(Clone, Debug)]
pub struct Ledger {
    pub mode: Allocation,
    pub p_ns: i64,
    pub start_ns: SimTime,
    pub end_ns: SimTime,
    pub idle_ns: i64,
    pub used_ns: Vec<i64>,
    pub realloc_ns: Vec<i64>,
    pub bytes: Vec<u64>,
    weights: Vec<f64>,
    weight_sum: f64,
}

impl Ledger {
    pub fn new(mode: Allocation, p_ns: SimTime, weights: Vec<f64>) -> Self {
        let n = weights.len();
        let weight_sum = weights.iter().sum();
        Ledger {
            mode,
            p_ns: p_ns as i64,
            start_ns: 0,
            end_ns: p_ns,
            idle_ns: 0,
            used_ns: vec![0; n],
            realloc_ns: vec![0; n],
            bytes: vec![0; n],
            weights,
            weight_sum,
        }
    }

    pub(crate) fn weight(&self, i: usize) -> f64 {
        self.weights[i]
    }

    /// A new interval from `start`: every account back to zero.
    pub(crate) fn start_interval(&mut self, start: SimTime) {
        self.start_ns = start;
        self.end_ns = start + self.p_ns as SimTime;
        self.idle_ns = 0;
        self.used_ns.iter_mut().for_each(|u| *u = 0);
        self.realloc_ns.iter_mut().for_each(|x| *x = 0);
        self.bytes.iter_mut().for_each(|b| *b = 0);
    }

    /// The time still to be shared: P − I (just P under static partitioning).
    fn shareable(&self) -> f64 {
        match self.mode {
            Allocation::Static => self.p_ns as f64,
            _ => (self.p_ns - self.idle_ns) as f64,
        }
    }

    /// Class `i`'s share of the interval: w_i/Σw (P − I).
    pub(crate) fn share_ns(&self, i: usize) -> f64 {
        self.weights[i] / self.weight_sum * self.shareable()
    }

    fn used_sum(&self) -> i64 {
        self.used_ns.iter().sum()
    }
    fn bytes_sum(&self) -> u64 {
        self.bytes.iter().sum()
    }

    /// V_i = B_i O (11); zero while no byte was charged (spec TEAM CHOICE: O is undefined).
    fn charged_bytes_time(&self, i: usize) -> f64 {
        let b = self.bytes_sum();
        if b == 0 {
            return 0.0;
        }
        self.bytes[i] as f64 * self.used_sum() as f64 / b as f64
    }

    /// (2) / (12): whether class `i`'s scheduler may be invoked.
    pub(crate) fn may_invoke(&self, i: usize) -> bool {
        match self.mode {
            Allocation::Time | Allocation::Static => (self.used_ns[i] as f64) < self.share_ns(i),
            Allocation::Bytes => self.charged_bytes_time(i) < self.share_ns(i),
        }
    }

    /// (3)+(4) / (14)+(15): whether inserting a request of class `i` costing `tau`, that
    /// changes the next entry's service time by `d_next`, fits; `bytes` is its size.
    pub fn fits(&self, i: usize, tau: i64, d_next: i64, bytes: u64) -> bool {
        let total = self.used_sum() + tau + d_next;
        match self.mode {
            Allocation::Time | Allocation::Static => {
                (self.used_ns[i] + tau) as f64 <= self.share_ns(i)
                    && total as f64 <= self.shareable()
            }
            Allocation::Bytes => {
                let o_new = total as f64 / (self.bytes_sum() + bytes) as f64;
                o_new * (self.bytes[i] + bytes) as f64 <= self.share_ns(i)
                    && o_new * (self.bytes_sum() + bytes) as f64 <= self.shareable()
            }
        }
    }

    /// (5), (6), (16): charge an accepted insertion.
    pub(crate) fn charge(&mut self, i: usize, tau: i64, next: Option<(usize, i64)>, bytes: u64) {
        self.used_ns[i] += tau;
        if let Some((j, d)) = next {
            self.used_ns[j] += d;
        }
        self.bytes[i] += bytes;
    }

    /// (7): whether class `i` may take more reallocated time, among eligible classes of
    /// summed weight `eligible_weight`, at `now`.
    pub(crate) fn may_reallocate(&self, i: usize, eligible_weight: f64, now: SimTime) -> bool {
        let left = self.end_ns.saturating_sub(now) as f64;
        let w = if eligible_weight > 0.0 {
            self.weights[i] / eligible_weight
        } else {
            1.0
        };
        (self.realloc_ns[i] as f64) < w * left
    }

    /// (8): whether a reallocated request of `tau` fits the interval, the request to start
    /// at `start_ns`. The charges are estimates made at insertion; when they overstate the
    /// service actually given, Σ U + I reaches P before the interval's end and (8) alone
    /// would idle a saturated disk until then. Time is reallocated only when the scheduled
    /// queue is empty, so the clock then says exactly what is left: the request also fits
    /// when it ends by t_end (TEAM CHOICE, docs/cello.md).
    pub(crate) fn fits_reallocated(&self, tau: i64, start_ns: SimTime) -> bool {
        self.used_sum() + self.idle_ns + tau <= self.p_ns
            || start_ns + tau.max(0) as SimTime <= self.end_ns
    }

    /// (9), (10): charge a reallocated request (to idle time, so E classes' shares shrink).
    pub(crate) fn charge_reallocated(&mut self, i: usize, tau: i64, next: Option<(usize, i64)>) {
        self.realloc_ns[i] += tau;
        self.idle_ns += tau;
        if let Some((j, d)) = next {
            self.used_ns[j] += d;
        }
    }

    /// Disk idle for `ns` within this interval.
    pub(crate) fn add_idle(&mut self, ns: SimTime) {
        self.idle_ns += ns as i64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_follow_weights_and_idle_time() {
        let mut l = Ledger::new(Allocation::Time, 1000, vec![1.0, 3.0]);
        assert_eq!(l.share_ns(0), 250.0);
        l.add_idle(200);
        assert_eq!(l.share_ns(1), 600.0);
        assert!(l.fits(0, 200, 0, 0));
        assert!(!l.fits(0, 201, 0, 0));
        l.charge(0, 150, Some((1, -20)), 0);
        assert_eq!(l.used_ns, vec![150, -20]);
        // Static partitioning ignores idle time.
        let mut s = Ledger::new(Allocation::Static, 1000, vec![1.0, 1.0]);
        s.add_idle(900);
        assert_eq!(s.share_ns(0), 500.0);
    }

    #[test]
    fn byte_allocation_charges_the_average_cost_per_byte() {
        let mut l = Ledger::new(Allocation::Bytes, 1000, vec![1.0, 1.0]);
        // Bootstrap: Σ B = 0, V_i = 0, so both may be invoked.
        assert!(l.may_invoke(0) && l.may_invoke(1));
        l.charge(0, 100, None, 1000);
        l.charge(1, 100, None, 3000);
        // O = 200/4000; V_0 = 50, V_1 = 150.
        assert!(l.may_invoke(0));
        // Class 1 adding 7000 bytes at cost 300: O_new = 500/11000, V_1 = 10000 O ≈ 454.5 ≤ 500.
        assert!(l.fits(1, 300, 0, 7000));
        assert!(!l.fits(1, 900, 0, 7000));
    }
}
