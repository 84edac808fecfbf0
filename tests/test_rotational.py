"""Rotation-aware scheduling from Python: `headway reproduce rotational`, `headway extract`,
predictors and scheduler options in experiments, the per-request prediction column."""

import csv
import json

import pandas as pd
import pytest

import headway
import headway.rotational as rot
from conftest import assert_paper_hw, assert_claims_explained, headway_cli, reproduce_quick


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory):
    return reproduce_quick(tmp_path_factory, "rotational")


def test_reproduce_quick_writes_the_tables_the_issue_names(quick_out):
    out, stdout = quick_out
    util = list(csv.DictReader((out / "utilisation.csv").open()))
    for col in ("scheduler", "queue_length", "utilisation", "mean_response_ms", "max_response_ms"):
        assert col in util[0], col
    scheds = {row["scheduler"] for row in util}
    assert {"fcfs", "cscan", "stf", "gstf", "wstf"} <= scheds
    # Every scheduler at every queue length of the quick sweep.
    assert sorted({int(r["queue_length"]) for r in util}) == [1, 10, 50, 200]
    assert len(util) == len(scheds) * 4
    pred = list(csv.DictReader((out / "prediction.csv").open()))
    for col in ("predictor", "requests", "mispredicted_fraction"):
        assert col in pred[0], col
    assert {p["predictor"] for p in pred} == {"oracle", "calibrated", "lbn-curve"}
    # The Stability experiment: at least 30 trials at every wait.
    stab = list(csv.DictReader((out / "stability.csv").open()))
    assert stab and {int(r["trials"]) for r in stab} == {30}
    for name in ("figure10_synthetic.png", "figure9_traces.png", "stability.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        # A --quick figure says it is reduced (its title, also kept in the PNG's metadata).
        from PIL import Image

        assert "--quick: reduced sizes" in Image.open(out / name).text["Title"], name
    assert "Headline" in stdout


def test_reproduce_quick_headline_ratios_stay_in_bounds(quick_out):
    """The golden bounds of docs/rotational.md, at the quick size."""
    out, _ = quick_out
    h = json.loads((out / "headline.json").read_text())["headline"]
    assert 1.5 <= h["stf_over_fcfs_at_peak"] <= 2.6, h
    assert 0.95 <= h["stf_over_cscan_at_peak"] <= 1.5, h
    assert h["gstf_max_over_stf_max"] <= 0.6, h
    assert h["wstf_max_over_stf_max"] <= 0.6, h
    assert 0.9 <= h["gstf_util_over_stf"] <= 1.2, h
    assert 0.9 <= h["wstf_util_over_stf"] <= 1.05, h
    assert h["calibrated_mispredicted"] < 0.10, h
    assert h["calibrated_mispredicted_imperfect"] < 0.10, h


def test_at_queue_length_one_every_scheduler_is_fcfs(quick_out):
    """With one request queued there is nothing to choose: every policy gives FCFS's numbers."""
    out, _ = quick_out
    util = pd.read_csv(out / "utilisation.csv")
    q1 = util[util.queue_length == 1]
    assert q1.utilisation.nunique() == 1, q1
    assert q1.max_response_ms.nunique() == 1, q1


def test_reproduce_is_deterministic_and_seeded():
    kw = dict(queue_lengths=[1, 8], requests_per_queued=10, trace_requests=400, progress=False)
    a = rot.reproduce(seed=3, **kw)
    b = rot.reproduce(seed=3, **kw)
    c = rot.reproduce(seed=4, **kw)
    pd.testing.assert_frame_equal(a.utilisation, b.utilisation)
    pd.testing.assert_frame_equal(a.traces, b.traces)
    assert not a.utilisation.equals(c.utilisation)
    # Conservation: each run completed exactly the requests it was given.
    for row in a.utilisation.itertuples():
        assert row.requests == 10 * row.queue_length
    assert (a.traces.requests == 400).all()
    # The options recorded are the ones the core ran with, defaults included.
    assert a.options["seed"] == 3 and c.options["seed"] == 4
    assert a.options["drive"] == "st41601n"
    assert a.options["queue_lengths"] == [1, 8]
    assert a.options["requests_per_queued"] == 10
    assert a.options["light_requests"] == 400 and a.options["quick"] is False


def test_reproduce_reports_progress_steps_to_a_callable():
    seen = []
    rot.reproduce(queue_lengths=[2], requests_per_queued=5, trace_requests=100, progress=seen.append)
    assert seen[0] == "synthetic fcfs Q=2"
    assert any(s.startswith("prediction calibrated") for s in seen)
    assert any(s.startswith("trace stand-in heavy") for s in seen)


def test_reproduce_bad_options_are_clear_errors():
    with pytest.raises(headway.ConfigError, match="queue_lengths"):
        rot.reproduce(queue_lengths=[], progress=False)
    with pytest.raises(headway.ConfigError, match="requests_per_queued"):
        rot.reproduce(queue_lengths=[1], requests_per_queued=0, progress=False)
    with pytest.raises(headway.ConfigError, match="trace_requests"):
        rot.reproduce(queue_lengths=[1], trace_requests=0, progress=False)
    with pytest.raises(headway.UnknownNameError, match="nosuch"):
        rot.reproduce(drive="nosuch", queue_lengths=[1], progress=False)
    r = headway_cli("reproduce", "rotational", "--queue-lengths", "1,x")
    assert r.returncode == 2 and "queue lengths" in r.stderr and "Traceback" not in r.stderr
    with pytest.raises(headway.ConfigError, match="stability_trials"):
        rot.reproduce(queue_lengths=[1], stability_trials=0, progress=False)
    r = headway_cli("reproduce", "rotational", "--stability-trials", "0")
    assert r.returncode == 2 and "--stability-trials" in r.stderr and "Traceback" not in r.stderr


def test_extract_matches_the_truth_on_the_papers_drive(tmp_path):
    out = tmp_path / "extract.json"
    r = headway_cli("extract", "--drive", "st41601n", "--no-paper-min-offset", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "35665 found, 35665 true, 0 found that are not true" in r.stdout
    # What was extracted and how is said once, with the wall time on the same line.
    assert r.stdout.count("timed commands") == 1 and "s wall" in r.stdout.splitlines()[0]
    data = json.loads(out.read_text())
    c = data["comparison"]
    assert c["extracted_zones"] == 14 and c["wrong_cylinder"] == 0
    assert abs(c["period_error_ppm"]) < 0.1
    assert len(data["zones"]) == 14
    assert [z["sectors_per_track"] for z in data["zones"]][:3] == [85, 83, 82]


def test_extract_bad_inputs_are_one_clear_line():
    r = headway_cli("extract", "--drive", "nosuch")
    assert r.returncode == 1
    assert r.stderr.startswith("error: unknown drive `nosuch`") and "Traceback" not in r.stderr
    r = headway_cli("extract", "--seek-jitter-ms", "-1")
    assert r.returncode == 1 and "drive.imperfections.seek_jitter_ms" in r.stderr


def test_predictor_and_scheduler_options_from_python():
    cfg = headway.Config(
        seed=2,
        drive=headway.Drive(name="st41601n"),
        host=headway.Host(scheduler="gstf", predictor="calibrated", options={"group_cylinders": 700}),
        workload={"kind": "closed", "processes": 8, "requests": 400, "size_sectors": 8},
        output={"records": True},
    )
    res = headway.run(cfg)
    assert res.summary.requests == 400
    assert res.summary.predicted_commands > 0
    assert res.summary.mispredicted_fraction < 0.10
    df = res.requests
    # An estimate for the commands dispatched to an idle drive, NaN for none.
    assert df.predicted_ms.notna().sum() == res.summary.predicted_commands
    with_p = df[df.predicted_ms.notna()]
    assert (with_p.predicted_ms > 0).all()


def test_unknown_scheduler_option_names_the_key():
    cfg = headway.Config(
        drive=headway.Drive(name="st41601n"),
        host=headway.Host(scheduler="gstf", options={"group_cylinderz": 7}),
        workload={"requests": 10},
    )
    with pytest.raises(headway.ConfigError, match="host.options.group_cylinderz"):
        headway.run(cfg)


def test_imperfect_drive_costs_the_oracle_rotations():
    """Seek jitter the oracle does not know about shows up as mispredicted rotations."""
    base = {
        "seed": 1,
        "host": {"scheduler": "stf", "predictor": "oracle"},
        "workload": {"kind": "closed", "processes": 10, "requests": 600, "size_sectors": 8},
    }
    nominal = headway.run({**base, "drive": {"name": "st41601n"}}).summary
    jittery = headway.run({**base, "drive": {"name": "st41601n", "imperfections": {"seek_jitter_ms": 1.0}}}).summary
    assert nominal.mispredicted_fraction == 0.0
    assert jittery.mispredicted_fraction > 0.05


def test_underestimated_seeks_put_the_error_mass_at_one_rotation():
    """The calibrated predictor told seeks take 1 ms less than they do, with no CMPS margin:
    the commands it gets wrong cost one whole extra rotation (11.1 ms on the ST41601N)."""
    exp = {
        "seed": 1,
        "drive": {"name": "st41601n"},
        "host": {
            "scheduler": "stf",
            "predictor": "calibrated",
            "predictor_options": {"lag_error_ms": -1.0, "cmps_sectors": 0},
        },
        "workload": {"kind": "closed", "processes": 20, "requests": 1500, "size_sectors": 8},
    }
    r = headway.run(exp)
    errs = r.prediction_errors
    assert errs["count"].sum() == r.summary.predicted_commands > 0
    assert r.summary.mispredicted_fraction > 0.1
    rotation_ms = 60_000 / 5397
    late = errs[errs.from_ms > rotation_ms / 2]
    near_one = late[(late.to_ms > rotation_ms * 0.75) & (late.from_ms < rotation_ms * 1.25)]
    # Every misprediction lands within a quarter rotation of one full rotation late.
    assert near_one["count"].sum() == late["count"].sum() > 0


def test_headline_says_whether_each_claim_reproduces(quick_out):
    assert_claims_explained(*quick_out)


def test_headline_on_the_papers_hardware(quick_out):
    """The headline points again on the paper's drive and interface (`_paper_hw` keys)."""
    out, _ = quick_out
    assert_paper_hw(out, ["stf_utilisation_paper_hw", "stf_over_cscan_paper_hw", "stf_over_fcfs_paper_hw"])
    assert json.loads((out / "headline.json").read_text())["headline"]["paper_hw"] == "st41601n on fast_scsi2"
