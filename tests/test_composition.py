"""The composition layer through the Python API and the CLI: several devices and workloads,
a wrapper around an inner scheduler, host-made work, results by dimension, and Python
schedulers that propose and commit, make their own requests, serve from memory and ask the
predictor about tracks."""

from __future__ import annotations

import json
import re

import pytest

import headway
from headway.testing import assert_conserved, assert_deterministic
from conftest import EXAMPLES

COMPOSED = EXAMPLES / "composed.toml"


def test_composed_example_from_the_cli_adds_up(cli, tmp_path):
    out = cli("run", COMPOSED, "-q", "--json", tmp_path / "s.json")
    assert out.returncode == 0, out.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    total = lambda section: sum(v["requests"] for v in s[section].values())  # noqa: E731
    assert s["requests"] == 3000
    assert total("by_class") == total("by_process") == s["requests"]
    assert total("by_origin") == s["requests"] + s["background_requests"]
    assert total("by_device") == s["requests"] + s["background_requests"] - s["host_served_requests"]
    # Golden: who did what, which no change to the drive model may move.
    assert {k: v["requests"] for k, v in s["by_class"].items()} == {"interactive": 2000, "deadline": 1000}
    assert {k: v["requests"] for k, v in s["by_origin"].items()} == {
        "oltp": 2000,
        "logger": 1000,
        "idle-scan": 2 * 1563,
    }
    assert set(s["by_device"]) == {"fast", "archive"}
    assert s["by_class"]["deadline"]["deadline_misses"] == s["deadline_misses"]
    assert 0 < s["by_device"]["archive"]["utilisation"] <= 1


def test_composed_example_from_python_gives_tables():
    r = assert_deterministic(COMPOSED, seed=7)
    assert_conserved(r)
    assert sorted(r.by_class.index) == ["deadline", "interactive"]
    assert r.by_device.loc["fast", "requests"] > 0
    df = r.requests
    assert set(df.origin_name.unique()) == {"oltp", "logger", "idle-scan"}
    scan = df[df.origin_name == "idle-scan"]
    assert scan.deadline_ns.isna().all() and (scan.sectors <= 256).all()
    logger = df[df.origin_name == "logger"]
    assert ((logger.deadline_ns - logger.arrival_ns) == 40_000_000).all()
    assert set(logger.class_name) == {"deadline"} and set(logger.device) == {1}
    series = r.class_series
    assert set(series["class"]) == {"interactive", "deadline"}
    assert series.bytes.sum() == r.by_class["bytes"].sum()


def test_typed_config_with_devices_and_workloads():
    cfg = headway.Config(
        devices=[headway.Device(name="a", drive="elite3"), headway.Device(name="b", drive="atlas10k")],
        workloads=[
            headway.Workload(requests=100, device="b", **{"class": "x"}),
            headway.Workload(kind="closed", processes=2, requests=50, think_ms=5.0, device="a"),
        ],
    )
    r = headway.run(cfg)
    assert r.by_device["requests"].to_dict() == {"a": 50, "b": 100}
    assert r.by_class["requests"].to_dict() == {"x": 100, "default": 50}


@pytest.mark.parametrize(
    "text, key",
    [
        ('[[devices]]\nname = "a"\n[[workloads]]\ndevice = "zz"\n', "workloads[0].device"),
        ('[[devices]]\nname = "a"\n[[devices]]\nname = "a"\n', "devices[1].name"),
        ('[host]\nscheduler = "sstf"\n[host.inner]\nscheduler = "fcfs"\n', "host.inner"),
        ("[[workloads]]\nrequests = 5\ndeadline_ms = 3.0\n", "workloads[0].deadline_ms"),
    ],
)
def test_bad_compositions_are_keyed_errors_on_the_command_line(cli, tmp_path, text, key):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    out = cli("run", f)
    assert out.returncode == 1
    assert key in out.stderr and "Traceback" not in out.stderr
    assert out.stderr.startswith("error: ") and len(out.stderr.strip().splitlines()) == 1


class ScanWhenIdle:
    """FCFS that, when idle, reads the next 64 sectors itself (a background scan), and
    serves a read from memory when it repeats the previous read's address."""

    name = "scan-when-idle"

    def __init__(self):
        self.queue = []
        self.next_lbn = 0
        self.scanned = 0
        self.last_read = None

    def on_arrival(self, req, ctx):
        self.queue.append(req)

    def on_completion(self, done, ctx):
        for r in done.requests:
            if r.is_host_work:
                self.scanned += r.sectors

    def decide(self, ctx):
        if not ctx.has_slot():
            return None
        if self.queue:
            r = self.queue.pop(0)
            if r.is_read and self.last_read == r.lbn:
                return headway.Serve([r])
            self.last_read = r.lbn if r.is_read else None
            return r
        if self.next_lbn < 6400:
            origin = ctx.host_origin("scan")
            r = ctx.host_request(origin, self.next_lbn, 64)
            self.next_lbn += 64
            return r
        return None


def test_a_python_scheduler_makes_its_own_work_and_serves_from_memory():
    exp = {
        "drive": {"name": "elite3"},
        "workload": {"requests": 300, "interarrival_ms": 20.0, "read_fraction": 1.0,
                     "locality": {"kind": "sequential", "run_length": 1}},
    }
    sched = ScanWhenIdle()
    r = headway.run(exp, scheduler=sched, records=True)
    assert_conserved(r)
    s = r.summary
    assert s.requests == 300
    assert s.background_requests == 100 and sched.scanned == 6400
    assert r.by_origin.loc["scan", "requests"] == 100
    df = r.requests
    assert (df[df.device == -1].origin_name == "workload").all()
    assert s.host_served_requests == int((df.device == -1).sum())


class ProposeCommitFifo:
    """A scheduler written as propose/commit, recording what it was told."""

    def __init__(self):
        self.queue = []
        self.committed = []

    def on_arrival(self, req, ctx):
        self.queue.append(req)

    def propose(self, ctx):
        return self.queue[0] if self.queue and ctx.has_slot() else None

    def commit(self, requests, placement, ctx):
        assert placement == "device"
        for r in requests:
            self.queue.remove(r)
            self.committed.append(r.id)


def test_a_propose_commit_plugin_is_fcfs():
    exp = {"drive": {"name": "elite3"}, "workload": {"requests": 200}}
    s = ProposeCommitFifo()
    mine = headway.run(exp, scheduler=s, records=True)
    rust = headway.run(exp, scheduler="fcfs", records=True)
    assert s.committed == sorted(s.committed)
    assert (mine.requests.done_ns.values == rust.requests.done_ns.values).all()


class Geometry:
    """Asks the predictor about tracks while scheduling FCFS."""

    def __init__(self):
        self.queue = []
        self.checked = 0

    def on_arrival(self, req, ctx):
        self.queue.append(req)
        cyl, surf = ctx.track_of(req.lbn)
        info = ctx.track_info(cyl, surf)
        assert info.first_lbn <= req.lbn < info.first_lbn + info.lbns
        runs = ctx.passing(cyl, surf, ctx.now_ns, ctx.now_ns + 10 * int(info.sector_ns * info.slots))
        assert sum(n for _, n in runs) == info.lbns
        e = ctx.estimate_from(req, (cyl, surf), ctx.now_ns, 200_000)
        assert e.seek_ns >= 200_000
        self.checked += 1

    def decide(self, ctx):
        return self.queue.pop(0) if self.queue and ctx.has_slot() else None


def test_python_schedulers_ask_the_predictor_about_tracks():
    g = Geometry()
    headway.run({"drive": {"name": "atlas10k"}, "workload": {"requests": 50}}, scheduler=g)
    assert g.checked == 50


def test_geometry_without_a_geometric_predictor_is_a_config_error():
    exp = {"drive": {"name": "st41601n"}, "host": {"predictor": "lbn-curve"}, "workload": {"requests": 5}}
    with pytest.raises(headway.PluginError) as e:
        headway.run(exp, scheduler=Geometry())
    assert "lbn-curve" in str(e.value.__cause__) and "host.predictor" in str(e.value.__cause__)


class FailsLater:
    """FCFS that raises on the tenth decision."""

    name = "fails-later"

    def __init__(self):
        self.queue = []
        self.calls = 0

    def on_arrival(self, req, ctx):
        self.queue.append(req)

    def decide(self, ctx):
        self.calls += 1
        if self.calls == 10:
            raise ValueError("boom")
        return self.queue.pop(0) if self.queue and ctx.has_slot() else None


def test_a_plugin_error_names_the_plugin_the_call_and_the_simulated_time():
    with pytest.raises(headway.PluginError) as e:
        headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 50}}, scheduler=FailsLater())
    msg = str(e.value)
    assert "fails-later" in msg and "decide() raised ValueError" in msg
    assert re.search(r"at simulated time \d+\.\d{3} ms", msg), msg
    assert isinstance(e.value.__cause__, ValueError)
