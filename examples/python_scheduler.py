"""A disk scheduler written in Python, run inside the Rust simulator.

"Oldest near best": among the queued requests whose predicted positioning time is within
`slack_ms` of the best one, dispatch the one that has waited longest. With no slack it is
SPTF; with a huge slack it is FCFS; in between it trades a little throughput for a much
shorter tail. It runs on headway's built-in default experiment and is compared with the
Rust FCFS, SSTF and SPTF.

    python examples/python_scheduler.py [SLACK_MS]
"""

from __future__ import annotations

import sys
import time

import headway


class OldestNearBest:
    name = "oldest-near-best"

    def __init__(self, slack_ms: float = 2.0) -> None:
        self.slack_ns = int(slack_ms * 1e6)
        # Request id -> request; dicts keep insertion order, i.e. arrival order.
        self.queue: dict[int, headway.Request] = {}

    def on_arrival(self, req: headway.Request, ctx: headway.Context) -> None:
        self.queue[req.id] = req

    def decide(self, ctx: headway.Context):
        if not self.queue or not ctx.has_slot():
            return None
        cost = {rid: ctx.positioning_ns(req) for rid, req in self.queue.items()}
        limit = min(cost.values()) + self.slack_ns
        oldest = next(rid for rid in self.queue if cost[rid] <= limit)
        return self.queue.pop(oldest)


def main() -> None:
    slack_ms = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    contenders = [("fcfs (Rust)", "fcfs"), ("sstf (Rust)", "sstf"), ("sptf (Rust)", "sptf")]
    contenders.append((f"oldest within {slack_ms:g} ms of best (Python)", OldestNearBest(slack_ms)))
    print(f"built-in default experiment, {headway.run().summary.requests:,} requests, same seed for all")
    print(f"{'scheduler':<42}{'mean ms':>9}{'p99 ms':>9}{'max ms':>9}{'util':>7}{'wall s':>8}")
    for label, scheduler in contenders:
        t0 = time.perf_counter()
        s = headway.run(scheduler=scheduler).summary
        wall = time.perf_counter() - t0
        print(
            f"{label:<42}{s.mean_response_ms:9.2f}{s.p99_response_ms:9.2f}"
            f"{s.max_response_ms:9.2f}{s.utilisation:7.3f}{wall:8.2f}"
        )


if __name__ == "__main__":
    main()
