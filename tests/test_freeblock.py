"""Freeblock scheduling from Python: `headway reproduce freeblock --quick` (tables, plots,
headline within the bounds measured for headway's Atlas 10K), the scheduler in an experiment
file, and keyed errors on the command line."""

import csv
import json

import pytest

import headway
from conftest import assert_paper_hw, assert_claims_explained, headway_cli, reproduce_quick

BASE = """seed = 3
[drive]
name = "atlas10k"
queue_depth = 2
[host]
scheduler = "freeblock"
max_outstanding = 2
{host_extra}
[host.options]
{options}
[host.inner]
scheduler = "sptf"
[workload]
kind = "closed"
processes = 10
think_ms = 30.0
requests = 400
read_fraction = 0.6667
align_sectors = 8
size = {{ kind = "exponential", mean_sectors = 12.0 }}
"""


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory):
    return reproduce_quick(tmp_path_factory, "freeblock")


def test_reproduce_quick_writes_tables_plots_and_the_issues_headline_keys(quick_out):
    out, stdout = quick_out
    sweep = list(csv.DictReader((out / "sweep.csv").open()))
    assert {r["foreground"] for r in sweep} == {"sstf", "sptf", "sptf-sw40"}
    for col in ("c_fb_ms", "fg_bandwidth_mb_s", "paired_fg_bandwidth_mb_s", "free_bandwidth_mb_s",
                "potential_free_bandwidth_mb_s", "fg_response_increase"):
        assert col in sweep[0], col
    queue = list(csv.DictReader((out / "queue.csv").open()))
    assert {r["scheduler"] for r in queue} == {"sstf", "sptf-sw40", "sptf", "firmware-sptf"}
    h = json.loads((out / "headline.json").read_text())["headline"]
    for key in ("free_bandwidth_mb_s", "potential_free_bandwidth_mb_s", "free_fraction_of_potential",
                "media_bandwidth_mb_s", "free_fraction_of_media_bandwidth", "fg_response_increase", "scans_per_day", "firmware_free_bandwidth_mb_s"):
        assert key in h, key
    # Bounds measured on headway's drive model (docs/freeblock.md): a positive share of the
    # potential, and a foreground impact of a few percent at most.
    assert 0.2 < h["free_bandwidth_mb_s"] < h["potential_free_bandwidth_mb_s"]
    assert 0.03 < h["free_fraction_of_potential"] < 0.5
    # The paper's 15% is of the media bandwidth (tens of MB/s), not of the potential.
    # (Means over the seeds: the media bandwidth is the drive's, the same in every seed, so the
    # mean of the fractions is the fraction of the means up to rounding.)
    assert h["free_fraction_of_media_bandwidth"] == pytest.approx(
        h["free_bandwidth_mb_s"] / h["media_bandwidth_mb_s"], rel=1e-9)
    assert abs(h["fg_response_increase"]) < 0.06
    assert h["scans_per_day"] > 1
    # The headline from outside the firmware as a host can do it (the calibrated predictor),
    # the oracle beside it as the upper bound.
    for key in ("free_bandwidth_mb_s_calibrated", "fg_response_increase_calibrated",
                "mispredicted_fraction_calibrated", "mispredicted_fraction_oracle",
                "calibrated_fraction_of_oracle"):
        assert key in h, key
    assert h["free_bandwidth_mb_s_calibrated"] >= 0.7 * h["free_bandwidth_mb_s"]
    assert abs(h["fg_response_increase_calibrated"]) < 0.02
    assert 0 <= h["mispredicted_fraction_calibrated"] < 1
    imperfect = list(csv.DictReader((out / "imperfect_sweep.csv").open()))
    assert {r["foreground"] for r in imperfect} == {"sptf", "sptf-calibrated"}
    # The firmware variant (exact knowledge, inside the drive's queue) is the paper's upper
    # bound: several times the external scheduler's free bandwidth, the foreground unchanged.
    assert h["firmware_free_bandwidth_mb_s"] > 3 * h["free_bandwidth_mb_s"]
    assert h["firmware_one_per_track_free_bandwidth_mb_s"] <= h["firmware_free_bandwidth_mb_s"] + 1e-9
    # Behind the paper's interface (80 MB/s) the external scheduler takes several times more.
    assert h["paper_bus_free_bandwidth_mb_s"] > 4 * h["free_bandwidth_mb_s"]
    bus = list(csv.DictReader((out / "bus.csv").open()))
    assert {(r["bus"], r["variant"]) for r in bus} >= {("paper", "external-sptf"), ("validated", "firmware")}
    fw = list(csv.DictReader((out / "firmware.csv").open()))
    assert {r["variant"] for r in fw} == {"external-sptf", "external-sptf-sw40", "firmware",
                                         "firmware-1-per-track"}
    for r in fw:
        if r["variant"].startswith("firmware"):
            assert r["fg_mean_response_ms"] == r["paired_fg_mean_response_ms"]
    pred = {r["case"]: r for r in csv.DictReader((out / "prediction.csv").open())}
    assert set(pred) == {"small", "large", "small-imperfect", "small-calibrated"}
    # Against the schedulers' own predictor (the drive's bus modelled): the nominal drive's
    # reads are predicted to the microsecond, small and large; the imperfect drive's spread
    # (docs/freeblock.md, "Prediction errors").
    for case in ("small", "large"):
        assert float(pred[case]["mean_abs_error_ms"]) < 0.05, pred[case]
    assert float(pred["small-imperfect"]["mean_abs_error_ms"]) > 0.05, pred["small-imperfect"]
    for png in ("conservatism.png", "conservatism_imperfect.png", "firmware.png", "foreground.png", "prediction_pdf.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "free bandwidth" in stdout


def test_freeblock_in_an_experiment_counts_its_reads_apart(tmp_path):
    f = tmp_path / "fb.toml"
    f.write_text(BASE.format(host_extra="", options="c_fb_ms = 0.2\nstart_lbn = 0\nsectors = 4000000"))
    r = headway.run(str(f))
    assert r.summary["requests"] == 400
    assert r.by_origin.loc["freeblock", "requests"] == r.summary["background_requests"] > 0
    assert r.by_origin.loc["workload", "requests"] == 400


@pytest.mark.parametrize(
    "host_extra, options, key",
    [
        ("", "c_fb = 0.2", "host.options.c_fb"),
        ("", "start_lbn = 17000000\nsectors = 9000000", "host.options.sectors"),
        ('predictor = "lbn-curve"', "", "host.predictor"),
    ],
)
def test_bad_freeblock_setups_are_one_line_keyed_errors(tmp_path, host_extra, options, key):
    f = tmp_path / "bad.toml"
    f.write_text(BASE.format(host_extra=host_extra, options=options))
    out = headway_cli("run", str(f))
    assert out.returncode == 1
    assert key in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("error: ") and len(out.stderr.strip().splitlines()) == 1


FIRMWARE = """seed = 3
[drive]
name = "atlas10k"
queue_depth = 16
firmware_scheduler = "sptf"
{drive_extra}
[host]
scheduler = "fcfs"
max_outstanding = 16
[workload]
kind = "closed"
processes = 10
think_ms = 30.0
requests = 300
read_fraction = 0.6667
align_sectors = 8
size = {{ kind = "exponential", mean_sectors = 12.0 }}
"""


def test_firmware_freeblock_reports_its_free_reads_and_leaves_the_foreground_alone(tmp_path):
    on, off = tmp_path / "on.toml", tmp_path / "off.toml"
    on.write_text(FIRMWARE.format(drive_extra="[drive.firmware_freeblock]\nc_fb_ms = 0.0"))
    off.write_text(FIRMWARE.format(drive_extra=""))
    a, b = headway.run(str(on)), headway.run(str(off))
    (f,) = a.summary["firmware_free"]
    assert f["device"] == "disk" and f["free_sectors"] > 1000 and f["free_reads"] > 0
    assert "firmware_free" not in b.summary
    assert a.summary["mean_response_ms"] == b.summary["mean_response_ms"]


def test_firmware_free_section_is_documented_key_for_key(tmp_path):
    """docs/results.md's table for `firmware_free` against what a logging run produces."""
    import re

    from conftest import ROOT

    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    body = text.split("\n## Free reads in the firmware\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \|", body, flags=re.M)
    on = tmp_path / "on.toml"
    on.write_text(FIRMWARE.format(drive_extra="[drive.firmware_freeblock]\nc_fb_ms = 0.0\nlog = true"))
    (f,) = headway.run(str(on)).summary["firmware_free"]
    assert sorted(rows) == sorted(f), (rows, list(f))


@pytest.mark.parametrize(
    "drive_extra, key",
    [
        ("[drive.firmware_freeblock]\nc_fb_ms = -1.0", "drive.firmware_freeblock.c_fb_ms"),
        ("[drive.firmware_freeblock]\nsectors = 99999999999", "drive.firmware_freeblock.sectors"),
        ("[drive.firmware_freeblock]\nper_track = true", "per_track"),
        ("bus_sector_transfer_ms = -2.0", "drive.bus_sector_transfer_ms"),
    ],
)
def test_bad_firmware_freeblock_settings_are_one_line_keyed_errors(tmp_path, drive_extra, key):
    f = tmp_path / "bad.toml"
    f.write_text(FIRMWARE.format(drive_extra=drive_extra))
    out = headway_cli("run", str(f))
    assert out.returncode == 1
    assert key in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("error: ") and len(out.stderr.strip().splitlines()) == 1


def test_headline_says_whether_each_claim_reproduces(quick_out):
    assert_claims_explained(*quick_out)


def test_the_conservatism_plot_marks_the_papers_free_bandwidth(quick_out):
    from PIL import Image

    out, _ = quick_out
    assert "over 3.1 MB/s" in Image.open(out / "conservatism.png").text["Description"]


def test_bandwidth_and_count_axes_start_at_zero(tmp_path, monkeypatch):
    """The conservatism figure and the other freeblock plots put no axis below 0: free
    bandwidth near 0 and the queue depth are quantities that cannot be negative (matplotlib's
    margins used to show negative limits). Hand-made tables: no simulation."""
    import pandas as pd

    from headway import _reproduction
    from headway.freeblock import Reproduction

    sweep = pd.DataFrame({"foreground": ["sptf"] * 2, "c_fb_ms": [0.0, 1.5],
                          "fg_bandwidth_mb_s": [1.0, 1.1], "paired_fg_bandwidth_mb_s": [1.1, 1.1],
                          "free_bandwidth_mb_s": [0.04, 0.0]})
    limits = []
    save = _reproduction.Figures.save

    def recording_save(self, fig, name, title):
        limits.extend((name, ax.get_xlim(), ax.get_ylim()) for ax in fig.axes if ax.get_yscale() == "linear")
        save(self, fig, name, title)

    monkeypatch.setattr(_reproduction.Figures, "save", recording_save)
    r = Reproduction(
        sweep=sweep, imperfect_sweep=sweep, bus=pd.DataFrame(), prediction=pd.DataFrame(),
        firmware=pd.DataFrame({"variant": ["firmware"] * 2, "c_fb_ms": [0.0, 1.5],
                               "free_bandwidth_mb_s": [0.01, 0.0]}),
        queue=pd.DataFrame({"scheduler": ["sptf"] * 2, "queue_depth": [1, 20],
                            "mean_response_ms": [10.0, 60.0]}),
        prediction_pdf=pd.DataFrame({"case": ["small"] * 2, "error_ms": [-1.0, 1.0], "fraction": [0.5, 0.5]}),
        headline={},
    )
    r.plot(tmp_path)
    names = {name for name, _, _ in limits}
    assert {"conservatism.png", "firmware.png", "foreground.png", "conservatism_imperfect.png"} <= names
    for name, (x0, _), (y0, _) in limits:
        assert x0 == 0 and y0 == 0, (name, x0, y0)


def test_headline_on_the_papers_hardware(quick_out):
    """The headline points again on the paper's drive and interface (`_paper_hw` keys)."""
    out, _ = quick_out
    assert_paper_hw(out, ["free_bandwidth_mb_s_paper_hw", "fg_response_increase_paper_hw",
                            "free_fraction_of_media_bandwidth_paper_hw"])
    assert json.loads((out / "headline.json").read_text())["headline"]["paper_hw"] == "atlas10k on ultra2"
