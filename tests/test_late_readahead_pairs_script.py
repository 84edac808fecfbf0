"""scripts/late_readahead_pairs.py: the trace docs/fidelity.md's late read-ahead comparison
replays (deterministic, the second read of each pair the 8 blocks after the first) and its
argument checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "late_readahead_pairs.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True
    )


def test_pairs_follow_each_other_and_only_the_start_differs():
    early = run("1", "--pairs", "5").stdout.splitlines()
    late = run("1e7", "--pairs", "5").stdout.splitlines()
    assert early[0] == late[0] == "0.000000 0 100 8 1"
    assert len(early) == len(late) == 11
    for e, l in zip(early[1:], late[1:]):
        assert e.split()[1:] == l.split()[1:]
        assert abs(float(l.split()[0]) - float(e.split()[0]) - (1e7 - 1)) < 1e-6
    for first, second in zip(late[1::2], late[2::2]):
        t1, _, lbn1, n1, _ = first.split()
        t2, _, lbn2, n2, _ = second.split()
        assert int(lbn2) == int(lbn1) + 8 and n1 == n2 == "8"
        assert abs(float(t2) - float(t1) - 0.001) < 1e-9
    assert run("1e7", "--pairs", "5").stdout == run("1e7", "--pairs", "5").stdout


def test_bad_arguments_are_refused_by_name():
    for args, word in [(["0"], "start_ms"), (["5", "--pairs", "0"], "--pairs"), (["x"], "start_ms")]:
        done = run(*args)
        assert done.returncode == 2
        assert word in done.stderr and "Traceback" not in done.stderr
