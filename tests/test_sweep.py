"""`headway sweep` and `headway.sweep`: grids over dotted keys, executors that agree,
resumption after a kill, failing points recorded, keyed errors for bad sweep files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import headway
from conftest import EXAMPLES, ROOT, headway_cli

BASE = {"drive": {"name": "elite3"}, "workload": {"requests": 300, "interarrival_ms": 12.0}}


def small_sweep(**extra):
    spec = {"base": BASE, "grid": {"host.scheduler": ["fcfs", "sstf"], "drive.queue_depth": [1, 2]}, "seeds": 2}
    spec.update(extra)
    return spec


def test_grid_rows_have_settings_seed_and_summary(tmp_path):
    t = headway.sweep(small_sweep(), tmp_path, workers=2, progress=False)
    assert len(t) == 8
    assert list(t.columns[:3]) == ["host.scheduler", "drive.queue_depth", "run"]
    assert set(zip(t["host.scheduler"], t["drive.queue_depth"], t["seed"])) == {
        (s, q, seed) for s in ("fcfs", "sstf") for q in (1, 2) for seed in (1, 2)
    }
    assert (t["status"] == "ok").all() and (t["requests"] == 300).all()
    # Each row is the run it claims: the same experiment run directly gives the same summary.
    row = t[(t["host.scheduler"] == "sstf") & (t["drive.queue_depth"] == 2) & (t["seed"] == 2)].iloc[0]
    direct = headway.run({**BASE, "host": {"scheduler": "sstf"}, "drive": {"name": "elite3", "queue_depth": 2}}, seed=2)
    assert row["mean_response_ms"] == direct.summary.mean_response_ms
    # Seeds differ, so runs at one point differ.
    at = t[(t["host.scheduler"] == "fcfs") & (t["drive.queue_depth"] == 1)]
    assert at["mean_response_ms"].nunique() == 2
    s = pd.read_parquet(tmp_path / "summary.parquet")
    assert len(s) == 4 and (s["runs"] == 2).all()
    assert (s["mean_response_ms_ci_low"] < s["mean_response_ms_mean"]).all()
    assert (s["mean_response_ms_mean"] < s["mean_response_ms_ci_high"]).all()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "runs.parquet"), t)


def test_zipped_axes_and_points(tmp_path):
    spec = {
        "base": BASE,
        "zip": [{"workload.interarrival_ms": [10.0, 20.0], "workload.requests": [100, 200]}],
        "points": [{"host.scheduler": "fcfs"}, {"host.scheduler": "look"}],
    }
    t = headway.sweep(spec, tmp_path, workers=1, progress=False)
    assert sorted(zip(t["workload.requests"], t["workload.interarrival_ms"], t["host.scheduler"])) == [
        (100, 10.0, "fcfs"), (100, 10.0, "look"), (200, 20.0, "fcfs"), (200, 20.0, "look")
    ]
    assert (t["requests"] == t["workload.requests"]).all()


def test_local_and_dask_local_cluster_give_identical_tables(tmp_path):
    pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed (pip install '.[dask]')")
    local = headway.sweep(small_sweep(), tmp_path / "local", progress=False)
    dask = headway.sweep(small_sweep(), tmp_path / "dask", dask="local", progress=False)
    pd.testing.assert_frame_equal(local, dask)
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "local" / "summary.parquet"), pd.read_parquet(tmp_path / "dask" / "summary.parquet")
    )


def test_resume_after_a_killed_sweep_recomputes_only_what_was_missing(tmp_path):
    sweep_file = tmp_path / "s.toml"
    # Runs long enough (about a second each here) that the kill lands mid-sweep.
    sweep_file.write_text(
        'seeds = 6\n[base.drive]\nname = "atlas10k"\n[base.workload]\nrequests = 40000\n'
        'interarrival_ms = 8.0\n[grid]\n"host.scheduler" = ["fcfs"]\n'
    )
    out = tmp_path / "out"
    exe = [sys.executable, "-m", "headway", "sweep", str(sweep_file), "--out", str(out), "--workers", "1", "--no-progress"]
    proc = subprocess.Popen(exe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    deadline = time.monotonic() + 120
    while len(list((out / "runs").glob("*.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = {p.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*.json")}
    assert 2 <= len(kept) < 6, "the kill should land mid-sweep"
    # What a kill during a write leaves: a temporary file, which must never be read back.
    (out / "runs" / ".deadbeef.json.abc.tmp").write_text('{"run_id": "dead", "status": "ok", "summ')

    calls = []
    t = headway.sweep(sweep_file, out, workers=1, progress=lambda d, f, r: calls.append((d, f, r)))
    assert calls[0] == (len(kept), 0, 6 - len(kept)), "finished runs are counted as done before anything runs"
    assert len(calls) == 1 + (6 - len(kept)), "only the missing runs were computed"
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*.json") if p.name in kept} == kept
    assert not list((out / "runs").glob(".*.tmp"))
    assert sorted(t["seed"]) == [1, 2, 3, 4, 5, 6] and (t["status"] == "ok").all()


def test_a_failing_grid_point_is_recorded_with_its_settings_and_the_sweep_goes_on(tmp_path):
    good = tmp_path / "good.trace"
    bad = tmp_path / "bad.trace"
    lines = [f"{i * 10.0} 0 {i * 64} 8 1" for i in range(50)]
    good.write_text("\n".join(lines) + "\n")
    bad.write_text("\n".join(lines[:30] + ["oops not a record"] + lines[30:]) + "\n")
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(
        '[base.drive]\nname = "elite3"\n[base.workload]\nkind = "trace"\nformat = "disksim-ascii"\n'
        '[grid]\n"workload.path" = ["good.trace", "bad.trace"]\n"host.scheduler" = ["fcfs", "sstf"]\n'
    )
    out = headway_cli("sweep", sweep_file, "--out", tmp_path / "out", "--workers", "2")
    assert out.returncode == 1
    assert "2 of 4 runs done, 2 failed" in out.stdout
    # What ran: the grid first, then a row per point with its runs done and failed.
    flat = " ".join(out.stdout.split())
    assert "2 points x 1 seeds = 4 runs" not in flat and "4 points x 1 seeds = 4 runs" in flat
    assert "workload.path = 'good.trace', 'bad.trace'; host.scheduler = 'fcfs', 'sstf'" in flat
    rows = [line.split() for line in out.stdout.splitlines() if line.split()[:1] in (["good.trace"], ["bad.trace"])]
    assert sorted((r[0], r[1], r[2], r[3]) for r in rows) == [
        ("bad.trace", "fcfs", "0", "1"), ("bad.trace", "sstf", "0", "1"),
        ("good.trace", "fcfs", "1", "0"), ("good.trace", "sstf", "1", "0")]
    failed_lines = [line for line in out.stderr.splitlines() if line.startswith("failed:")]
    assert len(failed_lines) == 2
    for line in failed_lines:
        assert "workload.path = 'bad.trace'" in line and "bad.trace:31:" in line, line
    t = pd.read_parquet(tmp_path / "out" / "runs.parquet")
    assert (t[t["workload.path"] == "good.trace"]["requests"] == 50).all()
    bad_rows = t[t["workload.path"] == "bad.trace"]
    assert (bad_rows["status"] == "failed").all() and bad_rows["error"].str.contains("bad.trace:31:").all()
    s = pd.read_parquet(tmp_path / "out" / "summary.parquet")
    assert sorted(zip(s["workload.path"], s["failed"])) == [("bad.trace", 1), ("bad.trace", 1), ("good.trace", 0), ("good.trace", 0)]


@pytest.mark.parametrize(
    "body, expected",
    [
        ('gird = 1\n[grid]\n"host.scheduler" = ["fcfs"]\n', "s.toml:1: key `gird`: unknown"),
        ('[grid]\n"drive.queue_dept" = [1, 2]\n', "s.toml:2: key `drive.queue_dept`: value 1: key `queue_dept`: unknown field"),
        ('[grid]\n"host.scheduler" = []\n', "s.toml:2: key `grid.host.scheduler`: empty axis"),
        (
            '[[zip]]\n"drive.queue_depth" = [1, 2]\n"host.scheduler" = ["fcfs"]\n',
            "s.toml:2: key `zip.drive.queue_depth`: zipped axes must have the same length: "
            "`drive.queue_depth` has 2, `host.scheduler` has 1",
        ),
        ('[grid]\n"host.scheduler" = ["fcfs", "nosuch"]\n', "s.toml:2: key `host.scheduler`: value 'nosuch': unknown scheduler"),
        ("seeds = 0\n", "s.toml:1: key `seeds`: must be at least 1"),
    ],
)
def test_bad_sweep_files_get_keyed_one_line_errors(tmp_path, body, expected):
    f = tmp_path / "s.toml"
    f.write_text(body + '[base.drive]\nname = "elite3"\n')
    out = headway_cli("sweep", f, "--out", tmp_path / "out")
    assert out.returncode == 1
    assert out.stderr.startswith("error: ") and expected in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert not (tmp_path / "out" / "runs.parquet").exists()


def test_unknown_key_message_names_what_the_simulator_expects(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[grid]\n"drive.queue_dept" = [1, 2]\n')
    with pytest.raises(headway.ConfigError, match="unknown field `queue_dept`"):
        headway.sweeps.load_sweep(f)


def test_example_sweep_runs_and_plots(tmp_path):
    out = headway_cli("sweep", EXAMPLES / "sweep.toml", "--out", tmp_path / "out")
    assert out.returncode == 0, out.stderr
    t = pd.read_parquet(tmp_path / "out" / "runs.parquet")
    assert len(t) == 8 and (t["status"] == "ok").all()
    ax = headway.sweeps.plot(t, "mean_response_ms", x="drive.queue_depth", line="host.scheduler")
    bars = ax.containers
    assert len(bars) == 2 and all(len(b.lines[0].get_xdata()) == 2 for b in bars)
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["host.scheduler = fcfs", "host.scheduler = sptf"]


def test_base_from_a_file_with_relative_paths_and_its_own_seed(tmp_path):
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "t.trace").write_text("".join(f"{i * 7.0} 0 {i * 640} 8 1\n" for i in range(40)))
    (tmp_path / "exp" / "base.toml").write_text(
        'seed = 9\n[drive]\nname = "elite3"\n[workload]\nkind = "trace"\npath = "t.trace"\nformat = "disksim-ascii"\n'
    )
    (tmp_path / "s.toml").write_text('base = "exp/base.toml"\n[grid]\n"host.scheduler" = ["fcfs", "sstf"]\n')
    t = headway.sweep(tmp_path / "s.toml", tmp_path / "out", workers=1, progress=False)
    assert (t["status"] == "ok").all() and (t["requests"] == 40).all()
    assert (t["seed"] == 9).all()


def test_plot_bars_stay_above_zero_and_ticks_are_the_values_swept(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    t = headway.sweep(small_sweep(), tmp_path, workers=1, progress=False)
    ax = headway.sweeps.plot(t, "mean_response_ms", x="drive.queue_depth", line="host.scheduler")
    # Two seeds make Student's t wide (12.7 half-widths): the bar stops at 0, a response time.
    lows = [seg[0][1] for bars in ax.containers for seg in bars.lines[2][0].get_segments()]
    assert lows and min(lows) >= 0
    assert list(ax.get_xticks()) == [1, 2]
    assert "95% interval" in ax.get_title()
