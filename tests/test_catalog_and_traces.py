"""The drive catalog and trace replay through the Python API and the CLI."""

from __future__ import annotations

import json

import pytest

import headway
from headway.testing import assert_conserved
from conftest import DATA


def trace_config(trace, scheduler="fcfs", drive="elite3", **extra):
    return {
        "drive": {"name": drive},
        "host": {"scheduler": scheduler},
        "workload": {"kind": "trace", "path": str(trace), "format": "disksim-ascii", **extra},
    }


def test_catalog_has_the_papers_drives(cli):
    names = set(headway.disks().name)
    assert {"atlas10k", "cheetah9lp", "st41601n", "elite3"} <= names
    out = cli("disks", "--json")
    atlas = {d["name"]: d for d in json.loads(out.stdout)}["atlas10k"]
    # What its zones map, as DiskSim counts it (its Block count is 17,938,986: docs/disksim-params.md).
    assert atlas["capacity_sectors"] == 17_966_953 and atlas["rpm"] == pytest.approx(10025, rel=0.01)


def test_typed_config_on_atlas10k():
    cfg = headway.Config(
        drive=headway.Drive(name="atlas10k", queue_depth=1),
        host=headway.Host(scheduler="sptf"),
        workload=headway.Workload(
            kind="open",
            requests=2000,
            interarrival_ms=12.0,
            read_fraction=1.0,
            size_sectors=8,
            locality={"kind": "uniform"},
        ),
    )
    r = headway.run(cfg, records=True)
    assert r.summary.requests == 2000 and r.meta["drive"] == "atlas10k"
    assert_conserved(r)


def test_trace_replay_api():
    r = headway.run(trace_config(DATA / "small.trace"), records=True)
    assert_conserved(r)
    df = r.requests.sort_values("id")
    assert list(df.lbn) == [0, 800, 1600, 2400, 4000]
    assert list(df.arrival_ns) == [0, 500_000, 1_000_000, 1_500_000, 2_000_000]
    assert list(df.is_read) == [True, False, True, True, True]


def test_replay_command(cli, tmp_path):
    out = cli(
        "replay",
        DATA / "small.trace",
        "--format",
        "disksim-ascii",
        "--drive",
        "elite3",
        "--scheduler",
        "sptf",
        "--queue-depth",
        "2",
        "--speed",
        "2.0",
        "--json",
        tmp_path / "s.json",
        "--records",
        tmp_path / "r.csv",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "s.json").read_text())["requests"] == 5
    assert "requests" in out.stdout


def test_malformed_trace_line_is_named(cli):
    out = cli("replay", DATA / "bad_line3.trace", "--drive", "elite3")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    line = out.stderr.strip()
    assert line.startswith("error: ") and len(line.splitlines()) == 1
    assert "bad_line3.trace:3" in line


def test_malformed_trace_api():
    with pytest.raises(headway.TraceError, match=r"bad_line3.trace:3"):
        headway.run(trace_config(DATA / "bad_line3.trace"))


def test_missing_trace_file(cli, tmp_path):
    out = cli("replay", tmp_path / "absent.trace", "--drive", "elite3")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert str(tmp_path / "absent.trace") in out.stderr


def test_missing_config_key_is_named(cli, tmp_path):
    cfg = tmp_path / "exp.toml"
    cfg.write_text('[drive]\nname = "elite3"\n[workload]\nkind = "trace"\nformat = "disksim-ascii"\n')
    out = cli("run", cfg)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert str(cfg) in out.stderr and "path" in out.stderr


def test_python_scheduler_merges_adjacent_requests():
    batch_ns = 1_000

    class Merger:
        """Collects arrivals for a microsecond, then sends the oldest with every request
        adjacent to it as one command."""

        def __init__(self):
            self.queue = []

        def on_arrival(self, req, ctx):
            self.queue.append(req)

        def decide(self, ctx):
            if not self.queue or not ctx.has_slot():
                return None
            if ctx.now_ns < self.queue[0].arrival_ns + batch_ns:
                return headway.Wait(self.queue[0].arrival_ns + batch_ns)
            run = [self.queue.pop(0)]
            for r in sorted(self.queue, key=lambda r: r.lbn):
                if r.lbn == run[-1].end_lbn and r.op == run[0].op:
                    run.append(r)
                    self.queue.remove(r)
            return run

    r = headway.run(trace_config(DATA / "adjacent.trace"), scheduler=Merger(), records=True)
    assert_conserved(r)
    df = r.requests.sort_values("id")
    merged = df[df.lbn < 24]
    assert list(merged.id) == [0, 1, 2]
    assert merged.dispatch_ns.nunique() == 1 and merged.done_ns.nunique() == 1
    assert df[df.lbn == 500000].dispatch_ns.iloc[0] >= merged.done_ns.iloc[0]
