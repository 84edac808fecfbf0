"""The Python API: configs in every form, the result object, the catalog."""

from __future__ import annotations

import json
import shutil

import pytest

import headway
from headway.config import to_toml
from conftest import ELITE3_TOML, EXAMPLES, default_config, small

FLAT_KEYS = {
    "requests": int,
    "reads": int,
    "writes": int,
    "mean_response_ms": float,
    "p50_response_ms": float,
    "p90_response_ms": float,
    "p99_response_ms": float,
    "p999_response_ms": float,
    "max_response_ms": float,
    "mean_service_ms": float,
    "throughput_iops": float,
    "throughput_mb_s": float,
    "utilisation": float,
    "mean_seek_ms": float,
    "mean_rotate_ms": float,
    "mean_transfer_ms": float,
    "mean_queue_length": float,
    "max_queue_length": int,
}


def test_default_experiment_runs_and_summary_is_sane():
    r = headway.run()
    s = r.summary
    expected = default_config()
    assert s.requests == expected["workload"]["requests"]
    for key, typ in FLAT_KEYS.items():
        assert isinstance(s[key], typ), key
    # Real latencies: a disk needs milliseconds per random read.
    assert 2.0 < s.mean_service_ms < 30.0
    assert s.mean_response_ms >= s.mean_service_ms
    assert (
        s.p50_response_ms <= s.p90_response_ms <= s.p99_response_ms <= s.p999_response_ms <= s.max_response_ms
    )
    assert 0.0 < s.utilisation < 1.0
    assert s.throughput_iops == pytest.approx(s.requests / s.elapsed_s)
    assert r.meta["drive"] == expected["drive"]["name"]
    assert r.meta["scheduler"] == expected["host"]["scheduler"]


@pytest.mark.parametrize("n", [1, 17, 1234])
def test_requests_equal_configured_count(n):
    assert headway.run(small(n)).summary.requests == n


def test_every_config_form_gives_the_same_run(tmp_path):
    cfg = small(400, scheduler="sstf", seed=9)
    text = to_toml(cfg)
    path = tmp_path / "exp.toml"
    path.write_text(text)
    typed = headway.Config(
        seed=9,
        drive=headway.Drive(name="elite3"),
        host=headway.Host(scheduler="sstf"),
        workload=headway.Workload(requests=400, interarrival_ms=15.0),
    )
    outputs = {
        "dict": headway.run(cfg).to_json(),
        "toml string": headway.run(text).to_json(),
        "str path": headway.run(str(path)).to_json(),
        "Path": headway.run(path).to_json(),
        "Config": headway.run(typed).to_json(),
    }
    assert len(set(outputs.values())) == 1, outputs


def test_a_toml_string_longer_than_a_file_name_runs_as_toml():
    # Deciding whether a string is a path asks the system, which refuses names over 255 bytes.
    text = to_toml(small(50, seed=2)) + "\n" + "# " + "x" * 400 + "\n"
    assert headway.run(text).summary.requests == 50


def test_relative_paths_resolve_against_the_config_file(tmp_path, monkeypatch):
    folder = tmp_path / "experiment"
    (folder / "drives").mkdir(parents=True)
    shutil.copy(ELITE3_TOML, folder / "drives" / "mine.toml")
    (folder / "exp.toml").write_text('[drive]\nname = "drives/mine.toml"\n[workload]\nrequests = 50\n')
    monkeypatch.chdir(tmp_path)  # not the config's folder
    r = headway.run("experiment/exp.toml")
    assert r.summary.requests == 50
    assert r.meta["drive"] == "elite3"


def test_seed_and_scheduler_overrides():
    base = small(500, scheduler="fcfs", seed=1)
    r = headway.run(base, seed=5, scheduler="sstf")
    assert r.meta["seed"] == 5 and r.meta["scheduler"] == "sstf"
    same = headway.run(small(500, scheduler="sstf", seed=5))
    assert r.to_json() == same.to_json()


def test_summary_is_a_read_only_mapping_with_attributes():
    s = headway.run(small(50)).summary
    assert s["requests"] == s.requests == 50
    assert set(FLAT_KEYS) <= set(s)
    assert json.loads(json.dumps(dict(s)))["requests"] == 50
    with pytest.raises(AttributeError):
        s.requests = 3
    with pytest.raises(TypeError):
        s["requests"] = 3  # type: ignore[index]
    with pytest.raises(AttributeError, match="no `nonsense`"):
        s.nonsense


def test_result_repr_and_json():
    r = headway.run(small(60, scheduler="look"))
    text = repr(r)
    assert "60 requests" in text and "look" in text and "p99" in text
    assert json.loads(r.to_json()) == r.summary.to_dict()


def test_records_not_requested_is_a_clear_error():
    r = headway.run(small(10))
    assert not r.has_records
    with pytest.raises(headway.RecordsNotCollected, match="records=True"):
        r.requests
    with pytest.raises(ValueError):
        r.to_arrow()


def test_records_from_output_section():
    cfg = small(30)
    cfg["output"] = {"records": True}
    assert len(headway.run(cfg).requests) == 30


def test_disks_dataframe():
    df = headway.disks()
    expected = [
        "name",
        "capacity_sectors",
        "capacity_bytes",
        "rpm",
        "zones",
        "cylinders",
        "surfaces",
        "mean_seek_ms",
        "actuators",
        "recording",
        "description",
    ]
    assert list(df.columns) == expected
    e3 = df.set_index("name").loc["elite3"]
    assert (e3.rpm, e3.cylinders, e3.surfaces, e3.zones) == (5400, 2627, 21, 1)
    recording = df.set_index("name").recording
    assert (recording["elite3"], recording["st5000as0011"]) == ("cmr", "smr-drive-managed")
    assert e3.capacity_sectors == 2627 * 21 * 99 and e3.capacity_bytes == e3.capacity_sectors * 512
    assert e3.mean_seek_ms == pytest.approx(11.0, abs=0.05)


def test_schedulers_and_version():
    names = headway.schedulers()
    assert {"fcfs", "sstf", "scan", "look", "cscan", "clook", "sptf"} <= set(names)
    assert headway.__version__ == headway.version()


def test_progress_callback_reports_increasing_counts():
    calls = []
    r = headway.run(small(70_000, interarrival_ms=20.0), progress=lambda done, now: calls.append((done, now)))
    assert len(calls) >= 3
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    assert calls[-1][0] == r.summary.requests == 70_000
    assert calls[-1][1] == r.meta["end_ns"]


def test_progress_bar_runs_off_a_terminal(capsys):
    assert headway.run(small(100), progress=True).summary.requests == 100


def test_config_helpers():
    cfg = headway.Config(
        drive=headway.Drive(name="elite3", queue_depth=None), output=headway.Output(records=True)
    )
    assert cfg.to_dict() == {"drive": {"name": "elite3"}, "output": {"records": True}}
    assert headway.Workload(kind="open", requests=5) == headway.Workload("open", requests=5)
    assert headway.Drive(name="x", extra={"future_key": 1}).to_dict() == {"name": "x", "future_key": 1}
    with pytest.raises(headway.ConfigError, match="TOML"):
        headway.run({"workload": {"requests": {1, 2}}})
    with pytest.raises(TypeError, match="config must be"):
        headway.run(42)  # type: ignore[arg-type]


def test_the_firmware_sptf_angle_reaches_the_drive_and_is_checked():
    """DiskSim 4.0's SPTF ranking (docs/fidelity.md) is a typed drive key: it changes the
    firmware's choices, and a bad value names the key and the values it takes."""

    def run(**angle):
        cfg = headway.Config(
            drive=headway.Drive(name="atlas10k", queue_depth=16, firmware_scheduler="sptf", **angle),
            workload=headway.Workload(kind="open", requests=2000, interarrival_ms=5.5),
        )
        return headway.run(cfg).summary["mean_in_system"]

    default = run()
    assert run(firmware_sptf_angle="decision") == default
    # Ranking from a stale angle takes sectors that have just passed: a worse schedule.
    assert run(firmware_sptf_angle="last-media-event") > default
    with pytest.raises(headway.ConfigError, match=r"drive\.firmware_sptf_angle.*`decision` or `last-media-event`"):
        run(firmware_sptf_angle="stale")


def test_builtin_default_matches_the_example_file():
    from headway.config import default_config_text

    assert default_config_text() == (EXAMPLES / "default.toml").read_text()


def test_a_rust_only_run_releases_the_gil():
    import threading
    import time

    done = threading.Event()
    worker = threading.Thread(
        target=lambda: (headway.run(small(3_000_000, interarrival_ms=20.0)), done.set())
    )
    last = time.perf_counter()
    longest_gap = 0.0
    started = time.perf_counter()
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest_gap = max(longest_gap, now - last)
        last = now
    worker.join()
    elapsed = time.perf_counter() - started
    # Had the simulation held the GIL, this loop would have stalled for the whole run.
    assert elapsed > 0.5, "the run was too short to tell"
    assert longest_gap < elapsed / 4


def test_progress_callback_exceptions_stop_the_run_as_themselves():
    def stop(done, now):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        headway.run(small(70_000, interarrival_ms=20.0), progress=stop)

    def broken(done, now):
        raise ValueError("bad progress")

    with pytest.raises(ValueError, match="bad progress"):
        headway.run(small(70_000, interarrival_ms=20.0), progress=broken)
