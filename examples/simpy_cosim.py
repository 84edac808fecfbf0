"""headway as the disk of a SimPy model: SimPy processes issue reads and writes and wait on
headway's completions, in one simulated timeline (SimPy's clock counts nanoseconds).

A few clients, each a closed loop: think for an exponential time, issue one request (reads
at random places, some writes), wait for it, repeat. The `HeadwayDisk` bridge keeps the
two event loops in step: it sleeps until headway's next event or a new submission, then
advances headway to SimPy's clock and wakes the clients whose requests completed.

    python examples/simpy_cosim.py [--clients 4] [--requests 200] [--scheduler sptf]

Prints one line a client (requests, mean response in ms) and the disk's summary line.
Needs SimPy (`pip install simpy`, in the `test` extra).
"""

from __future__ import annotations

import argparse
import random

import simpy

import headway


class HeadwayDisk:
    """A headway live simulation as a SimPy resource: ``yield disk.io(...)`` returns the
    request's :class:`headway.LiveCompletion` when headway completes it."""

    def __init__(self, env: simpy.Environment, config) -> None:
        self.env = env
        self.live = headway.Live(config)
        self._waiting = {}
        self._wake = env.event()
        env.process(self._run())

    def io(self, op: str, lbn: int, sectors: int, process: int = 0) -> simpy.Event:
        """Submit a request arriving now; the event fires with its completion."""
        rid = self.live.submit(op, lbn, sectors, at_ns=int(self.env.now), process=process)
        done = self.env.event()
        self._waiting[rid] = done
        if not self._wake.triggered:
            self._wake.succeed()
        return done

    def _run(self):
        while True:
            due = self.live.next_event_ns()
            if due is None:
                yield self._wake
            else:
                yield self.env.timeout(max(0, due - int(self.env.now))) | self._wake
            if self._wake.triggered:
                self._wake = self.env.event()
            for c in self.live.advance_to(int(self.env.now)):
                self._waiting.pop(c.id).succeed(c)


def client(env, disk, k, requests, think_ms, capacity, rng, out):
    responses = []
    for _ in range(requests):
        yield env.timeout(int(rng.expovariate(1.0 / think_ms) * 1e6))
        op = "read" if rng.random() < 0.7 else "write"
        lbn = rng.randrange(0, capacity - 64)
        c = yield disk.io(op, lbn, 8, process=k)
        responses.append(c.response_ns)
    out[k] = responses


def simulate(clients=4, requests=200, scheduler="sptf", think_ms=10.0, seed=1):
    """Run the model; returns (responses by client in ns, the headway Live)."""
    env = simpy.Environment()
    config = {"drive": {"name": "elite3"}, "host": {"scheduler": scheduler}}
    disk = HeadwayDisk(env, config)
    capacity = 2_000_000
    rng = random.Random(seed)
    out = {}
    for k in range(clients):
        env.process(client(env, disk, k, requests, think_ms, capacity, rng, out))
    env.run()
    return out, disk.live


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--scheduler", default="sptf")
    args = ap.parse_args(argv)
    out, live = simulate(args.clients, args.requests, args.scheduler)
    for k, rs in sorted(out.items()):
        print(f"client {k}: {len(rs)} requests, mean response {sum(rs) / len(rs) / 1e6:.2f} ms")
    s = live.summary()
    print(f"disk: {s.requests} requests, mean response {s.mean_response_ms:.2f} ms, "
          f"utilisation {s.utilisation:.2f}")


if __name__ == "__main__":
    main()
