"""Flash-backed I/O from Python: `headway reproduce flash-backed --quick` (golden headline
bounds), the HP-trace headline when the trace is present, the core wrapper in an experiment
file, and keyed errors for impossible hybrids."""

import csv
import json

import pytest

import headway
from conftest import assert_paper_hw, assert_claims_explained, ROOT, SHARED, headway_cli, reproduce_quick

HP = SHARED / "reference" / "traces" / "hplajw" / "ajw.1week.srt"


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory):
    return reproduce_quick(tmp_path_factory, "flash-backed", "--no-hp")


def test_quick_reproduction_writes_every_table_and_figure(quick_out):
    out, stdout = quick_out
    sweep = list(csv.DictReader((out / "sweep.csv").open()))
    assert {r["scheduler"] for r in sweep} == {"fcfs", "sstf", "clook"}
    assert {r["trace"] for r in sweep} == {"eng", "winpc", "mac"}
    for col in ("fqueue_mib", "write_latency_norm", "total_latency_norm", "idle_share", "flush_share",
                "overwrite_fraction", "years_to_wear_out", "disk_time_norm", "disk_writes_norm"):
        assert col in sweep[0], col
    for name in ("seek", "seek_time", "speed", "energy", "look_ahead", "delay", "core", "traces"):
        assert (out / f"{name}.csv").stat().st_size > 0, name
    for name in ("figure4_seek_distance", "figure7_write_latency", "figure8_idle_flush",
                 "figure9_total_latency", "figure10_endurance", "figure11_flash_speed",
                 "figure12_overwrites", "figure13_duty_cycle", "energy_spindown", "idle_delay"):
        assert (out / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    assert "max write latency reduction" in stdout


def test_quick_headline_stays_in_its_golden_bounds(quick_out):
    """Bounds of docs/flash_backed.md at the quick size (stand-in traces, paper model)."""
    out, _ = quick_out
    h = json.loads((out / "headline.json").read_text())["headline"]
    # The paper: up to 0.70.
    assert 0.55 <= h["max_write_latency_reduction"] <= 0.8, h
    assert h["hp_idle_share_10mb"] is None  # --no-hp
    assert set(h["total_latency_change"]) == {"eng", "winpc", "mac"}
    for trace, change in h["total_latency_change"].items():
        assert -0.7 <= change <= 0.0, (trace, change)
    assert h["min_idle_share"] >= 0.2  # the paper: at least 20%
    assert 0.0 < h["max_overwrite_fraction"] <= 0.15
    # Years to wear-out grow linearly with F (Fig. 10).
    rows = [r for r in csv.DictReader((out / "sweep.csv").open())
            if r["scheduler"] == "clook" and r["trace"] == "eng"]
    years = {float(r["fqueue_mib"]): float(r["years_to_wear_out"]) for r in rows}
    assert years[100.0] == pytest.approx(10 * years[10.0], rel=0.05)
    # Energy: redirecting writes while spun down saves spin-ups.
    energy = list(csv.DictReader((out / "energy.csv").open()))
    spin = {(r["trace"], float(r["timeout_s"]), r["mode"]): float(r["spinups"]) for r in energy}
    assert any(spin[(t, s, "fb-avoid-spinup")] < spin[(t, s, "baseline")] for (t, s, m) in spin)
    # The same on the core (the platter model with power states, the wrapper's avoid_spinup):
    # with writes only, the platter spun down stays down at the shortest timeout.
    joules = {(r["trace"], float(r["timeout_s"]), r["mode"]): float(r["energy_j"]) for r in energy}
    t0 = min(s for (t, s, m) in spin if t == "core-writes")
    assert spin[("core-writes", t0, "fb-avoid-spinup")] < spin[("core-writes", t0, "fb")]
    assert joules[("core-writes", t0, "fb-avoid-spinup")] < 0.5 * joules[("core-writes", t0, "fb")]
    for (t, s, m) in spin:
        if t.startswith("core") and m == "fb-avoid-spinup":
            assert spin[(t, s, m)] <= spin[(t, s, "fb")], (t, s)
    # The idle write-back delay: overwrites grow with it, and a small FQueue held across
    # gaps flushes and loses to the baseline (WinPC, Mac) where a large one still wins.
    assert h["max_overwrite_fraction_delayed"] > 2 * h["max_overwrite_fraction"]
    assert 0.0 < h["max_overwrites_of_writes_delayed"] <= 0.15
    delay = {(r["trace"], float(r["fqueue_mib"]), float(r["idle_delay_ms"])): r
             for r in csv.DictReader((out / "delay.csv").open())}
    assert "overwrite_fraction_ci95" in next(iter(delay.values()))
    for trace in ("winpc", "mac"):
        small, large = delay[(trace, 1.0, 10000.0)], delay[(trace, 100.0, 10000.0)]
        assert float(small["total_latency_norm"]) > 1.0 > float(large["total_latency_norm"]), trace
        assert float(small["flush_share"]) > float(delay[(trace, 1.0, 0.0)]["flush_share"]), trace
    # The core runs: the wrapper over the full drive model beats its inner scheduler.
    core = list(csv.DictReader((out / "core.csv").open()))
    assert core and all(float(r["response_norm"]) < 1.0 for r in core)


@pytest.mark.skipif(not HP.is_file(), reason="the HP trace (reference/traces/hplajw) is not beside the clone")
def test_hp_trace_headline(tmp_path):
    import headway.flash_backed as fb

    r = fb.reproduce(quick=True, hp_trace=HP, synthetic_requests=2000, core_requests=0, progress=False)
    share = r.headline["hp_idle_share_10mb"]
    # The paper: 0.9 of the HP workload's write-back in idle time with a 10 MB FQueue.
    assert 0.8 <= share <= 1.0, share
    assert "hp" in r.headline["total_latency_change"]


def hybrid_toml(tmp_path, options="fqueue_mib = 4.0", drive="ek1000", flash=True):
    flash_dev = '[[devices]]\nname = "nv"\ndrive = "flash"\nflash = { logical_bytes = 33554432 }\n' if flash else ""
    text = f"""seed = 1
[[devices]]
name = "platter"
drive = "{drive}"
{flash_dev}
[[workloads]]
name = "w"
kind = "bursty"
requests = 600
on_rate_iops = 150.0
on_mean_ms = 300.0
off_mean_ms = 1500.0
size_sectors = 16
read_fraction = 0.4
device = "platter"
[host]
scheduler = "flash-backed"
[host.options]
{options}
[host.inner]
scheduler = "sptf"
"""
    p = tmp_path / "hybrid.toml"
    p.write_text(text)
    return p


def test_the_core_wrapper_runs_from_an_experiment_file(tmp_path):
    out = tmp_path / "s.json"
    r = headway_cli("run", str(hybrid_toml(tmp_path)), "--json", str(out))
    assert r.returncode == 0, r.stderr
    s = json.loads(out.read_text())
    assert s["requests"] == 600
    origins = {name: o["requests"] for name, o in s["by_origin"].items()}
    assert origins.get("fb-redirect", 0) > 0, origins


@pytest.mark.parametrize("options,drive,flash,key", [
    ("fqueue_mib = 64.0", "ek1000", True, "host.options.fqueue_mib"),
    ("high_watermark = 0.5\nlow_watermark = 0.8", "ek1000", True, "host.options.low_watermark"),
    ("fqueue_mib = 4.0", "ek1000", False, "host.options.flash_device"),
    ("fqueue_mib = 4.0", "flash", True, "devices"),
])
def test_impossible_hybrids_fail_with_one_keyed_line(tmp_path, options, drive, flash, key):
    r = headway_cli("run", str(hybrid_toml(tmp_path, options, drive, flash)))
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("error:") and key in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_example_file_runs():
    assert headway.run(ROOT / "examples" / "hybrid.toml").summary["requests"] == 4000


def test_energy_section_is_documented_key_for_key(tmp_path):
    """docs/results.md's Energy table against what a run with power states produces."""
    import re

    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    body = text.split("\n## Energy\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \|", body, flags=re.M)
    p = hybrid_toml(tmp_path).read_text().replace(
        'drive = "ek1000"\n',
        'drive = "ek1000"\npower = { active_w = 2.0, idle_w = 0.85, standby_w = 0.2, spinup_ms = 3000.0, '
        'spinup_j = 13.5, spindown_timeout_ms = 500.0 }\n', 1)
    (tmp_path / "p.toml").write_text(p)
    s = headway.run(tmp_path / "p.toml").summary
    energy = s["energy"]["platter"]
    assert sorted(rows) == sorted(energy), (rows, list(energy))
    states = energy["active_s"] + energy["idle_s"] + energy["standby_s"] + energy["spinup_s"]
    assert states == pytest.approx(s["elapsed_s"], rel=0.05)
    assert energy["spinups"] > 0


def test_headline_says_whether_each_claim_reproduces(quick_out):
    assert_claims_explained(*quick_out)


def test_the_write_latency_plot_marks_the_papers_reduction(quick_out):
    from PIL import Image

    out, _ = quick_out
    assert "down to 30%" in Image.open(out / "figure7_write_latency.png").text["Description"]


def test_headline_on_the_papers_hardware(quick_out):
    """The headline points again on the paper's drive and interface (`_paper_hw` keys)."""
    out, _ = quick_out
    assert_paper_hw(out, ["core_response_norm_paper_hw"])
    assert json.loads((out / "headline.json").read_text())["headline"]["paper_hw"] == "ek1000 on ata100"
