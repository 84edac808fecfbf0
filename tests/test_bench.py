"""The reference benchmark: trace generation identical to DiskSim's inputs, and the command."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from headway.bench import LOADS, cached_trace, write_trace
from conftest import SHARED

GENERATOR = SHARED / "bench" / "gen_ascii_trace.py"


def test_trace_generator_golden_lines():
    # First lines of `gen_ascii_trace.py 3 5.5 2` (DiskSim's heavy-load input).
    buf = io.StringIO()
    write_trace(buf, 3, 5.5, 2)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 3
    assert all(line.endswith(" 8 1") and line.split()[1] == "0" for line in lines)
    times = [float(line.split()[0]) for line in lines]
    assert times == sorted(times)
    assert all(int(line.split()[2]) % 8 == 0 for line in lines)


@pytest.mark.skipif(
    not GENERATOR.exists(), reason="needs ../shared/bench/gen_ascii_trace.py beside the clone"
)
@pytest.mark.parametrize("n, ia, seed", [(5000, 12.0, 1), (5000, 5.5, 2)])
def test_traces_are_byte_identical_to_disksims_generator(n, ia, seed):
    expected = subprocess.run(
        [sys.executable, str(GENERATOR), str(n), f"{ia:g}", str(seed)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    buf = io.StringIO()
    write_trace(buf, n, ia, seed)
    assert buf.getvalue() == expected


def test_cached_trace_is_reused(tmp_path):
    p = cached_trace(10, LOADS["moderate"], tmp_path)
    stamp = p.stat().st_mtime_ns
    assert cached_trace(10, LOADS["moderate"], tmp_path) == p and p.stat().st_mtime_ns == stamp
    assert len(p.read_text().splitlines()) == 10


def test_bench_command(cli, tmp_path, monkeypatch):
    out = cli("bench", "--requests", "3000", "--repeat", "1", "--json", tmp_path / "b.json")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "drive queue of 64 ordered by the drive's own scheduler" in text
    for figure in ("67,900", "60,300", "39,600"):
        assert figure in text
    # DiskSim's figures come from another machine: labelled so, and never turned into a ratio.
    assert "measured on a different machine" in text
    assert "ratio" not in text
    cases = json.loads((tmp_path / "b.json").read_text())
    assert [(c["scheduler"], c["load"]) for c in cases] == [
        ("fcfs", "moderate"),
        ("sptf", "moderate"),
        ("sptf", "heavy"),
    ]
    for c in cases:
        assert c["requests"] == 3000 and c["requests_per_s"] > 0 and "ratio_to_disksim" not in c


def test_bench_in_the_drive_and_in_the_host_do_the_same_work(tmp_path):
    """DiskSim's setup (the drive orders a queue of 64) and host ordering simulate the same
    requests; at moderate load the queue never fills, so the two SPTFs give the same
    response times."""
    from headway import run
    from headway.bench import replay_config

    trace = cached_trace(3000, LOADS["moderate"], tmp_path)
    for sched in ("fcfs", "sptf"):
        drive = run(replay_config(trace, sched, "drive")).summary
        host = run(replay_config(trace, sched, "host")).summary
        assert drive.requests == host.requests == 3000
        assert abs(drive.mean_response_ms - host.mean_response_ms) < 1e-6, sched
    out = subprocess.run(
        [sys.executable, "-m", "headway", "bench", "--requests", "500", "--repeat", "1", "--queue", "host"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "host queue unbounded" in " ".join(out.stdout.split())
    with pytest.raises(ValueError, match="queue must be one of"):
        replay_config(trace, "fcfs", "nowhere")
