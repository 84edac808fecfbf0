//! The redirect test of the paper's Fig. 6 (spec section 3.1).

use crate::time::SimTime;

/// The four access times of the inequality, in ns. `next` is `(n_nn, h_nn)`: from n's end
/// to the next pick, and from the head to the next pick; `None` when nothing else waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RedirectCosts {
    pub h_n: SimTime,
    pub f_n: SimTime,
    pub next: Option<(SimTime, SimTime)>,
}

/// Redirect when serving n on the platter and then moving to the next pick costs strictly
/// more than writing n to flash with the head left where it is and then serving the next
/// pick: `h_n + n_nn > f_n + h_nn`. Ties do not redirect. [TEAM CHOICE] with nothing else
/// waiting the test is `h_n > f_n` (n_nn = h_nn = 0).
pub fn should_redirect(c: RedirectCosts) -> bool {
    let (n_nn, h_nn) = c.next.unwrap_or((0, 0));
    c.h_n + n_nn > c.f_n + h_nn
}
