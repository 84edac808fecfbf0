"""Every reproduction over several seeds: mean and 95% interval columns, ``_ci95`` headline
keys, error bars, the same tables from the same command, the ``--until-ci`` stopping rule,
and the reference data found from any working directory. The runs are the anticipatory
reproduction at its quick size with 100 reads per process (a second or two per seed)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pandas as pd
import pytest

import headway
import headway.anticipatory as ant
from headway import _headway
from headway._intervals import CI, aggregate_headline, aggregate_table, ci95_half_width, relative_widths
from conftest import SHARED, headway_cli

SMALL = dict(quick=True, requests=100, progress=False)


@pytest.fixture(scope="module")
def runs():
    """Seeds 1 and 2 together, and each alone (seed 1 and 2 are base seed 1's first two)."""
    return (ant.reproduce(seeds=2, **SMALL), ant.reproduce(seed=1, seeds=1, **SMALL),
            ant.reproduce(seed=2, seeds=1, **SMALL))


def test_student_t_half_width_by_hand():
    # Two values 0.2 and 0.4: s = 0.1414, s / sqrt(2) = 0.1, t(0.975, 1) = 12.706.
    assert ci95_half_width([0.2, 0.4]) == pytest.approx(1.2706, abs=1e-4)
    # Five values 1..5: s = 1.5811, s / sqrt(5) = 0.7071, t(0.975, 4) = 2.7764.
    assert ci95_half_width([1, 2, 3, 4, 5]) == pytest.approx(1.9632, abs=1e-4)
    assert ci95_half_width([3.0]) == 0.0
    assert ci95_half_width([3.0, 3.0, 3.0]) == 0.0


def test_a_table_keeps_its_rows_and_names_the_mean_as_before():
    a = pd.DataFrame({"policy": ["x", "y", "x"], "q": [1, 1, 2], "ms": [1.0, 5.0, 2.0], "n": [3, 4, 5]})
    b = pd.DataFrame({"policy": ["x", "y", "x"], "q": [1, 1, 2], "ms": [3.0, 5.0, 4.0], "n": [3, 4, 5]})
    t = aggregate_table([a, b], coordinates=("q",))
    assert list(t.policy) == ["x", "y", "x"] and list(t.q) == [1, 1, 2]
    assert list(t.ms) == [2.0, 5.0, 3.0] and list(t.ms_mean) == list(t.ms)
    assert list(t.ms_ci95) == [pytest.approx(12.706, abs=1e-3), 0.0, pytest.approx(12.706, abs=1e-3)]
    # Counts every seed agrees on stay integers.
    assert t.n.dtype.kind == "i" and (t.n_ci95 == 0).all() and (t.n_seeds == 2).all()
    one = aggregate_table([a], coordinates=("q",))
    assert (one.ms_ci95 == 0).all() and (one.n_seeds == 1).all()


def test_a_headline_gets_ci95_companions_nested_too():
    h = aggregate_headline([{"r": 1.0, "by": {"a": 2.0}, "name": "x", "none": None, "flag": True},
                            {"r": 3.0, "by": {"a": 2.0}, "name": "x", "none": None, "flag": True}])
    assert h["r"] == 2.0 and h["r_ci95"] == pytest.approx(12.706, abs=1e-3)
    assert h["by"] == {"a": 2.0} and h["by_ci95"] == {"a": 0.0}
    assert h["name"] == "x" and h["none"] is None and h["flag"] is True
    assert "name_ci95" not in h and "flag_ci95" not in h
    assert dict(relative_widths(h)) == {"r": pytest.approx(12.706 / 2, abs=1e-3), "by.a": 0.0}


def test_every_table_has_consistent_interval_columns(runs):
    both, one, two = runs
    for name in ant.TABLES:
        t, t1, t2 = (getattr(r, name) for r in runs)
        assert (t.n_seeds == 2).all(), name
        for col in [c[: -len(CI)] for c in t.columns if c.endswith(CI)]:
            assert (t[col + CI] >= 0).all(), (name, col)
            pd.testing.assert_series_equal(t[col], t[col + "_mean"], check_names=False, check_dtype=False)
            lo, hi = t1[col].combine(t2[col], min), t1[col].combine(t2[col], max)
            assert ((t[col] >= lo - 1e-9) & (t[col] <= hi + 1e-9)).all(), (name, col)
            assert t[col].to_numpy() == pytest.approx(((t1[col] + t2[col]) / 2).to_numpy()), (name, col)
            same = (t1[col] == t2[col]).to_numpy()
            assert (t[col + CI].to_numpy()[same] == 0).all(), (name, col)
            if not same.all():
                assert (t[col + CI].to_numpy()[~same] > 0).all(), (name, col)
        # One seed: the interval is 0 and the values are the core's own.
        raw = json.loads(_headway.reproduce_anticipatory(quick=True, requests=100, seed=1))[name]
        for col in [c[: -len(CI)] for c in t1.columns if c.endswith(CI)]:
            assert (t1[col + CI] == 0).all(), (name, col)
            assert list(t1[col]) == pytest.approx([row[col] for row in raw]), (name, col)


def test_every_numeric_headline_key_has_its_interval(runs):
    h = runs[0].headline
    assert h["seeds"] == [1, 2] and runs[0].options["seeds"] == [1, 2] and runs[0].options["seed"] == 1
    numeric = [k for k, v in h.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
               and not k.endswith(CI)]
    assert numeric
    for k in numeric:
        assert h[k + CI] >= 0, k
        alone = [r.headline[k] for r in runs[1:]]
        assert min(alone) - 1e-9 <= h[k] <= max(alone) + 1e-9, k


def test_the_same_command_writes_the_same_tables(tmp_path):
    outs = []
    for i in range(2):
        out = tmp_path / f"run{i}"
        r = headway_cli("reproduce", "anticipatory", "--quick", "--requests", "100", "--seeds", "2",
                        "--seed", "7", "--no-plots", "--out", str(out), timeout=None)
        assert r.returncode == 0, r.stderr
        outs.append(out)
    for name in [*ant.TABLES, "headline"]:
        ext = "json" if name == "headline" else "csv"
        assert (outs[0] / f"{name}.{ext}").read_bytes() == (outs[1] / f"{name}.{ext}").read_bytes(), name
    assert json.loads((outs[0] / "headline.json").read_text())["headline"]["seeds"] == [7, 8]


def test_until_ci_stops_within_the_tolerance_or_at_the_most_seeds():
    loose = ant.reproduce(seeds=headway.Seeds(n=2, until_ci=1e6, max_seeds=4), **SMALL)
    assert loose.headline["seeds"] == [1, 2] and loose.options["stopped"] == "within"
    tight = ant.reproduce(seeds=headway.Seeds(n=2, until_ci=1e-9, max_seeds=3), **SMALL)
    assert tight.headline["seeds"] == [1, 2, 3] and tight.options["stopped"] == "max_seeds"
    assert tight.options["widest"] and tight.options["until_ci"] == 1e-9
    # Every headline interval of the loose run is within its tolerance.
    assert all(w <= 1e6 for _, w in relative_widths(loose.headline))
    assert all(t.n_seeds.max() == 3 for t in (tight.patterns, tight.sweeps))
    assert not any(math.isnan(w) for _, w in relative_widths(tight.headline))


def test_bad_seed_plans_are_keyed_errors(cli):
    with pytest.raises(headway.ConfigError, match="seeds: 0"):
        ant.reproduce(seeds=0, **SMALL)
    with pytest.raises(headway.ConfigError, match="until_ci"):
        headway.Seeds(until_ci=0.0)
    r = cli("reproduce", "anticipatory", "--quick", "--until-ci", "0")
    assert r.returncode != 0 and "--until-ci" in r.stderr and "Traceback" not in r.stderr


def test_figures_draw_the_intervals(runs, tmp_path, monkeypatch):
    """Every figure of the reproduction has error bars (or a shaded band) on some axes."""
    from matplotlib.collections import PolyCollection
    from matplotlib.container import BarContainer, ErrorbarContainer

    from headway._reproduction import Figures

    seen = {}
    save = Figures.save

    def keep(self, fig, name, title):
        seen[name] = any(
            any(isinstance(c, ErrorbarContainer) or (isinstance(c, BarContainer) and c.errorbar is not None)
                for c in ax.containers) or any(isinstance(c, PolyCollection) for c in ax.collections)
            for ax in fig.axes)
        save(self, fig, name, title)

    monkeypatch.setattr(Figures, "save", keep)
    runs[0].plot(tmp_path)
    assert seen and all(seen.values()), seen


HP = SHARED / "reference" / "traces" / "hplajw" / "ajw.1week.srt"


@pytest.mark.skipif(not HP.is_file(),
                    reason="the HP trace (reference/traces/hplajw) is not in the reference data")
def test_flash_backed_finds_the_hp_trace_from_another_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "HEADWAY_SHARED"}
    found = subprocess.run(
        [sys.executable, "-c",
         "from headway.flash_backed import default_hp_trace; print(default_hp_trace())"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert found != "None" and os.path.samefile(found, HP)
