"""headway.Live: the live simulation from Python, against headway.run of the same requests."""

from __future__ import annotations

import random
import sys

import pytest

import headway
from conftest import EXAMPLES


def trace_rows(n=150, seed=3):
    """(time_ns, lbn, sectors, op) with ties: one arrival in four shares the time before."""
    rng = random.Random(seed)
    t, rows = 0, []
    for _ in range(n):
        if rng.random() > 0.25:
            t += rng.randrange(0, 7_000_000)
        rows.append((t, rng.randrange(0, 1_500_000), rng.choice([1, 8, 64]), rng.choice("RRW")))
    return rows


def config(tmp_path, rows, scheduler):
    path = tmp_path / "trace.csv"
    path.write_text(
        "time_ns,device,lbn,sectors,op,process\n"
        + "".join(f"{t},0,{lbn},{n},{op},0\n" for t, lbn, n, op in rows)
    )
    return {
        "seed": 4,
        "drive": {"name": "elite3"},
        "host": {"scheduler": scheduler},
        "workload": {"kind": "trace", "path": str(path), "format": "csv"},
    }


@pytest.mark.parametrize("scheduler", ["fcfs", "sptf", "look", "bfq"])
def test_live_completes_a_trace_as_run_does(tmp_path, scheduler):
    rows = trace_rows()
    cfg = config(tmp_path, rows, scheduler)
    want = headway.run(cfg, records=True).requests
    live = headway.Live(cfg)
    done = []
    for i, (t, lbn, n, op) in enumerate(rows):
        live.submit("read" if op == "R" else "write", lbn, n, t, tag=i)
        if i == len(rows) - 1:
            live.close()
        # Everything arriving at t is submitted before the clock reaches it.
        if i + 1 == len(rows) or rows[i + 1][0] > t:
            done += live.advance_to(t)
    done += live.finish()
    got = live.records()
    cols = ["id", "arrival_ns", "dispatch_ns", "start_ns", "done_ns", "lbn", "sectors"]
    assert got[cols].equals(want[cols])
    assert sorted(c.tag for c in done) == list(range(len(rows)))
    by_tag = {c.tag: c for c in done}
    for i, (t, lbn, _, _) in enumerate(rows):
        assert (by_tag[i].arrival_ns, by_tag[i].lbn) == (t, lbn)
    completion = dict(zip(want.id, want.done_ns))
    assert all(completion[c.request_id] == c.completion_ns for c in done)
    assert live.summary().requests == len(rows) == headway.run(cfg).summary.requests


def test_advance_returns_a_frame_and_the_clock_moves(tmp_path):
    live = headway.Live({"drive": {"name": "elite3"}})
    live.submit("read", 1000, 8, 0, tag="a")
    live.submit("w", 9000, 8, 100, tag="b")
    assert live.next_event_ns() == 0
    df = live.advance_to(50_000_000, frame=True)
    assert list(df.tag) == ["a", "b"] and live.now_ns == 50_000_000
    assert (df.response_ns == df.completion_ns - df.arrival_ns).all()
    assert live.next_event_ns() is None and live.outstanding == 0


def test_bad_submissions_raise_the_package_errors():
    live = headway.Live({"drive": {"name": "elite3"}})
    live.advance_to(1000)
    with pytest.raises(headway.ConfigError, match="before now"):
        live.submit("read", 0, 8, 10)
    with pytest.raises(headway.ConfigError, match="device 2"):
        live.submit("read", 0, 8, 2000, device=2)
    with pytest.raises(headway.ConfigError, match="does not fit"):
        live.submit("read", 10**12, 8, 2000)
    with pytest.raises(headway.ConfigError, match="`read` or `write`"):
        live.submit("erase", 0, 8, 2000)
    with pytest.raises(headway.ConfigError, match="only goes forward"):
        live.advance_to(10)
    live.close()
    with pytest.raises(headway.ConfigError, match="closed"):
        live.submit("read", 0, 8, 2000)
    with pytest.raises(headway.UnknownNameError):
        headway.Live({"drive": {"name": "nosuchdrive"}})


def test_simpy_example_drives_headway(monkeypatch):
    pytest.importorskip("simpy", reason="SimPy is in the test extra: pip install -e '.[test]'")
    monkeypatch.syspath_prepend(str(EXAMPLES))
    import simpy_cosim

    out, live = simpy_cosim.simulate(clients=3, requests=40)
    assert sorted(out) == [0, 1, 2] and all(len(r) == 40 for r in out.values())
    assert live.outstanding == 0
    s = live.summary()
    assert s.requests == 120
    # Every client waited exactly the response headway reports for its requests.
    rec = live.records()
    assert sorted(rec.done_ns - rec.arrival_ns) == sorted(sum(out.values(), []))
    # A closed loop: a client's next request arrives after its previous one completed.
    for k in range(3):
        mine = rec[rec.process == k].sort_values("arrival_ns")
        assert (mine.arrival_ns.values[1:] >= mine.done_ns.values[:-1]).all()
    sys.modules.pop("simpy_cosim", None)
