"""The rebuild study (``headway reproduce rebuild``): every policy rebuilds every row, the
rate policy's rebuild time is the hand-computed one, a faster rate costs the foreground
more, and the tables, headline and figure are written."""

from __future__ import annotations

import doctest
import json

import pytest
from click.testing import CliRunner

import headway
import headway.rebuild as rb
from headway.cli import main


@pytest.fixture(scope="module")
def quick():
    return rb.reproduce(quick=True, seeds=1, progress=False)


def test_every_policy_rebuilds_every_row(quick):
    p = quick.policies.set_index(["policy", quick.policies.rate_mb_s.fillna(0)])
    assert set(quick.policies.policy) == {"none", "rate", "idle", "freeblock", "freeblock+idle",
                                          "rate+spare-idle", "freeblock+spare-idle", "scrub-idle"}
    for (policy, _), row in p.iterrows():
        assert row.rows_fraction == (0.0 if policy == "none" else 1.0), policy


def test_held_spare_writes_and_the_idle_scrub_are_rows_of_the_table(quick):
    p = quick.policies
    held = p[p.policy == "rate+spare-idle"].iloc[0]
    # The fastest rate, its spare writes held: every row written, no sooner than the rate
    # allows (100 rows of 64 sectors at 4 MB/s: 0.82 s).
    assert held.rate_mb_s == 4.0
    assert held.rebuild_s >= rb.QUICK["rows"] * 64 * 512 / 4e6 * 0.98
    scrub = p[p.policy == "scrub-idle"].iloc[0]
    assert scrub.rows_fraction == 1.0 and scrub.rebuild_s > 0


def test_the_pacing_keys_work_through_run_and_bad_ones_name_their_key():
    text = rb._system(20, 200, 'policy = "rate", rate_mb_s = 2.0, rate_window_steps = 1, '
                      'spare_writes = "idle", idle_ms = 1.0', False, False, 1)
    b = headway.run(text).arrays[0]["rebuild"]
    assert (b["rows_done"], b["rows_total"]) == (20, 20)
    bad = text.replace("rate_window_steps = 1", "rate_window_steps = 0")
    with pytest.raises(headway.ConfigError, match=r"arrays\[0\]\.rebuild\.rate_window_steps"):
        headway.run(bad)


def test_the_rate_sets_the_rebuild_time_and_a_faster_rate_costs_more(quick):
    rate = quick.policies[quick.policies.policy == "rate"].set_index("rate_mb_s")
    # 100 rows of 64 sectors at 1 MB/s: 3.2768 MB in 3.28 s from the failure.
    assert rate.rebuild_s[1.0] == pytest.approx(rb.QUICK["rows"] * 64 * 512 / 1e6, rel=0.02)
    assert rate.rebuild_s[4.0] < rate.rebuild_s[1.0]
    assert rate.response_increase[4.0] > rate.response_increase[1.0] > 0.0


def test_freeblock_costs_the_foreground_less_than_the_fastest_rate(quick):
    p = quick.policies
    free = p[p.policy == "freeblock"].iloc[0]
    fast = p[(p.policy == "rate") & (p.rate_mb_s == 4.0)].iloc[0]
    assert free.response_increase < fast.response_increase


def test_it_writes_the_table_headline_and_figure(quick, tmp_path):
    paths = {p.name for p in quick.write(tmp_path)}
    assert paths == {"policies.csv", "headline.json", "rebuild.png"}
    doc = json.loads((tmp_path / "headline.json").read_text())
    assert doc["options"]["seeds"] == [1]
    assert doc["headline"]["rate_1_rebuild_s"] > 0


def test_the_command_is_listed_and_refuses_what_it_cannot_do():
    runner = CliRunner()
    assert "rebuild" in runner.invoke(main, ["reproduce", "--help"]).output
    r = runner.invoke(main, ["reproduce", "rebuild", "--quick", "--dask", "local"])
    assert r.exit_code != 0 and "not supported" in r.output


def test_the_docstring_example_runs():
    assert doctest.testmod(rb, optionflags=doctest.ELLIPSIS).failed == 0
