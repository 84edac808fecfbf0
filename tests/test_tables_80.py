"""Every table the command line prints reads in an 80-column terminal: no line is wider, no
cell is cut short ("…"), no word is broken across lines, and counts print as integers.
Each command runs with COLUMNS=80, which rich (and click) take as the terminal width when
the output is not a terminal; a word broken in two is found by printing the same output
wide, where nothing wraps, and looking for pieces that are not words of it."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
import subprocess

import pytest

from conftest import ROOT, _headway_command

VALIDATION_TRACE = ROOT / "crates" / "headway" / "catalog" / "validation" / "atlas10k.trace"


WIDE = 400
# What separates words: white space and the tables' rules.
SEPARATORS = re.compile(r"[\s\u2500-\u257f]+")
# Numbers may differ between two runs (timings); a number broken in two leaves a piece ending
# in "." or "," that is not one.
NUMBER = re.compile(r"[-+]?\d[\d,]*(\.\d+)?(e[-+]?\d+)?(%|x|ms|s)?")


def _run(args, columns: int, cwd=None) -> str:
    env = dict(os.environ, COLUMNS=str(columns), LINES="50")
    out = subprocess.run([*_headway_command(), *map(str, args)], capture_output=True, text=True,
                         env=env, cwd=cwd, timeout=600, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    return out.stdout


def at_80(*args, cwd=None) -> str:
    """The command's output at 80 columns, checked for words broken across lines against
    the same command's output at 400."""
    text = _run(args, 80, cwd)
    assert_whole_words(text, _run(args, WIDE, cwd))
    return text


def assert_whole_words(narrow: str, wide: str) -> None:
    words = set(SEPARATORS.split(wide))
    pieces = [w for w in SEPARATORS.split(narrow)
              if w and w not in words and not NUMBER.fullmatch(w.strip("()[],;:/"))]
    assert not pieces, "words broken across lines (pieces not in the wide output): " + ", ".join(pieces)


def assert_fits(text: str) -> None:
    wide = [line for line in text.splitlines() if len(line.rstrip()) > 80]
    assert not wide, "lines wider than 80 columns:\n" + "\n".join(wide)
    cut = [line for line in text.splitlines() if "…" in line or re.search(r"\w\.\.\.(\s|$)", line)]
    assert not cut, "cells cut short:\n" + "\n".join(cut)


def printed(print_tables, result, columns: int) -> str:
    """What a reproduction command's printer writes for ``result`` at ``columns``."""
    buf = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(columns)
    try:
        with contextlib.redirect_stdout(buf):
            print_tables(result)
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return buf.getvalue()


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


@pytest.mark.parametrize("paper", ["anticipatory", "cello", "freeblock", "flash_backed", "rebuild"])
def test_reproduction_tables(paper):
    # The quick run once, in this process; its tables printed at 80 columns and wide.
    result = importlib.import_module(f"headway.{paper}").reproduce(quick=True)
    print_tables = importlib.import_module(f"headway.cli.reproduce.{paper}")._print
    out = printed(print_tables, result, 80)
    assert_fits(out)
    assert_whole_words(out, printed(print_tables, result, WIDE))


def test_sweep(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('seeds = 2\n[base]\ndrive = { name = "elite3" }\nworkload = { requests = 200 }\n'
                    '[grid]\n"host.scheduler" = ["fcfs", "sstf"]\n"drive.queue_depth" = [1, 4]\n')
    text = _run(["sweep", spec, "--out", tmp_path / "out", "--workers", "1"], 80)
    assert_fits(text)
    # Run again (every run is kept): the same table, wide.
    assert_whole_words(text, _run(["sweep", spec, "--out", tmp_path / "out", "--workers", "1"], WIDE))
