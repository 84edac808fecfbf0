"""Every table the command line prints reads in an 80-column terminal: no line is wider, no
cell is cut short ("…"), and counts print as integers. Each command runs with COLUMNS=80,
which rich (and click) take as the terminal width when the output is not a terminal."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from conftest import ROOT, _headway_command

VALIDATION_TRACE = ROOT / "crates" / "headway" / "catalog" / "validation" / "atlas10k.trace"


def at_80(*args, cwd=None) -> str:
    env = dict(os.environ, COLUMNS="80", LINES="50")
    out = subprocess.run([*_headway_command(), *map(str, args)], capture_output=True, text=True,
                         env=env, cwd=cwd, timeout=600, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    return out.stdout


def assert_fits(text: str) -> None:
    wide = [line for line in text.splitlines() if len(line.rstrip()) > 80]
    assert not wide, "lines wider than 80 columns:\n" + "\n".join(wide)
    cut = [line for line in text.splitlines() if "…" in line or re.search(r"\w\.\.\.(\s|$)", line)]
    assert not cut, "cells cut short:\n" + "\n".join(cut)


def small_experiment(tmp_path):
    p = tmp_path / "exp.toml"
    p.write_text('name = "a small run with a long name that has to wrap somewhere on a narrow terminal"\n'
                 '[drive]\nname = "elite3"\n[workload]\nrequests = 300\ninterarrival_ms = 15.0\n')
    return p


def test_disks(tmp_path):
    out = at_80("disks")
    assert_fits(out)
    # Every drive's name whole, and the longest titles not cut (wrapped instead).
    import headway

    for name in headway.disks()["name"]:
        assert re.search(rf"^ ?{re.escape(name)}\s", out, re.M), name
    assert "Atlas 10K" in " ".join(out.split())


def test_schedulers():
    assert_fits(at_80("schedulers"))


def test_run_and_replay_summaries(tmp_path):
    out = at_80("run", small_experiment(tmp_path))
    assert_fits(out)
    assert re.search(r"queue length max\s+\d+\s", out), out
    out = at_80("replay", VALIDATION_TRACE, "--format", "disksim-validate", "--drive", "atlas10k", "--limit", "300")
    assert_fits(out)


def test_trace_stats_counts_are_integers():
    out = at_80("trace", "stats", VALIDATION_TRACE)
    assert_fits(out)
    # Sizes and seek distances are whole sectors: percentiles print as integers.
    p50 = next(line for line in out.splitlines() if line.split()[:1] == ["p50"])
    size, seek = p50.split()[1:3]
    assert re.fullmatch(r"[\d,]+", size) and re.fullmatch(r"[\d,]+", seek), p50
    assert not re.search(r"\b\d+\.000\b", out.split("inter-arrival")[0]), out


def test_validate_all_explains_aborts():
    out = at_80("validate", "all")
    assert_fits(out)
    assert "aborts" in out
    flat = " ".join(out.split())
    assert "aborts: DiskSim 4.0 stops with an assertion failure" in flat


def test_validate_one():
    assert_fits(at_80("validate", "atlas10k"))


def test_bench(tmp_path):
    out = at_80("bench", "--requests", "300", "--repeat", "1")
    assert_fits(out)


def test_reproduce_rotational_tables():
    out = at_80("reproduce", "rotational", "--queue-lengths", "1,4", "--requests-per-queued", "5",
                "--trace-requests", "200", "--no-plots")
    assert_fits(out)
    # The prediction table's headers are abbreviated with a legend, not cut.
    assert "mispred" in out and "mispred / overest:" in " ".join(out.split())


def test_extract():
    out = at_80("extract", "--drive", "st41601n", "--no-paper-min-offset")
    assert_fits(out)


@pytest.mark.parametrize("command", [[], ["run"], ["replay"], ["trace"], ["trace", "stats"], ["trace", "convert"],
                                     ["validate"], ["bench"], ["reproduce"], ["reproduce", "rotational"],
                                     ["extract"], ["disks"], ["schedulers"]])
def test_help(command):
    assert_fits(at_80(*command, "--help"))
