"""Anticipatory scheduling from Python: `headway reproduce anticipatory --quick`, the
`anticipatory` wrapper and the `sync` workload in experiments, keyed errors."""

import csv
import json
import subprocess
import sys

import pytest

import headway


def headway_cli(*args):
    return subprocess.run([sys.executable, "-m", "headway", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("anticipatory")
    r = headway_cli("reproduce", "anticipatory", "--quick", "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out, r.stdout


def test_reproduce_quick_writes_tables_plots_and_the_issue_headline_keys(quick_out):
    out, stdout = quick_out
    rows = list(csv.DictReader((out / "patterns.csv").open()))
    assert {r["pattern"] for r in rows} == {"seq", "alter", "random"}
    assert {r["heuristic"] for r in rows} == {"off", "cost-benefit", "linux-as", "slice-idle"}
    assert {"aged-sptf", "sptf", "clook"} <= {r["scheduler"] for r in rows}
    sweeps = {r["sweep"] for r in csv.DictReader((out / "sweeps.csv").open())}
    assert sweeps == {"symmetric", "asymmetric", "random", "adversary", "granularity"}
    shares = {r["config"] for r in csv.DictReader((out / "shares.csv").open())}
    assert shares == {"original", "stride", "combination", "cost-benefit"}
    for name in ("figure5_patterns.png", "figure6_thinktime.png", "figure7_adversary.png",
                 "figure12_prop_share.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    h = json.loads((out / "headline.json").read_text())["headline"]
    for key in ("seq_mmap_speedup", "adversary_slowdown", "prop_share_ratio_original",
                "prop_share_ratio_combination", "prop_share_throughput_gain_combination"):
        assert key in h, key
    assert "Headline" in stdout


def test_reproduce_quick_headline_bounds(quick_out):
    """The golden bounds of docs/anticipatory.md at the quick size."""
    out, _ = quick_out
    h = json.loads((out / "headline.json").read_text())["headline"]
    assert 3.0 <= h["seq_mmap_speedup"] <= 12.0, h
    assert h["alter_mmap_speedup"] > 3.0, h
    assert 1.0 <= h["random_mmap_speedup"] <= 2.5, h
    # Not reproduced (see the doc): anticipation gains in our adversary instead of losing.
    assert h["adversary_slowdown"] < 0.05, h
    # Shares 1:2: about 1:1 without anticipation, the contract with it (paper, Figure 12).
    assert 0.85 <= h["prop_share_ratio_original"] <= 1.15, h
    assert 1.7 <= h["prop_share_ratio_combination"] <= 2.3, h
    assert h["prop_share_throughput_gain_combination"] > 1.1, h


def readers(scheduler_options: str = "", workload_extra: str = "") -> str:
    entry = (
        '[[workloads]]\nkind = "sync"\nrequests = 200\nthink_ms = 0.05\n{extra}\n'
        "region = {{ start_fraction = {start}, size_fraction = 0.1 }}\n"
    )
    return (
        '[[devices]]\nname = "disk"\ndrive = "ibm18es"\n[host]\nscheduler = "anticipatory"\n'
        f"[host.options]\n{scheduler_options}\n[host.inner]\nscheduler = \"aged-sptf\"\n"
        + entry.format(start=0.25, extra=workload_extra)
        + entry.format(start=0.65, extra=workload_extra)
    )


def run_text(tmp_path, text, **kw):
    # Through a file: headway.config.source() stats a long TOML string as a path first,
    # which raises "File name too long" for texts over 255 characters.
    path = tmp_path / "experiment.toml"
    path.write_text(text)
    return headway.run(str(path), **kw)


def test_anticipation_beats_the_original_from_python(tmp_path):
    off = run_text(tmp_path, readers('heuristic = "off"'), seed=1).summary
    on = run_text(tmp_path, readers(), seed=1).summary
    assert off.requests == on.requests == 400
    assert on.throughput_mb_s > 3 * off.throughput_mb_s


@pytest.mark.parametrize(
    "options, extra, key",
    [
        ("decay = -0.5", "", "host.options.decay"),
        ("histogram_range_ms = 0.01", "", "host.options.histogram_range_ms"),
        ("antic_expire = 6", "", "host.options.antic_expire"),
        ("", 'pattern = "zigzag"', "pattern"),
        ("", "burst = 3", "burst_pause_ms"),
        ("", "processes = 2", "processes"),
    ],
)
def test_bad_settings_are_keyed_errors(tmp_path, options, extra, key):
    with pytest.raises(headway.ConfigError, match=key.replace(".", r"\.")):
        run_text(tmp_path, readers(options, extra))


def test_bad_settings_exit_with_one_line_from_the_cli(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(readers("decay = 0"))
    r = headway_cli("run", str(cfg))
    assert r.returncode != 0
    assert "host.options.decay" in r.stderr
    assert "Traceback" not in r.stderr
