//! The thread that moves simulated time with the wall clock: it sleeps until the model's
//! next event is due, advances the model to the present, and sends each completed request's
//! reply itself (or hands it to its connection's writer when the socket cannot take it at
//! once).

use std::time::{Duration, Instant};

use super::model::Done;
use super::shared::Shared;

/// The engine sleeps until this long before an event is due, then waits on the CPU: a
/// sleeping thread wakes tens of microseconds late, more on a busy machine.
const SPIN_NS: u64 = 150_000;

/// With nothing in the model, the engine still wakes this often to notice a stop.
const IDLE: Duration = Duration::from_millis(50);

pub(crate) fn run(shared: &Shared) {
    let mut done: Vec<Done> = Vec::new();
    let mut core = shared.core();
    while !shared.stopping() {
        let Some(pacing) = shared.clock.get() else {
            // Nothing happens before the first request starts the clock.
            core = shared
                .wake
                .wait_timeout(core, IDLE)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            continue;
        };
        let now = Instant::now();
        let now_sim = pacing.sim_ns_at(now).max(core.now_ns);
        match core.model.next_event_ns() {
            Some(t) if t <= now_sim => {
                done.clear();
                if let Err(e) = core.model.advance_to(now_sim, &mut done) {
                    core.failure.get_or_insert(e);
                    drop(core);
                    shared.stop();
                    return;
                }
                core.now_ns = now_sim;
                for d in &done {
                    let Some(mut f) = core.pending.remove(&d.id) else {
                        continue;
                    };
                    f.reply.due = Some(pacing.wall_at(d.completion_ns));
                    core.completed += 1;
                    core.response_ns_total += d.completion_ns.saturating_sub(f.at_ns);
                    f.port.deliver(f.reply, &mut core.engine_pacing_error);
                }
            }
            Some(t) => {
                let left = pacing.wall_at(t).saturating_duration_since(now);
                if left > Duration::from_nanos(SPIN_NS) {
                    let nap = left - Duration::from_nanos(SPIN_NS);
                    core = shared
                        .wake
                        .wait_timeout(core, nap)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                } else {
                    // Connections may submit meanwhile; the lock is theirs while this waits.
                    drop(core);
                    let due = pacing.wall_at(t);
                    while Instant::now() < due && !shared.stopping() {
                        std::hint::spin_loop();
                    }
                    core = shared.core();
                }
            }
            None => {
                core = shared
                    .wake
                    .wait_timeout(core, IDLE)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        }
    }
    // Replies still in the model are never sent; dropping them lets each connection's
    // writer finish.
    core.pending.clear();
}
