"""Every example in examples/ runs and does what it says."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import EXAMPLES


# Sweep files describe many experiments; they are run by `headway sweep` (tests/test_sweep.py).
EXPERIMENTS = sorted(p for p in EXAMPLES.glob("*.toml") if not p.name.startswith("sweep"))


@pytest.mark.parametrize("toml", EXPERIMENTS, ids=lambda p: p.name)
def test_example_experiments_run(cli, toml, tmp_path):
    out = cli("run", toml, "-q", "--json", tmp_path / "s.json")
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "s.json").read_text())["requests"] > 0


def run_example(*args):
    return subprocess.run(
        [sys.executable, str(EXAMPLES / "python_scheduler.py"), *args],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )


def rows(stdout):
    """scheduler label -> [mean, p99, max, util] from the example's table."""
    table = {}
    for line in stdout.splitlines():
        parts = line.rsplit(None, 5)
        if len(parts) == 6 and "(" in parts[0]:
            table[parts[0].strip()] = [float(x) for x in parts[1:5]]
    return table


def test_python_scheduler_example_compares_with_rust():
    out = run_example()
    assert out.returncode == 0, out.stderr
    table = rows(out.stdout)
    assert set(table) == {"fcfs (Rust)", "sstf (Rust)", "sptf (Rust)", "oldest within 2 ms of best (Python)"}
    py = table["oldest within 2 ms of best (Python)"]
    # Trading a little positioning time for age: far better than FCFS, a shorter tail than SPTF.
    assert py[0] < table["fcfs (Rust)"][0] / 2
    assert py[1] <= table["sptf (Rust)"][1]


def test_python_scheduler_example_with_no_slack_is_sptf():
    out = run_example("0")
    assert out.returncode == 0, out.stderr
    table = rows(out.stdout)
    assert table["oldest within 0 ms of best (Python)"] == table["sptf (Rust)"]


def test_sequential_writes_example_runs_at_the_bus_rate(cli, tmp_path):
    """The example's claim: writes join the write-back, so nearly all cost the same
    bus-and-overhead constant and the stream is far above one revolution per write."""
    out = cli("run", EXAMPLES / "sequential_writes.toml", "-q", "--json", tmp_path / "s.json")
    assert out.returncode == 0, out.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["requests"] == 5000
    assert s["throughput_mb_s"] > 4.0
    assert s["p999_response_ms"] < 1.0
