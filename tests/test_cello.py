"""Cello from Python: `headway reproduce cello --quick`, the scheduler in experiment
files, keyed errors, and a class scheduler written in Python."""

import csv
import json

import pytest

import headway
import headway.cello as cello
from conftest import assert_paper_hw, assert_claims_explained, headway_cli, reproduce_quick


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory):
    # The quick run's default seeds (2); the bounds below hold for each of seeds 1-5
    # (docs/cello.md). Seeds and intervals themselves: tests/test_reproduction_intervals.py.
    return reproduce_quick(tmp_path_factory, "cello")


def test_reproduce_quick_writes_tables_plots_and_headline(quick_out):
    out, stdout = quick_out
    h = json.loads((out / "headline.json").read_text())["headline"]
    for key in ("text_response_scan_over_cello", "cello_video_miss_fraction",
                "scan_video_miss_fraction", "static_over_cello", "cello_busy_overhead"):
        assert key in h, key
    # Bounds around the paper's claims (docs/cello.md gives the measured values).
    assert 1.5 <= h["text_response_scan_over_cello"] <= 4.0
    assert h["cello_video_miss_fraction"] < 1e-3
    assert h["static_over_cello"] > 3.0
    # The paper: under 2% more busy time than SCAN. With server rounds Cello's requests take
    # 6.7-9.4% more service time than SCAN's over quick seeds 1-5 and the device 0.4-5.0%
    # more (not reproduced, docs/cello.md); these bounds hold that measurement.
    assert h["cello_busy_overhead"] < 0.12
    assert h["cello_device_busy_over_scan"] < 0.06
    mixes = list(csv.DictReader((out / "mixes.csv").open()))
    assert {"cello", "scan", "scan-edf", "dscan", "edf", "timeslice"} <= {m["policy"] for m in mixes}
    # Server rounds everywhere, and the text-load sweep again with random phases; the misses
    # at its largest load in the headline (SCAN misses none either way: docs/cello.md).
    random = [m for m in mixes if m["experiment"] == "random_phase_text_load"]
    assert {m["policy"] for m in random} == {"cello", "scan"}
    for key in ("scan_video_miss_fraction_synchronised", "cello_video_miss_fraction_synchronised",
                "scan_video_miss_fraction_random_phases", "cello_video_miss_fraction_random_phases"):
        assert h[key] < 0.01, key
    for name in ("intervals.csv", "ledger.csv", "fig5_text_response.png", "fig8_allocation.png",
                 "fig9_time_vs_bytes.png", "fig10_shares.png"):
        assert (out / name).stat().st_size > 0, name
    assert "SCAN / Cello" in " ".join(stdout.split())  # a claim may wrap at spaces


def test_missing_traces_are_a_usage_error(tmp_path):
    r = headway_cli("reproduce", "cello", "--quick", "--frames", "traces", "--traces-dir", str(tmp_path))
    assert r.returncode == 2
    assert "Verbose_" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.skipif(cello.frame_trace_files() is None,
                    reason="MPEG-4 frame traces not found (../shared/reference/traces/video is not shipped)")
def test_mpeg4_traces_rescaled_to_the_paper_clips():
    r = cello.reproduce(quick=True, duration_s=30, frame_traces=cello.frame_trace_files(), progress=False)
    assert r.headline["frames"] == "MPEG-4 traces rescaled"
    assert r.headline["cello_video_miss_fraction"] < 1e-3


MIX = {
    "seed": 3,
    "drive": {"name": "elite3"},
    "workloads": [
        {"name": "stream", "class": "video", "interarrival_ms": 40.0, "requests": 600,
         "size_sectors": 128, "deadline_ms": 500.0},
        {"name": "users", "class": "text", "interarrival_ms": 60.0, "requests": 400, "size_sectors": 64},
    ],
    "host": {"scheduler": "cello", "options": {"realtime": ["video"], "interactive": ["text"]}},
}


def test_cello_runs_from_a_config_and_reports_by_class():
    r = headway.run(MIX)
    by = r.by_class
    assert by.loc["video", "requests"] == 600 and by.loc["text", "requests"] == 400


def test_bad_weights_are_a_keyed_error():
    cfg = json.loads(json.dumps(MIX))
    cfg["host"]["options"]["weights"] = [0, 0]
    with pytest.raises(headway.ConfigError, match="host.options.weights"):
        headway.run(cfg)


class TailFirst:
    """A class scheduler in Python: always at the tail (FIFO), counting its calls."""

    def __init__(self):
        self.calls = 0

    def place(self, request, queue, positions):
        self.calls += 1
        assert len(positions) == len(queue) + 1
        assert all(p["tau_ms"] > 0 for p in positions)
        return len(queue)


def test_a_python_class_scheduler_plugs_into_cello():
    s = TailFirst()
    # Without reallocation every text request is placed by the plug-in (a reallocated one
    # goes into an empty queue, where the only position is 0, without asking it).
    cfg = json.loads(json.dumps(MIX))
    cfg["host"]["options"]["reallocate"] = False
    r = headway.run(cfg, class_schedulers={"text": s})
    # Asked at least once per request (again when an allocation test refused a placement).
    assert s.calls >= 400
    assert r.summary.requests == 1000


def test_a_python_class_scheduler_out_of_range_stops_the_run():
    class Bad:
        def place(self, request, queue, positions):
            return len(queue) + 5

    with pytest.raises(headway.HeadwayError, match="position"):
        headway.run(MIX, class_schedulers={"text": Bad()})


def test_headline_says_whether_each_claim_reproduces(quick_out):
    assert_claims_explained(*quick_out)


def test_headline_on_the_papers_hardware(quick_out):
    """The headline points again on the paper's drive and interface (`_paper_hw` keys)."""
    out, _ = quick_out
    assert_paper_hw(out, ["text_response_scan_over_cello_paper_hw", "cello_video_miss_fraction_paper_hw",
                            "scan_video_miss_fraction_paper_hw", "cello_text_mean_ms_paper_hw"])
    assert json.loads((out / "headline.json").read_text())["headline"]["paper_hw"] == "elite3 on fast_scsi2"
