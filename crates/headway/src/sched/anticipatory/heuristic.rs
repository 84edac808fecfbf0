//! The SPTF cost-benefit heuristic (paper §3.2) with its two clauses: the aged-SPTF fix
//! (§3.4) and the C-SCAN direction clause (§3.5). A pure function of what the core measured,
//! so the paper's decision rules are tested on hand-built states.

use crate::time::SimTime;

/// What the heuristic looks at when the core asks whether to wait for LP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SptfInputs {
    /// Time since LP's last read completed.
    pub elapsed_ns: SimTime,
    /// Positioning time of the request the wrapped scheduler would dispatch now.
    pub candidate_pos_ns: SimTime,
    /// Expected positioning time of LP's next request.
    pub lp_expected_pos_ns: SimTime,
    /// LP's median and 95th-percentile thinktimes.
    pub t50_ns: SimTime,
    pub t95_ns: SimTime,
    /// The wrapped scheduler's choice is not the plain SPTF choice (aging overrode it);
    /// only consulted with the aged-SPTF clause on.
    pub aging_overrode: bool,
    /// C-SCAN clause: the candidate lies ahead of the head (forward seek), and the
    /// probability that LP's next request lies behind it.
    pub candidate_forward: bool,
    pub lp_backward_probability: f64,
}

/// Which clauses apply (they depend on the wrapped scheduler).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clauses {
    pub aged: bool,
    pub cscan: bool,
}

/// How long to wait for LP from now: 0 means dispatch the candidate now.
pub(crate) fn sptf_wait_ns(i: &SptfInputs, clauses: Clauses) -> SimTime {
    if clauses.aged && i.aging_overrode {
        // The aged scheduler would pick its old request even when LP's arrives: waiting
        // would only delay both.
        return 0;
    }
    if clauses.cscan && i.candidate_forward && i.lp_backward_probability > 0.5 {
        // The sweep would not come back for LP's request before it wraps.
        return 0;
    }
    let benefit = i.candidate_pos_ns as i128 - i.lp_expected_pos_ns as i128;
    let cost = i.t50_ns.saturating_sub(i.elapsed_ns) as i128;
    let waiting = i.t95_ns.saturating_sub(i.elapsed_ns);
    if benefit > cost {
        waiting
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = 1_000_000;

    fn base() -> SptfInputs {
        SptfInputs {
            elapsed_ns: 0,
            candidate_pos_ns: 8 * MS,
            lp_expected_pos_ns: MS / 2,
            t50_ns: MS,
            t95_ns: 2 * MS,
            aging_overrode: false,
            candidate_forward: true,
            lp_backward_probability: 0.0,
        }
    }

    #[test]
    fn waits_until_t95_when_the_benefit_beats_the_median_cost() {
        assert_eq!(sptf_wait_ns(&base(), Clauses::default()), 2 * MS);
        let later = SptfInputs {
            elapsed_ns: 1_500_000,
            ..base()
        };
        // Remaining wait computed from elapsed time, cost already 0.
        assert_eq!(sptf_wait_ns(&later, Clauses::default()), MS / 2);
        let past = SptfInputs {
            elapsed_ns: 3 * MS,
            ..base()
        };
        assert_eq!(sptf_wait_ns(&past, Clauses::default()), 0, "past T95");
    }

    #[test]
    fn no_wait_when_the_candidate_is_close_or_the_median_is_far() {
        let close = SptfInputs {
            candidate_pos_ns: MS / 2,
            ..base()
        };
        assert_eq!(sptf_wait_ns(&close, Clauses::default()), 0, "benefit 0");
        let slow = SptfInputs {
            t50_ns: 9 * MS,
            t95_ns: 9_500_000,
            ..base()
        };
        // benefit 7.5 ms ≤ cost 9 ms
        assert_eq!(sptf_wait_ns(&slow, Clauses::default()), 0);
        let slow_later = SptfInputs {
            elapsed_ns: 2 * MS,
            ..slow
        };
        // benefit 7.5 ms > cost 7 ms: now it pays to wait the rest of T95.
        assert_eq!(sptf_wait_ns(&slow_later, Clauses::default()), 7_500_000);
    }

    #[test]
    fn aged_clause_never_waits_when_aging_overrode_sptf() {
        let aged = SptfInputs {
            aging_overrode: true,
            ..base()
        };
        let on = Clauses {
            aged: true,
            cscan: false,
        };
        assert_eq!(sptf_wait_ns(&aged, on), 0);
        assert_eq!(sptf_wait_ns(&aged, Clauses::default()), 2 * MS);
        assert_eq!(sptf_wait_ns(&base(), on), 2 * MS);
    }

    #[test]
    fn cscan_clause_skips_waiting_for_a_likely_backward_request() {
        let on = Clauses {
            aged: false,
            cscan: true,
        };
        let back = SptfInputs {
            lp_backward_probability: 0.8,
            ..base()
        };
        assert_eq!(sptf_wait_ns(&back, on), 0);
        assert_eq!(sptf_wait_ns(&back, Clauses::default()), 2 * MS);
        // A backward candidate: C-SCAN may still come to LP first, so the usual test.
        let cand_back = SptfInputs {
            candidate_forward: false,
            ..back
        };
        assert_eq!(sptf_wait_ns(&cand_back, on), 2 * MS);
        let even = SptfInputs {
            lp_backward_probability: 0.5,
            ..base()
        };
        assert_eq!(
            sptf_wait_ns(&even, on),
            2 * MS,
            "0.5 is not 'fairly likely'"
        );
    }
}
